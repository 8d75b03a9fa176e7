package dev.pread.opensearch;

import dev.pread.cache.BlockCache;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Setting.Property;
import org.opensearch.core.common.unit.ByteSizeUnit;
import org.opensearch.core.common.unit.ByteSizeValue;

/**
 * The node settings of store type {@code pread_cached}: the size and shape of the one {@link
 * BlockCache} that the shards of every {@code pread_cached} index on a node share. They are node
 * settings only ({@code opensearch.yml}), read when the cache is created (when the first such shard
 * opens); a node refuses to start with an invalid value. The index setting {@link
 * PreadStoreSettings#PREFETCH} applies to {@code pread_cached} indices too.
 */
public final class PreadCachedSettings {
  /** Prefix shared by the node settings of store type {@code pread_cached}. */
  public static final String PREFIX = "node.store.pread_cached.";

  /** The value of {@link #SIZE} that sizes the cache from the container: its default. */
  public static final String AUTO = "auto";

  /** Most blocks a {@link BlockCache} can index. */
  static final long MAX_BLOCKS = 1L << 27;

  private static final String SIZE_KEY = PREFIX + "size";
  private static final String BLOCK_SIZE_KEY = PREFIX + "block_size";
  private static final String PREFETCH_THREADS_KEY = PREFIX + "prefetch_threads";

  /** Smallest and largest {@link #BLOCK_SIZE}. */
  static final ByteSizeValue MIN_BLOCK_SIZE = new ByteSizeValue(BlockCache.MIN_BLOCK_SIZE, ByteSizeUnit.BYTES);

  static final ByteSizeValue MAX_BLOCK_SIZE = new ByteSizeValue(BlockCache.MAX_BLOCK_SIZE, ByteSizeUnit.BYTES);

  /** Most {@link #PREFETCH_THREADS} ({@link BlockCache.Builder#prefetchThreads} accepts 1 to 256). */
  static final int MAX_PREFETCH_THREADS = 256;

  /** Bytes per block: a power of two from 4kb to 1mb; {@link BlockCache#DEFAULT_BLOCK_SIZE} by default. */
  public static final Setting<ByteSizeValue> BLOCK_SIZE =
      new Setting<>(
          BLOCK_SIZE_KEY,
          (BlockCache.DEFAULT_BLOCK_SIZE / 1024) + "kb",
          value -> parseBlockSize(value, BLOCK_SIZE_KEY),
          Property.NodeScope);

  /**
   * Bytes of block data in the node's cache, allocated as it fills and held until the node stops.
   * At least one block, below the node's physical memory, and at most 2^27 blocks; or {@value
   * #AUTO}, the default: sized from the container when the cache is built ({@link
   * NodeCacheSizing}). {@link #get} gives {@value #AUTO} as -1 bytes.
   */
  public static final Setting<ByteSizeValue> SIZE =
      new Setting<>(
          new Setting.SimpleKey(SIZE_KEY),
          settings -> AUTO,
          value -> parseSize(value, SIZE_KEY, PhysicalMemory.BYTES),
          new SizeFitsBlocks(),
          Property.NodeScope);

  /**
   * Threads loading the blocks {@code IndexInput.prefetch} asks for, 1 to 256; {@link
   * BlockCache#DEFAULT_PREFETCH_THREADS} by default. They start on the first prefetch, end after a
   * minute idle, and all end when the node stops.
   */
  public static final Setting<Integer> PREFETCH_THREADS =
      new Setting<>(
          PREFETCH_THREADS_KEY,
          Integer.toString(BlockCache.DEFAULT_PREFETCH_THREADS),
          value -> parseIntInRange(value, PREFETCH_THREADS_KEY, 1, MAX_PREFETCH_THREADS),
          Property.NodeScope);

  private PreadCachedSettings() {}

  /** The node settings of store type {@code pread_cached}, to register with OpenSearch. */
  public static List<Setting<?>> all() {
    return List.of(SIZE, BLOCK_SIZE, PREFETCH_THREADS);
  }

  /**
   * {@value #AUTO} (as -1 bytes), or a byte size of at least {@link #MIN_BLOCK_SIZE} and, when
   * {@code physicalMemory} is known (positive), below it.
   */
  static ByteSizeValue parseSize(String value, String settingKey, long physicalMemory) {
    if (AUTO.equals(value)) {
      return new ByteSizeValue(-1);
    }
    ByteSizeValue size = PreadStoreSettings.parseByteSize(value, settingKey);
    if (size.getBytes() < MIN_BLOCK_SIZE.getBytes()) {
      throw new IllegalArgumentException(
          "invalid value [" + value + "] for setting [" + settingKey + "]: must be at least " + MIN_BLOCK_SIZE + ", or " + AUTO);
    }
    if (physicalMemory > 0 && size.getBytes() >= physicalMemory) {
      throw new IllegalArgumentException(
          "invalid value ["
              + value
              + "] for setting ["
              + settingKey
              + "]: must be less than the node's physical memory ("
              + new ByteSizeValue(physicalMemory)
              + ")");
    }
    return size;
  }

  /** A byte size that is a power of two from {@link #MIN_BLOCK_SIZE} to {@link #MAX_BLOCK_SIZE}. */
  static ByteSizeValue parseBlockSize(String value, String settingKey) {
    ByteSizeValue size = PreadStoreSettings.parseByteSize(value, settingKey);
    long bytes = size.getBytes();
    if (bytes < MIN_BLOCK_SIZE.getBytes() || bytes > MAX_BLOCK_SIZE.getBytes() || Long.bitCount(bytes) != 1) {
      throw new IllegalArgumentException(
          "invalid value ["
              + value
              + "] for setting ["
              + settingKey
              + "]: must be a power of two from "
              + MIN_BLOCK_SIZE
              + " to "
              + MAX_BLOCK_SIZE
              + " (4kb, 8kb, 16kb, ..., 1mb)");
    }
    return size;
  }

  /** A decimal integer from {@code min} to {@code max}. */
  static int parseIntInRange(String value, String settingKey, int min, int max) {
    int parsed;
    try {
      parsed = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      parsed = min - 1;
    }
    if (parsed < min || parsed > max) {
      throw new IllegalArgumentException(
          "invalid value [" + value + "] for setting [" + settingKey + "]: must be an integer from " + min + " to " + max);
    }
    return parsed;
  }

  /** {@link #SIZE} holds at least one block of {@link #BLOCK_SIZE} and at most {@link #MAX_BLOCKS}. */
  static final class SizeFitsBlocks implements Setting.Validator<ByteSizeValue> {
    @Override
    public void validate(ByteSizeValue size) {}

    @Override
    public void validate(ByteSizeValue size, Map<Setting<?>, Object> settings) {
      if (size.getBytes() < 0) {
        return; // auto: NodeCacheSizing makes whole blocks
      }
      ByteSizeValue blockSize = (ByteSizeValue) settings.get(BLOCK_SIZE);
      long blocks = size.getBytes() / blockSize.getBytes();
      if (blocks < 1) {
        throw new IllegalArgumentException(
            "invalid value ["
                + size
                + "] for setting ["
                + SIZE_KEY
                + "]: must be at least one block of ["
                + BLOCK_SIZE_KEY
                + "] ("
                + blockSize
                + ")");
      }
      if (blocks > MAX_BLOCKS) {
        throw new IllegalArgumentException(
            "invalid value ["
                + size
                + "] for setting ["
                + SIZE_KEY
                + "]: holds more than "
                + MAX_BLOCKS
                + " blocks of ["
                + BLOCK_SIZE_KEY
                + "] ("
                + blockSize
                + "); use larger blocks");
      }
    }

    @Override
    public Iterator<Setting<?>> settings() {
      List<Setting<?>> dependencies = List.of(BLOCK_SIZE);
      return dependencies.iterator();
    }
  }

  /** The physical memory the JVM sees (a container's limit where one is set), once per JVM; 0 if unknown. */
  static final class PhysicalMemory {
    static final long BYTES = probe();

    private PhysicalMemory() {}

    private static long probe() {
      try {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
          return Math.max(0, sun.getTotalMemorySize());
        }
      } catch (RuntimeException | LinkageError e) {
        // no management support in this runtime: unknown
      }
      return 0;
    }
  }
}
