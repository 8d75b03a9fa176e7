package dev.pread.bench.cache;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.raw.OffsetPattern;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The block-cache sections: Zipf offsets. */
public class CacheLogicTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aCacheHoldingAFileHasSlackBlocksAboveItsSize() {
    long size = 4 << 20;
    assertEquals(size + CacheSettings.SLACK_BLOCKS * 16384L, CacheSettings.holding(size, 16384).budgetBytes());
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
}
