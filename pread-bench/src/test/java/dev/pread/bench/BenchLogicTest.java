package dev.pread.bench;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The bench's own logic: statistics, data file, verification, report. */
public class BenchLogicTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void parsesSizes() {
    assertEquals(1L << 30, Format.parseBytes("1g"));
    assertEquals(512L << 20, Format.parseBytes("512m"));
    assertEquals(16384, Format.parseBytes("16k"));
    assertEquals(16384, Format.parseBytes("16KiB"));
    assertEquals(4096, Format.parseBytes("4096"));
    assertEquals("1 GiB", Format.bytes(1L << 30));
  }

  @Test
  public void medianAndPairedRatio() {
    assertEquals(2.0, BenchCommand.median(new double[] {3, 1, 2}), 0);
    assertEquals(2.5, BenchCommand.median(new double[] {4, 1, 2, 3}), 0);
    // Round 2 is slow for both: a ratio of medians would say 1.5, paired ratios say 2.
    double[] a = {200, 20, 200};
    double[] b = {100, 10, 150};
    assertEquals(2.0, BenchCommand.pairedRatio(a, b), 1e-9);
  }

  @Test
  public void percentileBuckets() {
    long[] buckets = new long[40];
    buckets[3] = 50; // [8, 16) us
    buckets[6] = 49; // [64, 128)
    buckets[10] = 1; // [1024, 2048)
    assertEquals(16, PrefetchDistanceRun.percentile(buckets, 100, 0.5));
    assertEquals(128, PrefetchDistanceRun.percentile(buckets, 100, 0.99));
    assertEquals(2048, PrefetchDistanceRun.percentile(buckets, 100, 1.0));
  }

  @Test
  public void coldOffsetsAreDistinctAlignedBlocksAndRefuseToWrapAround() {
    long fileSize = 64 * 16384L;
    BatchPrefetchRun.Offsets distinct = new BatchPrefetchRun.Offsets(16384, fileSize, true, 7);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 32; i++) {
      long off = distinct.next();
      assertEquals("aligned to the read size", 0, off % 16384);
      assertTrue("inside the file", off + 16384 <= fileSize);
      assertTrue("no block twice: " + off, seen.add(off));
    }
    // Past half of the file, a cold run would spend its time searching for unread blocks.
    distinct.next();
    assertThrows(IllegalStateException.class, distinct::next);

    BatchPrefetchRun.Offsets any = new BatchPrefetchRun.Offsets(8192, fileSize, false, 7);
    for (int i = 0; i < 1000; i++) {
      long off = any.next();
      assertEquals(0, off % 4096);
      assertTrue(off + 8192 <= fileSize);
    }
  }

  @Test
  public void vectorsAreDeterministicAndTheirDotProductsExactInAnyOrder() {
    float[] a = BenchIndex.vectorOf("public static void main(String[] args)");
    float[] b = BenchIndex.vectorOf("public static void main(String[] args)");
    assertArrayEquals(a, b, 0f);
    assertFalse(java.util.Arrays.equals(a, BenchIndex.vectorOf("class Foo extends Bar")));
    assertEquals(1f, BenchIndex.vectorOf("1234 ++ --")[0], 0f); // no words: a fixed vector
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      many.append(" same");
    }
    float[] c = BenchIndex.vectorOf(many.toString());
    float max = 0;
    for (float x : c) {
      max = Math.max(max, Math.abs(x));
    }
    assertEquals("one word 5000 times: clamped", BenchIndex.MAX_COMPONENT, max, 0f);
    // A dot product of two texts' vectors summed forwards, backwards or pairwise in 16 lanes with
    // fma (as a SIMD reduction does) gives the same bits.
    java.util.Random random = new java.util.Random(42);
    for (int iter = 0; iter < 1000; iter++) {
      float[] x = BenchIndex.vectorOf(randomText(random));
      float[] y = BenchIndex.vectorOf(randomText(random));
      float forward = 0;
      float backward = 0;
      for (int i = 0; i < x.length; i++) {
        forward += x[i] * y[i];
        backward += x[x.length - 1 - i] * y[x.length - 1 - i];
      }
      float[] lanes = new float[16];
      for (int i = 0; i < x.length; i++) {
        lanes[i % 16] = Math.fma(x[i], y[i], lanes[i % 16]);
      }
      for (int width = 8; width >= 1; width /= 2) {
        for (int i = 0; i < width; i++) {
          lanes[i] += lanes[i + width];
        }
      }
      assertEquals(Float.floatToIntBits(forward), Float.floatToIntBits(backward));
      assertEquals(Float.floatToIntBits(forward), Float.floatToIntBits(lanes[0]));
    }
  }

  /** Up to 3000 words from a vocabulary of 500. */
  private static String randomText(java.util.Random random) {
    StringBuilder sb = new StringBuilder();
    for (int n = random.nextInt(3000); n > 0; n--) {
      sb.append(" w").append(Integer.toString(random.nextInt(500), 26).replaceAll("[0-9]", "x"));
    }
    return sb.toString();
  }

  @Test
  public void variationDropsEveryNthLine() {
    assertEquals("a\nb\nc\nd", BenchIndex.vary("a\nb\nc\nd", 0));
    assertEquals("a\nb\nd\n", BenchIndex.vary("a\nb\nc\nd", 1)); // pass 1 drops every 3rd line
  }

  /**
   * A small generated index: every Directory returns the reference hits for the whole mix, the mix
   * is the same when built twice, and a wrong reference fails the run naming the query.
   */
  @Test
  public void everyDirectoryReturnsTheReferenceHits() throws Exception {
    Path data = tmp.newFolder("data").toPath();
    Path index = BenchIndex.ensure(data, Corpus.generated(), 8L << 20);
    assertTrue(BenchIndex.sizeOf(index) >= 4L << 20);
    assertEquals("the second call reuses the index", index, BenchIndex.ensure(data, Corpus.generated(), 8L << 20));
    QueryMix mix;
    long[] reference;
    try (org.apache.lucene.store.Directory d = LuceneBench.open("dir-mmap", index);
        org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
      mix = QueryMix.build(reader, 50, 42);
      assertEquals(mix.fingerprint(), QueryMix.build(reader, 50, 42).fingerprint());
      assertTrue(mix.fingerprint() != QueryMix.build(reader, 50, 43).fingerprint());
      reference = QueryRun.reference(new org.apache.lucene.search.IndexSearcher(reader), mix);
    }
    java.util.Set<String> kinds = new java.util.TreeSet<>();
    for (int i = 0; i < mix.size(); i++) {
      kinds.add(mix.get(i).kind());
    }
    assertEquals(java.util.Set.of("and", "knn", "or", "phrase", "range", "term-high", "term-low", "term-medium"), kinds);
    CacheSettings holding = CacheSettings.holding(BenchIndex.sizeOf(index), 16384);
    for (String name : java.util.List.of("dir-pread", "dir-pread-readahead", "dir-niofs", "dir-mmap-random", "dir-cached")) {
      try (org.apache.lucene.store.Directory d = LuceneBench.open(name, index, holding);
          org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
        org.apache.lucene.search.IndexSearcher searcher = new org.apache.lucene.search.IndexSearcher(reader);
        CachedDirectories.preload(d);
        CacheUse.Probe probe = CacheUse.probe(CachedDirectories.cacheOf(d));
        QueryRun.Result r = QueryRun.run(searcher, mix, reference, 2, 0, 200, name);
        assertTrue(name + " ran no queries", r.queries() > 0);
        assertTrue(r.p99Micros() >= r.p50Micros());
        CacheUse use = probe.done();
        assertEquals(name, name.equals("dir-cached"), use != null);
        if (use != null) {
          assertEquals("the preloaded cache holds the index: no misses", 0, use.misses);
          assertTrue(use.hits > 0);
        }
      }
    }
    assertThrows(IllegalArgumentException.class, () -> LuceneBench.open("dir-cached", index));
    long[] wrong = reference.clone();
    wrong[3] ^= 1;
    try (org.apache.lucene.store.Directory d = LuceneBench.open("dir-pread", index);
        org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
      org.apache.lucene.search.IndexSearcher searcher = new org.apache.lucene.search.IndexSearcher(reader);
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> QueryRun.run(searcher, mix, wrong, 1, 0, 10_000, "dir-pread"));
      assertTrue(String.valueOf(e.getCause()), String.valueOf(e.getCause()).contains("query 3"));
    }
  }

  @Test
  public void dataFileHasItsContentAndIsReused() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("d.dat");
    DataFile.ensure(f, 1 << 20);
    ByteBuffer b = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(f)) {
      while (b.hasRemaining() && ch.read(b) > 0) {}
    }
    for (int w = 0; w < (1 << 17); w += 997) {
      assertEquals(DataFile.word(w), b.getLong(w * 8));
    }
    long modified = Files.getLastModifiedTime(f).toMillis();
    DataFile.ensure(f, 1 << 20);
    assertEquals("a good file is reused", modified, Files.getLastModifiedTime(f).toMillis());
    // A damaged file is rewritten.
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(8), 0);
    }
    DataFile.ensure(f, 1 << 20);
    try (FileChannel ch = FileChannel.open(f)) {
      ByteBuffer first = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(first, 0);
      assertEquals(DataFile.word(0), first.getLong(0));
    }
  }

  @Test
  public void runsVerifyAndAStrategyThatReadsWrongBytesFails() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("r.dat");
    long size = 4 << 20;
    DataFile.ensure(f, size);
    for (String name : ReadStrategies.NAMES) {
      try (Strategy s = ReadStrategies.open(name, f, 16384)) {
        double rps = RandomReadRun.run(s, 2, 4096, size, 0, 50, 1);
        assertTrue(name + " read nothing", rps > 0);
      }
    }
    Strategy liar = new Strategy() {
      @Override public String name() { return "liar"; }
      @Override public Reader newReader(int readSize) {
        return new Reader() {
          @Override public long read(long position) { return 0; }
          @Override public boolean verifyFully(long position) { return true; }
        };
      }
      @Override public void close() {}
    };
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> RandomReadRun.run(liar, 1, 4096, size, 0, 50, 1));
    assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("wrong bytes"));
  }

  @Test
  public void zipfOffsetsAreSkewedAlignedAndSpread() {
    long n = 1000;
    long m = ZipfBlocks.multiplier(n);
    java.util.Set<Long> blocks = new java.util.HashSet<>();
    for (long k = 1; k <= n; k++) {
      blocks.add(ZipfBlocks.blockOfRank(k, n, m));
    }
    assertEquals("ranks map one to one onto blocks", n, blocks.size());
    assertTrue("neighbouring ranks are far apart", Math.abs(ZipfBlocks.blockOfRank(2, n, m) - ZipfBlocks.blockOfRank(1, n, m)) > 100);
    ZipfBlocks.Sampler sampler = new ZipfBlocks.Sampler(n, 1.0);
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    long[] counts = new long[(int) n + 1];
    int samples = 400_000;
    for (int i = 0; i < samples; i++) {
      counts[(int) sampler.sample(random)]++;
    }
    for (int k : new int[] {1, 2, 10, 100}) {
      double expected = ZipfBlocks.probabilityOfRank(k, n, 1.0);
      assertEquals("rank " + k, expected, counts[k] / (double) samples, expected * 0.05 + 0.0005);
    }
    // Offsets: aligned to 16 KiB blocks, inside the file, the hottest block the most read.
    long fileSize = n * 16384;
    OffsetPattern.Generator g = new ZipfBlocks(1.0).forThread(16384, fileSize, 5);
    java.util.Map<Long, Integer> seen = new java.util.HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      long off = g.next();
      assertEquals(0, off % 16384);
      assertTrue(off >= 0 && off + 16384 <= fileSize);
      seen.merge(off, 1, Integer::sum);
    }
    long hottest = seen.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).get().getKey();
    assertEquals(ZipfBlocks.blockOfRank(1, n, m) * 16384, hottest);
    assertThrows(IllegalArgumentException.class, () -> new ZipfBlocks(0));
  }

  @Test
  public void distinctOffsetsCanBeDistinctAtALargerBlockSize() {
    BatchPrefetchRun.Offsets o = new BatchPrefetchRun.Offsets(16384, 65536, 64 * 65536L, true, 9);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 32; i++) {
      long off = o.next();
      assertEquals(0, off % 65536);
      assertTrue(seen.add(off));
    }
  }

  /** dir-cached: preloading fills its cache with checked bytes; then readLong and 16 KiB reads only hit. */
  @Test
  public void dirCachedPreloadsAndReadsLongsFromItsCache() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("c.dat");
    long size = 4 << 20;
    DataFile.ensure(f, size);
    CacheSettings settings = CacheSettings.holding(size, 16384);
    assertEquals(size + CacheSettings.SLACK_BLOCKS * 16384L, settings.budgetBytes());
    try (Strategy s = ReadStrategies.open("dir-cached", f, 16384, settings)) {
      dev.pread.cache.BlockCache cache = s.cache().orElseThrow();
      assertEquals(settings.budgetBytes(), cache.budgetBytes());
      s.preload(size);
      assertEquals(size, cache.stats().bytesRead());
      for (int readSize : new int[] {Long.BYTES, 16384}) {
        CacheUse.Probe probe = CacheUse.probe(cache);
        try (Strategy.Reader reader = s.newReader(readSize)) {
          assertTrue(reader.verifyFully(8192));
          assertEquals(Strategy.expectedFingerprint(4096, readSize), reader.read(4096));
        }
        assertTrue(RandomReadRun.run(s, 2, readSize, size, 0, 50, 1) > 0);
        CacheUse use = probe.done();
        assertEquals(0, use.misses);
        assertEquals(0, use.bytesRead);
        assertEquals(1.0, use.hitRatio(), 0);
        use.check("test");
      }
    }
    assertThrows(IllegalArgumentException.class, () -> ReadStrategies.open("dir-cached", f, 16384, null));
  }

  @Test
  public void cacheAndMemoryTablesAndChecks() throws Exception {
    CacheUse a = new CacheUse();
    a.budgetBytes = 1 << 20;
    a.blockSize = 16384;
    a.hits = 30;
    a.misses = 10;
    a.allocatedBytes = 512 << 10;
    CacheUse b = new CacheUse();
    b.budgetBytes = 1 << 20;
    b.blockSize = 16384;
    b.hits = 50;
    b.misses = 10;
    b.bytesRead = 10 * 16384;
    b.allocatedBytes = 1 << 20;
    CacheUse sum = CacheUse.add(a, b);
    assertEquals(80, sum.hits);
    assertEquals(0.8, sum.hitRatio(), 1e-9);
    assertEquals(1 << 20, sum.allocatedBytes);
    sum.check("fine");
    sum.allocatedBytes = (1 << 20) + 1;
    assertThrows(IllegalStateException.class, () -> sum.check("over budget"));
    sum.allocatedBytes = 1 << 20;

    MemoryCheck m = new MemoryCheck();
    m.limitBytes = 1L << 30;
    m.peakBytes = 900L << 20;
    m.anonBytes = 800L << 20;
    m.pageCacheBytes = 90L << 20;
    m.limitHits = 0;
    m.oomKills = 0;
    m.requireNoOom("fine");
    MemoryCheck killed = MemoryCheck.worse(m, m.withGroup(m));
    killed.oomKills = 1;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> killed.requireNoOom("worker"));
    assertTrue(e.getMessage(), e.getMessage().contains("OOM killer"));

    Results r = new Results();
    r.date = "2026-11-22 10:00:00";
    r.command = "./pread bench --sections cache";
    r.fileSize = 1L << 30;
    r.baselines.put("pressure, Zipf", "dir-pread");
    for (String s : new String[] {"dir-cached", "dir-pread"}) {
      Results.Cell c = new Results.Cell("pressure, Zipf", s, 16384, 1, 2);
      c.rounds = s.equals("dir-cached") ? new double[] {300, 150} : new double[] {100, 100};
      c.memory = m;
      c.cache = s.equals("dir-cached") ? sum : null;
      r.cells.add(c);
    }
    Results.Cell rl = new Results.Cell("warm, all cached", "dir-cached", 8, 1, 1);
    rl.rounds = new double[] {1000};
    r.cells.add(rl);
    String md = Report.markdown(r);
    assertTrue(md, md.contains("| dir-cached | 225 | 2.25x |"));
    assertTrue(md, md.contains("vs dir-pread"));
    assertTrue(md, md.contains("random readLong reads"));
    assertTrue(md, md.contains("| pressure, Zipf | dir-cached, 16 KiB, 1 thread | 1.0 MiB | 16 KiB | 0.8000 | 80 | 20 |"));
    assertTrue(md, md.contains("| pressure, Zipf | dir-cached, 16 KiB, 1 thread | 1.00 GiB | 900.0 MiB | 800.0 MiB"
        + " | 90.0 MiB | 1.0 MiB / 1.0 MiB | 0 | 0 |"));
    Path folder = tmp.getRoot().toPath().resolve("cache-out");
    Report.write(r, folder);
    assertTrue(Files.size(folder.resolve("random-reads-pressure-Zipf.png")) > 1000);
    assertTrue(Files.size(folder.resolve("random-reads-warm-all-cached.png")) > 1000);
  }

  @Test
  public void reportTablesAndFiles() throws Exception {
    Results r = new Results();
    r.date = "2026-11-22 10:00:00";
    r.command = "./pread bench";
    r.fileSize = 1L << 30;
    r.machine.put("cores", "2");
    r.regimes.put("warm", "test");
    for (String s : new String[] {"dir-pread", "dir-niofs"}) {
      for (int t : new int[] {1, 2}) {
        Results.Cell c = new Results.Cell("warm", s, 4096, t, 3);
        double base = s.equals("dir-pread") ? 120 : 100;
        c.rounds = new double[] {base * t, base * t * 0.5, base * t * 1.1};
        r.cells.add(c);
      }
    }
    r.prefetchDistance.add(new PrefetchDistanceRun.Result(0, 1000, 1000, new long[40], 64, 128));
    r.prefetchDistance.add(new PrefetchDistanceRun.Result(16, 4000, 4000, new long[40], 4, 64));
    String md = Report.markdown(r);
    assertTrue(md, md.contains("| dir-pread | 120 | 1.20x | 240 | 1.20x | 2.00x |"));
    assertTrue(md, md.contains("| 16 | 4.00k | 4.00x |"));
    Path folder = tmp.getRoot().toPath().resolve("out");
    Path report = Report.write(r, folder);
    assertTrue(Files.readString(report).contains("![random-reads-warm.png]"));
    assertTrue(Files.size(folder.resolve("random-reads-warm.png")) > 1000);
    assertTrue(Files.size(folder.resolve("prefetch-distance.png")) > 1000);
    String json = Files.readString(folder.resolve("results.json"));
    assertTrue(json, json.contains("\"strategy\": \"dir-pread\""));
    assertFalse(json.isEmpty());
    assertArrayEquals(new double[] {120, 60, 132}, r.cell("warm", "dir-pread", 4096, 1).rounds, 1e-9);
  }
}
