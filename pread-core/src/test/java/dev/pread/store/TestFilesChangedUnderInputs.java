package dev.pread.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/**
 * Files changed under open inputs: truncated (bytes that still exist read correctly, reads past the
 * new end throw EOFException, never zeros or garbage), deleted (reads continue: POSIX semantics),
 * and replaced by an atomic rename (open inputs keep reading the old file).
 */
public class TestFilesChangedUnderInputs extends LuceneTestCase {

  private PreadDirectory newPread(Path root) throws IOException {
    int bufferSize = random().nextBoolean() ? PreadDirectory.DEFAULT_BUFFER_SIZE : 64 + random().nextInt(20_000);
    PreadDirectory dir = new PreadDirectory(root, FSLockFactory.getDefault(), bufferSize);
    assertTrue(dir.isNativePread());
    return dir;
  }

  private static Path real(Path p) {
    return Unwrappable.unwrapAll(p).toAbsolutePath();
  }

  /** Reads [pos, pos + len) of {@code in} by one of several methods. */
  /** Method 0 to 3: readBytes, positional readBytes, readByte, positional readByte. */
  private static byte[] read(IndexInput in, long pos, int len, int method) throws IOException {
    return TestContent.readBy(in, pos, len, method == 3 ? TestContent.RANDOM_ACCESS_BYTE : method);
  }

  public void testTruncatedWhileOpen() throws IOException {
    Path root = createTempDir();
    long seed = random().nextLong();
    int length = 200_000;
    Random r = new Random(random().nextLong());
    try (PreadDirectory dir = newPread(root)) {
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        long sliceBase = 1 + r.nextInt(1000);
        IndexInput slice = in.slice("s", sliceBase, length - sliceBase);
        int newLength = 1 + r.nextInt(length / 2);
        try (FileChannel ch = FileChannel.open(real(root).resolve("f"), StandardOpenOption.WRITE)) {
          ch.truncate(newLength);
        }
        long eofs = 0;
        long reads = 0;
        for (int i = 0; i < 2_000; i++) {
          boolean useSlice = r.nextInt(4) == 0;
          long base = useSlice ? sliceBase : 0;
          // A fresh clone: nothing buffered from before the truncation.
          IndexInput target = (useSlice ? slice : in).clone();
          long end = newLength - base; // the new end, in the target's coordinates
          int len = r.nextBoolean() ? 1 + r.nextInt(16) : 1 + r.nextInt(70_000);
          long pos =
              switch (r.nextInt(3)) {
                case 0 -> Math.max(0, end - len); // ends exactly at the new end
                case 1 -> Math.max(0, end - len + r.nextInt(2 * len)); // around it
                default -> r.nextLong(Math.max(1, target.length() - len));
              };
          if (pos < 0 || pos + len > target.length()) {
            continue;
          }
          int method = r.nextInt(4);
          if (method == 3 && len > 64) {
            len = 64;
          }
          if (pos + len <= end) {
            byte[] b = read(target, pos, len, method);
            assertEquals("read below the new end at " + pos, -1, TestContent.firstMismatch(seed, base + pos, b, 0, len));
            reads++;
          } else {
            int l = len;
            EOFException e = expectThrows(EOFException.class, () -> read(target, pos, l, method));
            if (method <= 1 && pos < end) {
              assertTrue(e.getMessage(), e.getMessage().contains("offset " + newLength));
            }
            eofs++;
            // The input still reads what exists.
            long p = r.nextLong(Math.max(1, Math.min(end, target.length())));
            if (p < end) {
              int l2 = (int) Math.min(100, end - p);
              assertEquals(-1, TestContent.firstMismatch(seed, base + p, read(target, p, l2, 0), 0, l2));
            }
          }
        }
        System.out.printf("truncated to %d of %d: %d reads below the new end correct, %d reads past it threw EOFException%n", newLength, length, reads, eofs);
        assertTrue(eofs > 100);
        assertTrue(reads > 100);
      }
    }
  }

  public void testDeletedWhileOpen() throws IOException {
    Path root = createTempDir();
    long seed = random().nextLong();
    int length = 100_000 + random().nextInt(100_000);
    try (PreadDirectory dir = newPread(root)) {
      TestContent.write(dir, "f", seed, length);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      dir.deleteFile("f");
      assertFalse(Files.exists(real(root).resolve("f")));
      expectThrows(NoSuchFileException.class, () -> dir.openInput("f", IOContext.DEFAULT));
      Random r = new Random(random().nextLong());
      for (int i = 0; i < 500; i++) {
        IndexInput target = r.nextBoolean() ? clone : in.slice("s", 0, length);
        long pos = r.nextInt(length);
        int len = (int) Math.min(length - pos, 1 + r.nextInt(40_000));
        assertEquals(-1, TestContent.firstMismatch(seed, pos, read(target, pos, len, r.nextInt(2)), 0, len));
      }
      // The deleted file's descriptor is the input's, and goes with it.
      assertEquals(1, OpenDescriptors.under(real(root)));
      in.close();
      assertEquals(0, OpenDescriptors.under(real(root)));
    }
  }

  public void testReplacedByRenameWhileOpen() throws IOException {
    Path root = createTempDir();
    long oldSeed = random().nextLong();
    long newSeed = oldSeed + 1;
    int oldLength = 150_000;
    int newLength = random().nextBoolean() ? 50_000 : 250_000;
    try (PreadDirectory dir = newPread(root)) {
      TestContent.write(dir, "f", oldSeed, oldLength);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput before = in.clone();
      TestContent.write(dir, "f.tmp", newSeed, newLength);
      Files.move(
          real(root).resolve("f.tmp"), real(root).resolve("f"),
          StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      IndexInput after = in.clone();
      try (IndexInput fresh = dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals(newLength, fresh.length());
        assertEquals(oldLength, in.length());
        Random r = new Random(random().nextLong());
        for (int i = 0; i < 500; i++) {
          long pos = r.nextInt(oldLength);
          int len = (int) Math.min(oldLength - pos, 1 + r.nextInt(40_000));
          int method = r.nextInt(2);
          for (IndexInput old : new IndexInput[] {in, before, after}) {
            assertEquals("the open input must keep the old file", -1,
                TestContent.firstMismatch(oldSeed, pos, read(old, pos, len, method), 0, len));
          }
          long npos = r.nextInt(newLength);
          int nlen = (int) Math.min(newLength - npos, len);
          assertEquals(-1, TestContent.firstMismatch(newSeed, npos, read(fresh, npos, nlen, method), 0, nlen));
        }
      }
      in.close();
      assertEquals(0, OpenDescriptors.under(real(root)));
    }
  }
}
