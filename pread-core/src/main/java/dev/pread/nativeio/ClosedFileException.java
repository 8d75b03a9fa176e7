package dev.pread.nativeio;

import java.nio.file.Path;

/**
 * A call was made on a {@link NativeFile} or a {@link NativeOutputFile} after its {@code close()}
 * began.
 */
public final class ClosedFileException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  ClosedFileException(Path path) {
    super("file is closed: " + path);
  }
}
