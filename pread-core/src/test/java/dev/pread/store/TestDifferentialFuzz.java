package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeBuffers;
import java.nio.file.Path;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.LuceneTestCase.SuppressSysoutChecks;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link DifferentialFuzzer} against ByteBuffersDirectory: a short run per fault mode, each
 * reproducible by seed ({@code -Dtests.seed}, or {@code -Dpread.fuzz.seed=0x...} to replay one
 * fuzzer seed). {@code -Dpread.fuzz.ops=N} sets the operations per run. Long runs: {@link TestSoak}.
 * The {@code testCached} runs fuzz {@link CachedPreadDirectory} through a shared cache of one to
 * eight blocks, so that nearly every read evicts; the {@code testAdaptive} runs fuzz {@link
 * AdaptiveDirectory} with every input moving to the next read path (mapping, block cache, page
 * cache) at every open, clone, slice and prefetch.
 */
@SuppressSysoutChecks(bugUrl = "prints its figures, one line per run")
public class TestDifferentialFuzz extends LuceneTestCase {

  private static long fuzzSeed() {
    String s = System.getProperty("pread.fuzz.seed");
    return s == null || s.isEmpty() ? random().nextLong() : Long.parseUnsignedLong(s.replaceFirst("^0x", ""), 16);
  }

  private static long ops(long dflt) {
    return Long.getLong("pread.fuzz.ops", dflt);
  }

  private DifferentialFuzzer.Stats run(DifferentialFuzzer.FaultMode mode, long ops) throws Exception {
    return run(mode, ops, null);
  }

  /** A cache of one to eight blocks: nearly every read evicts. */
  private static BlockCache tinyCache() {
    int blockSize = 1 << TestUtil.nextInt(random(), 12, 14);
    return BlockCache.builder((long) blockSize * TestUtil.nextInt(random(), 1, 8))
        .blockSize(blockSize)
        .prefetchThreads(TestUtil.nextInt(random(), 1, 2))
        .maxPrefetchBlocks(TestUtil.nextInt(random(), 1, 16))
        .name("fuzz")
        .build();
  }

  private DifferentialFuzzer.Stats run(DifferentialFuzzer.FaultMode mode, long ops, BlockCache cache) throws Exception {
    return run(mode, ops, cache, null);
  }

  /**
   * A regime that moves every input to the next read path (mapping, block cache, page cache) at
   * every open, clone, slice and prefetch, with a cache of one to eight blocks or, sometimes, of a
   * few hundred.
   */
  private static AdaptiveRegime alternatingRegime() {
    int blocks = random().nextInt(4) == 0 ? TestUtil.nextInt(random(), 64, 512) : TestUtil.nextInt(random(), 1, 8);
    return AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, (long) blocks * AdaptiveRegime.CACHE_BLOCK_SIZE);
  }

  private DifferentialFuzzer.Stats run(DifferentialFuzzer.FaultMode mode, long ops, BlockCache cache, AdaptiveRegime regime)
      throws Exception {
    Path root = createTempDir();
    long seed = fuzzSeed();
    FaultInjection.allocateWholeBufferPool();
    long buffersBefore = NativeBuffers.liveBuffers();
    long bytesBefore = NativeBuffers.liveBytes();
    DifferentialFuzzer.Stats stats;
    try (FaultInjection faults = mode == DifferentialFuzzer.FaultMode.NONE ? null : FaultInjection.install(root)) {
      try (DifferentialFuzzer fuzzer = new DifferentialFuzzer(seed, root, faults, mode, cache, regime)) {
        stats = fuzzer.run(ops, System.nanoTime() + 60_000_000_000L);
        if (regime != null) {
          BlockCache used = regime.existingCache();
          adaptiveCache = used == null ? null : used.stats();
          adaptiveBudget = used == null ? 0 : used.budgetBytes();
          System.out.println("fuzz adaptive cache: " + adaptiveCache);
        }
      }
    }
    assertEquals("native buffers", buffersBefore, NativeBuffers.liveBuffers());
    assertEquals("native bytes", bytesBefore, NativeBuffers.liveBytes());
    System.out.printf(
        "fuzz %s%s seed=0x%x: %s; descriptors under the directory after: %d; native buffers %d -> %d%n",
        mode, cache != null ? " cached (" + cache.blockCount() + " blocks of " + cache.blockSize() + ")"
            : regime != null ? " adaptive" : "", seed, stats, OpenDescriptors.under(org.apache.lucene.util.Unwrappable.unwrapAll(root).toAbsolutePath()), buffersBefore, NativeBuffers.liveBuffers());
    System.out.println("fuzz " + mode + " ops by kind: " + stats.byOp);
    assertEquals(ops, stats.ops);
    return stats;
  }

  public void testNoFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.NONE, ops(30_000));
    assertTrue(s.readCalls > s.ops / 3);
    assertTrue("closed inputs must be exercised", s.closedChecks > 0);
  }

  public void testTransparentFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.TRANSPARENT, ops(20_000));
    assertTrue(s.faultsInjected.getOrDefault("PREAD/EINTR", 0L) > 0);
    assertTrue(s.faultsInjected.getOrDefault("PREAD/SHORT_READ", 0L) > 0);
    assertTrue(s.faultsInjected.getOrDefault("OPEN/EINTR", 0L) > 0);
    assertTrue(s.callsWithTransparentFaults > 0);
  }

  public void testErrorFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.ERRORS, ops(20_000));
    for (Kind k : new Kind[] {Kind.EIO, Kind.EAGAIN, Kind.ENOMEM, Kind.EBADF}) {
      assertTrue("PREAD/" + k + " must be injected and surface", s.errorsSurfacedThenCorrect.getOrDefault("PREAD/" + k, 0L) > 0);
    }
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("OPEN/EMFILE", 0L) > 0);
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("CLOSE/EIO", 0L) > 0);
  }

  public void testCachedNoFaults() throws Exception {
    try (BlockCache cache = tinyCache()) {
      DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.NONE, ops(20_000), cache);
      assertTrue(s.readCalls > s.ops / 3);
      assertTrue("closed inputs must be exercised", s.closedChecks > 0);
      checkChurn(cache);
      assertTrue(cache.stats().toString(), cache.stats().prefetchSubmitted() + cache.stats().prefetchDropped() > 0);
    }
  }

  public void testCachedTransparentFaults() throws Exception {
    try (BlockCache cache = tinyCache()) {
      DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.TRANSPARENT, ops(10_000), cache);
      assertTrue(s.faultsInjected.getOrDefault("PREAD/EINTR", 0L) > 0);
      assertTrue(s.faultsInjected.getOrDefault("PREAD/SHORT_READ", 0L) > 0);
      assertTrue(s.callsWithTransparentFaults > 0);
      checkChurn(cache);
    }
  }

  public void testCachedErrorFaults() throws Exception {
    try (BlockCache cache = tinyCache()) {
      DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.ERRORS, ops(10_000), cache);
      assertTrue("PREAD errors must surface: " + s.errorsSurfacedThenCorrect,
          s.errorsSurfacedThenCorrect.keySet().stream().anyMatch(k -> k.startsWith("PREAD/")));
      assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("CLOSE/EIO", 0L) > 0);
      checkChurn(cache);
    }
  }

  /** The adaptive run's cache statistics before its directory closed (and closed the cache), or null. */
  private BlockCacheStats adaptiveCache;

  private long adaptiveBudget;

  public void testAdaptiveNoFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.NONE, ops(20_000), null, alternatingRegime());
    assertTrue(s.readCalls > s.ops / 3);
    assertTrue("closed inputs must be exercised", s.closedChecks > 0);
    checkAdaptiveCache();
  }

  public void testAdaptiveTransparentFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.TRANSPARENT, ops(10_000), null, alternatingRegime());
    assertTrue(s.faultsInjected.getOrDefault("PREAD/EINTR", 0L) > 0);
    assertTrue(s.faultsInjected.getOrDefault("PREAD/SHORT_READ", 0L) > 0);
    assertTrue(s.callsWithTransparentFaults > 0);
    checkAdaptiveCache();
  }

  public void testAdaptiveErrorFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.ERRORS, ops(10_000), null, alternatingRegime());
    assertTrue("PREAD errors must surface: " + s.errorsSurfacedThenCorrect,
        s.errorsSurfacedThenCorrect.keySet().stream().anyMatch(k -> k.startsWith("PREAD/")));
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("OPEN/EMFILE", 0L) > 0);
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("CLOSE/EIO", 0L) > 0);
    checkAdaptiveCache();
  }

  /** The inputs went through the block cache: it loaded blocks (and, of a few blocks, evicted them). */
  private void checkAdaptiveCache() {
    assertNotNull("the regime never made its block cache", adaptiveCache);
    assertTrue(adaptiveCache.toString(), adaptiveCache.misses() > 0);
    assertTrue(adaptiveCache.toString(), adaptiveCache.allocatedBytes() <= adaptiveBudget);
  }

  private static void checkChurn(BlockCache cache) {
    BlockCacheStats st = cache.stats();
    System.out.println("fuzz cache: " + st);
    assertEquals("every file closed", 0, cache.openFiles());
    assertTrue("the tiny cache must evict: " + st, st.evictions() > 0);
    assertTrue("merge and read-once inputs read around the cache: " + st, st.readAround() > 0);
    assertTrue(st.toString(), st.allocatedBytes() <= cache.budgetBytes());
  }
}
