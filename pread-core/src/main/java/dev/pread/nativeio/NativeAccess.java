package dev.pread.nativeio;

import java.util.Locale;
import java.util.Optional;

/**
 * Whether this JVM may read files through the native layer, and if not, why.
 *
 * <p>The native path needs all of: Linux; x86_64 or aarch64 (the flag values in {@link NativeIO}
 * are those of these architectures); native access enabled for this library's module (start the
 * JVM with {@code --enable-native-access=ALL-UNNAMED}, or the module name when on the module path);
 * the C library symbols {@code open}, {@code pread}, {@code statx}, {@code posix_fadvise}; and the
 * system property {@value #DISABLE_PROPERTY} not set to {@code true}.
 *
 * <p>The check runs once per JVM. It never triggers the JVM's own "restricted method" warning: when
 * native access is not enabled we do not try.
 */
public final class NativeAccess {
  /** Set this system property to {@code true} to turn the native path off. */
  public static final String DISABLE_PROPERTY = "dev.pread.nativeio.disable";

  /** null when available. */
  private static final String UNAVAILABLE_REASON = check();

  private NativeAccess() {}

  /** True when this JVM can use the native read path. */
  public static boolean isAvailable() {
    return UNAVAILABLE_REASON == null;
  }

  /** Why the native path is off, or empty when it is available. */
  public static Optional<String> unavailableReason() {
    return Optional.ofNullable(UNAVAILABLE_REASON);
  }

  /** Throws {@link UnsupportedOperationException} with the reason when unavailable. */
  static void ensureAvailable() {
    if (UNAVAILABLE_REASON != null) {
      throw new UnsupportedOperationException("native I/O is unavailable: " + UNAVAILABLE_REASON);
    }
  }

  private static String check() {
    if (Boolean.getBoolean(DISABLE_PROPERTY)) {
      return "disabled by the system property " + DISABLE_PROPERTY + "=true";
    }
    String os = System.getProperty("os.name", "?");
    if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
      return "operating system " + os + " is not supported (Linux only)";
    }
    String arch = System.getProperty("os.arch", "?");
    if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
      return "architecture " + arch + " is not supported (x86_64 and aarch64 only)";
    }
    Module module = NativeAccess.class.getModule();
    if (!module.isNativeAccessEnabled()) {
      String who = module.isNamed() ? module.getName() : "ALL-UNNAMED";
      return "native access is not enabled for "
          + (module.isNamed() ? "module " + who : "the unnamed module")
          + "; start the JVM with --enable-native-access="
          + who;
    }
    try {
      NativeIO.link();
      return null;
    } catch (IllegalCallerException e) {
      return "the JVM refused native access: " + e.getMessage();
    } catch (LinkageError | RuntimeException e) {
      Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null
          ? e.getCause()
          : e;
      return "linking the C library failed: " + cause;
    }
  }
}
