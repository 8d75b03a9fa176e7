package dev.pread.nativeio;

import java.nio.file.Path;

/** A read was attempted on a {@link NativeFile} after {@link NativeFile#close()} began. */
public final class ClosedFileException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  ClosedFileException(Path path) {
    super("file is closed: " + path);
  }
}
