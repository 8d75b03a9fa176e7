package dev.pread.cache;

/**
 * A run of blocks {@code first .. first + count - 1} of one file that {@link ClockPolicy#claimRun}
 * claimed for loading: their claims (loading table entries, see {@link BlockStates}), which the
 * holder must publish or give up ({@link FileBlocks#finishLoad}). When nothing was claimed ({@code
 * count} 0), {@link #outcome} says why: {@link Outcome#PRESENT}, {@link Outcome#BUSY} or {@link
 * Outcome#REJECTED}.
 *
 * <p>Not thread-safe: filled under the policy's lock, then handed to one loader.
 */
final class Run {
  final FileBlocks file;
  final int first;
  /** The claims, one per block; the first {@link #count} are valid. */
  final long[] claims;

  int count;
  long outcome = Outcome.PRESENT;

  Run(FileBlocks file, int first, int max) {
    this.file = file;
    this.first = first;
    this.claims = new long[max];
  }
}
