package dev.pread.cache;

import com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.QuickPatchThreadsFilter;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/**
 * The cache's JFR events, recorded and read back: one {@code dev.pread.cache.BlockLoad} per read
 * from storage (demand, prefetch, read-around, failed), with its file, offset, bytes and blocks;
 * and {@code dev.pread.cache.Statistics} carrying the counters of {@link BlockCache#stats()}.
 */
@ThreadLeakFilters(defaultFilters = true, filters = {QuickPatchThreadsFilter.class, JfrThreadsFilter.class})
public class TestBlockCacheEvents extends LuceneTestCase {
  private static final String LOAD = "dev.pread.cache.BlockLoad";
  private static final String STATISTICS = "dev.pread.cache.Statistics";

  private List<RecordedEvent> dump(Recording recording) throws IOException {
    Path file = Unwrappable.unwrapAll(createTempDir()).toAbsolutePath().resolve("events.jfr");
    recording.dump(file);
    return RecordingFile.readAllEvents(file);
  }

  private static List<RecordedEvent> loads(List<RecordedEvent> events, Path path) {
    return events.stream()
        .filter(e -> e.getEventType().getName().equals(LOAD) && e.getString("path").equals(path.toString()))
        .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime()))
        .toList();
  }

  public void testBlockLoadEvents() throws Exception {
    int block = 1 << TestUtil.nextInt(random(), 12, 14);
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 100L * block + 10);
    Path q = Content.write(dir, "g", seed + 1, 10L * block);
    int n = TestUtil.nextInt(random(), 2, 30);
    List<RecordedEvent> events;
    BlockCacheStats stats;
    try (Recording recording = new Recording()) {
      recording.enable(LOAD).withoutThreshold();
      recording.start();
      try (BlockCache cache = BlockCache.builder(128L * block).blockSize(block).prefetchThreads(1).build();
          CachedFile f = cache.open(p);
          CachedFile around = cache.open(q, false)) {
        byte[] b = new byte[n * block];
        // Demand: one read of n missing blocks, starting and ending inside blocks.
        f.read(5L * block + 1, b, 0, n * block - 2);
        f.read(5L * block, b, 0, n * block); // hits: no event
        // Read-around: 3 blocks in one read.
        around.read(2L * block + 7, b, 0, 2 * block);
        // Prefetch: blocks 60..69 in one load.
        f.prefetch(60L * block, 10L * block);
        Content.awaitPrefetches(cache);
        // The last, partial block.
        f.read(100L * block, b, 0, 10);
        // A failed load.
        try (FaultInjection faults = FaultInjection.install(dir)) {
          faults.failNext(Call.PREAD, Kind.EIO, 1);
          expectThrows(NativeIOException.class, () -> f.read(80L * block, b, 0, 2 * block));
        }
        stats = cache.stats();
      }
      recording.stop();
      events = dump(recording);
    }
    List<RecordedEvent> ofP = loads(events, p);
    assertEquals(ofP.toString(), 4, ofP.size());
    RecordedEvent demand = ofP.get(0);
    assertEquals("demand", demand.getString("kind"));
    assertEquals(5L * block, demand.getLong("offset"));
    assertEquals(n, demand.getInt("blocks"));
    assertEquals((long) n * block, demand.getLong("bytes"));
    assertFalse(demand.getBoolean("failed"));

    RecordedEvent prefetch = ofP.get(1);
    assertEquals("prefetch", prefetch.getString("kind"));
    assertEquals(60L * block, prefetch.getLong("offset"));
    assertEquals(10, prefetch.getInt("blocks"));
    assertEquals(10L * block, prefetch.getLong("bytes"));

    RecordedEvent last = ofP.get(2);
    assertEquals(100L * block, last.getLong("offset"));
    assertEquals(1, last.getInt("blocks"));
    assertEquals(10, last.getLong("bytes"));

    RecordedEvent failed = ofP.get(3);
    assertTrue(failed.getBoolean("failed"));
    assertEquals(80L * block, failed.getLong("offset"));
    assertEquals(2, failed.getInt("blocks"));
    assertEquals(0, failed.getLong("bytes"));

    List<RecordedEvent> ofQ = loads(events, q);
    assertEquals(ofQ.toString(), 1, ofQ.size());
    assertEquals("read-around", ofQ.get(0).getString("kind"));
    assertEquals(2L * block, ofQ.get(0).getLong("offset"));
    assertEquals(3, ofQ.get(0).getInt("blocks"));
    // Of the three blocks, only the direct-I/O units holding the bytes copied are read.
    int unit;
    try (dev.pread.nativeio.NativeFile file = dev.pread.nativeio.NativeFile.open(q)) {
      unit = Math.max(4096, file.directOffsetAlignment());
    }
    long aroundBytes = Integer.bitCount(unit) == 1 && unit < block ? 2L * block + unit : 3L * block;
    assertEquals(aroundBytes, ofQ.get(0).getLong("bytes"));

    // The events add up to the counters.
    long bytes = 0;
    for (RecordedEvent e : events) {
      if (e.getEventType().getName().equals(LOAD)) {
        bytes += e.getLong("bytes");
      }
    }
    assertEquals(stats.toString(), stats.bytesRead(), bytes);
    assertEquals("the failed load's blocks count as misses: " + stats, n + 3, stats.misses());
    assertEquals(stats.toString(), 1, stats.loadFailures());
    assertEquals(stats.toString(), 3, stats.readAround());
    assertEquals(stats.toString(), 10, stats.prefetchSubmitted());
  }

  /**
   * Statistics events, at the end of the recording's chunk (a deterministic moment): one per open
   * cache, with its name, budget and counters equal to {@link BlockCache#stats()}; none for a closed
   * cache. The event's declared period is checked too.
   */
  public void testStatisticsEvents() throws Exception {
    int block = 4096;
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 1, 20L * block);
    String name = "stats-" + random().nextInt(1_000_000);
    List<RecordedEvent> events;
    BlockCacheStats expected;
    try (Recording recording = new Recording()) {
      recording.enable(STATISTICS).with("period", "endChunk");
      try (BlockCache closedBefore = BlockCache.builder(8L * block).blockSize(block).name(name + "-closed").build()) {
        assertNotNull(closedBefore);
      }
      try (BlockCache cache = BlockCache.builder(8L * block + 5).blockSize(block).name(name).prefetchThreads(1)
              .frequencyAdmission(false) // scripted evictions: CLOCK alone
              .build();
          CachedFile f = cache.open(p);
          CachedFile around = cache.open(p, false)) {
        recording.start();
        byte[] b = new byte[block];
        for (int i = 0; i < 12; i++) {
          f.read((long) i * block, b, 0, 10);
          f.read((long) i * block + 20, b, 0, 10);
        }
        around.read(15L * block, b, 0, 10);
        f.prefetch(0, 3L * block); // evicted: loads again
        f.prefetch(10L * block, 2L * block); // cached: deduplicated
        Content.awaitPrefetches(cache);
        expected = cache.stats();
        recording.stop(); // ends the chunk while the cache is open
      }
      events = dump(recording);
    }
    List<RecordedEvent> ours =
        events.stream()
            .filter(e -> e.getEventType().getName().equals(STATISTICS) && e.getString("cache").startsWith(name))
            .toList();
    assertEquals(ours.toString(), 1, ours.size());
    RecordedEvent e = ours.get(0);
    assertEquals(name, e.getString("cache"));
    assertEquals(8L * block + 5, e.getLong("budget"));
    assertEquals(expected.hits(), e.getLong("hits"));
    assertEquals(expected.misses(), e.getLong("misses"));
    assertEquals(expected.evictions(), e.getLong("evictions"));
    assertEquals(expected.bytesRead(), e.getLong("bytesRead"));
    assertEquals(expected.readAround(), e.getLong("readAround"));
    assertEquals(expected.prefetchSubmitted(), e.getLong("prefetchSubmitted"));
    assertEquals(expected.prefetchDeduplicated(), e.getLong("prefetchDeduplicated"));
    assertEquals(expected.prefetchDropped(), e.getLong("prefetchDropped"));
    assertEquals(0, e.getInt("prefetchInFlight"));
    assertEquals(expected.loadFailures(), e.getLong("loadFailures"));
    assertEquals(expected.residentBytes(), e.getLong("residentBytes"));
    // The counters themselves, for this script.
    assertEquals(expected.toString(), 12, expected.hits());
    assertEquals(expected.toString(), 12, expected.misses());
    assertEquals(expected.toString(), 1, expected.readAround());
    assertEquals(expected.toString(), 3, expected.prefetchSubmitted());
    assertEquals(expected.toString(), 2, expected.prefetchDeduplicated());
    assertEquals(expected.toString(), 7, expected.evictions());
    assertEquals(expected.toString(), 0.5, expected.hitRatio(), 0);
    assertEquals(expected.toString(), 8L * block, expected.residentBytes());

    jdk.jfr.EventType type = jdk.jfr.EventType.getEventType(BlockCacheStatisticsEvent.class);
    assertEquals(STATISTICS, type.getName());
    assertTrue(type.getSettingDescriptors().stream().anyMatch(d -> d.getName().equals("period") && d.getDefaultValue().equals("1 s")));
  }
}
