package dev.pread.store;

import dev.pread.nativeio.IoPriority;
import java.io.IOException;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link IdleSource}: its source reads with the thread in the idle I/O class, and the thread has
 * its class back afterwards, after a failed read too. Skips, saying why, where the kernel gives no
 * I/O priority.
 */
public class TestIdleSource extends LuceneTestCase {

  /** A source that records the thread's I/O priority during its read, and fails if told to. */
  private static final class Recording implements InputSource {
    int seen = -2;
    boolean fail;

    @Override
    public int minRefill() {
      return 64;
    }

    @Override
    public long size() {
      return 100;
    }

    @Override
    public boolean isClosed() {
      return false;
    }

    @Override
    public int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException {
      seen = IoPriority.current();
      if (fail) {
        throw new IOException("injected");
      }
      dst[offset] = 42;
      return min;
    }

    @Override
    public void prefetch(long position, long length) {}

    @Override
    public void close() {}
  }

  public void testReadsAreIdleAndThePriorityComesBack() throws IOException {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    int previous = IoPriority.enterIdle();
    IoPriority.restore(previous);
    assumeTrue("the kernel refused the idle I/O class", previous != IoPriority.UNCHANGED);

    Recording source = new Recording();
    IdleSource idle = new IdleSource(source);
    assertEquals(64, idle.minRefill());
    assertEquals(100, idle.size());
    byte[] b = new byte[1];
    assertEquals(1, idle.readAtLeast(0, b, 0, 1, 1));
    assertEquals(42, b[0]);
    assertNotEquals("read in the idle class", before, source.seen);
    assertEquals(before, IoPriority.current());
    source.fail = true;
    expectThrows(IOException.class, () -> idle.readAtLeast(0, b, 0, 1, 1));
    assertEquals("the class is given back after a failed read", before, IoPriority.current());
  }
}
