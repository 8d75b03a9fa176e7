package dev.pread.store;

import dev.pread.nativeio.IoPriority;
import dev.pread.nativeio.NativeFile;
import java.nio.file.Path;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link SlowReads}: a read slower than the bound makes the reads of the next {@link
 * SlowReads#HOLD_MILLIS} ms go first, fast reads change nothing; a page-cache source made for
 * queries reads the right bytes either way and gives the thread its priority back.
 */
public class TestSlowReads extends LuceneTestCase {

  public void testASlowReadTurnsFirstOnForTheHold() {
    SlowReads slow = new SlowReads();
    long t = System.nanoTime();
    assertFalse("fast until a slow read", slow.first(t));
    long fast = SlowReads.SLOW_MICROS * 1000 - 1 - random().nextInt(1000);
    slow.record(t, t + fast);
    assertFalse("a fast read changes nothing", slow.first(t + fast));
    long took = SlowReads.SLOW_MICROS * 1000 + 1 + random().nextInt(10_000_000);
    long end = t + took;
    slow.record(t, end);
    assertTrue(slow.first(end));
    long hold = SlowReads.HOLD_MILLIS * 1_000_000L;
    assertTrue("still within the hold", slow.first(end + hold - 1));
    assertFalse("the hold is over", slow.first(end + hold));
    // another slow read within the hold extends it
    long later = end + hold / 2;
    slow.record(later - took, later);
    assertTrue(slow.first(end + hold));
    assertFalse(slow.first(later + hold));
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
      slow.record(t - SlowReads.SLOW_MICROS * 2000, t); // reads go first for the hold
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
