package dev.pread.store;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MutableCallSite;
import java.util.HashMap;
import java.util.Map;

/**
 * The read path that every {@link AdaptiveDirectory} input of the JVM follows now, as a constant of
 * the JIT's compiled code: {@link AdaptiveFile#MAPPED}, {@link AdaptiveFile#CACHE}, {@link
 * AdaptiveFile#PAGE_CACHE}, or {@link #MIXED} while regimes in use differ (or one switches at every
 * read, as tests make them do).
 *
 * <p><b>Why.</b> A read of {@link AdaptiveIndexInput} checks its file's path and then reads the
 * mapping, the block cache or the page cache. The JIT compiles that check into Lucene's decoding
 * loops with whatever the loops' profiles saw: once a node went through a spell under a memory
 * limit, the loops keep the block cache's code next to the mapping's when the index fits again, and
 * read the mapping slower than before the spell, until the JVM restarts. While every input reads
 * mappings, a read that sees this constant read the mapping with no other path compiled in: the
 * other paths are behind a call the compiled code never makes. A switch of path changes the
 * constant, which makes the JVM throw away the code compiled with it ({@link
 * MutableCallSite#setTarget}); the JIT compiles the new path's code as the reads go on.
 *
 * <p><b>Trade-off.</b> Each change costs the recompilation of Lucene's hot query code: a few seconds
 * of a compiler thread, during which queries run slower. Changes follow the regimes' switches, which
 * come at most once a second and, with the gap between the share that switches to the block cache
 * and the share that switches back, only when memory really changed.
 *
 * <p>While the constant says mappings, a read goes to its file's mapping without looking at the
 * file's own path: two dependent loads and a branch per value that Lucene's decoding loops would
 * otherwise pay (LZ4's token loop reads three values a token). Every path gives the same bytes, so
 * a reader that sees a switch of its file late reads right, through the mapping. The one file a
 * mapping must not be read from is one found shorter than at open (its pages past the end fault,
 * which the JVM reports as an {@link InternalError}): while such a file is open the constant says
 * {@link #MIXED}, and every read looks at its file's path, as it does whenever the constant says
 * anything but mappings.
 *
 * <p>Thread-safe.
 */
final class CompiledPath {
  /** The value while regimes in use follow different paths. */
  static final int MIXED = -1;

  private static final MutableCallSite SITE =
      new MutableCallSite(MethodHandles.constant(int.class, AdaptiveFile.MAPPED));
  private static final MethodHandle GET = SITE.dynamicInvoker();

  /** The path of each regime in use (a directory holds it). Guarded by the class. */
  private static final Map<AdaptiveRegime, Integer> IN_USE = new HashMap<>();

  /** The constant's value. Guarded by the class. */
  private static int value = AdaptiveFile.MAPPED;

  /** Open files found shorter than at open ({@link AdaptiveFile#TRUNCATED}). Guarded by the class. */
  private static int truncatedOpen;

  private static long changes;

  private CompiledPath() {}

  /** The path every input follows now, folded into compiled code as a constant. */
  static int get() {
    try {
      return (int) GET.invokeExact();
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** {@code regime}, in use, follows {@code path} now ({@link #MIXED} if it switches at every read). */
  static synchronized void follow(AdaptiveRegime regime, int path) {
    IN_USE.put(regime, path);
    update();
  }

  /** {@code regime} is no longer in use: no directory holds it. */
  static synchronized void forget(AdaptiveRegime regime) {
    if (IN_USE.remove(regime) != null) {
      update();
    }
  }

  /**
   * An open file was found truncated ({@code true}), or such a file closed ({@code false}): while
   * any is open the constant says {@link #MIXED}.
   */
  static synchronized void truncated(boolean found) {
    truncatedOpen += found ? 1 : -1;
    update();
  }

  /** The constant's value now. */
  static synchronized int value() {
    return value;
  }

  /** How many times the constant changed in this JVM. */
  static synchronized long changes() {
    return changes;
  }

  private static void update() {
    int next = AdaptiveFile.MAPPED; // no regime in use: no input reads, the path of a new directory
    boolean first = true;
    for (int p : IN_USE.values()) {
      if (first) {
        next = p;
        first = false;
      } else if (p != next) {
        next = MIXED;
        break;
      }
    }
    if (truncatedOpen > 0) {
      next = MIXED;
    }
    if (next != value) {
      value = next;
      changes++;
      SITE.setTarget(MethodHandles.constant(int.class, next));
    }
  }
}
