package dev.pread.opensearch;

import dev.pread.store.PreadDirectory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.ReadAdvice;

/** The values of {@code index.store.pread.read_advice}: which {@code posix_fadvise} advice inputs get. */
public enum ReadAdviceMode {
  /** By the {@link IOContext}: {@link PreadDirectory#ADVISE_BY_CONTEXT} (the default). */
  CONTEXT(PreadDirectory.ADVISE_BY_CONTEXT),
  /** No advice for any file: the kernel's normal readahead. */
  NORMAL(constant(ReadAdvice.NORMAL)),
  /** {@code POSIX_FADV_RANDOM} for every file and context, merges included: no readahead. */
  RANDOM(constant(ReadAdvice.RANDOM)),
  /** {@code POSIX_FADV_SEQUENTIAL} for every file and context: doubled readahead. */
  SEQUENTIAL(constant(ReadAdvice.SEQUENTIAL));

  private final BiFunction<String, IOContext, Optional<ReadAdvice>> function;

  ReadAdviceMode(BiFunction<String, IOContext, Optional<ReadAdvice>> function) {
    this.function = function;
  }

  /** What {@link PreadDirectory#setReadAdvice} is given for this mode. */
  public BiFunction<String, IOContext, Optional<ReadAdvice>> function() {
    return function;
  }

  /** The setting's spelling of this mode. */
  public String settingValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a setting value (exact, lower case).
   *
   * @throws IllegalArgumentException naming the setting, the value and the accepted values
   */
  public static ReadAdviceMode parse(String value, String settingKey) {
    for (ReadAdviceMode mode : values()) {
      if (mode.settingValue().equals(value)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "invalid value ["
            + value
            + "] for setting ["
            + settingKey
            + "]: must be one of "
            + Arrays.stream(values()).map(ReadAdviceMode::settingValue).collect(Collectors.joining(", ")));
  }

  private static BiFunction<String, IOContext, Optional<ReadAdvice>> constant(ReadAdvice advice) {
    Optional<ReadAdvice> result = Optional.of(advice);
    return (name, context) -> result;
  }
}
