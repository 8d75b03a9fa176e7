package dev.pread.cache;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Chooses which block to reuse on a miss: CLOCK with a two-bit use count per block, under one lock
 * that only misses take, and (by default) frequency admission with a small window, after
 * W-TinyLFU.
 *
 * <p>A block enters with count 0. A hit raises the count by one, up to 3, with a plain write that
 * is skipped once the count is 3, so hot blocks cost hits no write at all (lost updates between
 * racing hits only make a count lower). On a miss the hand moves over the blocks: a block whose
 * count is above 0 loses one and is passed; the first unpinned block at 0 is the victim. A block
 * read once is therefore reused one turn of the hand after it came in, while a block read a few
 * times survives three turns without another hit: a scan of once-read blocks goes through the
 * blocks that scans brought in, not through the hot set. Inputs opened for merges or reading once
 * do not insert at all (see {@link CachedFile}).
 *
 * <p><b>Admission</b> (on by default, {@link BlockCache.Builder#frequencyAdmission}): a {@link
 * FrequencySketch} counts each block's recent uses (every demand miss, and each hit that raises a
 * use count, so hot blocks again cost nothing). A block that missed replaces CLOCK's victim only
 * if it was used more often lately. Otherwise it enters the <em>window</em>, {@value
 * #WINDOW_PERCENT}% of the blocks (at least one) taken in turn: it replaces the window's oldest
 * block, unless that one was used more than the victim, in which case the oldest block moves to the
 * main part (its slot changes sides) and the victim goes. So a block read a few times in a short
 * while (a query reading one block in several small pieces) is cached at once, while a block must
 * be used often to displace the blocks that stay. With Zipf-distributed reads (s = 1) of eight
 * times more blocks than the cache holds this raised the hit ratio from 0.795 to 0.824; on the
 * Lucene query mix under pressure it stayed at 0.95, where admission without a window (misses
 * read around the cache) dropped it to 0.86 (see the README). Blocks prefetched, and blocks that
 * fill free slots, are always inserted in the main part; a miss is read around the cache only if
 * the slot it would take is busy.
 *
 * <p>Blocks never used, and blocks freed when their file closes, are handed out before any is
 * evicted. Thread-safe.
 */
final class ClockPolicy {
  private static final int MAX_USE = 3;

  /** {@link #claimRun} found the first block less used than the block it would evict. */
  static final int REJECTED = -1;

  /** The window's share of the blocks, in percent (see the class comment). */
  static final int WINDOW_PERCENT = 1;

  /** {@link #claimSlot} result: every slot is pinned or loading. */
  private static final long BUSY = -1;

  /** {@link #claimSlot} result: the candidate lost to the victim (see the class comment). */
  private static final long LOST = -2;

  private final Slots slots;
  private final CacheCounters counters;
  private final ReentrantLock lock = new ReentrantLock();
  /** The file and block each slot holds; written under the lock, read by eviction only. */
  private final FileBlocks[] owners;

  private final int[] ownerBlocks;
  /** Use counts; racy plain bytes (see the class comment). */
  private final byte[] uses;
  /** Recent uses per block, or null without admission. */
  private final FrequencySketch sketch;
  /**
   * The window (with admission): slots that blocks refused by the main part enter, in a ring
   * replaced in turn. Guarded by lock.
   */
  private final int[] window;
  private final boolean[] inWindow;
  private int windowCount;
  private int windowHand;

  // guarded by lock
  private int hand;
  private int neverUsed;
  private final int[] free;
  private int freeCount;

  ClockPolicy(Slots slots, CacheCounters counters, boolean admission) {
    this.slots = slots;
    this.sketch = admission ? new FrequencySketch(slots.count) : null;
    int windowSize = admission ? (int) Math.max(1, (long) slots.count * WINDOW_PERCENT / 100) : 0;
    this.window = new int[windowSize];
    this.inWindow = new boolean[admission ? slots.count : 0];
    this.counters = counters;
    this.owners = new FileBlocks[slots.count];
    this.ownerBlocks = new int[slots.count];
    this.uses = new byte[slots.count];
    this.free = new int[slots.count];
  }

  /** Heap bytes of this policy's arrays (references counted as 8 bytes) and sketch. */
  long bytes() {
    return (long) slots.count * (8 + 4 + 1 + 4)
        + (sketch == null ? 0 : sketch.bytes() + inWindow.length + 4L * window.length);
  }

  /** Records a hit on {@code slot}, which holds block {@code block} of {@code file}. */
  void touch(int slot, FileBlocks file, int block) {
    byte u = uses[slot];
    if (u < MAX_USE) {
      uses[slot] = (byte) (u + 1);
      if (sketch != null) {
        sketch.increment(file.sketchKey(block));
      }
    }
  }

  /**
   * Claims up to {@code max} slots for the blocks {@code first, first + 1, ...} of {@code file}
   * that are missing, stopping at the first block present, and installs them in the file's table
   * as loading. Blocks in {@code out} are then owned by the caller, who must {@link
   * FileBlocks#finishLoad} them.
   *
   * <p>A demand load (a reader needs the blocks) counts each block as a use, and with admission
   * stops at the first block that lost to its victim; a prefetch does neither.
   *
   * @return how many blocks were claimed: 0 if {@code first} is present, or if no slot is free and
   *     none can be evicted (every block pinned or loading); {@link #REJECTED} if admission refused
   *     {@code first}
   */
  int claimRun(FileBlocks file, int first, int max, int[] outSlots, int[] outGenerations, boolean demand) {
    lock.lock();
    try {
      int n = 0;
      while (n < max && file.entry(first + n) == 0) {
        boolean admit = demand && sketch != null;
        long key = admit ? file.sketchKey(first + n) : 0;
        long claimed = claimSlot(admit, key);
        if (admit && (claimed >= 0 || n == 0)) {
          // counted once: a block after the first that is not claimed is counted by its own load
          sketch.increment(key);
        }
        if (claimed == LOST && n == 0) {
          return REJECTED;
        }
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
   * A free or evicted slot, claimed: {@code slot << 32 | generation}; {@link #BUSY} if every slot
   * is pinned or loading; {@link #LOST} if {@code admit} and the block with sketch key {@code key}
   * was not used more often than the victim. Caller holds the lock.
   */
  private long claimSlot(boolean admit, long key) {
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
    // This miss is counted after the choice: it raises the candidate's estimate by one.
    int candidate = admit ? Math.min(15, sketch.frequency(key) + 1) : 0;
    for (long step = 0; step < limit; step++) {
      int slot = hand;
      hand = slot + 1 == slots.count ? 0 : slot + 1;
      // The compact arrays first: the hand may pass many used blocks, and each state word is on a
      // cache line of its own.
      if (owners[slot] == null || (admit && inWindow[slot])) {
        continue; // free (on the free list, or never used), or the window's
      }
      if (uses[slot] > 0) {
        uses[slot]--;
        continue;
      }
      long state = slots.state(slot);
      if ((state & (Slots.PINS | Slots.LOADING)) != 0) {
        continue; // busy
      }
      if (admit && candidate <= frequency(slot)) {
        return enterWindow(slot, state);
      }
      long claimed = evict(slot, state);
      if (claimed >= 0) {
        return claimed;
      }
    }
    return BUSY;
  }

  /** The sketch's estimate for the block in {@code slot}. Caller holds the lock. */
  private int frequency(int slot) {
    return sketch.frequency(owners[slot].sketchKey(ownerBlocks[slot]));
  }

  /**
   * Evicts the block in {@code slot}, whose state word was {@code state}, and claims the slot.
   *
   * @return {@code slot << 32 | generation}, or -1 if it was pinned since
   */
  private long evict(int slot, long state) {
    int oldGeneration = (int) (state >>> 32);
    long generation = slots.tryClaim(slot, oldGeneration);
    if (generation < 0) {
      return -1;
    }
    owners[slot].clear(ownerBlocks[slot], Slots.entry(slot, oldGeneration));
    owners[slot] = null;
    counters.evictions.increment();
    return ((long) slot << 32) | generation;
  }

  /**
   * A slot in the window for a block that lost to the main part's {@code victim} (state {@code
   * victimState}): while the window is not full, the victim's slot joins it. Then the window's
   * oldest block leaves: if it was used more than the victim, it takes the victim's place in the
   * main part (its slot changes sides, the victim is evicted and the newcomer gets the victim's
   * slot, now the window's); else it is evicted and the newcomer gets its slot. Caller holds the
   * lock.
   *
   * @return the claimed slot, or {@link #LOST} if the slot to reuse is busy
   */
  private long enterWindow(int victim, long victimState) {
    if (windowCount < window.length) {
      long claimed = evict(victim, victimState);
      if (claimed < 0) {
        return LOST;
      }
      inWindow[victim] = true;
      window[windowCount++] = victim;
      return claimed;
    }
    int oldest = window[windowHand];
    long oldestState = slots.state(oldest);
    if (owners[oldest] == null || (oldestState & (Slots.PINS | Slots.LOADING)) != 0) {
      return LOST; // busy, or freed and on the free list: read around this time
    }
    long claimed;
    if (frequency(oldest) > frequency(victim)) {
      claimed = evict(victim, victimState);
      if (claimed < 0) {
        return LOST;
      }
      inWindow[oldest] = false;
      inWindow[victim] = true;
      window[windowHand] = victim;
    } else {
      claimed = evict(oldest, oldestState);
      if (claimed < 0) {
        return LOST;
      }
    }
    windowHand = windowHand + 1 == windowCount ? 0 : windowHand + 1;
    return claimed;
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
