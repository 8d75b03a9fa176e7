package dev.pread.store;

import dev.pread.cache.BlockCacheStats;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MemorySegmentAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/** What {@link AdaptiveDirectory}'s inputs promise beyond Lucene's suite, in each read path. */
public class TestAdaptiveInputs extends LuceneTestCase {
  private AdaptiveRegime.Mode mode() {
    return random().nextBoolean() ? AdaptiveRegime.Mode.MAPPED : AdaptiveRegime.Mode.CACHED;
  }

  public void testTruncatedFileIsAnIOExceptionNamingIt() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[1 << 20];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    try (AdaptiveDirectory d =
            new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(mode(), 1 << 20));
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      try (FileChannel ch = FileChannel.open(dir.resolve("f"), StandardOpenOption.WRITE)) {
        ch.truncate(4096);
      }
      d.regime().check(); // the next look at memory, which a second's wait or an open would bring
      in.seek(content.length - 100);
      IOException e = expectThrows(IOException.class, () -> in.readLong());
      assertTrue(e.getMessage(), e.getMessage().contains(dir.resolve("f").toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("4096 bytes now, " + content.length + " at open"));
      // every read of it, clones and slices too, and the part that is left as well
      expectThrows(IOException.class, () -> ((org.apache.lucene.store.RandomAccessInput) in).readByte(10));
      expectThrows(IOException.class, () -> in.clone().readBytes(new byte[10], 0, 10));
      // a deleted file is not a truncated one: another input of a deleted file reads on
      Files.write(dir.resolve("g"), content);
      try (IndexInput g = d.openInput("g", IOContext.DEFAULT)) {
        Files.delete(dir.resolve("g"));
        d.regime().check();
        g.seek(content.length - 8);
        g.readLong();
      }
    }
  }

  /**
   * Off the mapping, sequential reads answer from a heap copy of bytes read before. A file found
   * truncated after those bytes were copied still fails every read, the copied ones included: the
   * copy's bytes are right, but the file is not what was opened.
   */
  public void testTruncatedFileFailsReadsOfTheHeapCopy() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[1 << 20];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    AdaptiveRegime.Mode mode = random().nextBoolean() ? AdaptiveRegime.Mode.CACHED : AdaptiveRegime.Mode.ALTERNATE;
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(mode, 1 << 20));
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      // One clone per kind of read, each having read its first bytes sequentially off the mapping.
      IndexInput[] clones = new IndexInput[5];
      for (int i = 0; i < clones.length; i++) {
        while (d.readPath() == AdaptiveDirectory.ReadPath.MAPPINGS) {
          in.clone().close(); // ALTERNATE: the next clone switches the path
        }
        clones[i] = in.clone();
        assertEquals(content[0], clones[i].readByte());
        assertEquals(content[1], clones[i].readByte());
      }
      try (FileChannel ch = FileChannel.open(dir.resolve("f"), StandardOpenOption.WRITE)) {
        ch.truncate(4096); // the bytes the clones read next are still in the file
      }
      d.regime().check();
      String name = dir.resolve("f").toString();
      IOException[] failures = {
        expectThrows(IOException.class, () -> clones[0].readByte()),
        expectThrows(IOException.class, () -> clones[1].readShort()),
        expectThrows(IOException.class, () -> clones[2].readInt()),
        expectThrows(IOException.class, () -> clones[3].readLong()),
        expectThrows(IOException.class, () -> clones[4].readBytes(new byte[16], 0, 16))
      };
      for (IOException e : failures) {
        assertTrue(e.getMessage(), e.getMessage().contains(name));
        assertTrue(e.getMessage(), e.getMessage().contains("4096 bytes now, " + content.length + " at open"));
      }
    }
  }

  public void testFileDeletedWhileOpenReadsOnEveryPath() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[200_000];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      Files.delete(dir.resolve("f")); // as Lucene deletes a merged-away segment's files
      java.util.Set<AdaptiveDirectory.ReadPath> paths = new java.util.HashSet<>();
      for (int i = 0; i < 6; i++) {
        IndexInput c = in.clone(); // each clone switches the read path
        paths.add(d.readPath());
        int pos = random().nextInt(content.length - 8);
        c.seek(pos);
        assertEquals(
            (content[pos] & 0xFF) | (content[pos + 1] & 0xFF) << 8,
            c.readShort() & 0xFFFF);
      }
      assertEquals("all three read paths were taken", 3, paths.size());
      assertTrue(d.cacheStats().misses() > 0);
    }
  }

  public void testReadersAcrossSwitchesReadTheRightBytes() throws Exception {
    Path dir = createTempDir("index");
    byte[][] contents = new byte[3][];
    Random r = new Random(random().nextLong());
    for (int f = 0; f < contents.length; f++) {
      contents[f] = new byte[TestUtil.nextInt(random(), 1, 300_000)];
      r.nextBytes(contents[f]);
      Files.write(dir.resolve("f" + f), contents[f]);
    }
    // a cache of 2 to 6 blocks: constant eviction; every clone, slice and prefetch switches path
    AdaptiveRegime regime =
        AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, TestUtil.nextInt(random(), 2, 6) * (long) AdaptiveRegime.CACHE_BLOCK_SIZE);
    int threads = TestUtil.nextInt(random(), 2, 4);
    long seed = random().nextLong();
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      IndexInput[] inputs = new IndexInput[contents.length];
      for (int f = 0; f < contents.length; f++) {
        inputs[f] = d.openInput("f" + f, IOContext.DEFAULT);
      }
      java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
      Thread[] ts = new Thread[threads];
      Throwable[] failure = new Throwable[1];
      for (int t = 0; t < threads; t++) {
        Random tr = new Random(seed + t);
        ts[t] = new Thread(() -> {
          try {
            start.await();
            for (int i = 0; i < 2_000; i++) {
              int f = tr.nextInt(contents.length);
              byte[] c = contents[f];
              IndexInput in = tr.nextBoolean() ? inputs[f].clone() : inputs[f].slice("s", 0, c.length);
              int pos = tr.nextInt(c.length);
              int len = Math.min(c.length - pos, tr.nextInt(40_000));
              if (tr.nextInt(8) == 0) {
                in.prefetch(pos, len);
              }
              in.seek(pos);
              byte[] got = new byte[len];
              if (len >= 8 && tr.nextBoolean()) {
                long v = in.readLong();
                long want = 0;
                for (int k = 7; k >= 0; k--) {
                  want = (want << 8) | (c[pos + k] & 0xFF);
                }
                assertEquals(want, v);
              } else {
                in.readBytes(got, 0, len);
                for (int k = 0; k < len; k++) {
                  if (got[k] != c[pos + k]) {
                    throw new AssertionError("file f" + f + " byte " + (pos + k));
                  }
                }
              }
              reads.incrementAndGet();
            }
          } catch (Throwable e) {
            synchronized (failure) {
              failure[0] = e;
            }
          }
        });
        ts[t].start();
      }
      for (Thread t : ts) {
        t.join();
      }
      if (failure[0] != null) {
        throw new AssertionError(failure[0]);
      }
      assertEquals(threads * 2_000L, reads.get());
      assertTrue("the cache was read and evicted", d.cacheStats().evictions() > 0);
      for (IndexInput in : inputs) {
        in.close();
      }
    }
  }

  /**
   * One sequential read of a random width (byte, short, int, long, vlong, or up to 1500 bytes) from
   * {@code read}, compared with the same read from {@code want} over {@code content}; at least 9
   * bytes must be left.
   */
  private static void readOneValue(Random r, byte[] content, org.apache.lucene.store.ByteArrayDataInput want,
      IndexInput read) throws IOException {
    switch (r.nextInt(6)) {
      case 0 -> assertEquals(want.readByte(), read.readByte());
      case 1 -> assertEquals(want.readShort(), read.readShort());
      case 2 -> assertEquals(want.readInt(), read.readInt());
      case 3 -> assertEquals(want.readLong(), read.readLong());
      case 4 -> {
        int at = want.getPosition(); // random bytes: a varint of 9 bytes with the 9th's high bit is invalid
        if ((content[at + 8] & 0x80) != 0) {
          assertEquals(want.readByte(), read.readByte());
        } else {
          assertEquals(want.readVLong(), read.readVLong());
        }
      }
      default -> {
        int n = Math.min(content.length - want.getPosition(), r.nextInt(1500));
        byte[] a = new byte[n], b = new byte[n];
        want.readBytes(a, 0, n);
        read.readBytes(b, 0, n);
        assertArrayEquals(a, b);
      }
    }
  }

  public void testSequentialReadsOnTheCacheMatchTheFileWhileItsBlocksChurn() throws Exception {
    Path dir = createTempDir("index");
    int block = AdaptiveRegime.CACHE_BLOCK_SIZE;
    byte[] content = new byte[TestUtil.nextInt(random(), 8 * block, 200_000)];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    // 2 or 3 blocks, and random reads of another clone between the sequential ones: the blocks the
    // sequential reader copied from are evicted and reused under it
    AdaptiveRegime regime =
        AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, TestUtil.nextInt(random(), 2, 3) * (long) block);
    Random r = new Random(random().nextLong());
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      IndexInput other = in.clone();
      org.apache.lucene.store.ByteArrayDataInput want = new org.apache.lucene.store.ByteArrayDataInput(content);
      IndexInput read = r.nextBoolean() ? in : in.slice("s", 0, content.length);
      while (content.length - want.getPosition() >= 9) {
        assertEquals(want.getPosition(), read.getFilePointer());
        if (r.nextInt(4) == 0) {
          int at = r.nextInt(content.length);
          other.seek(at);
          assertEquals(content[at], other.readByte());
        }
        readOneValue(r, content, want, read);
      }
      assertTrue("the cache was read and evicted", d.cacheStats().evictions() > 0);
    }
  }

  public void testSequentialReadsMatchTheFileAsThePathChangesUnderThem() throws Exception {
    Path dir = createTempDir("index");
    byte[] content = new byte[TestUtil.nextInt(random(), 4 * AdaptiveRegime.CACHE_BLOCK_SIZE, 100_000)];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    // every clone switches the path: mappings, block cache, page cache, mappings, ...
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, 4L * AdaptiveRegime.CACHE_BLOCK_SIZE);
    Random r = new Random(random().nextLong());
    java.util.EnumSet<AdaptiveDirectory.ReadPath> seen = java.util.EnumSet.noneOf(AdaptiveDirectory.ReadPath.class);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      org.apache.lucene.store.ByteArrayDataInput want = new org.apache.lucene.store.ByteArrayDataInput(content);
      IndexInput read = r.nextBoolean() ? in : in.slice("s", 0, content.length);
      // A number of reads rather than one pass: a seek ahead near the end must not end the test
      // before every path was read.
      for (int op = 0; op < 300; op++) {
        if (r.nextInt(3) == 0) {
          IndexInput other = in.clone(); // switches the path
          int at = r.nextInt(content.length);
          other.seek(at);
          assertEquals(content[at], other.readByte());
        }
        // back or ahead (what the buffer holds is of another position), or back at the end
        if (r.nextInt(50) == 0 || content.length - want.getPosition() < 9) {
          int at = r.nextInt(content.length - 9);
          want.setPosition(at);
          read.seek(at);
        }
        seen.add(d.readPath());
        assertEquals(want.getPosition(), read.getFilePointer());
        readOneValue(r, content, want, read);
      }
    }
    assertTrue("every path was read: " + seen, seen.size() == 3);
  }

  /**
   * On the page-cache path sequential reads read the page-cache reader's buffer in place; positional
   * reads, array reads and reads larger than that view refill the same buffer under it. Every read
   * of a random mix on one input (or a slice of it) must give the file's bytes.
   */
  public void testMixedReadsOnThePageCacheMatchTheFile() throws Exception {
    byte[] content = new byte[TestUtil.nextInt(random(), 20_000, 200_000)];
    Random r = new Random(random().nextLong());
    try (AdaptiveDirectory d = alternating(content);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      int from = r.nextBoolean() ? 0 : r.nextInt(1000);
      byte[] part = java.util.Arrays.copyOfRange(content, from, content.length - r.nextInt(1000));
      IndexInput read = from == 0 ? in : in.slice("s", from, part.length);
      untilThePageCache(d, in);
      org.apache.lucene.store.RandomAccessInput positional = (org.apache.lucene.store.RandomAccessInput) read;
      org.apache.lucene.store.ByteArrayDataInput want = new org.apache.lucene.store.ByteArrayDataInput(part);
      for (int op = 0; op < 5_000; op++) {
        switch (r.nextInt(10)) {
          case 0 -> { // a positional read, anywhere: refills the reader's buffer elsewhere
            int at = r.nextInt(part.length - 8);
            switch (r.nextInt(3)) {
              case 0 -> assertEquals(part[at], positional.readByte(at));
              case 1 -> assertEquals(want(part, at, 8), positional.readLong(at));
              default -> {
                int n = Math.min(part.length - at, r.nextInt(3000));
                byte[] b = new byte[n];
                positional.readBytes(at, b, 0, n);
                assertArrayEquals(java.util.Arrays.copyOfRange(part, at, at + n), b);
              }
            }
          }
          case 1 -> { // an array of longs, or more bytes than a sequential read takes from the view
            int at = want.getPosition();
            if (r.nextBoolean() && part.length - at >= 64) {
              long[] got = new long[1 + r.nextInt(8)];
              read.readLongs(got, 0, got.length);
              for (int k = 0; k < got.length; k++) {
                assertEquals(want.readLong(), got[k]);
              }
            } else {
              int n = Math.min(part.length - at, AdaptiveIndexInput.BUFFER_SIZE + r.nextInt(20_000));
              byte[] a = new byte[n], b = new byte[n];
              want.readBytes(a, 0, n);
              read.readBytes(b, 0, n);
              assertArrayEquals(a, b);
            }
          }
          case 2 -> { // a jump
            int at = r.nextInt(part.length - 9);
            want.setPosition(at);
            read.seek(at);
          }
          default -> {}
        }
        if (part.length - want.getPosition() < 9) {
          want.setPosition(0);
          read.seek(0);
        }
        assertEquals(want.getPosition(), read.getFilePointer());
        readOneValue(r, part, want, read);
        assertEquals("reads do not switch the path", AdaptiveDirectory.ReadPath.PAGE_CACHE, d.readPath());
      }
    }
  }

  /**
   * On the page-cache path sequential reads read the reader's buffer in place, so the reader sees
   * only its refills; seeks tell it how far the reads got, and the first refill after a jump
   * learns the runs the input reads (as {@link PreadIndexInput}'s own reads teach it).
   */
  public void testRunsReadInPlaceTeachTheFirstRefillOnThePageCache() throws Exception {
    byte[] content = new byte[1 << 20];
    Random r = new Random(random().nextLong());
    try (AdaptiveDirectory d = alternating(content);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      untilThePageCache(d, in);
      AdaptiveIndexInput input = (AdaptiveIndexInput) in;
      int first = readRuns(input, content, r, 10_000);
      assertEquals("reads do not switch the path", AdaptiveDirectory.ReadPath.PAGE_CACHE, d.readPath());
      assertTrue("runs of 10,000 bytes: a first refill that holds each: " + first, first >= 10_000 && first <= 10_907);
      first = readRuns(input, content, r, 24_000);
      assertTrue("runs of 24,000 bytes, past PreadDirectory's 16 KiB buffer: the page-cache reader's 32 KiB"
          + " holds each: " + first, first >= 24_000 && first <= AdaptiveFile.PAGE_CACHE_BUFFER_SIZE);
    }
  }

  /**
   * Reads 60 runs of {@code run} bytes at random places far apart through {@code input}, in
   * pieces of random sizes, checking every byte; returns the first refill of the last run.
   */
  private static int readRuns(AdaptiveIndexInput input, byte[] content, Random r, int run) throws IOException {
    int first = -1;
    int last = 0;
    for (int i = 0; i < 60; i++) {
      int start;
      do { // far from the last run, so that the first read of this one leaves the reader's buffer
        start = r.nextInt(content.length - run);
      } while (Math.abs(start - last) < 4 * AdaptiveFile.PAGE_CACHE_BUFFER_SIZE);
      last = start + run;
      input.seek(start);
      for (int done = 0; done < run; ) {
        int n = Math.min(run - done, 1 + r.nextInt(300));
        byte[] b = new byte[n];
        input.readBytes(b, 0, n);
        if (done == 0) {
          first = input.pageCacheRefillSize();
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(content, start + done, start + done + n), b);
        done += n;
      }
    }
    return first;
  }

  /**
   * An interrupt does not fail an open: mapping a file through a channel is interruptible, and the
   * directory maps without the thread's interrupt status and sets it again after. Reads on every
   * path ignore interrupts too, and the status survives them.
   */
  public void testAnInterruptedThreadOpensAndReadsOnEveryPath() throws Exception {
    byte[] content = new byte[TestUtil.nextInt(random(), 1, 100_000)];
    try (AdaptiveDirectory d = alternating(content)) {
      for (int i = 0; i < 6; i++) {
        Thread.currentThread().interrupt();
        try (IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
          assertTrue("the interrupt status must be kept", Thread.currentThread().isInterrupted());
          int at = random().nextInt(content.length);
          assertEquals(content[at], ((org.apache.lucene.store.RandomAccessInput) in).readByte(at));
          assertTrue("the interrupt status must be kept", Thread.currentThread().isInterrupted());
        } finally {
          Thread.interrupted();
        }
      }
    }
  }

  /**
   * The edges of the contract on each read path (the mapping, the block cache, the page cache):
   * an empty read at the end succeeds and one past it throws EOFException; a negative position is
   * an IllegalArgumentException; and once the input is closed, every read throws
   * AlreadyClosedException, even one that is also past the end or has a bad array range.
   */
  public void testEdgesOfTheContractOnEveryPath() throws Exception {
    byte[] content = new byte[TestUtil.nextInt(random(), 1, 3 * AdaptiveRegime.CACHE_BLOCK_SIZE)];
    int n = content.length;
    try (AdaptiveDirectory d = alternating(content)) {
      for (AdaptiveDirectory.ReadPath path : AdaptiveDirectory.ReadPath.values()) {
        IndexInput in = d.openInput("f", IOContext.DEFAULT);
        IndexInput slice = in.slice("s", 0, n);
        while (d.readPath() != path) {
          in.clone();
        }
        for (IndexInput x : new IndexInput[] {in, slice}) {
          org.apache.lucene.store.RandomAccessInput ra = (org.apache.lucene.store.RandomAccessInput) x;
          byte[] b = new byte[4];
          ra.readBytes(n, b, 1, 0); // empty, at the end
          x.seek(n);
          x.readBytes(b, 1, 0);
          expectThrows(java.io.EOFException.class, () -> ra.readBytes(n + 1, b, 0, 0));
          expectThrows(java.io.EOFException.class, () -> ra.readBytes(n, b, 0, 1));
          expectThrows(java.io.EOFException.class, () -> ra.readByte(n));
          expectThrows(java.io.EOFException.class, x::readByte);
          expectThrows(IllegalArgumentException.class, () -> ra.readByte(-1));
          expectThrows(IllegalArgumentException.class, () -> ra.readLong(-1));
          expectThrows(IllegalArgumentException.class, () -> ra.readBytes(-1, b, 0, 1));
          x.seek(0);
          assertEquals(path.toString(), content[0], ra.readByte(0));
        }
        in.close();
        for (IndexInput x : new IndexInput[] {in, slice}) {
          org.apache.lucene.store.RandomAccessInput ra = (org.apache.lucene.store.RandomAccessInput) x;
          byte[] b = new byte[4];
          expectThrows(AlreadyClosedException.class, () -> ra.readByte(0));
          expectThrows(AlreadyClosedException.class, () -> ra.readByte(n));
          expectThrows(AlreadyClosedException.class, () -> ra.readByte(-1));
          expectThrows(AlreadyClosedException.class, () -> ra.readLong(n + 10));
          expectThrows(AlreadyClosedException.class, () -> ra.readBytes(n, b, 0, 8));
          expectThrows(AlreadyClosedException.class, () -> ra.readBytes(0, b, -1, 2));
          expectThrows(AlreadyClosedException.class, () -> x.readBytes(b, 3, 5));
          expectThrows(AlreadyClosedException.class, () -> x.readBytes(b, -4, -3));
          expectThrows(AlreadyClosedException.class, x::readByte);
        }
      }
    }
  }

  /**
   * Fills {@code content} with random bytes, writes it as file "f" of a new folder and opens that
   * folder with a regime that switches path at every open, clone, slice and prefetch (a cache of 4
   * blocks).
   */
  private AdaptiveDirectory alternating(byte[] content) throws IOException {
    Path dir = createTempDir("index");
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, 4L * AdaptiveRegime.CACHE_BLOCK_SIZE);
    return new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
  }

  /** Clones {@code in} until {@code d} reads the page cache: each clone switches the path, reads do not. */
  private static void untilThePageCache(AdaptiveDirectory d, IndexInput in) {
    while (d.readPath() != AdaptiveDirectory.ReadPath.PAGE_CACHE) {
      in.clone();
    }
  }

  /** The little-endian value of the {@code n} bytes of {@code b} at {@code at}. */
  private static long want(byte[] b, int at, int n) {
    long v = 0;
    for (int k = n - 1; k >= 0; k--) {
      v = (v << 8) | (b[at + k] & 0xFF);
    }
    return v;
  }

  public void testSequentialReadsOnTheCacheLoadTheBlockAfterOnAWalkUnlessForRandomAccess() throws IOException {
    Path dir = createTempDir("index");
    int block = AdaptiveRegime.CACHE_BLOCK_SIZE;
    byte[] content = new byte[4 * block];
    new Random(random().nextLong()).nextBytes(content);
    for (String name : new String[] {"default", "random", "slice"}) {
      Files.write(dir.resolve(name), content);
    }
    IOContext random = IOContext.DEFAULT.withHints(DataAccessHint.RANDOM);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 16L * block);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      for (String name : new String[] {"default", "random", "slice"}) {
        try (IndexInput opened = d.openInput(name, name.equals("random") ? random : IOContext.DEFAULT)) {
          // A compound file's part opened for random access is a slice with that context.
          IndexInput in = name.equals("slice") ? opened.slice("part", 0, content.length, random) : opened;
          long before = resident(regime);
          in.seek(block + 10);
          for (int i = block + 10; i < 2 * block; i++) { // to the last byte of the second block
            assertEquals(content[i], in.readByte());
          }
          assertEquals(name + ": only the block that was read", block, resident(regime) - before);
          assertEquals(content[2 * block], in.readByte()); // a walk into the third block
          long blocks = name.equals("default") ? 3 : 2; // with the block after it, unless random
          assertEquals(name, blocks * block, resident(regime) - before);
        }
      }
    }
  }

  /** Bytes in the regime's block cache; 0 before it is made (at the first read from it). */
  private static long resident(AdaptiveRegime regime) {
    return regime.existingCache() == null ? 0 : regime.existingCache().stats().residentBytes();
  }

  public void testTheCacheCopiesMissesThePageCacheHolds() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[TestUtil.nextInt(random(), 2, 20) * AdaptiveRegime.CACHE_BLOCK_SIZE];
    new Random(random().nextLong()).nextBytes(content);
    Path file = dir.resolve("f");
    Files.write(file, content); // written through the page cache, which holds it now
    try (dev.pread.nativeio.NativeFile direct =
        dev.pread.nativeio.NativeFile.openDirect(org.apache.lucene.util.Unwrappable.unwrapAll(file))) {
      assumeTrue("no cachestat(2) on this kernel (Linux 6.5+)", direct.cachedPages(0, content.length) >= 0);
      assumeTrue("the kernel dropped pages of the file just written",
          direct.cachedPages(0, content.length) == content.length / 4096);
    } catch (dev.pread.nativeio.NativeIOException e) {
      assumeTrue("the temporary directory refuses O_DIRECT: " + e.getMessage(), false);
    }
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, content.length);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      byte[] got = new byte[content.length];
      in.readBytes(got, 0, got.length);
      assertArrayEquals(content, got);
      BlockCacheStats s = d.cacheStats();
      assertEquals(s.toString(), content.length, s.pageCacheBytes());
      assertEquals("nothing read from storage: " + s, 0, s.bytesRead());
    }
  }

  public void testMergesReadAroundTheCacheWhileQueriesReadIt() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[300_000];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput query = d.openInput("f", IOContext.DEFAULT);
        IndexInput merge = d.openInput("f", random().nextBoolean() ? IOContext.READONCE
            : IOContext.merge(new org.apache.lucene.store.MergeInfo(10, content.length, false, 1)))) {
      query.seek(1000);
      query.readLong(); // a query's read puts its block into the cache
      long resident = regime.existingCache().stats().residentBytes();
      assertTrue(resident > 0);
      byte[] got = new byte[content.length];
      int at = 0;
      while (at < got.length) { // sequential reads of random sizes, as a merge's
        int n = Math.min(got.length - at, 1 + random().nextInt(40_000));
        merge.readBytes(got, at, n);
        at += n;
      }
      assertArrayEquals(content, got);
      assertEquals("a merge puts no block into the cache", resident, regime.existingCache().stats().residentBytes());
      assertTrue("a merge reads around the cache", regime.existingCache().stats().readAround() > 0);
      assertEquals(AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
    }
  }

  public void testSegmentsOnlyWhileMapped() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    for (AdaptiveRegime.Mode m : new AdaptiveRegime.Mode[] {AdaptiveRegime.Mode.MAPPED, AdaptiveRegime.Mode.CACHED}) {
      try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(m, 1 << 20));
          IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
        MemorySegmentAccessInput msai = (MemorySegmentAccessInput) in;
        if (m == AdaptiveRegime.Mode.MAPPED) {
          assertEquals(50, msai.segmentSliceOrNull(10, 50).byteSize());
          expectThrows(java.io.EOFException.class, () -> msai.segmentSliceOrNull(99_990, 50));
        } else {
          assertNull(msai.segmentSliceOrNull(10, 50));
        }
      }
    }
  }

  public void testClonesAfterCloseThrowAlreadyClosed() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(mode(), 1 << 20))) {
      IndexInput in = d.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      IndexInput slice = in.slice("s", 10, 1000);
      clone.readByte();
      in.close();
      expectThrows(AlreadyClosedException.class, clone::readByte);
      expectThrows(AlreadyClosedException.class, () -> ((org.apache.lucene.store.RandomAccessInput) slice).readLong(0));
      expectThrows(AlreadyClosedException.class, () -> slice.readBytes(new byte[10], 0, 10));
      expectThrows(AlreadyClosedException.class, clone::clone);
    }
  }

  public void testClosedDirectoryFreesItsFiles() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      try (IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
        in.readLong();
        assertEquals(100_000, d.openFileBytes());
        assertEquals(1, regime.existingCache().openFiles());
      }
      assertEquals(0, d.openFileBytes());
      assertEquals(0, regime.existingCache().openFiles());
    }
    assertNull("the last directory closes the cache", regime.existingCache());
  }
}
