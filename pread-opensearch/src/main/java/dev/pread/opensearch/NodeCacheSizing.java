package dev.pread.opensearch;

import dev.pread.cache.ContainerMemory;
import java.io.IOException;
import org.opensearch.core.common.unit.ByteSizeValue;

/**
 * The size of the node's {@code pread_cached} block cache when {@code node.store.pread_cached.size}
 * is not set, from the memory of the container the node runs in:
 *
 * <pre>
 *   size  = (limit - heap - slack) / 2, in whole blocks, at most {@value PreadCachedSettings#MAX_BLOCKS} blocks
 *   slack = max(256 MiB, 10% of limit)
 * </pre>
 *
 * <ul>
 *   <li><b>limit</b>: the memory cgroup's limit (v2 {@code memory.max}, v1 {@code
 *       hierarchical_memory_limit}: the smallest limit on the way to the root), or the machine's
 *       {@code MemTotal} when there is none, as {@link ContainerMemory} reads it.
 *   <li><b>heap</b>: the JVM's maximum heap ({@code Runtime.maxMemory()}, {@code -Xmx}).
 *   <li><b>slack</b>: an estimate of the JVM's memory outside the heap: metaspace, code cache,
 *       thread stacks, direct buffers (OpenSearch's network layer uses them), and the pages of its
 *       own libraries and jars. None of these has a figure the node can read up front, and they grow
 *       with the load, so the slack is a share of the limit with a floor for small containers.
 *   <li><b>/ 2</b>: the other half is left to the page cache for the files the cache does not
 *       serve: the translog, indices of other store types, merges' writes, snapshots.
 * </ul>
 *
 * <p>A result below {@value #MIN_BLOCKS} blocks is refused: such a cache would evict what a search
 * reads before the next one reads it again. Stateless; thread-safe.
 */
final class NodeCacheSizing {
  /** The least slack: 256 MiB. */
  static final long MIN_SLACK_BYTES = 256L << 20;

  /** The slack's share of the limit, in percent. */
  static final int SLACK_PERCENT = 10;

  /** The fewest blocks a cache sized from the container may have. */
  static final long MIN_BLOCKS = 1024;

  /**
   * A size and how it was reached.
   *
   * @param bytes the cache's size, a whole number of blocks
   * @param formula the formula with its figures, for the log line: {@code (limit 4gb [...] - heap 2gb
   *     - slack 409.5mb) / 2}
   */
  record Size(long bytes, String formula) {}

  private NodeCacheSizing() {}

  /**
   * The size for a node whose JVM has {@code heapBytes} of heap, in the container {@code memory}
   * describes.
   *
   * @throws IOException naming the file if the memory figures cannot be read or are not numbers
   * @throws IllegalArgumentException if the result is below {@value #MIN_BLOCKS} blocks, with the
   *     figures
   */
  static Size fromContainer(ContainerMemory memory, long heapBytes, long blockSize) throws IOException {
    ContainerMemory.Reading reading = memory.read();
    String source =
        reading.source().contains("cgroup") ? reading.source() : "MemTotal of " + reading.source() + ", no memory limit";
    return compute(reading.limitBytes(), source, heapBytes, blockSize);
  }

  /** The formula of the class comment for a {@code limitBytes} read from {@code source}. */
  static Size compute(long limitBytes, String source, long heapBytes, long blockSize) {
    long slack = slackBytes(limitBytes);
    String formula =
        "(limit " + size(limitBytes) + " [" + source + "] - heap " + size(heapBytes) + " - slack " + size(slack) + ") / 2";
    long half = (limitBytes - heapBytes - slack) / 2;
    long blocks = Math.max(0, half) / blockSize;
    if (blocks < MIN_BLOCKS) {
      throw new IllegalArgumentException(
          "store type [pread_cached]: the node's block cache sized from the container would be "
              + size(Math.max(0, half))
              + " = "
              + formula
              + ", less than the minimum of "
              + MIN_BLOCKS
              + " blocks of "
              + size(blockSize)
              + " ("
              + size(MIN_BLOCKS * blockSize)
              + "); set node.store.pread_cached.size, or give the container more memory or the heap less");
    }
    if (blocks > PreadCachedSettings.MAX_BLOCKS) {
      blocks = PreadCachedSettings.MAX_BLOCKS;
      formula += ", at most " + PreadCachedSettings.MAX_BLOCKS + " blocks";
    }
    return new Size(blocks * blockSize, formula);
  }

  /** max(256 MiB, 10% of the limit). */
  static long slackBytes(long limitBytes) {
    return Math.max(MIN_SLACK_BYTES, limitBytes / 100 * SLACK_PERCENT);
  }

  private static String size(long bytes) {
    return new ByteSizeValue(bytes).toString();
  }
}
