package dev.pread.nativeio;

/**
 * Linux errno values this library names in its messages. The numbers are the same on every
 * architecture we support (x86_64 and aarch64 share the asm-generic values for these).
 *
 * <p>Thread-safe: constants only.
 */
public final class Errno {
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int EIO = 5;
  public static final int ENXIO = 6;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EACCES = 13;
  public static final int EFAULT = 14;
  public static final int EBUSY = 16;
  public static final int EEXIST = 17;
  public static final int ENODEV = 19;
  public static final int ENOTDIR = 20;
  public static final int EISDIR = 21;
  public static final int EINVAL = 22;
  public static final int ENFILE = 23;
  public static final int EMFILE = 24;
  public static final int EFBIG = 27;
  public static final int ENOSPC = 28;
  public static final int ESPIPE = 29;
  public static final int EROFS = 30;
  public static final int ENAMETOOLONG = 36;
  public static final int ENOSYS = 38;
  public static final int ELOOP = 40;
  public static final int EOVERFLOW = 75;
  public static final int EOPNOTSUPP = 95;
  public static final int ESTALE = 116;

  private Errno() {}

  /** The symbolic name of {@code errno} ("ENOENT"), or {@code "errno N"} for one we do not name. */
  public static String name(int errno) {
    return switch (errno) {
      case EPERM -> "EPERM";
      case ENOENT -> "ENOENT";
      case EINTR -> "EINTR";
      case EIO -> "EIO";
      case ENXIO -> "ENXIO";
      case EBADF -> "EBADF";
      case EAGAIN -> "EAGAIN";
      case ENOMEM -> "ENOMEM";
      case EACCES -> "EACCES";
      case EFAULT -> "EFAULT";
      case EBUSY -> "EBUSY";
      case EEXIST -> "EEXIST";
      case ENODEV -> "ENODEV";
      case ENOTDIR -> "ENOTDIR";
      case EISDIR -> "EISDIR";
      case EINVAL -> "EINVAL";
      case ENFILE -> "ENFILE";
      case EMFILE -> "EMFILE";
      case EFBIG -> "EFBIG";
      case ENOSPC -> "ENOSPC";
      case ESPIPE -> "ESPIPE";
      case EROFS -> "EROFS";
      case ENAMETOOLONG -> "ENAMETOOLONG";
      case ENOSYS -> "ENOSYS";
      case ELOOP -> "ELOOP";
      case EOVERFLOW -> "EOVERFLOW";
      case EOPNOTSUPP -> "EOPNOTSUPP";
      case ESTALE -> "ESTALE";
      default -> "errno " + errno;
    };
  }
}
