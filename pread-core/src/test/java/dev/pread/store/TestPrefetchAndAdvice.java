package dev.pread.store;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FlushInfo;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MergeInfo;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.store.ReadAdvice;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/** prefetch() on every kind of input, and read advice from the IOContext. */
public class TestPrefetchAndAdvice extends LuceneTestCase {

  public void testPrefetchOnEveryKindOfInput() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      long seed = random().nextLong();
      int length = 300_000;
      TestContent.write(dir, "f", seed, length);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        IndexInput clone = in.clone();
        IndexInput slice = in.slice("s", 1000, 200_000);
        RandomAccessInput ra = in.randomAccessSlice(5000, 100_000);
        for (int i = 0; i < 200; i++) {
          // Within the smallest of the four (the random-access slice: 100,000 bytes).
          long off = random().nextInt(50_000);
          int len = random().nextInt(50_000);
          in.prefetch(off, len);
          clone.prefetch(off, len);
          slice.prefetch(off, len);
          ra.prefetch(off, len);
        }
        // Prefetch is only a hint: reads still return the file's bytes.
        slice.seek(8);
        byte[] b = new byte[64];
        slice.readBytes(b, 0, b.length);
        assertEquals(-1, TestContent.firstMismatch(seed, 1008, b, 0, b.length));
        assertEquals(TestContent.byteAt(seed, 5016), ra.readByte(16));
      }
    }
  }

  public void testPrefetchBoundsAndZeroLength() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      TestContent.write(dir, "f", 1, 10_000);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.prefetch(10_000, 0); // zero length at the end: a no-op
        in.prefetch(0, 10_000);
        IllegalArgumentException e =
            expectThrows(IllegalArgumentException.class, () -> in.prefetch(9_000, 1_001));
        assertTrue(e.getMessage(), e.getMessage().contains("offset=9000") && e.getMessage().contains("PreadIndexInput"));
        expectThrows(IllegalArgumentException.class, () -> in.prefetch(-1, 10));
        expectThrows(IllegalArgumentException.class, () -> in.prefetch(0, -1));
        expectThrows(IllegalArgumentException.class, () -> in.prefetch(Long.MAX_VALUE, 2));
        IndexInput slice = in.slice("s", 100, 50);
        expectThrows(IllegalArgumentException.class, () -> slice.prefetch(40, 11));
        slice.prefetch(40, 10);
      }
    }
  }

  public void testPrefetchAfterCloseThrows() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      TestContent.write(dir, "f", 1, 10_000);
      IndexInput in = dir.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      IndexInput slice = in.slice("s", 0, 100);
      in.close();
      expectThrows(AlreadyClosedException.class, () -> in.prefetch(0, 10));
      expectThrows(AlreadyClosedException.class, () -> clone.prefetch(0, 10));
      expectThrows(AlreadyClosedException.class, () -> slice.prefetch(0, 10));
    }
  }

  /** An evicted range becomes cached after prefetch, without a read. */
  public void testPrefetchBringsDataIntoThePageCache() throws IOException {
    Path root = createTempDir();
    try (PreadDirectory dir = new PreadDirectory(root)) {
      TestContent.write(dir, "f", 2, 4 << 20);
      Path real = Unwrappable.unwrapAll(root).resolve("f").toAbsolutePath();
      forceToDisk(real); // dirty pages cannot be dropped
      try (NativeFile probe = NativeFile.open(real);
          IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        long pos = 3 << 20;
        probe.advise(0, 0, Advice.DONTNEED);
        assumeTrue("needs cachestat(2) (Linux 6.5+) to observe the page cache", probe.cachedPages(0, 4096) >= 0);
        assumeTrue(
            "this file system keeps pages after POSIX_FADV_DONTNEED (tmpfs?): cannot make the file cold",
            probe.cachedPages(pos, 16384) == 0);
        in.prefetch(pos, 16384);
        assertTrue("prefetched range never reached the page cache", becomesCached(probe, pos));
      }
    }
  }

  /**
   * setPrefetch(false): prefetch on inputs opened afterwards (and their clones and slices) gives
   * the kernel no advice, so an evicted range stays out of the page cache, yet still checks bounds;
   * an input opened after setPrefetch(true) advises once and brings the same range in. The advice
   * is counted at the {@code posix_fadvise} call ({@link FaultInjection#adviceCalls()}), so that
   * "no advice" is known when prefetch returns, without waiting for I/O that should not happen.
   */
  public void testPrefetchOffIsANoOp() throws Exception {
    Path root = createTempDir();
    try (PreadDirectory dir = new PreadDirectory(root);
        FaultInjection calls = FaultInjection.install(root)) {
      assertTrue("prefetch is on by default", dir.isPrefetch());
      TestContent.write(dir, "f", 5, 4 << 20);
      Path real = Unwrappable.unwrapAll(root).resolve("f").toAbsolutePath();
      forceToDisk(real);
      long pos = 3 << 20;
      dir.setPrefetch(false);
      assertFalse(dir.isPrefetch());
      try (NativeFile probe = NativeFile.open(real);
          IndexInput off = dir.openInput("f", IOContext.DEFAULT)) {
        probe.advise(0, 0, Advice.DONTNEED);
        assumeTrue("needs cachestat(2) (Linux 6.5+) to observe the page cache", probe.cachedPages(0, 4096) >= 0);
        assumeTrue(
            "this file system keeps pages after POSIX_FADV_DONTNEED (tmpfs?): cannot make the file cold",
            probe.cachedPages(pos, 16384) == 0);
        long advised = calls.adviceCalls();
        off.prefetch(pos, 16384);
        off.clone().prefetch(pos, 16384);
        off.slice("s", pos, 16384).prefetch(0, 16384);
        off.randomAccessSlice(pos, 16384).prefetch(0, 16384);
        expectThrows(IllegalArgumentException.class, () -> off.prefetch(4 << 20, 1));
        assertEquals("posix_fadvise called although prefetch is off", advised, calls.adviceCalls());
        assertEquals("pages cached although prefetch is off", 0, probe.cachedPages(pos, 16384));

        dir.setPrefetch(true);
        off.prefetch(pos, 16384); // opened while off: stays off
        assertEquals("an input keeps the setting it was opened with", advised, calls.adviceCalls());
        assertEquals("an input keeps the setting it was opened with", 0, probe.cachedPages(pos, 16384));
        try (IndexInput on = dir.openInput("f", IOContext.DEFAULT)) {
          long opened = calls.adviceCalls(); // opening gives the input its read advice
          on.prefetch(pos, 16384);
          assertEquals("one WILLNEED for a cold range once prefetch is on", opened + 1, calls.adviceCalls());
          assertTrue("prefetch turned back on never reached the page cache", becomesCached(probe, pos));
        }
      }
      dir.setPrefetch(false);
      IndexInput closed = dir.openInput("f", IOContext.DEFAULT);
      closed.close();
      expectThrows(AlreadyClosedException.class, () -> closed.prefetch(0, 10));
    }
  }

  /** Polls (at most 5000 times) until the 4 pages at {@code pos} are all in the page cache. */
  private static boolean becomesCached(NativeFile probe, long pos) {
    for (int i = 0; i < 5000; i++) {
      if (probe.cachedPages(pos, 16384) == 4) {
        return true;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    return false;
  }

  public void testBackoffProbesOnPowersOfTwo() {
    PrefetchBackoff b = new PrefetchBackoff();
    List<Integer> probed = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      if (b.shouldProbe()) {
        probed.add(i);
      }
    }
    assertEquals(List.of(0, 1, 2, 4, 8, 16, 32, 64), probed);
    b.miss();
    assertTrue(b.shouldProbe());
    assertTrue(b.shouldProbe());
  }

  public void testAdviceByContext() {
    var f = PreadDirectory.ADVISE_BY_CONTEXT;
    assertEquals(Optional.of(ReadAdvice.RANDOM), f.apply("x", IOContext.DEFAULT));
    assertEquals(Optional.empty(), PreadDirectory.ADVISE_BY_HINTS.apply("x", IOContext.DEFAULT));
    for (var g : List.of(f, PreadDirectory.ADVISE_BY_HINTS)) {
      assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), g.apply("x", IOContext.READONCE));
      assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), g.apply("x", IOContext.merge(new MergeInfo(1, 1, false, 1))));
      assertEquals(Optional.of(ReadAdvice.RANDOM), g.apply("x", IOContext.DEFAULT.withHints(DataAccessHint.RANDOM)));
    }
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), f.apply("x", IOContext.READONCE));
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), f.apply("x", IOContext.merge(new MergeInfo(1, 1, false, 1))));
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), f.apply("x", IOContext.flush(new FlushInfo(1, 1))));
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), f.apply("x", IOContext.DEFAULT.withHints(DataAccessHint.SEQUENTIAL)));
    assertEquals(Optional.of(ReadAdvice.RANDOM), f.apply("x", IOContext.DEFAULT.withHints(DataAccessHint.RANDOM)));
  }

  public void testSetReadAdviceIsConsulted() throws IOException {
    try (PreadDirectory dir = new PreadDirectory(createTempDir())) {
      assertSame(PreadDirectory.ADVISE_BY_CONTEXT, dir.getReadAdvice());
      TestContent.write(dir, "f", 3, 1000);
      List<String> asked = new ArrayList<>();
      java.util.function.BiFunction<String, IOContext, Optional<ReadAdvice>> advice = (name, ctx) -> {
        asked.add(name);
        return Optional.of(ReadAdvice.RANDOM);
      };
      dir.setReadAdvice(advice);
      assertSame(advice, dir.getReadAdvice());
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals(TestContent.word(3, 0), in.readLong());
      }
      assertEquals(List.of("f"), asked);
      expectThrows(NullPointerException.class, () -> dir.setReadAdvice(null));
    }
  }

  /**
   * RANDOM advice turns readahead off for that input: eight cold sequential 4 KiB reads fetch far
   * less from storage than the same reads with the kernel's readahead; the default advice does too.
   */
  public void testRandomAdviceReadsLessFromStorage() throws IOException {
    Path io = Path.of("/proc/self/io");
    assumeTrue("needs /proc/self/io", Files.isReadable(io));
    Path root = createTempDir();
    try (PreadDirectory dir = new PreadDirectory(root)) {
      TestContent.write(dir, "f", 4, 8 << 20);
      Path real = Unwrappable.unwrapAll(root).resolve("f").toAbsolutePath();
      forceToDisk(real);
      long byDefault = coldReadBytes(dir, real, IOContext.DEFAULT);
      dir.setReadAdvice(PreadDirectory.ADVISE_BY_HINTS);
      long normal = coldReadBytes(dir, real, IOContext.DEFAULT);
      assumeTrue("no storage reads are accounted here (page cache not droppable or no block device)", normal > 0);
      long random = coldReadBytes(dir, real, IOContext.DEFAULT.withHints(DataAccessHint.RANDOM));
      System.out.printf("8 cold sequential 4 KiB reads fetched %d bytes with the kernel's readahead, %d with RANDOM,"
          + " %d with the default advice%n", normal, random, byDefault);
      assertTrue("RANDOM read " + random + " bytes, readahead " + normal, random * 4 <= normal);
      assertTrue("the default read " + byDefault + " bytes, readahead " + normal, byDefault * 4 <= normal);
    }
  }

  private static long coldReadBytes(PreadDirectory dir, Path real, IOContext ctx) throws IOException {
    try (NativeFile probe = NativeFile.open(real)) {
      probe.advise(0, 0, Advice.DONTNEED);
    }
    try (IndexInput in = dir.openInput("f", ctx)) {
      // Linux reads an isolated random read as is; readahead starts once reads look sequential.
      long before = storageReadBytes();
      byte[] b = new byte[4096];
      in.seek(4 << 20);
      for (int i = 0; i < 8; i++) {
        in.readBytes(b, 0, b.length);
      }
      return storageReadBytes() - before;
    }
  }

  /** fsync on the real path: Lucene's test file systems may turn Directory.sync into a no-op. */
  private static void forceToDisk(Path real) throws IOException {
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(real, java.nio.file.StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  private static long storageReadBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
      if (line.startsWith("read_bytes:")) {
        return Long.parseLong(line.substring(11).trim());
      }
    }
    return -1;
  }
}
