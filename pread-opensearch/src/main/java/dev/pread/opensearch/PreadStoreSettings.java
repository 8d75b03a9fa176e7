package dev.pread.opensearch;

import dev.pread.store.PreadDirectory;
import java.util.List;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Setting.Property;
import org.opensearch.core.common.unit.ByteSizeUnit;
import org.opensearch.core.common.unit.ByteSizeValue;

/**
 * The index settings of store type {@code pread_plain}; {@link #PREFETCH} applies to {@code
 * pread_cached} too (whose node settings are {@link PreadCachedSettings}), and none applies to
 * {@code pread}, whose directory takes no setting. A store type accepts the ones it does not read
 * and ignores them, with a warning when the shard opens if the index sets them itself. Each is an
 * index setting that may also be set in {@code opensearch.yml} as the default for the node's
 * indices. None is dynamic: a directory reads them when a shard opens, so change them on a closed
 * index (they apply when it is opened again).
 */
public final class PreadStoreSettings {
  /** Prefix shared by these settings. */
  public static final String PREFIX = "index.store.pread.";

  /** Smallest {@link #BUFFER_SIZE}: {@link PreadDirectory#MIN_BUFFER_SIZE} bytes. */
  public static final ByteSizeValue MIN_BUFFER_SIZE =
      new ByteSizeValue(PreadDirectory.MIN_BUFFER_SIZE, ByteSizeUnit.BYTES);

  /**
   * Largest {@link #BUFFER_SIZE}. Every input and every clone may grow a heap buffer of this size
   * while it reads sequentially, and a shard has many clones in flight, while sequential decoding
   * gains little from buffers beyond 64 KiB ({@code ./pread cli buffers}, docs/benchmarks.md).
   */
  public static final ByteSizeValue MAX_BUFFER_SIZE = new ByteSizeValue(1, ByteSizeUnit.MB);

  /** Largest heap buffer of an input (merges and sequential reads use at least 64 KiB). */
  public static final Setting<ByteSizeValue> BUFFER_SIZE =
      new Setting<>(
          PREFIX + "buffer_size",
          (PreadDirectory.DEFAULT_BUFFER_SIZE / 1024) + "kb",
          value -> parseBufferSize(value, PREFIX + "buffer_size"),
          Property.IndexScope,
          Property.NodeScope);

  /** Which {@code posix_fadvise} advice inputs get: context (default), normal, random, sequential. */
  public static final Setting<ReadAdviceMode> READ_ADVICE =
      new Setting<>(
          PREFIX + "read_advice",
          ReadAdviceMode.CONTEXT.settingValue(),
          value -> ReadAdviceMode.parse(value, PREFIX + "read_advice"),
          Property.IndexScope,
          Property.NodeScope);

  /**
   * Whether {@code IndexInput.prefetch} acts ({@code true}) or does nothing. With {@code
   * pread_plain} it asks the kernel to read ahead; with {@code pread_cached} it loads missing blocks
   * into the node's cache on the cache's prefetch threads.
   */
  public static final Setting<Boolean> PREFETCH =
      new Setting<>(
          PREFIX + "prefetch",
          "true",
          value -> parseBoolean(value, PREFIX + "prefetch"),
          Property.IndexScope,
          Property.NodeScope);

  private PreadStoreSettings() {}

  /** The index settings of store type {@code pread_plain}, to register with OpenSearch. */
  public static List<Setting<?>> all() {
    return List.of(BUFFER_SIZE, READ_ADVICE, PREFETCH);
  }

  /** A byte size within [{@link #MIN_BUFFER_SIZE}, {@link #MAX_BUFFER_SIZE}]. */
  static ByteSizeValue parseBufferSize(String value, String settingKey) {
    ByteSizeValue size = parseByteSize(value, settingKey);
    if (size.getBytes() < MIN_BUFFER_SIZE.getBytes() || size.getBytes() > MAX_BUFFER_SIZE.getBytes()) {
      throw new IllegalArgumentException(
          "invalid value ["
              + value
              + "] for setting ["
              + settingKey
              + "]: must be between "
              + MIN_BUFFER_SIZE
              + " and "
              + MAX_BUFFER_SIZE);
    }
    return size;
  }

  /** Any byte size OpenSearch understands; the error names the setting and the value. */
  static ByteSizeValue parseByteSize(String value, String settingKey) {
    try {
      return ByteSizeValue.parseBytesSizeValue(value, settingKey);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "invalid value [" + value + "] for setting [" + settingKey + "]: not a byte size (e.g. 4kb, 16kb, 65536b)", e);
    }
  }

  /** {@code true} or {@code false} exactly; OpenSearch's own boolean settings name no setting in their error. */
  static boolean parseBoolean(String value, String settingKey) {
    if ("true".equals(value)) {
      return true;
    }
    if ("false".equals(value)) {
      return false;
    }
    throw new IllegalArgumentException(
        "invalid value [" + value + "] for setting [" + settingKey + "]: must be true or false");
  }
}
