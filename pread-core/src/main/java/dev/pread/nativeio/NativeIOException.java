package dev.pread.nativeio;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A system call failed. The message names the path, the operation, the file offset where one
 * applies, and errno with its symbolic name and the C library's text, e.g. {@code
 * /data/_0.cfs: pread failed at offset 4096 (length 16384): EIO (Input/output error)}.
 */
public class NativeIOException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Marker for "no offset applies to this operation". */
  static final long NO_OFFSET = -1;

  private final int errno;
  private final String operation;
  private final transient Path path;
  private final long offset;

  NativeIOException(Path path, String operation, long offset, long length, int errno) {
    super(message(path, operation, offset, length, errno));
    this.errno = errno;
    this.operation = operation;
    this.path = path;
    this.offset = offset;
  }

  static String message(Path path, String operation, long offset, long length, int errno) {
    StringBuilder sb = new StringBuilder();
    sb.append(path).append(": ").append(operation).append(" failed");
    if (offset != NO_OFFSET) {
      sb.append(" at offset ").append(offset);
      if (length >= 0) {
        sb.append(" (length ").append(length).append(')');
      }
    }
    sb.append(": ").append(describe(errno));
    return sb.toString();
  }

  /** {@code "EIO (Input/output error)"}. */
  static String describe(int errno) {
    return Errno.name(errno) + " (" + NativeIO.strerror(errno) + ")";
  }

  /** The errno value the call failed with. */
  public int errno() {
    return errno;
  }

  /** The system call, e.g. {@code "pread"}. */
  public String operation() {
    return operation;
  }

  /** The file the call was made for. */
  public Path path() {
    return path;
  }

  /** The file offset of the failed call, or -1 where none applies. */
  public long offset() {
    return offset;
  }
}
