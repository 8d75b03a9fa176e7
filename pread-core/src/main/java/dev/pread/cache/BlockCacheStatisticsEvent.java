package dev.pread.cache;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/** JFR: each open cache's counters (see {@link BlockCacheStats}), once a second by default. */
@Name("dev.pread.cache.Statistics")
@Label("Block Cache Statistics")
@Category({"pread", "Block Cache"})
@Description("Counters of an open block cache since it was created")
@Period("1 s")
@StackTrace(false)
final class BlockCacheStatisticsEvent extends jdk.jfr.Event {
  @Label("Cache")
  String cache;

  @Label("Budget")
  @DataAmount
  long budget;

  @Label("Hits")
  long hits;

  @Label("Misses")
  long misses;

  @Label("Evictions")
  long evictions;

  @Label("Bytes Read")
  @DataAmount
  long bytesRead;

  @Label("Read Around")
  long readAround;

  @Label("Rejected")
  long rejected;

  @Label("Prefetch Submitted")
  long prefetchSubmitted;

  @Label("Prefetch Deduplicated")
  long prefetchDeduplicated;

  @Label("Prefetch Dropped")
  long prefetchDropped;

  @Label("Prefetch In Flight")
  int prefetchInFlight;

  @Label("Load Failures")
  long loadFailures;

  @Label("Resident")
  @DataAmount
  long residentBytes;
}
