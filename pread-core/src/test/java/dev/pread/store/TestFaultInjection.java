package dev.pread.store;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/**
 * Faults injected into the native layer's real system-call paths (see {@code
 * dev.pread.nativeio.Faults}): EINTR and short reads are retried without the caller noticing;
 * EIO, EAGAIN, ENOMEM, EBADF and EMFILE become an IOException naming path, call, offset and errno;
 * after a failed read the input keeps returning correct bytes, and a failed open or close leaks no
 * descriptor.
 */
public class TestFaultInjection extends LuceneTestCase {
  private static final int LENGTH = 300_000;

  private PreadDirectory newPread(Path root) throws IOException {
    int bufferSize = random().nextBoolean() ? PreadDirectory.DEFAULT_BUFFER_SIZE : 64 + random().nextInt(20_000);
    PreadDirectory dir = new PreadDirectory(root, FSLockFactory.getDefault(), bufferSize);
    assertTrue(dir.isNativePread());
    return dir;
  }

  private static Path real(Path root) {
    return Unwrappable.unwrapAll(root).toAbsolutePath();
  }

  /** Reads [pos, pos + len) through a random read method and checks every byte. */
  private static void readAndCheck(IndexInput in, long seed, long base, long pos, int len, Random r) throws IOException {
    byte[] b = TestContent.readBy(in, pos, len, r.nextInt(4)); // readBytes, positional, readByte, readLong
    int bad = TestContent.firstMismatch(seed, base + pos, b, 0, len);
    assertEquals("wrong byte at " + (base + pos + Math.max(bad, 0)), -1, bad);
  }

  public void testEintrAndShortReadsAreInvisible() throws IOException {
    Path root = createTempDir();
    long seed = random().nextLong();
    long reads = 0;
    try (PreadDirectory dir = newPread(root);
        FaultInjection faults = FaultInjection.install(root)) {
      TestContent.write(dir, "f", seed, LENGTH);
      long s = random().nextLong();
      faults.random(Call.PREAD, 0.6, s, Kind.EINTR, Kind.SHORT_READ)
          .random(Call.OPEN, 0.5, s + 1, Kind.EINTR)
          .random(Call.STATX, 0.5, s + 2, Kind.EINTR)
          .random(Call.CLOSE, 0.5, s + 3, Kind.EINTR);
      Random r = new Random(random().nextLong());
      for (int i = 0; i < 200; i++) {
        try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
          IndexInput target = in;
          long base = 0;
          if (r.nextBoolean()) {
            base = r.nextInt(LENGTH / 2);
            target = in.slice("s", base, LENGTH - base);
          } else if (r.nextBoolean()) {
            target = in.clone();
          }
          for (int k = 0; k < 20; k++) {
            long length = target.length();
            long pos = r.nextLong(length);
            int len = (int) Math.min(length - pos, r.nextBoolean() ? 1 + r.nextInt(100) : 1 + r.nextInt(150_000));
            readAndCheck(target, seed, base, pos, len, r);
            reads++;
          }
        }
      }
      // Every pread comes back short: a 150 KB read takes many calls, each continuing the last.
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        faults.clearRules();
        faults.failNext(Call.PREAD, Kind.SHORT_READ, 1_000);
        long before = faults.injected(Call.PREAD, Kind.SHORT_READ);
        readAndCheck(in, seed, 0, 1000, 150_000, new Random(0)); // case 0: one readBytes
        assertTrue(faults.injected(Call.PREAD, Kind.SHORT_READ) - before >= 10);
        // A thousand EINTRs in a row on one pread.
        faults.failNext(Call.PREAD, Kind.EINTR, 1_000);
        before = faults.injected(Call.PREAD, Kind.EINTR);
        readAndCheck(in, seed, 0, 77, 10, new Random(0));
        assertEquals(1_000, faults.injected(Call.PREAD, Kind.EINTR) - before);
      }
      for (Call c : Call.values()) {
        assertTrue(c + "/EINTR injected", faults.injected(c, Kind.EINTR) > 0);
      }
      assertTrue(faults.injected(Call.PREAD, Kind.SHORT_READ) > 0);
      System.out.printf(
          "faults, transparent: %s; outcome: all %d reads correct, no exception%n", faults.summary(), reads);
    }
    assertEquals(0, OpenDescriptors.under(real(root)));
  }

  public void testReadErrorsNamePathCallOffsetAndErrno() throws IOException {
    Path root = createTempDir();
    Path file = real(root).resolve("f");
    long seed = random().nextLong();
    Random r = new Random(random().nextLong());
    StringBuilder outcomes = new StringBuilder();
    try (PreadDirectory dir = newPread(root);
        FaultInjection faults = FaultInjection.install(root)) {
      TestContent.write(dir, "f", seed, LENGTH);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        long base = 1 + r.nextInt(1000);
        IndexInput slice = in.slice("s", base, LENGTH - base);
        for (Kind kind : new Kind[] {Kind.EIO, Kind.EAGAIN, Kind.ENOMEM, Kind.EBADF}) {
          int surfaced = 0;
          for (int m5 = 0; m5 < 5; m5++) {
            int method = m5;
            long pos = r.nextInt(LENGTH / 2);
            faults.failNext(Call.PREAD, kind, 1);
            // A fresh clone: nothing buffered, so the read must call pread.
            IndexInput target = (method == 4 ? slice : in).clone();
            long fileOffset = (method == 4 ? base : 0) + pos;
            NativeIOException e =
                expectThrows(
                    NativeIOException.class,
                    () -> {
                      switch (method) {
                        case 0 -> { // buffered: a refill
                          target.seek(pos);
                          target.readByte();
                        }
                        case 1 -> { // large: straight into the caller's array
                          target.seek(pos);
                          target.readBytes(new byte[100_000], 0, 100_000);
                        }
                        case 2 -> ((RandomAccessInput) target).readLong(pos);
                        case 3 -> ((RandomAccessInput) target).readBytes(pos, new byte[70_000], 0, 70_000);
                        default -> {
                          target.seek(pos);
                          target.readInt();
                        }
                      }
                    });
            String m = e.getMessage();
            assertTrue(m, m.contains(file.toString()));
            assertTrue(m, m.contains("pread failed at offset " + fileOffset));
            assertTrue(m, m.contains(kind.name() + " ("));
            assertEquals(kind.errno, e.errno());
            assertEquals("pread", e.operation());
            assertEquals(fileOffset, e.offset());
            // The input is still usable, and the same read now returns the right bytes.
            readAndCheck(target, seed, method == 4 ? base : 0, pos, 1 + r.nextInt(20_000), r);
            if (method == 2) {
              assertEquals(TestContent.littleEndian(seed, pos, 8), ((RandomAccessInput) target).readLong(pos));
            }
            readAndCheck(in.clone(), seed, 0, pos, 100, r);
            surfaced++;
          }
          assertEquals(5, faults.injected(Call.PREAD, kind));
          outcomes.append(' ').append(kind).append('=').append(surfaced);
        }
      }
    }
    assertEquals(0, OpenDescriptors.under(real(root)));
    System.out.println(
        "faults, pread errors: IOException naming path, pread, offset and errno, then correct re-reads:" + outcomes);
  }

  public void testOpenAndStatxErrorsLeakNoDescriptor() throws IOException {
    Path root = createTempDir();
    Path file = real(root).resolve("f");
    try (PreadDirectory dir = newPread(root);
        FaultInjection faults = FaultInjection.install(root)) {
      TestContent.write(dir, "f", 1, 1000);
      record Case(Call call, Kind kind, String text) {}
      for (Case c :
          new Case[] {
            new Case(Call.OPEN, Kind.EMFILE, "open failed: EMFILE (Too many open files)"),
            new Case(Call.OPEN, Kind.ENOMEM, "open failed: ENOMEM"),
            new Case(Call.OPEN, Kind.EIO, "open failed: EIO"),
            new Case(Call.STATX, Kind.EIO, "statx failed: EIO"),
            new Case(Call.STATX, Kind.ENOMEM, "statx failed: ENOMEM"),
            new Case(Call.STATX, Kind.EBADF, "statx failed: EBADF"),
          }) {
        faults.failNext(c.call, c.kind, 1);
        NativeIOException e = expectThrows(NativeIOException.class, () -> dir.openInput("f", IOContext.DEFAULT));
        assertTrue(e.getMessage(), e.getMessage().contains(file.toString()));
        assertTrue(e.getMessage(), e.getMessage().contains(c.text));
        assertEquals(c.kind.errno, e.errno());
        // statx fails after open succeeded: that descriptor must have been closed.
        assertEquals(c.toString(), 0, OpenDescriptors.under(real(root)));
        try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
          assertEquals(TestContent.word(1, 3), readLongAt(in, 24));
        }
      }
      System.out.println("faults, open/statx errors: " + faults.summary() + "; each an IOException naming path and errno, no descriptor left, next open works");
    }
  }

  private static long readLongAt(IndexInput in, long pos) throws IOException {
    in.seek(pos);
    return in.readLong();
  }

  public void testCloseErrorStillClosesAndReleasesTheDescriptor() throws IOException {
    Path root = createTempDir();
    Path file = real(root).resolve("f");
    try (PreadDirectory dir = newPread(root);
        FaultInjection faults = FaultInjection.install(root)) {
      TestContent.write(dir, "f", 2, 10_000);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      clone.readByte();
      assertEquals(1, OpenDescriptors.under(real(root)));
      faults.failNext(Call.CLOSE, Kind.EIO, 1);
      NativeIOException e = expectThrows(NativeIOException.class, in::close);
      assertTrue(e.getMessage(), e.getMessage().contains(file.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("close failed: EIO"));
      // Linux releases the descriptor even when close reports an error: nothing is retried.
      assertEquals(0, OpenDescriptors.under(real(root)));
      expectThrows(AlreadyClosedException.class, in::readByte);
      expectThrows(AlreadyClosedException.class, clone::readByte);
      in.close(); // harmless, and does not close again
      assertEquals(1, faults.injected(Call.CLOSE, Kind.EIO));
    }
  }
}
