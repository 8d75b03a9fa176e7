package dev.pread.cache;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Chooses which block to reuse on a miss: CLOCK with a two-bit use count per block, under one lock
 * that only misses take.
 *
 * <p>A block enters with count 0. A hit raises the count by one, up to 3, with a plain write that
 * is skipped once the count is 3, so hot blocks cost hits no write at all (lost updates between
 * racing hits only make a count lower). On a miss the hand moves over the blocks: a block whose
 * count is above 0 loses one and is passed; the first unpinned block at 0 is reused. A block read
 * once is therefore reused one turn of the hand after it came in, while a block read a few times
 * survives three turns without another hit: a scan of once-read blocks goes through the blocks
 * that scans brought in, not through the hot set. Inputs opened for merges or reading once do not
 * insert at all (see {@link CachedFile}).
 *
 * <p>Blocks never used, and blocks freed when their file closes, are handed out before any is
 * evicted. Thread-safe.
 */
final class ClockPolicy {
  private static final int MAX_USE = 3;

  private final Slots slots;
  private final CacheCounters counters;
  private final ReentrantLock lock = new ReentrantLock();
  /** The file and block each slot holds; written under the lock, read by eviction only. */
  private final FileBlocks[] owners;

  private final int[] ownerBlocks;
  /** Use counts; racy plain bytes (see the class comment). */
  private final byte[] uses;

  // guarded by lock
  private int hand;
  private int neverUsed;
  private final int[] free;
  private int freeCount;

  ClockPolicy(Slots slots, CacheCounters counters) {
    this.slots = slots;
    this.counters = counters;
    this.owners = new FileBlocks[slots.count];
    this.ownerBlocks = new int[slots.count];
    this.uses = new byte[slots.count];
    this.free = new int[slots.count];
  }

  /** Heap bytes per block of this policy's arrays (references counted as 8 bytes). */
  static long bytesPerSlot() {
    return 8 + 4 + 1 + 4;
  }

  /** Records a hit on {@code slot}. */
  void touch(int slot) {
    byte u = uses[slot];
    if (u < MAX_USE) {
      uses[slot] = (byte) (u + 1);
    }
  }

  /**
   * Claims up to {@code max} slots for the blocks {@code first, first + 1, ...} of {@code file}
   * that are missing, stopping at the first block present, and installs them in the file's table
   * as loading. Blocks in {@code out} are then owned by the caller, who must {@link
   * FileBlocks#finishLoad} them.
   *
   * @return how many blocks were claimed: 0 if {@code first} is present, or if no slot is free and
   *     none can be evicted (every block pinned or loading)
   */
  int claimRun(FileBlocks file, int first, int max, int[] outSlots, int[] outGenerations) {
    lock.lock();
    try {
      int n = 0;
      while (n < max && file.entry(first + n) == 0) {
        long claimed = claimSlot();
        if (claimed < 0) {
          break;
        }
        int slot = (int) (claimed >>> 32);
        int generation = (int) claimed;
        if (!file.install(first + n, Slots.entry(slot, generation))) {
          // cannot happen while we hold the lock (installs take it), but never leak a slot
          releaseClaimed(slot, generation);
          break;
        }
        owners[slot] = file;
        ownerBlocks[slot] = first + n;
        uses[slot] = 0;
        outSlots[n] = slot;
        outGenerations[n] = generation;
        n++;
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A free or evicted slot, claimed: {@code slot << 32 | generation}, or -1 if every slot is
   * pinned or loading. Caller holds the lock.
   */
  private long claimSlot() {
    while (freeCount > 0) {
      int slot = free[--freeCount];
      long generation = slots.tryClaim(slot);
      if (generation >= 0) {
        return ((long) slot << 32) | generation;
      }
    }
    if (neverUsed < slots.count) {
      int slot = neverUsed++;
      long generation = slots.tryClaim(slot);
      if (generation >= 0) {
        return ((long) slot << 32) | generation;
      }
    }
    // Every block loses one use per turn, so within MAX_USE + 1 turns a block that is not pinned
    // or loading reaches 0.
    long limit = (long) slots.count * (MAX_USE + 2);
    for (long step = 0; step < limit; step++) {
      int slot = hand;
      hand = slot + 1 == slots.count ? 0 : slot + 1;
      long state = slots.state(slot);
      if (owners[slot] == null || (state & (Slots.PINS | Slots.LOADING)) != 0) {
        continue; // free (on the free list or never used), or busy
      }
      if (uses[slot] > 0) {
        uses[slot]--;
        continue;
      }
      int oldGeneration = (int) (state >>> 32);
      long generation = slots.tryClaim(slot, oldGeneration);
      if (generation < 0) {
        continue; // pinned since we looked
      }
      owners[slot].clear(ownerBlocks[slot], Slots.entry(slot, oldGeneration));
      owners[slot] = null;
      counters.evictions.increment();
      return ((long) slot << 32) | generation;
    }
    return -1;
  }

  /** Returns a slot claimed by {@link #claimRun} whose load failed or was not needed. */
  void release(int slot, int generation) {
    lock.lock();
    try {
      releaseClaimed(slot, generation);
    } finally {
      lock.unlock();
    }
  }

  private void releaseClaimed(int slot, int generation) {
    owners[slot] = null;
    uses[slot] = 0;
    slots.abandon(slot, generation);
    free[freeCount++] = slot;
  }

  /**
   * Frees the blocks of a file that was closed, so that they are reused before any live block.
   * Blocks pinned or loading at this moment are left to the hand.
   */
  void invalidate(FileBlocks file) {
    lock.lock();
    try {
      for (int block = 0; block < file.blockCount; block++) {
        long entry = file.entry(block);
        if (entry == 0) {
          continue;
        }
        int slot = Slots.slotOf(entry);
        long generation = slots.tryClaim(slot, Slots.generationOf(entry));
        if (generation < 0) {
          continue;
        }
        file.clear(block, entry);
        releaseClaimed(slot, (int) generation);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Blocks holding data (or being loaded): not free. */
  int residentBlocks() {
    lock.lock();
    try {
      return neverUsed - freeCount;
    } finally {
      lock.unlock();
    }
  }
}
