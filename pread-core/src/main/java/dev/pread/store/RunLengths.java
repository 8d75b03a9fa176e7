package dev.pread.store;

/**
 * How far reads usually go on after a jump in one file (or one part of a compound file), learned
 * from the runs its inputs read, so that the first refill after a jump can read a whole run with
 * one system call instead of ramping up to it.
 *
 * <p>A run starts at a refill that does not continue the previous one and ends where the reads
 * that followed stopped; a forward skip that one refill of the largest size from the run's start
 * would have covered belongs to the run ({@link PreadIndexInput}). Fetching a stored document
 * reads its compressed block's header and dictionary, skips the sub-blocks before the document,
 * and reads on from there: several KiB after each seek, and from storage each refill of the ramp
 * is a read the query waits for in turn; a terms-dictionary lookup or a vector reads about 1 KiB.
 *
 * <p>The estimate is a histogram of the runs' sizes in steps of an eighth of a power of two,
 * between the smallest and the largest refill, in which each run weighs 1/16 and the weight of
 * the earlier runs decays to make room for it. The first refill is the size that five runs in six
 * fit in: a file read in runs of one size gets a first refill of that size (at most 9% above it),
 * one read in runs of many sizes (stored documents of different lengths) one that covers most of
 * them, and one long scan among short runs (a sixteenth of the weight) changes nothing.
 *
 * <p>The trade-off: a first refill larger than the run it starts reads bytes nobody asked for. A
 * page the kernel has cached costs a copy; one it has not is read in the same request as the
 * rest, so on a miss the extra bytes cost bandwidth and their transfer time but no request of
 * their own: on a volume that caps reads a second, a run read in one request instead of two or
 * three is what counts.
 *
 * <p>Shared by an input and its clones; updated and read without synchronization (a lost or torn
 * update only misweighs a run or two; every count stays between 0 and 1).
 */
final class RunLengths {
  /** Each run's weight; the earlier runs' weights shrink by this share. */
  private static final double WEIGHT = 1.0 / 16;

  /** Histogram steps a power of two. */
  private static final int STEPS = 8;

  /** The share of the runs the first refill covers. */
  private static final double COVERED = 5.0 / 6;

  private static final double LN_2 = Math.log(2);

  private final double minLog2;
  private final double maxLog2;

  /**
   * The runs' weights by size: bucket {@code i} holds the runs of at most {@code 2^(minLog2 + i /
   * STEPS)} bytes (and more than the bucket below); plain, benign races.
   */
  private final double[] weights;

  /** The first refill learned so far; plain, benign races. */
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
    this.weights = new double[(int) Math.ceil((maxLog2 - minLog2) * STEPS) + 1];
    this.typical = minRefill;
  }

  private static double log2(long bytes) {
    return Math.log(bytes) / LN_2;
  }

  /** Counts a run of {@code bytes} bytes read after a jump (at least 1). */
  void record(long bytes) {
    double[] w = weights;
    int bucket = (int) Math.ceil((Math.clamp(log2(bytes), minLog2, maxLog2) - minLog2) * STEPS - 1e-9);
    bucket = Math.clamp(bucket, 0, w.length - 1);
    double sum = WEIGHT;
    for (int i = 0; i < w.length; i++) {
      sum += w[i] *= 1 - WEIGHT;
    }
    w[bucket] += WEIGHT;
    double covered = 0;
    int i = 0;
    while (i < w.length - 1 && (covered += w[i]) < COVERED * sum) {
      i++;
    }
    typical = (int) Math.ceil(Math.pow(2, Math.min(maxLog2, minLog2 + (double) i / STEPS)) - 1e-6);
  }

  /** The first refill after a jump: the size five of six recent runs fit in, within the bounds. */
  int firstRefill(int minRefill, int maxRefill) {
    return Math.clamp(typical, minRefill, maxRefill);
  }
}
