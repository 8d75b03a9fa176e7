package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.ResidentBlocks;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeAccess;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/**
 * The hot set: its record's format and corruption handling, the round trip (record, close, make
 * cold, reopen, the recorded ranges come back) through the page cache and through the block cache,
 * stale files, the record hidden from {@code listAll}, and close during a load.
 */
public class TestHotSet extends LuceneTestCase {
  private static final long CHUNK = HotSetRecorder.CHUNK;

  @Override
  public void setUp() throws Exception {
    super.setUp();
    assumeTrue("needs native access", NativeAccess.isAvailable());
  }

  // ---- the record's format

  public void testEncodeDecodeRoundTrip() throws IOException {
    for (int i = 0; i < 50; i++) {
      HotSetRecord record = randomRecord(random());
      assertEquals(record, HotSetRecord.decode(record.encode()));
    }
  }

  /**
   * A directory closed on an interrupted thread (a cancelled task, a node shutting down) still
   * writes its record: a channel's writes are interruptible, so the write runs without the thread's
   * interrupt status, which it sets again.
   */
  public void testRecordWrittenAndReadOnAnInterruptedThread() throws IOException {
    Path real = Unwrappable.unwrapAll(createTempDir());
    for (int i = 0; i < 5; i++) {
      HotSetRecord record = randomRecord(random());
      Thread.currentThread().interrupt();
      try {
        record.write(real);
        assertTrue("the interrupt status must be kept", Thread.currentThread().isInterrupted());
        assertEquals(record, HotSetRecord.read(real));
        assertTrue("the interrupt status must be kept", Thread.currentThread().isInterrupted());
      } finally {
        Thread.interrupted();
      }
    }
  }

  /** Any truncation and any changed byte make the whole record invalid: never half-trusted. */
  public void testTornOrFlippedRecordIsRejected() {
    Random r = random();
    for (int i = 0; i < 200; i++) {
      HotSetRecord record = randomRecord(r);
      byte[] bytes = record.encode();
      byte[] bad;
      if (r.nextBoolean()) {
        bad = Arrays.copyOf(bytes, r.nextInt(bytes.length));
      } else {
        bad = bytes.clone();
        int at = r.nextInt(bad.length);
        bad[at] ^= (byte) TestUtil.nextInt(r, 1, 255);
      }
      expectThrows(IOException.class, () -> HotSetRecord.decode(bad));
    }
  }

  /** A record with a valid checksum but ranges beyond the file, out of order or empty is rejected. */
  public void testNonsenseRangesAreRejected() {
    long[][] bad = {{0, 200}, {50, 40}, {10, 20, 15, 30}, {5, 5}, {-1, 10}};
    for (long[] ranges : bad) {
      HotSetRecord record = new HotSetRecord(List.of(new HotSetRecord.Entry("_0.cfs", 100, 7, ranges)));
      expectThrows(IOException.class, () -> HotSetRecord.decode(record.encode()));
    }
    HotSetRecord badName = new HotSetRecord(List.of(new HotSetRecord.Entry("../x", 100, 7, new long[] {0, 10})));
    expectThrows(IOException.class, () -> HotSetRecord.decode(badName.encode()));
  }

  private static HotSetRecord randomRecord(Random r) {
    int files = r.nextInt(5);
    List<HotSetRecord.Entry> entries = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      long length = TestUtil.nextLong(r, 1, 1L << 40);
      List<Long> values = new ArrayList<>();
      long at = 0;
      while (values.size() < 40 && at < length) {
        long start = TestUtil.nextLong(r, at, Math.min(length - 1, at + (1L << 30)));
        long end = TestUtil.nextLong(r, start + 1, Math.min(length, start + (1L << 30)));
        values.add(start);
        values.add(end);
        at = end + 1;
      }
      entries.add(new HotSetRecord.Entry("_" + f + ".f" + r.nextInt(100), length, r.nextLong(),
          values.stream().mapToLong(Long::longValue).toArray()));
    }
    return new HotSetRecord(entries);
  }

  // ---- round trips

  /**
   * Through the page cache: chosen chunks of cold files are read into the page cache, recorded,
   * made cold again, and a new directory's load brings exactly them back.
   */
  public void testPageCacheRoundTrip() throws Exception {
    Path path = createTempDir();
    Path real = Unwrappable.unwrapAll(path);
    Map<String, long[]> expected = new ContentMap();
    try (AdaptiveDirectory dir = mapped(path)) {
      assertNotNull(dir.hotSetLoaded().get()); // no record yet
      List<String> names = List.of("_0.dat", "_1.dat", "_2.dat"); // not listAll: the test file system adds files
      for (String name : names) {
        writeFile(dir, name, TestUtil.nextInt(random(), 2, 16) * CHUNK);
      }
      for (String name : names) {
        makeCold(real.resolve(name));
      }
      for (String name : names) {
        long[] chunks = randomChunks(Files.size(real.resolve(name)));
        try (NativeFile f = NativeFile.open(real.resolve(name))) {
          f.advise(0, 0, Advice.RANDOM); // no readahead: exactly the chunks read get cached
          byte[] buffer = new byte[(int) CHUNK];
          for (int i = 0; i < chunks.length; i += 2) {
            for (long p = chunks[i]; p < chunks[i + 1]; p += CHUNK) {
              f.read(p, buffer, 0, buffer.length);
            }
          }
        }
        if (chunks.length > 0) {
          expected.put(name, chunks);
        }
        dir.openInput(name, IOContext.DEFAULT).close(); // an input for queries: the record may be written
      }
      assertTrue("nothing recorded", dir.hotSet().record(false));
      assertEquals(expected, rangesOf(HotSetRecord.read(real)));
      assertEquals(totalBytes(expected), dir.hotSetStats().recordedBytes());
    }
    for (String name : expected.keySet()) {
      makeCold(real.resolve(name));
    }
    try (AdaptiveDirectory dir = mapped(path)) {
      HotSetStats stats = dir.hotSetLoaded().get();
      assertEquals(stats + " " + expected, totalBytes(expected), stats.loadedBytes());
      assertEquals(0, stats.staleFiles());
      for (Map.Entry<String, long[]> e : expected.entrySet()) {
        try (NativeFile f = NativeFile.open(real.resolve(e.getKey()))) {
          long[] ranges = e.getValue();
          for (long p = 0; p < f.size(); p += CHUNK) {
            long len = Math.min(CHUNK, f.size() - p);
            boolean hot = contains(ranges, p);
            long cached = f.cachedPages(p, len);
            if (hot) {
              assertEquals(e.getKey() + " chunk at " + p + " was recorded but not loaded", HotSetRecorder.pages(p, len), cached);
            } else {
              assertTrue(e.getKey() + " chunk at " + p + " was loaded but not recorded", cached < HotSetRecorder.pages(p, len));
            }
          }
        }
      }
      assertFalse(Arrays.asList(dir.listAll()).contains(HotSetRecord.FILE_NAME));
      assertTrue(Files.exists(real.resolve(HotSetRecord.FILE_NAME)));
      dir.deleteFile(HotSetRecord.FILE_NAME);
      assertFalse(Files.exists(real.resolve(HotSetRecord.FILE_NAME)));
    }
  }

  /** Through the block cache of AdaptiveDirectory: the blocks cached at record time come back. */
  public void testAdaptiveBlockCacheRoundTrip() throws Exception {
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 512 * 16384L);
    blockCacheRoundTrip(
        path -> new AdaptiveDirectory(path, FSLockFactory.getDefault(), regime),
        dir -> ((AdaptiveDirectory) dir).regime().existingCache(),
        dir -> ((AdaptiveDirectory) dir).hotSet());
  }

  /** Through the block cache of CachedPreadDirectory. */
  public void testCachedPreadRoundTrip() throws Exception {
    blockCacheRoundTrip(
        TestHotSet::cached,
        dir -> ((CachedPreadDirectory) dir).getCache(),
        dir -> ((CachedPreadDirectory) dir).hotSet());
  }

  private interface Opener {
    FSDirectory open(Path path) throws IOException;
  }

  private interface Getter<T> {
    T get(FSDirectory dir);
  }

  private void blockCacheRoundTrip(Opener opener, Getter<BlockCache> cacheOf, Getter<HotSet> hotSetOf) throws Exception {
    Path path = createTempDir();
    Path real = Unwrappable.unwrapAll(path);
    HotSetRecord recorded;
    boolean stale = random().nextBoolean();
    String staleName = null;
    try (FSDirectory dir = opener.open(path)) {
      hotSetOf.get(dir).loaded().get();
      List<IndexInput> inputs = new ArrayList<>();
      List<String> names = List.of("_0.dat", "_1.dat", "_2.dat"); // not listAll: the test file system adds files
      for (String name : names) {
        writeFile(dir, name, TestUtil.nextInt(random(), 1, 8) * CHUNK + TestUtil.nextInt(random(), 0, 10000));
      }
      for (String name : names) {
        IndexInput in = dir.openInput(name, IOContext.DEFAULT);
        inputs.add(in);
        int blockSize = cacheOf.get(dir) == null ? 16384 : cacheOf.get(dir).blockSize();
        for (int i = 0; i < 6; i++) {
          in.seek(random().nextLong(in.length() / blockSize) * blockSize);
          in.readByte();
        }
      }
      BlockCache cache = cacheOf.get(dir);
      Map<String, long[]> resident = residentRanges(cache, real);
      assertFalse(resident.isEmpty());
      assertTrue(hotSetOf.get(dir).record(false));
      recorded = HotSetRecord.read(real);
      assertEquals(resident, rangesOf(recorded));
      for (IndexInput in : inputs) {
        in.close();
      }
    } // closing with no input open: the record keeps the blocks of the files
    assertEquals(recorded, HotSetRecord.read(real));
    if (stale) {
      // rewritten under the same name while no directory of ours is open: same length or not,
      // other contents, so other last 8 bytes
      staleName = recorded.entries.get(random().nextInt(recorded.entries.size())).name();
      long length = Files.size(real.resolve(staleName));
      try (Directory plain = new org.apache.lucene.store.NIOFSDirectory(path)) {
        plain.deleteFile(staleName);
        writeFile(plain, staleName, random().nextBoolean() ? length : length + TestUtil.nextInt(random(), 1, 50000));
      }
    }
    try (FSDirectory dir = opener.open(path)) {
      HotSetStats stats = hotSetOf.get(dir).loaded().get();
      Map<String, long[]> expected = rangesOf(recorded);
      long staleBytes = 0;
      if (staleName != null) {
        staleBytes = recorded.entry(staleName).bytes();
        expected.remove(staleName);
        assertEquals(1, stats.staleFiles());
      } else {
        assertEquals(0, stats.staleFiles());
      }
      assertEquals(staleBytes, stats.staleBytes());
      assertEquals(recorded.bytes() - staleBytes, stats.loadedBytes());
      assertEquals(expected, residentRanges(cacheOf.get(dir), real));
    }
  }

  /**
   * Where the cache cannot take the whole record, the files with the fewest recorded bytes are
   * loaded first, whatever their names: the small file comes back whole, the large one in part.
   */
  public void testSmallestFilesLoadFirst() throws Exception {
    Path path = createTempDir();
    Path real = Unwrappable.unwrapAll(path);
    int largeChunks = TestUtil.nextInt(random(), 6, 10);
    int smallChunks = TestUtil.nextInt(random(), 1, 2);
    List<HotSetRecord.Entry> entries = new ArrayList<>();
    try (CachedPreadDirectory dir = cached(path)) {
      writeFile(dir, "_0.dat", largeChunks * CHUNK); // first by name
      writeFile(dir, "_1.dat", smallChunks * CHUNK);
      for (String name : List.of("_0.dat", "_1.dat")) {
        try (NativeFile f = NativeFile.open(real.resolve(name))) {
          entries.add(new HotSetRecord.Entry(name, f.size(), HotSetRecorder.identity(f), new long[] {0, f.size()}));
        }
      }
    }
    Files.write(real.resolve(HotSetRecord.FILE_NAME), new HotSetRecord(entries).encode());
    long cacheBytes = (smallChunks + 3) * CHUNK; // the small file and part of the large one
    try (CachedPreadDirectory dir = cached(path, cacheBytes)) {
      HotSetStats stats = dir.hotSetLoaded().get();
      Map<String, long[]> resident = residentRanges(dir.getCache(), real);
      assertArrayEquals(stats + " " + resident, new long[] {0, smallChunks * CHUNK}, resident.get("_1.dat"));
      long largeResident = 0;
      long[] large = resident.getOrDefault("_0.dat", new long[0]);
      for (int i = 0; i < large.length; i += 2) {
        largeResident += large[i + 1] - large[i];
      }
      assertTrue(stats + " " + resident, largeResident > 0 && largeResident < largeChunks * CHUNK); // in part
    }
  }

  /** A torn or altered record is ignored: the directory opens, loads nothing, and throws nothing. */
  public void testTornRecordLoadsNothing() throws Exception {
    Path path = createTempDir();
    Path real = Unwrappable.unwrapAll(path);
    byte[] valid;
    try (CachedPreadDirectory dir = cached(path)) {
      writeFile(dir, "_0.dat", 4 * CHUNK);
      writeFile(dir, "_1.dat", 3 * CHUNK);
      List<HotSetRecord.Entry> entries = new ArrayList<>();
      for (String name : List.of("_0.dat", "_1.dat")) {
        try (NativeFile f = NativeFile.open(real.resolve(name))) {
          entries.add(new HotSetRecord.Entry(name, f.size(), HotSetRecorder.identity(f), new long[] {0, f.size()}));
        }
      }
      valid = new HotSetRecord(entries).encode();
    }
    for (int i = 0; i < 10; i++) {
      byte[] bad;
      if (random().nextBoolean()) {
        bad = Arrays.copyOf(valid, random().nextInt(valid.length));
      } else {
        bad = valid.clone();
        bad[random().nextInt(bad.length)] ^= (byte) TestUtil.nextInt(random(), 1, 255);
      }
      Files.write(real.resolve(HotSetRecord.FILE_NAME), bad);
      try (CachedPreadDirectory dir = cached(path)) {
        HotSetStats stats = dir.hotSetLoaded().get();
        assertEquals(0, stats.loadedBytes());
        assertEquals(0, stats.recordedBytes());
        assertEquals(0, dir.getCache().stats().residentBytes());
        assertEquals(0, dir.getCache().stats().bytesRead());
      }
    }
    // the valid record, for contrast: the same files do get loaded
    Files.write(real.resolve(HotSetRecord.FILE_NAME), valid);
    try (CachedPreadDirectory dir = cached(path)) {
      HotSetStats stats = dir.hotSetLoaded().get();
      assertEquals(stats.toString(), 7 * CHUNK, stats.loadedBytes());
    }
  }

  /** Closing a directory while its load runs stops the load, and leaves no descriptor or thread. */
  public void testCloseDuringLoad() throws Exception {
    Path path = createTempDir();
    Path real = Unwrappable.unwrapAll(path);
    long size = 8 * (long) HotSetLoader.PIECE;
    try (CachedPreadDirectory dir = cached(path)) {
      writeFile(dir, "_0.dat", size);
      try (NativeFile f = NativeFile.open(real.resolve("_0.dat"))) {
        new HotSetRecord(List.of(new HotSetRecord.Entry("_0.dat", size, HotSetRecorder.identity(f), new long[] {0, size})))
            .write(real);
      }
    }
    CachedPreadDirectory dir = cached(path);
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    int stopAt = TestUtil.nextInt(random(), 2, 6); // after the first piece: the file is open
    AtomicInteger pieces = new AtomicInteger();
    dir.hotSet().beforePiece =
        () -> {
          if (pieces.incrementAndGet() == stopAt) {
            stopped.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new AssertionError(e);
            }
          }
        };
    stopped.await();
    try {
      assertTrue("the load holds the file open", OpenDescriptors.under(real) > 0);
    } catch (Throwable t) {
      release.countDown();
      dir.close();
      throw t;
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread closer =
        new Thread(
            () -> {
              try {
                dir.close();
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    closer.start();
    while (!dir.hotSet().isClosing()) {
      Thread.onSpinWait();
    }
    release.countDown();
    closer.join();
    assertNull(failure.get());
    HotSetStats stats = dir.hotSetLoaded().get();
    assertTrue(stats.loadedBytes() > 0);
    assertTrue(stats.loadedBytes() < size);
    assertFalse(stats.loading());
    assertEquals("descriptors left open", 0, OpenDescriptors.under(real));
    if (!HotSetScheduler.isRunning()) {
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        assertFalse("thread left running: " + t, t.getName().equals("pread-hotset") && t.isAlive());
      }
    }
  }

  /** With the property false, a directory has no hot set and writes no record. */
  public void testDisabledByProperty() throws Exception {
    Path path = createTempDir();
    System.setProperty(HotSet.ENABLED_PROPERTY, "false");
    try (AdaptiveDirectory dir = mapped(path); CachedPreadDirectory cached = cached(createTempDir())) {
      assertNull(dir.hotSet());
      assertNull(cached.hotSet());
      assertEquals(new HotSetStats(0, 0, 0, 0, 0, 0, 0, 0, false), dir.hotSetStats());
      writeFile(dir, "_0.dat", CHUNK);
      dir.openInput("_0.dat", IOContext.DEFAULT).close();
    } finally {
      System.clearProperty(HotSet.ENABLED_PROPERTY);
    }
    assertFalse(Files.exists(Unwrappable.unwrapAll(path).resolve(HotSetRecord.FILE_NAME)));
  }

  // ---- helpers

  /** A CachedPreadDirectory with a cache of its own of 64 MiB (whatever the system property says). */
  private static CachedPreadDirectory cached(Path path) throws IOException {
    return cached(path, 64L << 20);
  }

  private static CachedPreadDirectory cached(Path path, long cacheBytes) throws IOException {
    BlockCache cache = BlockCache.builder(cacheBytes).build();
    try {
      return new CachedPreadDirectory(path, FSLockFactory.getDefault(), cache) {
        @Override
        public synchronized void close() throws IOException {
          try {
            super.close();
          } finally {
            cache.close();
          }
        }
      };
    } catch (Throwable t) {
      cache.close();
      throw t;
    }
  }

  private static AdaptiveDirectory mapped(Path path) throws IOException {
    return new AdaptiveDirectory(
        path, FSLockFactory.getDefault(), AdaptiveDirectory.regime(AdaptiveRegime.Mode.MAPPED, 1 << 20));
  }

  /** Writes a file of exactly {@code length} bytes with a codec header and footer, and syncs it. */
  private static void writeFile(Directory dir, String name, long length) throws IOException {
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      CodecUtil.writeHeader(out, "hotset", 0);
      long body = length - CodecUtil.headerLength("hotset") - CodecUtil.footerLength();
      byte[] buffer = new byte[8192];
      while (body > 0) {
        random().nextBytes(buffer);
        int n = (int) Math.min(body, buffer.length);
        out.writeBytes(buffer, n);
        body -= n;
      }
      CodecUtil.writeFooter(out);
    }
    dir.sync(List.of(name));
  }

  /** Drops the file's pages from the page cache, or skips the test where that cannot be done. */
  private static void makeCold(Path real) throws IOException {
    long left = PageCacheFiles.drop(real);
    assumeTrue("needs cachestat(2), Linux 6.5+, to observe the page cache", left >= 0);
    assumeTrue("this file system keeps pages after POSIX_FADV_DONTNEED (tmpfs?): cannot make a file cold", left == 0);
  }

  /** Random chunk-aligned ranges of a file, coalesced. */
  private static long[] randomChunks(long size) {
    List<Long> out = new ArrayList<>();
    for (long p = 0; p < size; p += CHUNK) {
      if (random().nextInt(3) == 0) {
        long end = Math.min(size, p + CHUNK);
        if (!out.isEmpty() && out.get(out.size() - 1) == p) {
          out.set(out.size() - 1, end);
        } else {
          out.add(p);
          out.add(end);
        }
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private static boolean contains(long[] ranges, long p) {
    for (int i = 0; i < ranges.length; i += 2) {
      if (p >= ranges[i] && p < ranges[i + 1]) {
        return true;
      }
    }
    return false;
  }

  private static long totalBytes(Map<String, long[]> ranges) {
    long sum = 0;
    for (long[] r : ranges.values()) {
      for (int i = 0; i < r.length; i += 2) {
        sum += r[i + 1] - r[i];
      }
    }
    return sum;
  }

  /** The record's ranges by file name; in a map whose values compare by content. */
  private static Map<String, long[]> rangesOf(HotSetRecord record) {
    Map<String, long[]> out = new ContentMap();
    for (HotSetRecord.Entry e : record.entries) {
      out.put(e.name(), e.ranges());
    }
    return out;
  }

  /** The blocks the cache holds of the files in {@code real}, as coalesced byte ranges by name. */
  private static Map<String, long[]> residentRanges(BlockCache cache, Path real) {
    Map<String, long[]> out = new ContentMap();
    for (ResidentBlocks r : cache.residentBlocks(real)) {
      List<Long> values = new ArrayList<>();
      for (int i = r.blocks().nextSetBit(0); i >= 0; ) {
        int end = r.blocks().nextClearBit(i);
        values.add((long) i * r.blockSize());
        values.add(Math.min(r.size(), (long) end * r.blockSize()));
        i = r.blocks().nextSetBit(end);
      }
      if (!values.isEmpty()) {
        out.put(r.path().getFileName().toString(), values.stream().mapToLong(Long::longValue).toArray());
      }
    }
    return out;
  }

  /** A sorted map of arrays that compares and prints them by content. */
  private static final class ContentMap extends TreeMap<String, long[]> {
    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Map<?, ?> m) || m.size() != size()) {
        return false;
      }
      for (Map.Entry<String, long[]> e : entrySet()) {
        if (!(m.get(e.getKey()) instanceof long[] v) || !Arrays.equals(v, e.getValue())) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return keySet().hashCode();
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("{");
      for (Map.Entry<String, long[]> e : entrySet()) {
        b.append(e.getKey()).append('=').append(Arrays.toString(e.getValue())).append(' ');
      }
      return b.append('}').toString();
    }
  }
}
