package dev.pread.cache;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Chooses which block to reuse on a miss: CLOCK with a two-bit use count per block, under one lock
 * that only misses take, and (by default) frequency admission with a small window, after
 * W-TinyLFU.
 *
 * <p>A block enters with count 0. A hit raises the count by one, up to 3. Hits take no lock: a
 * hit on a block whose count is below 3 records itself in a {@link HitBuffer}, and whoever next
 * takes the lock (a miss, before it chooses) applies the records; a hit on a block at 3 writes
 * nothing, so hot blocks cost hits no write at all (records the lossy buffer drops only make a
 * count lower). Use counts, the sketch and everything else here are written only under the lock;
 * slot states and table entries only through {@link BlockStates}. On a miss the hand moves over
 * the blocks: a block whose count is above 0 loses one and is passed; the first unpinned block at
 * 0 is the victim. A block read once is therefore reused one turn of the hand after it came in,
 * while a block read a few times survives three turns without another hit: a scan of once-read
 * blocks goes through the blocks that scans brought in, not through the hot set. Inputs opened
 * for merges or reading once do not insert at all (see {@link CachedFile}).
 *
 * <p><b>Admission</b> (on by default, {@link BlockCache.Builder#frequencyAdmission}): a {@link
 * FrequencySketch} counts each block's recent uses (every demand miss, and each hit that raises a
 * use count, so hot blocks again cost nothing). A block that missed replaces CLOCK's victim only
 * if it was used more often lately. Otherwise it enters the <em>window</em>, {@value
 * #WINDOW_PERCENT}% of the blocks (at least one) taken in turn: it replaces the window's oldest
 * block, unless that one was used more than the victim, in which case the oldest block moves to the
 * main part (its slot changes sides) and the victim goes. So a block read a few times in a short
 * while (a query reading one block in several small pieces) is cached at once, while a block must
 * be used often to displace the blocks that stay. The trade-off: skewed reads keep more of their
 * hot blocks than under CLOCK alone, for a sketch update per miss and a little heap per block; and
 * the window keeps a block read in several small pieces, which admission alone would read around
 * the cache on every piece. {@code ./pread bench --sections cache --cache-admission both}
 * measures admission against CLOCK alone on skewed reads, and the Lucene query mix under pressure
 * measures the window (docs/benchmarks.md). Blocks prefetched, and blocks that
 * fill free slots, are always inserted in the main part; a miss is read around the cache only if
 * the slot it would take is busy.
 *
 * <p>Blocks never used, and blocks freed when their file closes, are handed out before any is
 * evicted. Thread-safe.
 */
final class ClockPolicy {
  private static final int MAX_USE = 3;

  /** The window's share of the blocks, in percent (see the class comment). */
  static final int WINDOW_PERCENT = 1;

  private final BlockStates states;
  private final int count;
  private final CacheCounters counters;
  private final ReentrantLock lock = new ReentrantLock();
  /** Hits not yet applied; drained by whoever takes the lock. */
  private final HitBuffer hits = new HitBuffer();
  /** Applies one drained hit; made once so that a drain allocates nothing. */
  private final LongConsumer applyHit = this::applyHit;
  /** The file and block each slot holds; guarded by lock. */
  private final FileBlocks[] owners;

  private final int[] ownerBlocks;
  /** Use counts; written under the lock, read by hits without it (a racy, harmless read). */
  private final byte[] uses;
  /** Recent uses per block, or null without admission. Guarded by lock. */
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
  /** Never-used slots are handed out only below this count ({@link BlockCache#limitGrowth}). */
  private volatile int growthLimit = Integer.MAX_VALUE;
  private final int[] free;
  private int freeCount;
  /**
   * Slots at or above this index are given back ({@link #shrink}): never handed out, and evicted as
   * soon as they are not busy. Guarded by lock.
   */
  private volatile int ceiling;
  /** Slots in {@code [ceiling, neverUsed)} that hold nothing and are not on the free list. Guarded by lock. */
  private int retired;

  ClockPolicy(BlockStates states, CacheCounters counters, boolean admission) {
    this.states = states;
    this.count = states.count;
    this.sketch = admission ? new FrequencySketch(count) : null;
    int windowSize = admission ? (int) Math.max(1, (long) count * WINDOW_PERCENT / 100) : 0;
    this.window = new int[windowSize];
    this.inWindow = new boolean[admission ? count : 0];
    this.counters = counters;
    this.owners = new FileBlocks[count];
    this.ownerBlocks = new int[count];
    this.uses = new byte[count];
    this.free = new int[count];
    this.ceiling = count;
  }

  /** Heap bytes of this policy's arrays (references counted as 8 bytes), sketch and hit buffer. */
  long bytes() {
    return (long) count * (8 + 4 + 1 + 4)
        + hits.bytes()
        + (sketch == null ? 0 : sketch.bytes() + inWindow.length + 4L * window.length);
  }

  /**
   * Records a hit on the block whose (loaded) table entry is {@code entry}, to be applied when the
   * lock is next taken. Takes no lock, allocates nothing, and writes nothing for a block whose use
   * count is at its maximum already.
   */
  void touch(long entry) {
    if (uses[BlockStates.slotOf(entry)] < MAX_USE) {
      hits.offer(entry);
    }
  }

  /**
   * Applies a hit drained from the buffer, if its block is still in its slot: one more use, up to
   * the maximum, and (with admission) one more in the sketch while the use count rises. Caller
   * holds the lock.
   */
  private void applyHit(long entry) {
    int slot = BlockStates.slotOf(entry);
    if (owners[slot] == null || states.generation(slot) != BlockStates.generationOf(entry)) {
      return; // gone since
    }
    byte u = uses[slot];
    if (u < MAX_USE) {
      uses[slot] = (byte) (u + 1);
      if (sketch != null) {
        sketch.increment(owners[slot].sketchKey(ownerBlocks[slot]));
      }
    }
  }

  /** Takes the lock and applies the hits recorded since it was last taken. */
  private void lockAndDrain() {
    lock.lock();
    try {
      hits.drain(applyHit);
    } catch (Throwable t) {
      lock.unlock();
      throw t;
    }
  }

  /**
   * Claims up to {@code max} slots for the blocks {@code first, first + 1, ...} of {@code file}
   * that are missing, stopping at the first block present, and installs them in the file's table
   * as loading. The blocks claimed are then owned by the caller, who must {@link
   * FileBlocks#finishLoad} them.
   *
   * <p>A demand load (a reader needs the blocks) counts each block as a use, and with admission
   * stops at the first block that lost to its victim; a prefetch does neither.
   *
   * @return the run claimed; if it is empty, its {@link Run#outcome} says why: {@link
   *     Outcome#PRESENT} if {@code first} is cached or loading, {@link Outcome#BUSY} if every slot
   *     is pinned or loading, {@link Outcome#REJECTED} if admission refused {@code first}
   */
  Run claimRun(FileBlocks file, int first, int max, boolean demand) {
    Run run = new Run(file, first, max);
    lockAndDrain();
    try {
      int n = 0;
      while (n < max && file.entry(first + n) == 0) {
        boolean admit = demand && sketch != null;
        long key = admit ? file.sketchKey(first + n) : 0;
        long claim = claimSlot(admit, key);
        if (admit && (Outcome.isEntry(claim) || n == 0)) {
          // counted once: a block after the first that is not claimed is counted by its own load
          sketch.increment(key);
        }
        if (!Outcome.isEntry(claim)) {
          if (n == 0) {
            run.outcome = claim;
          }
          break;
        }
        int slot = BlockStates.slotOf(claim);
        if (!states.install(file, first + n, claim)) {
          // cannot happen while we hold the lock (installs take it), but never leak a slot
          releaseClaimed(slot, BlockStates.generationOf(claim));
          break;
        }
        owners[slot] = file;
        ownerBlocks[slot] = first + n;
        uses[slot] = 0;
        run.claims[n] = claim;
        run.count = ++n;
      }
      return run;
    } catch (Throwable t) {
      // Nothing may stay claimed that the caller does not know of.
      for (int i = 0; i < run.count; i++) {
        releaseInstalled(run.file, run.first + i, run.claims[i]);
      }
      run.count = 0;
      throw t;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands out never-used slots only while fewer than {@code slots} have been used: beyond it, misses
   * reuse slots already used (memory already committed) instead of committing more.
   */
  void limitGrowth(int slots) {
    growthLimit = Math.max(0, slots);
    if (slots > ceiling) { // a racy read: raiseCeiling looks again under the lock
      lockAndDrain();
      try {
        raiseCeiling(Math.min(count, slots));
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Lets slots below {@code target} be used again after a {@link #shrink}: the empty ones there
   * that were retired become free. Caller holds the lock.
   */
  private void raiseCeiling(int target) {
    if (target <= ceiling) {
      return;
    }
    for (int s = ceiling; s < Math.min(target, neverUsed); s++) {
      if (owners[s] == null) {
        free[freeCount++] = s;
        retired--;
      }
    }
    ceiling = target;
  }

  /**
   * A free or evicted slot, claimed (a loading entry); {@link Outcome#BUSY} if every slot is
   * pinned or loading; {@link Outcome#REJECTED} if {@code admit} and the block with sketch key
   * {@code key} was not used more often than the victim. Caller holds the lock.
   */
  private long claimSlot(boolean admit, long key) {
    while (freeCount > 0) {
      long claim = states.claimFree(free[--freeCount]);
      if (Outcome.isEntry(claim)) {
        return claim;
      }
    }
    if (neverUsed < Math.min(ceiling, growthLimit)) {
      long claim = states.claimFree(neverUsed++);
      if (Outcome.isEntry(claim)) {
        return claim;
      }
    }
    // The hand turns over the slots below the ceiling; blocks above it are left to shrink().
    int end = Math.min(ceiling, neverUsed);
    if (hand >= end) {
      hand = 0;
    }
    // Every block loses one use per turn, so within MAX_USE + 1 turns a block that is not pinned
    // or loading reaches 0.
    long limit = (long) end * (MAX_USE + 2);
    // This miss is counted after the choice: it raises the candidate's estimate by one.
    int candidate = admit ? Math.min(15, sketch.frequency(key) + 1) : 0;
    for (long step = 0; step < limit; step++) {
      int slot = hand;
      hand = slot + 1 >= end ? 0 : slot + 1;
      // The compact arrays first: the hand may pass many used blocks, and each state word is on a
      // cache line of its own.
      if (owners[slot] == null || (admit && inWindow[slot])) {
        continue; // free (on the free list, or never used), or the window's
      }
      if (uses[slot] > 0) {
        uses[slot]--;
        continue;
      }
      long state = states.state(slot);
      if ((state & (BlockStates.PINS | BlockStates.LOADING)) != 0) {
        continue; // busy
      }
      if (admit && candidate <= frequency(slot)) {
        return enterWindow(slot, state);
      }
      long claim = evict(slot, state);
      if (Outcome.isEntry(claim)) {
        return claim;
      }
    }
    return Outcome.BUSY;
  }

  /** The sketch's estimate for the block in {@code slot}. Caller holds the lock. */
  private int frequency(int slot) {
    return sketch.frequency(owners[slot].sketchKey(ownerBlocks[slot]));
  }

  /**
   * Evicts the block in {@code slot}, whose state word was {@code state}, and claims the slot.
   *
   * @return the claim, or {@link Outcome#BUSY} if it was pinned since
   */
  private long evict(int slot, long state) {
    long claim = states.claimFrom(slot, (int) (state >>> 32), owners[slot], ownerBlocks[slot]);
    if (Outcome.isEntry(claim)) {
      owners[slot] = null;
      counters.evictions.increment();
    }
    return claim;
  }

  /**
   * A slot in the window for a block that lost to the main part's {@code victim} (state {@code
   * victimState}): while the window is not full, the victim's slot joins it. Then the window's
   * oldest block leaves: if it was used more than the victim, it takes the victim's place in the
   * main part (its slot changes sides, the victim is evicted and the newcomer gets the victim's
   * slot, now the window's); else it is evicted and the newcomer gets its slot. Caller holds the
   * lock.
   *
   * @return the claim, or {@link Outcome#REJECTED} if the slot to reuse is busy
   */
  private long enterWindow(int victim, long victimState) {
    if (windowCount < window.length) {
      long claim = evict(victim, victimState);
      if (!Outcome.isEntry(claim)) {
        return Outcome.REJECTED;
      }
      inWindow[victim] = true;
      window[windowCount++] = victim;
      return claim;
    }
    int oldest = window[windowHand];
    long oldestState = states.state(oldest);
    if (owners[oldest] == null || (oldestState & (BlockStates.PINS | BlockStates.LOADING)) != 0) {
      return Outcome.REJECTED; // busy, or freed and on the free list: read around this time
    }
    long claim;
    if (frequency(oldest) > frequency(victim)) {
      claim = evict(victim, victimState);
      if (!Outcome.isEntry(claim)) {
        return Outcome.REJECTED;
      }
      inWindow[oldest] = false;
      inWindow[victim] = true;
      window[windowHand] = victim;
    } else {
      claim = evict(oldest, oldestState);
      if (!Outcome.isEntry(claim)) {
        return Outcome.REJECTED;
      }
    }
    windowHand = windowHand + 1 == windowCount ? 0 : windowHand + 1;
    return claim;
  }

  /**
   * Gives up the claim {@code claim} on {@code block} of {@code file}, made by {@link #claimRun},
   * whose load failed or was not made: its entry is cleared and its slot freed.
   */
  void release(FileBlocks file, int block, long claim) {
    lockAndDrain();
    try {
      releaseInstalled(file, block, claim);
    } finally {
      lock.unlock();
    }
  }

  private void releaseInstalled(FileBlocks file, int block, long claim) {
    int slot = BlockStates.slotOf(claim);
    states.abandon(file, block, claim);
    freed(slot);
  }

  private void releaseClaimed(int slot, int generation) {
    states.abandon(slot, generation);
    freed(slot);
  }

  private void freed(int slot) {
    owners[slot] = null;
    uses[slot] = 0;
    if (slot < ceiling) {
      free[freeCount++] = slot;
    } else {
      retired++; // above the ceiling: given back by the next shrink()
    }
  }

  /**
   * Gives back the slots at or above {@code slots} (at least one slot stays): no block is cached
   * in them any more, and their memory is returned to the kernel. Blocks there are evicted, except
   * those pinned or loading at this moment, which stay readable and are evicted by a later call.
   * Then {@code release} is called, under the lock, with the first slot above which no slot holds
   * anything; every slot from there on is never handed out again unless a call with a larger
   * {@code slots} raises the ceiling, and then only as never used. A larger {@code slots} than the
   * current ceiling raises it (up to the budget), as {@link #limitGrowth} does.
   */
  void shrink(int slots, IntConsumer release) {
    lockAndDrain();
    try {
      int target = Math.max(1, Math.min(count, slots));
      if (target >= ceiling) {
        raiseCeiling(target);
        return;
      }
      // Retired slots on the free list leave it.
      int kept = 0;
      for (int i = 0; i < freeCount; i++) {
        if (free[i] < target) {
          free[kept++] = free[i];
        } else {
          retired++;
        }
      }
      freeCount = kept;
      ceiling = target;
      // The window keeps only slots below the ceiling.
      if (sketch != null) {
        int w = 0;
        for (int i = 0; i < windowCount; i++) {
          int s = window[i];
          if (s < target) {
            window[w++] = s;
          } else {
            inWindow[s] = false;
          }
        }
        windowCount = w;
        windowHand = w == 0 ? 0 : windowHand % w;
      }
      if (hand >= target) {
        hand = 0;
      }
      // Evict what is not busy above the ceiling.
      for (int s = target; s < neverUsed; s++) {
        if (owners[s] == null) {
          continue;
        }
        long state = states.state(s);
        if ((state & (BlockStates.PINS | BlockStates.LOADING)) != 0) {
          continue; // busy: a later call evicts it
        }
        long claim = evict(s, state);
        if (Outcome.isEntry(claim)) {
          releaseClaimed(s, BlockStates.generationOf(claim)); // above the ceiling: retired
        }
      }
      // Lower the high-water mark past the empty slots at the top, and give their memory back.
      int top = neverUsed;
      while (top > target && owners[top - 1] == null) {
        top--;
      }
      retired -= neverUsed - top;
      neverUsed = top;
      release.accept(top);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Frees the blocks of a file that was closed, so that they are reused before any live block.
   * Blocks pinned or loading at this moment are left to the hand.
   */
  void invalidate(FileBlocks file) {
    lockAndDrain();
    try {
      for (int block = 0; block < file.blockCount; block++) {
        long entry = file.entry(block);
        if (entry == 0) {
          continue;
        }
        int slot = BlockStates.slotOf(entry);
        long claim = states.claimFrom(slot, BlockStates.generationOf(entry), file, block);
        if (Outcome.isEntry(claim)) {
          releaseClaimed(slot, BlockStates.generationOf(claim));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks a claim can have without evicting: on the free list, or never used and within the
   * growth limit.
   */
  int freeBlocks() {
    lockAndDrain();
    try {
      return freeCount + Math.max(0, Math.min(ceiling, growthLimit) - neverUsed);
    } finally {
      lock.unlock();
    }
  }

  /** Blocks holding data (or being loaded): not free. */
  int residentBlocks() {
    lockAndDrain();
    try {
      return neverUsed - freeCount - retired;
    } finally {
      lock.unlock();
    }
  }
}
