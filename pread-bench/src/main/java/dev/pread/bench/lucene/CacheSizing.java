package dev.pread.bench.lucene;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.bench.pressure.GroupSampler;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.Format;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;

/**
 * dir-cached's cache inside a memory limit: the memory the page cache would have had (the
 * page-cache budget the other Directories get), minus a slack measured in the worker, or a share
 * of the budget when the command line asks for one. Block memory is anonymous and cannot be
 * reclaimed, so the slack must hold what the kernel can otherwise take from the page cache:
 *
 * <ul>
 *   <li>the JVM's own file pages (its libraries, class data archive and jar, mapped and charged to
 *       the group as page cache), measured right after the index was evicted, before the cache
 *       fills;
 *   <li>growth headroom: the largest growth of the memory charged besides page cache (anonymous
 *       and kernel memory) seen during a short query run at the highest thread count, after the
 *       query paths were compiled (more threads, buffers, compiled code): the larger of a run on
 *       dir-pread and a run on dir-cached with a small cache, whose resident blocks are left
 *       out (what dir-cached needs besides its blocks: scratch buffers, prefetch threads; a block
 *       freed but still committed counts as growth, which errs on the safe side).
 * </ul>
 *
 * The slack is at least {@link #MIN_SLACK_BYTES}: on the 135 MiB index the measurement gave 12.9
 * and 14.4 MiB, and 2 of 7 workers with a cache of the budget minus that were OOM-killed while
 * their cache filled, so a short run's growth alone is too little where the budget is small.
 *
 * @param cacheBytes the cache's budget, a whole number of blocks
 * @param slackBytes the page-cache budget minus the cache
 * @param fileBytes the JVM's own file pages, or -1 when the slack was not measured
 * @param growth the growth headroom, or null when the slack was not measured
 * @param share the share of the budget asked for, or 0 when the slack was measured
 */
record CacheSizing(long cacheBytes, long slackBytes, long fileBytes, Growth growth, double share) {
  /**
   * The growth measured on dir-pread and on dir-cached (besides its resident blocks); the headroom
   * is the larger.
   */
  record Growth(long pread, long cached) {
    long bytes() {
      return Math.max(pread, cached);
    }
  }

  /** The growth headroom in bytes, or -1 when the slack was not measured. */
  long growthBytes() {
    return growth == null ? -1 : growth.bytes();
  }

  /** The least slack, whatever was measured (see the class comment). */
  static final long MIN_SLACK_BYTES = 24L << 20;

  /** Samples the group this often while measuring growth. */
  static final long SAMPLE_MILLIS = 5;

  /**
   * The cache for a page-cache budget of {@code budget}, with {@code fileBytes} of the JVM's file
   * pages charged and {@code growth} measured (ignored, and may be null, when {@code spec} gives a share).
   *
   * @throws IllegalStateException if the slack leaves less than one block
   */
  static CacheSizing of(QueryWorkerCommand.Spec spec, long budget, long fileBytes, Growth growth) {
    int block = spec.cacheBlockSize;
    if (spec.cacheShare > 0) {
      long bytes = Math.max(block, (long) (budget * spec.cacheShare) / block * block);
      return new CacheSizing(bytes, budget - bytes, -1, null, spec.cacheShare);
    }
    long slack = Math.max(MIN_SLACK_BYTES, Math.max(0, fileBytes) + growth.bytes());
    long bytes = (budget - slack) / block * block;
    if (bytes < block) {
      throw new IllegalStateException(String.format(Locale.ROOT, "no room for dir-cached's cache: the page-cache"
          + " budget %s is below the measured slack %s (JVM file pages %s + growth %s); use a larger index",
          Format.size(budget), Format.size(slack), Format.size(fileBytes), Format.size(growth.bytes())));
    }
    return new CacheSizing(bytes, budget - bytes, fileBytes, growth, 0);
  }

  CacheSettings settings(QueryWorkerCommand.Spec spec) {
    return new CacheSettings(cacheBytes, spec.cacheBlockSize, !spec.cacheNoAdmission);
  }

  String describe() {
    if (share > 0) {
      return String.format(Locale.ROOT, "%s, %.2f of the page-cache budget (--cache-pressure-share; slack %s not"
          + " measured)", Format.size(cacheBytes), share, Format.size(slackBytes));
    }
    return String.format(Locale.ROOT, "%s: the page-cache budget minus a measured slack of %s (the JVM's own file"
        + " pages after evicting the index %s + growth headroom %s, the larger of %s on dir-pread and %s on"
        + " dir-cached besides its resident blocks; at least %s)", Format.size(cacheBytes), Format.size(slackBytes),
        Format.size(fileBytes), Format.size(growth.bytes()), Format.size(growth.pread()), Format.size(growth.cached()),
        Format.size(MIN_SLACK_BYTES));
  }

  /**
   * The growth of {@link #growth(Path, QueryMix, QueryWorkerCommand.Spec, String)} on dir-pread
   * and on dir-cached (with {@code spec}'s compile-phase cache).
   */
  static Growth growth(Path index, QueryMix mix, QueryWorkerCommand.Spec spec) throws Exception {
    Growth g = new Growth(growth(index, mix, spec, DIR_PREAD), growth(index, mix, spec, DIR_CACHED));
    System.out.printf("sizing: growth of the memory besides page cache: %s on dir-pread, %s on dir-cached besides"
        + " its resident blocks%n", Format.size(g.pread()), Format.size(g.cached()));
    return g;
  }

  /**
   * Opens {@code directory} on {@code index}, runs the mix for {@code spec.growthSeconds} at the
   * highest thread count, and returns the highest memory charged besides page cache (less a block
   * cache's resident blocks), sampled every {@value #SAMPLE_MILLIS} ms, minus what was charged
   * before it opened.
   */
  static long growth(Path index, QueryMix mix, QueryWorkerCommand.Spec spec, String directory) throws Exception {
    long before = GroupSampler.nonFileBytesNow();
    if (before < 0) {
      throw new IllegalStateException("cannot read this process's memory cgroup to measure the slack");
    }
    int threads = Arrays.stream(spec.threads).max().orElse(1);
    GroupSampler sampler = null;
    try (Directory d = StrategyRegistry.openDirectory(directory, index, spec.cache()); DirectoryReader reader = DirectoryReader.open(d)) {
      dev.pread.cache.BlockCache cache = CachedDirectories.cacheOf(d);
      sampler = GroupSampler.start(SAMPLE_MILLIS, () -> cache == null ? 0 : cache.stats().residentBytes());
      QueryRun.run(new IndexSearcher(reader), mix, spec.reference, threads, 0, (long) (spec.growthSeconds * 1000),
          directory + " (slack)");
    } finally {
      if (sampler != null) {
        sampler.close();
      }
    }
    return Math.max(0, sampler.maxNonFileBytes() - before);
  }
}
