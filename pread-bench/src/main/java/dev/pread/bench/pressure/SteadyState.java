package dev.pread.bench.pressure;

/**
 * The warm-up of a pressure worker: it runs its workload, untimed, until a given number of bytes
 * came from storage (the process's {@code /proc/self/io}), so that its memory (the cgroup's page
 * cache, or a block cache) holds what the workload itself put there and every further miss
 * reclaims, instead of the first seconds after an eviction, when nothing needs reclaiming yet.
 */
public final class SteadyState {
  private SteadyState() {}

  /** One slice of the workload (a fraction of a second of it); {@code index} counts slices from 0. */
  public interface Slice {
    void run(int index) throws Exception;
  }

  /**
   * Runs slices until {@code bytes} were read from storage or {@code capSeconds} passed (or the
   * counter cannot be read); returns the seconds it took.
   */
  public static double readFromStorage(long bytes, double capSeconds, Slice slice) throws Exception {
    long start = System.nanoTime();
    long cap = start + (long) (capSeconds * 1e9);
    ProcStats before = ProcStats.now();
    int index = 0;
    while (System.nanoTime() < cap) {
      slice.run(index++);
      long read = ProcStats.now().minus(before).storageReadBytes();
      if (read < 0 || read >= bytes) {
        break;
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
