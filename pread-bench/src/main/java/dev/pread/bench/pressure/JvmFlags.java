package dev.pread.bench.pressure;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The flags every benchmark JVM starts with, as production starts a node: native access for the
 * FFM downcalls, and the Vector API module (OpenSearch starts every node with {@code --add-modules
 * jdk.incubator.vector}; without it Lucene scores vectors without SIMD, and a Directory's KNN
 * queries look slower than they are). Worker JVMs, JMH forks and the {@code ./pread} launcher all
 * use them.
 */
public final class JvmFlags {
  /** The Vector API's module. */
  public static final String VECTOR_MODULE = "jdk.incubator.vector";

  /** Flags of every benchmark JVM, each a single argument. */
  public static final List<String> PRODUCTION = List.of("--enable-native-access=ALL-UNNAMED", "--add-modules=" + VECTOR_MODULE);

  /**
   * The flags a worker JVM gets besides {@link #PRODUCTION}, for a heap of {@code heap}. A worker
   * that runs under a memory limit pre-touches its heap ({@code -XX:+AlwaysPreTouch}): the whole
   * heap is charged to its cgroup from the start, so what it holds besides page cache does not grow
   * into the page-cache budget while it is measured. One without a limit (warm and cold) need not,
   * and pre-touching a 1 GiB heap is seconds of each such worker's start: the pages its queries
   * use are touched in its compile phase, before any cell is measured.
   */
  static List<String> worker(String heap, boolean preTouch) {
    return preTouch ? List.of("-Xmx" + heap, "-Xms" + heap, "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC")
        : List.of("-Xmx" + heap, "-Xms" + heap, "-XX:+UseSerialGC");
  }

  private JvmFlags() {}

  /** Whether this JVM resolved the Vector API's module (started with {@code --add-modules}). */
  public static boolean vectorModuleLoaded() {
    return ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent();
  }

  /** This JVM's own command-line flags. */
  public static String thisJvm() {
    return String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
  }

  /** How a worker JVM with a heap of {@code heap} is started, for the report. */
  public static String describeWorker(String heap, boolean preTouch) {
    return String.join(" ", PRODUCTION) + " " + String.join(" ", worker(heap, preTouch));
  }
}
