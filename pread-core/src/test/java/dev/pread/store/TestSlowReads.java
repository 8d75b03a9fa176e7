package dev.pread.store;

import dev.pread.nativeio.IoPriority;
import dev.pread.nativeio.NativeFile;
import java.nio.file.Path;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link SlowReads}: {@link SlowReads#SLOW_READS} reads slower than the bound within the window
 * make the reads of the next {@link SlowReads#HOLD_MILLIS} ms go first; fast reads, fewer slow
 * ones, or slow ones spread wider than the window change nothing; a page-cache source made for
 * queries reads the right bytes either way and gives the thread its priority back.
 */
public class TestSlowReads extends LuceneTestCase {
  private static final long MS = 1_000_000L;

  public void testSlowReadsWithinTheWindowTurnFirstOnForTheHold() {
    SlowReads slow = new SlowReads();
    long t = System.nanoTime();
    assertFalse("fast until slow reads", slow.first(t));
    long fast = SlowReads.SLOW_MICROS * 1000 - random().nextInt(1000);
    for (int i = 0; i < 10 * SlowReads.SLOW_READS; i++) {
      slow.record(t, t + fast);
    }
    assertFalse("fast reads change nothing", slow.first(t + fast));
    long took = SlowReads.SLOW_MICROS * 1000 + 1 + random().nextInt(10_000_000);
    long window = SlowReads.WINDOW_MILLIS * MS;
    long end = t + took;
    for (int i = 0; i < SlowReads.SLOW_READS - 1; i++) {
      end += random().nextLong(window / SlowReads.SLOW_READS);
      slow.record(end - took, end);
      assertFalse("fewer slow reads than the count change nothing", slow.first(end));
    }
    end += random().nextLong(window / SlowReads.SLOW_READS);
    slow.record(end - took, end);
    assertTrue("the count reached within the window", slow.first(end));
    long hold = SlowReads.HOLD_MILLIS * MS;
    assertTrue("still within the hold", slow.first(end + hold - 1));
    assertFalse("the hold is over", slow.first(end + hold));
    // another burst within the hold extends it
    long later = end + hold / 2;
    for (int i = 0; i < SlowReads.SLOW_READS; i++) {
      slow.record(later - took, later);
      later += 1 + random().nextLong(window / SlowReads.SLOW_READS);
    }
    later--;
    assertTrue(slow.first(end + hold));
    assertFalse(slow.first(later + hold + window));
  }

  public void testSlowReadsSpreadWiderThanTheWindowChangeNothing() {
    SlowReads slow = new SlowReads();
    long t = System.nanoTime();
    long took = SlowReads.SLOW_MICROS * 1000 + 1 + random().nextInt(10_000_000);
    long window = SlowReads.WINDOW_MILLIS * MS;
    long end = t + took;
    for (int i = 0; i < 5 * SlowReads.SLOW_READS; i++) {
      // each window gets SLOW_READS - 1 slow reads: the next falls just past the window they opened
      end += i % (SlowReads.SLOW_READS - 1) == 0 ? window + 1 + random().nextInt(1000) : random().nextInt(1000);
      slow.record(end - took, end);
      assertFalse("read " + i, slow.first(end));
    }
  }

  public void testReadsOfAQuerySourceAreRightAndGiveThePriorityBack() throws Exception {
    assumeTrue("native access is needed", dev.pread.nativeio.NativeAccess.isAvailable());
    Path dir = createTempDir();
    long seed = random().nextLong();
    int length = 1 + random().nextInt(300_000);
    try (FSDirectory d = new PreadDirectory(dir)) {
      TestContent.write(d, "f", seed, length);
    }
    SlowReads slow = new SlowReads();
    if (random().nextBoolean()) {
      long t = System.nanoTime();
      for (int i = 0; i < SlowReads.SLOW_READS; i++) {
        slow.record(t - SlowReads.SLOW_MICROS * 2000, t); // reads go first for the hold
      }
    }
    int before = IoPriority.current();
    try (NativeFile file = NativeFile.open(org.apache.lucene.util.Unwrappable.unwrapAll(dir.resolve("f")))) {
      PageCacheSource source = new PageCacheSource(file, slow);
      byte[] b = new byte[20_000];
      for (int i = 0; i < 200; i++) {
        long pos = random().nextInt(length);
        int max = (int) Math.min(b.length, length - pos);
        int n = source.readAtLeast(pos, b, 0, max, max);
        assertEquals(max, n);
        assertEquals("pos=" + pos, -1, TestContent.firstMismatch(seed, pos, b, 0, n));
        assertEquals("the thread has its priority back", before, IoPriority.current());
      }
    }
  }
}
