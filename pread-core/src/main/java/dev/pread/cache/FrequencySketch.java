package dev.pread.cache;

/**
 * How often each block was used lately, approximately: a count-min sketch of 4-bit counters that
 * halves every counter after a sample period, so that old popularity fades. {@link ClockPolicy}
 * asks it whether a block that missed is used more often than the one it would replace (TinyLFU
 * admission).
 *
 * <p>A key has four counters, in four words picked by four hashes, one nibble in each; its
 * frequency is the smallest of them (0 to 15). Collisions can only make an estimate too high. The
 * table has one word (16 counters) per cache block, rounded up to a power of two, and the sample
 * period is ten times the number of blocks.
 *
 * <p><b>Thread-safety:</b> not thread-safe. {@link ClockPolicy} uses it under its lock only: hits
 * reach it through a {@link HitBuffer} drained under that lock, so the halving (a walk over the
 * whole table) never runs on a reader's thread.
 *
 * <p>Caffeine has a sketch of this kind, but internal to its cache; this one is sized and keyed
 * for blocks.
 */
final class FrequencySketch {
  private static final long HALVE_MASK = 0x7777_7777_7777_7777L;

  private final long[] table;
  private final int mask;
  private final int samplePeriod;
  private int samples;

  FrequencySketch(int blocks) {
    int words = Integer.highestOneBit(Math.max(64, Math.min(blocks, 1 << 26)) - 1) << 1;
    this.table = new long[words];
    this.mask = words - 1;
    this.samplePeriod = (int) Math.min(Integer.MAX_VALUE, 10L * Math.max(blocks, 64));
  }

  /** Heap bytes of the table. */
  long bytes() {
    return (long) table.length * Long.BYTES;
  }

  /** A key for block {@code block} of the file numbered {@code file}. */
  static long key(long file, int block) {
    return mix(file * 0x9E37_79B9_7F4A_7C15L + block);
  }

  /** The estimated uses of {@code key} in the current period, 0 to 15. */
  int frequency(long key) {
    int min = 15;
    for (int i = 0; i < 4; i++) {
      long h = rehash(key, i);
      int nibble = (int) (h >>> 60) & 15;
      int count = (int) (table[(int) h & mask] >>> (nibble << 2)) & 15;
      min = Math.min(min, count);
    }
    return min;
  }

  /** Records a use of {@code key}; every {@code samplePeriod} uses, halves all counters. */
  void increment(long key) {
    boolean added = false;
    for (int i = 0; i < 4; i++) {
      long h = rehash(key, i);
      int index = (int) h & mask;
      int shift = ((int) (h >>> 60) & 15) << 2;
      long word = table[index];
      if (((word >>> shift) & 15) != 15) {
        table[index] = word + (1L << shift);
        added = true;
      }
    }
    if (added && ++samples >= samplePeriod) {
      halve();
    }
  }

  private void halve() {
    samples = samplePeriod / 2;
    for (int i = 0; i < table.length; i++) {
      table[i] = (table[i] >>> 1) & HALVE_MASK;
    }
  }

  /** The sum of all counters (for tests). */
  long total() {
    long sum = 0;
    for (long word : table) {
      for (int n = 0; n < 16; n++) {
        sum += (word >>> (n << 2)) & 15;
      }
    }
    return sum;
  }

  private static long rehash(long key, int i) {
    return mix(key + (i + 1) * 0xC2B2_AE3D_27D4_EB4FL);
  }

  /** A 64-bit finalizer (the one of SplitMix64): every input bit affects every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }
}
