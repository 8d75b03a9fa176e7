package dev.pread.cache;

import java.util.concurrent.atomic.LongAdder;

/** The cache's event counts. Striped counters: an increment takes no lock and allocates nothing. */
final class CacheCounters {
  final LongAdder hits = new LongAdder();
  final LongAdder misses = new LongAdder();
  final LongAdder evictions = new LongAdder();
  final LongAdder bytesRead = new LongAdder();
  final LongAdder pageCacheBytes = new LongAdder();
  final LongAdder readAround = new LongAdder();
  final LongAdder rejected = new LongAdder();
  final LongAdder prefetchSubmitted = new LongAdder();
  final LongAdder prefetchDeduplicated = new LongAdder();
  final LongAdder prefetchDropped = new LongAdder();
  final LongAdder loadFailures = new LongAdder();
}
