package dev.pread.store;

/**
 * How far reads usually go on after a jump in one file (or one part of a compound file), learned
 * from the runs its inputs read, so that the first refill after a jump can read a whole run with
 * one system call instead of ramping up to it.
 *
 * <p>A run starts at a refill that does not continue the previous one and ends where the reads
 * that followed stopped. Decoding a stored-fields block reads one run of several KiB after each
 * seek, and from storage each refill of the doubling ramp (1 KiB, 2 KiB, 4 KiB ...) is a read the
 * query waits for in turn; a terms-dictionary lookup or a postings list of a rare term reads well
 * under 1 KiB. The estimate is a moving average of the runs' sizes in powers of two (a geometric
 * mean, each run weighing 1/16: one long scan moves it by a quarter of a power of two at most),
 * each run counted between the smallest and the largest refill. A file read in short runs so keeps
 * the smallest first refill, and one read in long runs gets a first refill of their typical size.
 * The cost: a first refill larger than the run it starts reads bytes nobody asked for, which the
 * average keeps to files whose runs are mostly that long.
 *
 * <p>Shared by an input and its clones; updated and read without synchronization (a lost update
 * only leaves one run out of the average).
 */
final class RunLengths {
  /** Each run moves the average by this share of the distance to it. */
  private static final double WEIGHT = 1.0 / 16;

  private static final double LN_2 = Math.log(2);

  private final double minLog2;
  private final double maxLog2;

  /** The average of the runs' log2 sizes; plain, benign races. */
  private double log2Average;

  /** {@code 2^log2Average}, rounded up; plain, benign races. */
  private int typical;

  /**
   * @param minRefill the smallest first refill
   * @param maxRefill the largest (the buffer size)
   */
  RunLengths(int minRefill, int maxRefill) {
    if (minRefill < 1 || maxRefill < minRefill) {
      throw new IllegalArgumentException("refills from " + minRefill + " to " + maxRefill);
    }
    this.minLog2 = log2(minRefill);
    this.maxLog2 = log2(maxRefill);
    this.log2Average = minLog2;
    this.typical = minRefill;
  }

  private static double log2(long bytes) {
    return Math.log(bytes) / LN_2;
  }

  /** Counts a run of {@code bytes} bytes read after a jump (at least 1). */
  void record(long bytes) {
    double average = log2Average + (Math.clamp(log2(bytes), minLog2, maxLog2) - log2Average) * WEIGHT;
    log2Average = average;
    typical = (int) Math.ceil(Math.pow(2, average));
  }

  /** The first refill after a jump: the typical run, within the bounds. */
  int firstRefill(int minRefill, int maxRefill) {
    return Math.clamp(typical, minRefill, maxRefill);
  }
}
