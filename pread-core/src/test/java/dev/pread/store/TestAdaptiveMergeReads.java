package dev.pread.store;

import com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters;
import dev.pread.cache.JfrThreadsFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MergeInfo;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.QuickPatchThreadsFilter;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/**
 * While queries read the block cache, merges and read-once inputs read around it in pieces that
 * grow to {@link AdaptiveFile#AROUND_CACHE_BUFFER_SIZE} while they read on sequentially, and start
 * small again after a jump: a merge in the idle I/O class waits for the disk once per piece. Seen
 * through the {@code dev.pread.cache.BlockLoad} JFR event of each read around the cache.
 */
@ThreadLeakFilters(defaultFilters = true, filters = {QuickPatchThreadsFilter.class, JfrThreadsFilter.class})
public class TestAdaptiveMergeReads extends LuceneTestCase {

  public void testSequentialReadsAroundTheCacheGrowToTheBufferAndAJumpStartsSmall() throws Exception {
    int buffer = AdaptiveFile.AROUND_CACHE_BUFFER_SIZE;
    int pieces = TestUtil.nextInt(random(), 4, 8);
    int size = buffer * pieces + random().nextInt(10_000);
    byte[] content = new byte[size];
    new Random(random().nextLong()).nextBytes(content);
    Path dir = createTempDir("index");
    Path f = dir.resolve("f");
    Files.write(f, content);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 1 << 20);
    List<RecordedEvent> events;
    // before the last two buffers' worth, so that the jump leaves what the input holds
    int jump = random().nextInt(size - 2 * buffer);
    try (Recording recording = new Recording()) {
      recording.enable("dev.pread.cache.BlockLoad").withoutThreshold();
      recording.start();
      try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
          IndexInput merge = d.openInput("f", random().nextBoolean() ? IOContext.READONCE
              : IOContext.merge(new MergeInfo(10, size, false, 1)))) {
        byte[] got = new byte[size];
        int at = 0;
        while (at < size) { // small sequential reads, as a codec's checksum pass or a merge's copy
          int n = Math.min(size - at, 1 + random().nextInt(4096));
          merge.readBytes(got, at, n);
          at += n;
        }
        assertArrayEquals(content, got);
        merge.seek(jump);
        assertEquals(content[jump], merge.readByte());
        assertEquals(AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
      }
      recording.stop();
      Path file = Unwrappable.unwrapAll(createTempDir()).toAbsolutePath().resolve("events.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }
    // one thread made every read, one after another; a recording need not list them in that order
    events = new ArrayList<>(events);
    events.sort(Comparator.comparing(RecordedEvent::getStartTime));
    List<Long> reads = new ArrayList<>();
    RecordedEvent lastEvent = null;
    for (RecordedEvent e : events) {
      if (e.getEventType().getName().equals("dev.pread.cache.BlockLoad") && e.getString("path").equals(f.toString())) {
        assertEquals("a merge's read is a read around the cache: " + e, "read-around", e.getString("kind"));
        reads.add(e.getLong("bytes"));
        lastEvent = e;
      }
    }
    assertFalse("reads around the cache were recorded", reads.isEmpty());
    long largest = reads.stream().mapToLong(Long::longValue).max().getAsLong();
    assertTrue("sequential refills grow to the buffer: " + reads, largest >= buffer);
    // from a small first refill, doubling reaches the buffer in at most 12 refills; after that each
    // read is a buffer's worth, however small the reads the merge makes
    assertTrue("few reads for " + size + " bytes: " + reads, reads.size() <= pieces + 1 + 12 + 1);
    long last = reads.get(reads.size() - 1);
    long offset = lastEvent.getLong("offset");
    assertTrue("the last read is the jump's: " + lastEvent, offset <= jump && jump < offset + last);
    assertTrue("the refill after a jump reads little: " + reads, last <= 2L * AdaptiveRegime.CACHE_BLOCK_SIZE);
  }
}
