package dev.pread.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/** Semantics of PreadIndexInput that Lucene's conformance suite does not pin down. */
public class TestPreadIndexInput extends LuceneTestCase {

  private PreadDirectory newPread(Path path) throws IOException {
    int bufferSize = random().nextBoolean() ? PreadDirectory.DEFAULT_BUFFER_SIZE : 64 + random().nextInt(9000);
    PreadDirectory dir = new PreadDirectory(path, FSLockFactory.getDefault(), bufferSize);
    assertTrue(dir.isNativePread());
    return dir;
  }

  public void testRandomReadsMatchContent() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      long seed = random().nextLong();
      int length = 1 + random().nextInt(200_000);
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals(length, in.length());
        byte[] b = new byte[70_000];
        for (int i = 0; i < 2000; i++) {
          long pos = random().nextInt(length);
          int len = random().nextInt((int) Math.min(b.length, length - pos) + 1);
          int op = random().nextInt(3);
          IndexInput target = op == 0 ? in : in.clone();
          switch (op) {
            case 0, 1 -> {
              target.seek(pos);
              target.readBytes(b, 0, len);
              assertEquals(pos + len, target.getFilePointer());
            }
            default -> ((RandomAccessInput) target).readBytes(pos, b, 0, len);
          }
          assertEquals("pos=" + pos + " len=" + len, -1, TestContent.firstMismatch(seed, pos, b, 0, len));
        }
      }
    }
  }

  /**
   * A bad array range, a negative length included, is refused with IndexOutOfBoundsException, as
   * MMapDirectory's inputs refuse it (Lucene's BufferedIndexInput reads nothing for a negative
   * length), and the file pointer does not move; on a closed input AlreadyClosedException comes first.
   */
  public void testBadArrayRangesAreRefused() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      checkBadArrayRanges(dir);
    }
  }

  /** The same through CachedPreadDirectory's inputs. */
  public void testBadArrayRangesAreRefusedThroughTheCache() throws IOException {
    try (dev.pread.cache.BlockCache cache = dev.pread.cache.BlockCache.builder(1 << 20).build();
        CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir(), FSLockFactory.getDefault(), cache)) {
      checkBadArrayRanges(dir);
    }
  }

  private static void checkBadArrayRanges(org.apache.lucene.store.FSDirectory dir) throws IOException {
    {
      TestContent.write(dir, "f", random().nextLong(), 1 + random().nextInt(50_000));
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      RandomAccessInput ra = (RandomAccessInput) in;
      byte[] b = new byte[16];
      in.seek(in.length() / 2);
      long at = in.getFilePointer();
      for (int[] bad : new int[][] {{0, -1}, {4, -3}, {-1, 2}, {10, 7}, {17, 0}}) {
        expectThrows(IndexOutOfBoundsException.class, () -> in.readBytes(b, bad[0], bad[1]));
        assertEquals(at, in.getFilePointer());
        expectThrows(IndexOutOfBoundsException.class, () -> ra.readBytes(at, b, bad[0], bad[1]));
      }
      in.close();
      expectThrows(AlreadyClosedException.class, () -> in.readBytes(b, 4, -3));
      expectThrows(AlreadyClosedException.class, () -> ra.readBytes(0, b, 4, -3));
    }
  }

  /** Sequential reads of mixed sizes while refills grow; every byte checked. */
  public void testSequentialScanWithGrowingRefills() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      long seed = random().nextLong();
      int length = 1 + random().nextInt(500_000);
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        byte[] b = new byte[40_000];
        long pos = 0;
        while (pos < length) {
          if (random().nextInt(50) == 0) {
            pos = random().nextInt(length);
            in.seek(pos);
          }
          int len = (int) Math.min(length - pos, random().nextInt(10) == 0 ? random().nextInt(b.length) : 1 + random().nextInt(16));
          if (len == 1) {
            b[0] = in.readByte();
          } else {
            in.readBytes(b, 0, len);
          }
          assertEquals("pos=" + pos + " len=" + len, -1, TestContent.firstMismatch(seed, pos, b, 0, len));
          pos += len;
          assertEquals(pos, in.getFilePointer());
        }
      }
    }
  }

  /**
   * From the page cache refills start at 1 KiB after a jump (nothing learned yet) and grow
   * four-fold while reads stay sequential, up to the buffer.
   */
  public void testRefillsGrowWhileSequential() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = 8;
      TestContent.write(dir, "f", seed, 200_000);
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        List<Integer> sizes = new ArrayList<>();
        long pos = 0;
        for (int i = 0; i < 6; i++) {
          in.seek(pos);
          assertEquals(TestContent.byteAt(seed, pos), in.readByte()); // one refill here
          sizes.add(in.refillSize());
          pos += in.refillSize(); // the next refill continues where this one ended
        }
        assertEquals(List.of(1024, 4096, 16384, 16384, 16384, 16384), sizes);
        in.seek(150_000);
        in.readByte();
        assertEquals("a jump starts over (the run just ended counts from the next jump on)", 1024, in.refillSize());
      }
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        // Small readBytes calls through the buffer follow the same schedule.
        byte[] b = new byte[100];
        in.seek(0);
        in.readBytes(b, 0, b.length);
        assertEquals(1024, in.refillSize());
        for (int i = 0; i < 11; i++) {
          in.readBytes(b, 0, b.length); // crosses into the second refill
        }
        assertEquals(4096, in.refillSize());
        assertEquals(-1, TestContent.firstMismatch(seed, 1100, b, 0, b.length));
      }
    }
  }

  /**
   * Reads a run of {@code run} bytes from a random position, in pieces of random sizes, checking
   * every byte; returns the size of the first refill the jump to that position made.
   */
  private static int readRun(PreadIndexInput in, long seed, int run) throws IOException {
    long last = in.getFilePointer();
    long start;
    do { // far from where the last run ended, so that the seek leaves the buffer and the read refills
      start = random().nextInt((int) (in.length() - run));
    } while (Math.abs(start - last) < 4 * PreadDirectory.DEFAULT_BUFFER_SIZE);
    in.seek(start);
    byte[] b = new byte[run];
    int first = -1;
    for (int done = 0; done < run; ) {
      int n = Math.min(run - done, 1 + random().nextInt(300));
      in.readBytes(b, done, n);
      if (first < 0) {
        first = in.refillSize();
      }
      done += n;
    }
    assertEquals(-1, TestContent.firstMismatch(seed, start, b, 0, run));
    return first;
  }

  /**
   * From the page cache, the first refill after a jump grows to cover the runs a file is read in
   * after its jumps, and shrinks back when the runs get short; clones share what was learned, a
   * slice learns its own.
   */
  public void testFirstRefillFollowsTheRunsAfterJumps() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = random().nextLong();
      TestContent.write(dir, "f", seed, 1 << 20);
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals("nothing learned yet", 1024, readRun(in, seed, 10_000));
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          firsts.add(readRun(in, seed, 10_000));
        }
        int learned = firsts.getLast();
        assertTrue("runs of 10,000 bytes: a first refill that holds each, an eighth of a power of two more at most; " + firsts,
            learned >= 10_000 && learned <= 10_907);
        IndexInput clone = in.clone();
        ((PreadIndexInput) clone).seek(500_000);
        clone.readByte();
        int cloned = ((PreadIndexInput) clone).refillSize();
        assertEquals("a clone shares what was learned", learned, cloned);
        try (IndexInput slice = in.slice("part", 4096, 500_000)) {
          slice.seek(1000);
          slice.readByte();
          assertEquals("a slice learns its own", 1024, ((PreadIndexInput) slice).refillSize());
        }
        firsts.clear();
        for (int i = 0; i < 60; i++) {
          firsts.add(readRun(in, seed, 1 + random().nextInt(500)));
        }
        assertTrue("short runs: back to the smallest refill, within 10%; " + firsts, firsts.getLast() <= 1126);
      }
    }
  }

  /**
   * Reads as a stored document's fetch does: {@code head} bytes at {@code start} (a block's header
   * and dictionary), then {@code tail} bytes {@code skip} bytes further on (the document, past the
   * sub-blocks before it), checking every byte.
   */
  private static void fetch(PreadIndexInput in, long seed, long start, int head, int skip, int tail) throws IOException {
    byte[] b = new byte[Math.max(head, tail)];
    in.seek(start);
    in.readBytes(b, 0, head);
    assertEquals(-1, TestContent.firstMismatch(seed, start, b, 0, head));
    in.seek(start + skip);
    in.readBytes(b, 0, tail);
    assertEquals(-1, TestContent.firstMismatch(seed, start + skip, b, 0, tail));
  }

  /**
   * A forward skip that one refill of the buffer's size from the run's start would have covered
   * belongs to the run: once learned, the first refill holds the whole fetch, one physical read.
   * A skip beyond the buffer starts a run of its own.
   */
  public void testSkipsWithinTheBufferBelongToTheRun() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = random().nextLong();
      TestContent.write(dir, "f", seed, 1 << 20);
      int buffer = PreadDirectory.DEFAULT_BUFFER_SIZE;
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        for (int i = 0; i < 30; i++) {
          fetch(in, seed, 65_536L * (i % 14) + random().nextInt(1000), 3000, 12_000, 4000);
        }
        long start = 15 * 65_536L;
        fetch(in, seed, start, 3000, 12_000, 4000);
        assertTrue("the first refill holds the fetch's 16,000 bytes: " + in.refillSize(), in.refillSize() >= 16_000 && in.refillSize() <= buffer);
        assertEquals("the document came from the same refill", start, in.heldStart());
      }
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        for (int i = 0; i < 30; i++) {
          fetch(in, seed, 65_536L * (i % 14) + random().nextInt(1000), 3000, buffer + 1000, 4000);
        }
        long start = 15 * 65_536L;
        fetch(in, seed, start, 3000, buffer + 1000, 4000);
        assertEquals("two runs of 3,000 and 4,000 bytes: 4 KiB covers both", 4096, in.refillSize());
        assertEquals("the document took a read of its own", start + buffer + 1000, in.heldStart());
      }
    }
  }

  /** One long scan among short runs does not move the first refill: it weighs a sixteenth. */
  public void testOneLongScanDoesNotSwayTheFirstRefill() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = random().nextLong();
      TestContent.write(dir, "f", seed, 1 << 20);
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        for (int i = 0; i < 10; i++) {
          readRun(in, seed, 300);
        }
        readRun(in, seed, 900_000);
        int first = readRun(in, seed, 300);
        assertEquals("short runs still", 1024, first);
      }
    }
  }

  /** The size most runs fit in, bounded by the smallest refill and the buffer. */
  public void testRunLengthsCoverMostRunsWithinBounds() {
    RunLengths runs = new RunLengths(1024, 16384);
    assertEquals("nothing learned yet", 1024, runs.firstRefill(1024, 16384));
    runs.record(10_000);
    int learned = runs.firstRefill(1024, 16384);
    assertTrue("the first run teaches it: " + learned, learned >= 10_000 && learned <= 10_907);
    for (int i = 0; i < 60; i++) {
      runs.record(10_000);
    }
    assertEquals("runs of one size: that size, rounded up", learned, runs.firstRefill(1024, 16384));
    assertEquals("the buffer bounds the refill", 8000, runs.firstRefill(1024, 8000));
    for (int i = 0; i < 60; i++) {
      runs.record(1L << 40);
    }
    int longest = runs.firstRefill(1024, 1 << 20);
    assertTrue("a run counts as the largest refill at most: " + longest, longest >= 16_000 && longest <= 16384);
    for (int i = 0; i < 60; i++) {
      runs.record(1 + random().nextInt(1024));
    }
    assertTrue("back within 10% of the smallest", runs.firstRefill(1024, 16384) <= 1126);
    expectThrows(IllegalArgumentException.class, () -> new RunLengths(0, 16384));
    expectThrows(IllegalArgumentException.class, () -> new RunLengths(4096, 1024));
  }

  /**
   * Runs of many sizes: the first refill covers five in six of them, not their typical size. Runs
   * drawn at random from sizes spread evenly in powers of two between 1 KiB and 32 KiB; each first
   * refill is judged on the run that comes next, over 3000 runs after 1000 to learn from. One
   * refill alone is too noisy to judge (the estimate follows the last few dozen runs): over 20,000
   * seeds the share of next runs covered stayed between 0.82 and 0.85, and the median first refill
   * between 17.8 and 21.3 KiB; one that followed the typical run would cover half.
   */
  public void testRunLengthsOfManySizesCoverFiveInSix() {
    RunLengths runs = new RunLengths(1024, 32768);
    java.util.Random r = new java.util.Random(random().nextLong());
    int[] firsts = new int[3000];
    int covered = 0;
    for (int i = 0; i < 4000; i++) {
      long run = Math.round(Math.pow(2, 10 + 5 * r.nextDouble()));
      if (i >= 1000) {
        int first = runs.firstRefill(1024, 32768);
        firsts[i - 1000] = first;
        if (run <= first) {
          covered++;
        }
      }
      runs.record(run);
    }
    double share = covered / (double) firsts.length;
    assertTrue("first refills cover " + share + " of the runs that follow", share >= 0.78 && share <= 0.89);
    Arrays.sort(firsts);
    int median = firsts[firsts.length / 2];
    assertTrue("median first refill well above the typical run (about 5.7 KiB): " + median, median >= 12_000);
  }

  /**
   * {@link PreadIndexInput#hold}: after it, the buffer holds the bytes asked for, and every byte it
   * holds is the file's; walks on, steps back, jumps, and reads that run past the buffer's end.
   */
  public void testHoldKeepsTheFilesBytesInTheBuffer() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      long seed = random().nextLong();
      int length = 1 + random().nextInt(300_000);
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        PreadIndexInput r = (PreadIndexInput) in.clone();
        int max = Math.min(r.bufferSize(), AdaptiveIndexInput.BUFFER_SIZE);
        long pos = 0;
        for (int i = 0; i < 3000; i++) {
          switch (random().nextInt(4)) {
            case 0 -> pos = random().nextInt(length); // a jump
            case 1 -> pos = Math.max(0, r.heldStart() + r.heldLength() - random().nextInt(max)); // across the end
            default -> {} // on from where the last hold asked
          }
          if (pos >= length) {
            pos = random().nextInt(length);
          }
          int n = 1 + random().nextInt((int) Math.min(max, length - pos));
          r.hold(pos, n);
          long start = r.heldStart();
          int held = r.heldLength();
          assertTrue("holds [" + pos + ", +" + n + ") in [" + start + ", +" + held + ")", start <= pos && pos + n <= start + held);
          assertEquals("every held byte is the file's", -1, TestContent.firstMismatch(seed, start, r.heldBytes(), 0, held));
          pos += n;
        }
        expectThrows(EOFException.class, () -> r.hold(length - 1, 2));
        in.close();
        expectThrows(AlreadyClosedException.class, () -> r.hold(0, 1));
      }
    }
  }

  /**
   * Runs read in place after {@link PreadIndexInput#hold} teach the first refill after a jump as
   * runs read through the buffer do, when the reader says how far it read ({@link
   * PreadIndexInput#readTo}); a read past the buffer's end continues the run, growing the refill.
   */
  public void testRunsReadInPlaceTeachTheFirstRefill() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = random().nextLong();
      TestContent.write(dir, "f", seed, 1 << 20);
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("f", IOContext.DEFAULT)) {
        in.hold(0, 1);
        assertEquals(1024, in.heldLength());
        in.hold(1000, 100);
        assertEquals("the run goes on: a refill four times the first after the 24 bytes kept", 24 + 4096, in.heldLength());
        assertEquals(1000, in.heldStart());
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          firsts.add(holdRun(in, seed, 10_000));
        }
        int learned = firsts.getLast();
        assertTrue("runs of 10,000 bytes: a first refill that holds each; " + firsts, learned >= 10_000 && learned <= 10_907);
      }
    }
  }

  /** {@link #readRun} through {@link PreadIndexInput#hold}, reading the held bytes in place. */
  private static int holdRun(PreadIndexInput in, long seed, int run) throws IOException {
    long last = in.heldStart() + in.heldLength();
    long start;
    do {
      start = random().nextInt((int) (in.length() - run));
    } while (Math.abs(start - last) < 4 * PreadDirectory.DEFAULT_BUFFER_SIZE);
    int first = -1;
    for (int done = 0; done < run; ) {
      int n = Math.min(run - done, 1 + random().nextInt(300));
      in.hold(start + done, n);
      if (first < 0) {
        first = in.refillSize();
      }
      int at = (int) (start + done - in.heldStart());
      assertEquals(-1, TestContent.firstMismatch(seed, start + done, in.heldBytes(), at, n));
      done += n;
    }
    in.readTo(start + run);
    return first;
  }

  public void testReadPastEndThrowsEOF() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      TestContent.write(dir, "f", 1, 10_000);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.seek(9_996);
        in.readInt();
        expectThrows(EOFException.class, in::readByte);
        in.seek(9_990);
        expectThrows(EOFException.class, () -> in.readBytes(new byte[20], 0, 20));
        expectThrows(EOFException.class, () -> in.readBytes(new byte[20_000], 0, 20_000));
        expectThrows(EOFException.class, () -> in.seek(10_001));
        RandomAccessInput ra = (RandomAccessInput) in;
        expectThrows(EOFException.class, () -> ra.readLong(9_993));
        expectThrows(EOFException.class, () -> ra.readBytes(9_000, new byte[70_000], 0, 70_000));
        EOFException e = expectThrows(EOFException.class, () -> ra.readByte(10_000));
        assertTrue(e.getMessage(), e.getMessage().contains("PreadIndexInput(path="));
        IndexInput slice = in.slice("s", 100, 50);
        slice.seek(48);
        expectThrows(EOFException.class, slice::readInt);
        expectThrows(IllegalArgumentException.class, () -> in.slice("bad", 9_000, 1_001));
        expectThrows(IllegalArgumentException.class, () -> in.seek(-1));
      }
    }
  }

  public void testMissingFileNamesThePath() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      NoSuchFileException e =
          expectThrows(NoSuchFileException.class, () -> dir.openInput("nope", IOContext.DEFAULT));
      assertTrue(e.getMessage(), e.getMessage().contains("nope"));
    }
  }

  public void testDirectoryIsRejectedClearly() throws IOException {
    Path root = createTempDir();
    Files.createDirectory(root.resolve("sub"));
    try (PreadDirectory dir = newPread(root)) {
      FileSystemException e =
          expectThrows(FileSystemException.class, () -> dir.openInput("sub", IOContext.DEFAULT));
      assertTrue(e.getMessage(), e.getMessage().contains("sub"));
      assertTrue(e.getMessage(), e.getMessage().contains("directory"));
    }
  }

  public void testEveryReadAfterCloseThrows() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      TestContent.write(dir, "f", 7, 50_000);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      IndexInput slice = in.slice("s", 8, 1000);
      RandomAccessInput ra = in.randomAccessSlice(0, 1000);
      // Fill every buffer, so that reads after close would be served from memory.
      in.readByte();
      clone.readByte();
      slice.readByte();
      ra.readByte(0);
      in.close();
      in.close(); // harmless
      for (IndexInput i : new IndexInput[] {in, clone, slice}) {
        expectThrows(AlreadyClosedException.class, i::readByte);
        expectThrows(AlreadyClosedException.class, i::readInt);
        expectThrows(AlreadyClosedException.class, () -> i.readBytes(new byte[4], 0, 4));
        expectThrows(AlreadyClosedException.class, () -> i.readBytes(new byte[100_000], 0, 100_000));
        expectThrows(AlreadyClosedException.class, () -> i.seek(0));
        expectThrows(AlreadyClosedException.class, i::clone);
        expectThrows(AlreadyClosedException.class, () -> i.slice("x", 0, 1));
      }
      expectThrows(AlreadyClosedException.class, () -> ra.readByte(0));
      expectThrows(AlreadyClosedException.class, () -> ra.readLong(500));
      clone.close(); // closing clones never fails
      slice.close();
    }
  }

  /**
   * Closed wins: at end of file, or with a bad position or range, a read, slice or positional
   * read of a closed input throws AlreadyClosedException, not EOFException or
   * IllegalArgumentException. Found by the differential fuzzer: readByte at end of file of a
   * closed input answered EOFException.
   */
  public void testClosedWinsOverEndOfFileAndBadArguments() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      TestContent.write(dir, "f", 4, 100);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      IndexInput slice = in.slice("s", 90, 10);
      in.seek(100);
      clone.seek(100);
      slice.seek(10);
      in.close();
      for (IndexInput i : new IndexInput[] {in, clone, slice}) {
        expectThrows(AlreadyClosedException.class, i::readByte);
        expectThrows(AlreadyClosedException.class, i::readLong);
        expectThrows(AlreadyClosedException.class, i::readVInt);
        expectThrows(AlreadyClosedException.class, () -> i.slice("bad", 5, 1000));
        RandomAccessInput ra = (RandomAccessInput) i;
        expectThrows(AlreadyClosedException.class, () -> ra.readByte(i.length()));
        expectThrows(AlreadyClosedException.class, () -> ra.readLong(-1));
        expectThrows(AlreadyClosedException.class, () -> ra.readBytes(-1, new byte[0], 0, 0));
      }
    }
  }

  /** A positional read at a negative position fails even when it asks for nothing. */
  public void testNegativePositionIsRejectedForEveryLength() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      TestContent.write(dir, "f", 4, 100);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        RandomAccessInput ra = (RandomAccessInput) in;
        expectThrows(IllegalArgumentException.class, () -> ra.readBytes(-2, new byte[0], 0, 0));
        expectThrows(IllegalArgumentException.class, () -> ra.readBytes(-2, new byte[5], 0, 5));
        expectThrows(IllegalArgumentException.class, () -> ra.readBytes(-2, new byte[70_000], 0, 70_000));
        ra.readBytes(100, new byte[0], 0, 0); // at the end, nothing asked: fine
      }
    }
  }

  public void testCloneAndSliceKeepTheirOwnPosition() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      long seed = 99;
      TestContent.write(dir, "f", seed, 100_000);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.seek(800);
        IndexInput clone = in.clone();
        assertEquals(800, clone.getFilePointer());
        IndexInput slice = in.slice("s", 4_000, 90_000);
        IndexInput sliceOfSlice = slice.slice("ss", 16, 1_000);
        assertEquals(TestContent.word(seed, 100), clone.readLong());
        assertEquals(TestContent.word(seed, 500), slice.readLong());
        assertEquals(TestContent.word(seed, 502), sliceOfSlice.readLong());
        assertEquals(800, in.getFilePointer());
        assertEquals(TestContent.word(seed, 100), in.readLong());
      }
    }
  }

  /** Interrupting a reading thread neither breaks its reads nor closes the file. */
  public void testInterruptsDoNotCloseTheFile() throws Exception {
    try (PreadDirectory dir = newPread(createTempDir())) {
      long seed = 5;
      int length = 1 << 20;
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        int reads = atLeast(20_000);
        long readerSeed = random().nextLong();
        Thread reader =
            new Thread(
                () -> {
                  java.util.Random r = new java.util.Random(readerSeed);
                  IndexInput clone = in.clone();
                  byte[] b = new byte[8192];
                  started.countDown();
                  try {
                    for (int i = 0; i < reads; i++) {
                      long pos = r.nextInt(length - b.length);
                      clone.seek(pos);
                      clone.readBytes(b, 0, b.length);
                      int bad = TestContent.firstMismatch(seed, pos, b, 0, b.length);
                      if (bad >= 0) {
                        throw new AssertionError("wrong byte at " + (pos + bad));
                      }
                    }
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
        reader.start();
        started.await();
        long interrupts = 0;
        while (reader.isAlive()) {
          reader.interrupt();
          interrupts++;
        }
        reader.join();
        if (failure.get() != null) {
          throw new AssertionError("reader failed after " + interrupts + " interrupts", failure.get());
        }
        assertTrue(interrupts > 0);
        // The original still reads.
        in.seek(8);
        assertEquals(TestContent.word(seed, 1), in.readLong());
      }
    }
  }

  public void testReadsWithInterruptFlagSet() throws IOException {
    try (PreadDirectory dir = newPread(createTempDir())) {
      TestContent.write(dir, "f", 3, 100_000);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        Thread.currentThread().interrupt();
        try {
          in.seek(80_000);
          assertEquals(TestContent.word(3, 10_000), in.readLong());
          assertTrue(Thread.currentThread().isInterrupted());
        } finally {
          Thread.interrupted();
        }
        in.seek(16);
        assertEquals(TestContent.word(3, 2), in.readLong());
      }
    }
  }

  public void testUnwrapsTestFileSystems() throws IOException {
    Path path = createTempDir();
    assertNotSame("the test file system should wrap paths", path, Unwrappable.unwrapAll(path));
    try (PreadDirectory dir = newPread(path)) {
      TestContent.write(dir, "f", 11, 64);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals(TestContent.word(11, 0), in.readLong());
      }
    }
  }

  public void testBufferSizeByContext() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      assertEquals(PreadDirectory.DEFAULT_BUFFER_SIZE, dir.bufferSize(IOContext.DEFAULT));
      assertEquals(PreadDirectory.SEQUENTIAL_BUFFER_SIZE, dir.bufferSize(IOContext.READONCE));
      assertEquals(
          PreadDirectory.SEQUENTIAL_BUFFER_SIZE,
          dir.bufferSize(IOContext.merge(new org.apache.lucene.store.MergeInfo(1, 1, false, 1))));
      expectThrows(
          IllegalArgumentException.class,
          () -> new PreadDirectory(createTempDir(), FSLockFactory.getDefault(), 8));
    }
  }
}
