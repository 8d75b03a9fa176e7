package dev.pread.bench.lucene;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.bench.raw.StrategyRegistry;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The Lucene comparison: index, query mix, reference hits. */
public class LuceneLogicTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** The progress bar's total counts a worker per Directory, thread count and round of each regime. */
  @Test
  public void stepsCountEveryRoundOfTheWarmAndPressureRegimes() {
    LuceneBench.Options o = new LuceneBench.Options();
    o.directories = java.util.List.of("dir-adaptive", "dir-mmap", "dir-pread");
    o.threads = new int[] {1, 2};
    o.warmRounds = 1;
    o.pressure = true;
    long oneRound = LuceneBench.steps(o);
    o.pressureRounds = 3;
    assertEquals(oneRound + 2L * 3 * 2, LuceneBench.steps(o));
    o.pressure = false;
    assertEquals(oneRound - 3 * 2, LuceneBench.steps(o));
    o.warm = true;
    o.warmRounds = 3;
    assertEquals(oneRound - 3 * 2 + 3L * 2 * 3, LuceneBench.steps(o));
  }

  /**
   * The word hash the vectors use is that of the lower-cased word as a string, for ASCII words
   * (hashed in place) and for words with letters whose lower case is longer (U+0130) or depends on
   * the letters around (Greek final sigma), which take the strings' way.
   */
  @Test
  public void wordHashIsTheLowerCasedWordsStringHash() {
    String letters = "abcXYZqQ_09\u0130\u03a3\u03c3\u03c2\u00c9\u00df\u0391";
    java.util.Random random = new java.util.Random(7);
    int nonAscii = 0;
    for (int iter = 0; iter < 20_000; iter++) {
      StringBuilder sb = new StringBuilder();
      int length = 1 + random.nextInt(12);
      boolean ascii = random.nextInt(4) > 0;
      for (int i = 0; i < length; i++) {
        sb.append(letters.charAt(random.nextInt(ascii ? 11 : letters.length())));
      }
      String text = sb.toString();
      int from = random.nextInt(text.length());
      int to = from + 1 + random.nextInt(text.length() - from);
      String word = text.substring(from, to);
      nonAscii += word.chars().anyMatch(c -> c >= 0x80) ? 1 : 0;
      assertEquals(word, word.toLowerCase(java.util.Locale.ROOT).hashCode(), BenchIndex.lowerCaseHash(text, from, to));
    }
    assertTrue("non-ASCII words tried: " + nonAscii, nonAscii > 1000);
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

  /**
   * An index of the large kind, where the corpus was indexed pass after pass and so even its rarest
   * words are in a dozen documents: the mix still finds low-frequency terms, the rarest there are.
   */
  @Test
  public void aLargeIndexWithoutWordsInTenDocumentsStillHasRareTerms() throws Exception {
    assertEquals(10, QueryMix.lowFrequencyMax(15_000));
    assertEquals(10, QueryMix.lowFrequencyMax(100_000));
    assertEquals(41, QueryMix.lowFrequencyMax(411_904));
    int docs = 120_000;
    int copies = 12; // every rare word in 12 documents, as in 12 passes over a corpus
    try (org.apache.lucene.store.Directory d = new org.apache.lucene.store.ByteBuffersDirectory()) {
      try (org.apache.lucene.index.IndexWriter w = new org.apache.lucene.index.IndexWriter(d,
          new org.apache.lucene.index.IndexWriterConfig(new org.apache.lucene.analysis.standard.StandardAnalyzer())
              .setRAMBufferSizeMB(64))) {
        for (int i = 0; i < docs; i++) {
          // "common" in every document, one of 200 medium words (600 documents each, 0.5%), one of
          // 10,000 rare words (12 documents each).
          String text = "common " + word("med", i % 200) + " " + word("rare", i % (docs / copies)) + "\nnext line";
          org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
          doc.add(new org.apache.lucene.document.TextField("body", text, org.apache.lucene.document.Field.Store.YES));
          doc.add(new org.apache.lucene.document.StoredField("size", (long) text.length()));
          w.addDocument(doc);
        }
      }
      try (org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
        QueryMix mix = QueryMix.build(reader, 20, 7);
        int low = 0;
        for (int i = 0; i < mix.size(); i++) {
          if (mix.get(i).kind().equals("term-low")) {
            String term = mix.get(i).query().toString();
            assertTrue(term, term.startsWith("body:rare"));
            assertEquals(term, copies, reader.docFreq(new org.apache.lucene.index.Term("body", term.substring(5))));
            low++;
          }
        }
        assertEquals(4, low); // 2 in every 10 queries
      }
    }
  }

  /** A word of letters only, as the mix's terms must be: {@code prefix} and {@code n} in base 26. */
  private static String word(String prefix, int n) {
    StringBuilder sb = new StringBuilder(prefix);
    do {
      sb.append((char) ('a' + n % 26));
      n /= 26;
    } while (n > 0);
    return sb.toString();
  }

  /** The changing regime runs a worker per thread count, so that each phase A is a node's start. */
  @Test
  public void changingMemoryRunsAWorkerPerThreadCount() {
    int[] threads = {1, 2, 4};
    java.util.List<int[]> changing = LuceneBench.workerThreads("changing", threads);
    assertEquals(3, changing.size());
    for (int i = 0; i < threads.length; i++) {
      assertArrayEquals(new int[] {threads[i]}, changing.get(i));
    }
    for (String regime : java.util.List.of("pressure", "throttled", "merge", "neighbour")) {
      java.util.List<int[]> one = LuceneBench.workerThreads(regime, threads);
      assertEquals(regime, 1, one.size());
      assertArrayEquals(regime, threads, one.get(0));
    }
  }

  @Test
  public void variationDropsEveryNthLine() {
    assertEquals("a\nb\nc\nd", BenchIndex.vary("a\nb\nc\nd", 0));
    assertEquals("a\nb\nd\n", BenchIndex.vary("a\nb\nc\nd", 1)); // pass 1 drops every 3rd line
  }

  /**
   * Two builds of the index are the same: documents, segments, and so the query mix sampled from
   * it. A small RAM buffer makes the build flush and merge many times, where merges that finish at
   * different moments would change what the size checks see.
   */
  @Test
  public void twoBuildsOfTheIndexRunTheSameQueries() throws Exception {
    java.util.List<String> shapes = new java.util.ArrayList<>();
    java.util.List<Long> fingerprints = new java.util.ArrayList<>();
    for (int build = 0; build < 2; build++) {
      Path folder = tmp.newFolder("build" + build).toPath();
      long docs = BenchIndex.build(folder, Corpus.generated(), 8L << 20, 0.5);
      try (org.apache.lucene.store.Directory d = StrategyRegistry.openDirectory("dir-mmap", folder);
          org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
        assertEquals(docs, reader.maxDoc());
        StringBuilder shape = new StringBuilder(docs + " docs:");
        for (org.apache.lucene.index.LeafReaderContext leaf : reader.leaves()) {
          shape.append(' ').append(leaf.reader().maxDoc());
        }
        shapes.add(shape.toString());
        fingerprints.add(QueryMix.build(reader, 50, 42).fingerprint());
      }
    }
    assertEquals(shapes.get(0), shapes.get(1));
    assertEquals(fingerprints.get(0), fingerprints.get(1));
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
    try (org.apache.lucene.store.Directory d = StrategyRegistry.openDirectory("dir-mmap", index);
        org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
      mix = QueryMix.build(reader, 50, 42);
      assertEquals(mix.fingerprint(), QueryMix.build(reader, 50, 42).fingerprint());
      assertTrue(mix.fingerprint() != QueryMix.build(reader, 50, 43).fingerprint());
      reference = QueryRun.reference(new org.apache.lucene.search.IndexSearcher(reader), mix);
      // Made again from its recipes, through JSON as a worker's spec carries them and without the
      // index: the same queries, the same hits.
      com.google.gson.Gson gson = new com.google.gson.Gson();
      java.lang.reflect.Type type =
          new com.google.gson.reflect.TypeToken<java.util.List<java.util.List<String>>>() {}.getType();
      QueryMix again = QueryMix.fromRecipes(gson.fromJson(gson.toJson(mix.recipes()), type));
      assertEquals(mix.fingerprint(), again.fingerprint());
      assertArrayEquals(reference, QueryRun.reference(new org.apache.lucene.search.IndexSearcher(reader), again));
    }
    java.util.Set<String> kinds = new java.util.TreeSet<>();
    for (int i = 0; i < mix.size(); i++) {
      kinds.add(mix.get(i).kind());
    }
    assertEquals(java.util.Set.of("and", "knn", "or", "phrase", "range", "term-high", "term-low", "term-medium"), kinds);
    CacheSettings holding = CacheSettings.holding(BenchIndex.sizeOf(index), 16384);
    for (String name : java.util.List.of("dir-pread", "dir-pread-readahead", "dir-niofs", "dir-mmap-random", "dir-cached")) {
      try (org.apache.lucene.store.Directory d = StrategyRegistry.openDirectory(name, index, holding);
          org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
        org.apache.lucene.search.IndexSearcher searcher = new org.apache.lucene.search.IndexSearcher(reader);
        CachedDirectories.preload(d);
        CacheUse.Probe probe = CacheUse.probe(CachedDirectories.cacheOf(d));
        QueryRun.Result r = QueryRun.run(searcher, mix, reference, 2, 0, 200, name);
        assertTrue(name + " ran no queries", r.queries() > 0);
        assertTrue(r.p99Micros() >= r.p50Micros());
        assertOnCoreWithinWallTime(r);
        CacheUse use = probe.done();
        assertEquals(name, name.equals("dir-cached"), use != null);
        if (use != null) {
          assertEquals("the preloaded cache holds the index: no misses", 0, use.misses);
          assertTrue(use.hits > 0);
        }
      }
    }
    assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.openDirectory("dir-cached", index));
    // Time a query thread spends off its core (here asleep between queries) is in its wall time and
    // not in its CPU time.
    try (org.apache.lucene.store.Directory d = StrategyRegistry.openDirectory("dir-mmap", index);
        org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
      java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
      QueryRun.Result r = QueryRun.run(new org.apache.lucene.search.IndexSearcher(reader), mix, reference, 2, 0, () -> {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        return asked.incrementAndGet() <= 6;
      }, "dir-mmap", null);
      assertEquals(6, r.queries());
      assertOnCoreWithinWallTime(r);
      // 8 sleeps of 100 ms in all: 6 before the queries, one before each thread's last look.
      assertTrue("8 sleeps of 100 ms: " + r.threadNanos() + " ns", r.threadNanos() >= 800_000_000L);
      if (r.threadCpuNanos() >= 0) {
        assertTrue("CPU " + r.threadCpuNanos() + " ns of " + r.threadNanos() + " ns mostly asleep",
            r.threadCpuNanos() < r.threadNanos() / 2);
      }
    }
    long[] wrong = reference.clone();
    wrong[3] ^= 1;
    try (org.apache.lucene.store.Directory d = StrategyRegistry.openDirectory("dir-pread", index);
        org.apache.lucene.index.DirectoryReader reader = org.apache.lucene.index.DirectoryReader.open(d)) {
      org.apache.lucene.search.IndexSearcher searcher = new org.apache.lucene.search.IndexSearcher(reader);
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> QueryRun.run(searcher, mix, wrong, 1, 0, 10_000, "dir-pread"));
      assertTrue(String.valueOf(e.getCause()), String.valueOf(e.getCause()).contains("query 3"));
    }
  }
  /**
   * The query threads' CPU time is measured where this JVM can (HotSpot on Linux can: -1 fails
   * there), and no thread spends more time on a core than it ran.
   */
  private static void assertOnCoreWithinWallTime(QueryRun.Result r) {
    boolean supported = java.lang.management.ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported();
    if (!supported) {
      assertEquals(-1, r.threadCpuNanos());
      return;
    }
    assertTrue("query threads' CPU time " + r.threadCpuNanos(), r.threadCpuNanos() > 0);
    // The CPU clock of a thread advances in the scheduler's ticks: a little slack over the wall time.
    assertTrue(r.threadCpuNanos() + " ns on a core in " + r.threadNanos() + " ns",
        r.threadCpuNanos() <= r.threadNanos() + 20_000_000L);
  }

  @Test
  public void aRecipeThatIsNotAQueryFailsNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> QueryMix.entry(java.util.List.of("fuzzy", "x")));
    assertTrue(e.getMessage(), e.getMessage().contains("[fuzzy, x]"));
    e = assertThrows(IllegalArgumentException.class, () -> QueryMix.entry(java.util.List.of("and", "a")));
    assertTrue(e.getMessage(), e.getMessage().contains("takes 2"));
    assertThrows(IllegalArgumentException.class, () -> QueryMix.entry(java.util.List.of()));
    assertThrows(IllegalArgumentException.class, () -> QueryMix.entry(java.util.List.of("range", "x", "2")));
    assertEquals("body:foo", QueryMix.entry(java.util.List.of("term-low", "foo")).query().toString());
  }

  @Test
  public void dirCachedKeepsTheMeasuredSlackButAtLeastTheFloor() {
    QueryWorkerCommand.Spec spec = new QueryWorkerCommand.Spec();
    spec.cacheBlockSize = 16384;
    long mib = 1L << 20;
    // A small measured slack (file pages 0.3 MiB + growth 14 MiB): the floor applies.
    CacheSizing small = CacheSizing.of(spec, 34 * mib, 300 << 10, new CacheSizing.Growth(14 * mib, 9 * mib));
    assertEquals(34 * mib - CacheSizing.MIN_SLACK_BYTES, small.cacheBytes());
    assertEquals(CacheSizing.MIN_SLACK_BYTES, small.slackBytes());
    // A large one is kept as measured, the cache a whole number of blocks.
    CacheSizing large = CacheSizing.of(spec, 545 * mib, 400 << 10, new CacheSizing.Growth(172 * mib, 40 * mib));
    assertEquals((545 * mib - (400 << 10) - 172 * mib) / 16384 * 16384, large.cacheBytes());
    assertTrue(large.slackBytes() >= (400 << 10) + 172 * mib);
    // No room left: a clear error naming the budget.
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CacheSizing.of(spec, 20 * mib, 0, new CacheSizing.Growth(mib, mib)));
    assertTrue(e.getMessage(), e.getMessage().contains("no room"));
  }
}
