package dev.pread.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * Readers on clones and slices race against a thread that closes the input they read and at once
 * opens other files, so that the kernel hands the closed descriptor number to another file. Every
 * file has different content: a read through a reused descriptor would return another file's
 * bytes and is counted as wrong. Readers must see correct bytes or AlreadyClosedException.
 *
 * <p>The number of verified reads is {@code -Dpread.stress.reads} (the build sets 1,000,000).
 */
public class TestCloseRace extends LuceneTestCase {
  private static final int FILES = 8;
  private static final int FILE_LENGTH = 1 << 20;

  private record Current(IndexInput input, long seed) {}

  public void testReadersNeverSeeAnotherFilesBytes() throws Exception {
    long target = Long.getLong("pread.stress.reads", 200_000);
    int readers = 3;
    try (PreadDirectory dir =
        new PreadDirectory(createTempDir(), FSLockFactory.getDefault(), 1024 + random().nextInt(8192))) {
      assertTrue(dir.isNativePread());
      for (int i = 0; i < FILES; i++) {
        TestContent.write(dir, "f" + i, seedOf(i), FILE_LENGTH);
      }
      AtomicReference<Current> current =
          new AtomicReference<>(new Current(dir.openInput("f0", IOContext.DEFAULT), seedOf(0)));
      AtomicLong reads = new AtomicLong();
      AtomicLong wrong = new AtomicLong();
      AtomicLong closedSeen = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();

      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < readers; t++) {
        long threadSeed = random().nextLong();
        threads.add(
            new Thread(
                () -> {
                  try {
                    readLoop(new Random(threadSeed), current, reads, wrong, closedSeen, target);
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "reader-" + t));
      }
      threads.forEach(Thread::start);

      Random r = new Random(random().nextLong());
      long closes = 0;
      long churnOpens = 0;
      while (reads.get() < target && failure.get() == null) {
        // Let the readers get going on the current input, then close it under them.
        long until = reads.get() + 200 + r.nextInt(2000);
        while (reads.get() < until && failure.get() == null && anyAlive(threads)) {
          Thread.onSpinWait();
        }
        int next = r.nextInt(FILES);
        Current old = current.getAndSet(new Current(dir.openInput("f" + next, IOContext.DEFAULT), seedOf(next)));
        old.input().close();
        closes++;
        // Descriptor churn: these opens take the number just freed.
        int n = r.nextInt(4);
        for (int k = 0; k < n; k++) {
          int other = r.nextInt(FILES);
          try (IndexInput in = dir.openInput("f" + other, IOContext.DEFAULT)) {
            in.seek(8);
            assertEquals(TestContent.word(seedOf(other), 1), in.readLong());
          }
          churnOpens++;
        }
      }
      for (Thread t : threads) {
        t.join();
      }
      current.get().input().close();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      System.out.printf(
          "close race: %d verified reads, %d wrong, %d closes under readers, %d churn opens,"
              + " %d AlreadyClosedException seen by readers%n",
          reads.get(), wrong.get(), closes, churnOpens, closedSeen.get());
      assertEquals("reads that returned another file's bytes", 0, wrong.get());
      assertTrue(reads.get() >= target);
      assertTrue("the test must close inputs under readers", closes > 10);
      assertTrue("readers must meet closed inputs", closedSeen.get() > 0);
    }
  }

  private static boolean anyAlive(List<Thread> threads) {
    for (Thread t : threads) {
      if (t.isAlive()) {
        return true;
      }
    }
    return false;
  }

  private static long seedOf(int file) {
    return 0xF11E0000L + file;
  }

  private static void readLoop(
      Random r,
      AtomicReference<Current> current,
      AtomicLong reads,
      AtomicLong wrong,
      AtomicLong closedSeen,
      long target)
      throws IOException {
    byte[] b = new byte[16384];
    while (reads.get() < target) {
      Current cur = current.get();
      try {
        IndexInput in;
        long base;
        if (r.nextBoolean()) {
          in = cur.input().clone();
          base = 0;
        } else {
          base = r.nextInt(FILE_LENGTH / 2);
          in = cur.input().slice("slice", base, FILE_LENGTH - base);
        }
        long length = in.length();
        for (int i = 0; i < 64; i++) {
          long pos = r.nextLong(length - 8);
          long fileBase = base;
          switch (r.nextInt(3)) {
            case 0 -> {
              // Positional long: a buffer refill almost every time.
              long v = ((RandomAccessInput) in).readLong(pos);
              long expected = 0;
              for (int k = 7; k >= 0; k--) {
                expected = (expected << 8) | (TestContent.byteAt(cur.seed(), fileBase + pos + k) & 0xFF);
              }
              if (v != expected) {
                wrong.incrementAndGet();
              }
            }
            case 1 -> {
              // Large read: bypasses the buffer, one pread straight into the array.
              int len = (int) Math.min(b.length, length - pos);
              in.seek(pos);
              in.readBytes(b, 0, len);
              if (TestContent.firstMismatch(cur.seed(), fileBase + pos, b, 0, len) >= 0) {
                wrong.incrementAndGet();
              }
            }
            default -> {
              int len = 1 + r.nextInt(100);
              len = (int) Math.min(len, length - pos);
              in.seek(pos);
              in.readBytes(b, 0, len);
              if (TestContent.firstMismatch(cur.seed(), fileBase + pos, b, 0, len) >= 0) {
                wrong.incrementAndGet();
              }
            }
          }
          reads.incrementAndGet();
        }
      } catch (AlreadyClosedException e) {
        closedSeen.incrementAndGet();
      }
    }
  }
}
