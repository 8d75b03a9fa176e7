package dev.pread.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The block-state protocol: the one writer of the slots' state words and of the files' table
 * entries. {@link ClockPolicy} decides which slot a block gets and when a block goes, {@link
 * FileBlocks} loads and reads blocks, {@link BlockReader} reads them in place; each changes a state
 * word or a table entry only through the transitions below.
 *
 * <p>Thread-safe; which thread may make which transition, and under which lock, is in the
 * implementation notes.
 */
/*
 * Implementation notes: the protocol.
 *
 * Words. Each slot has a state word (a long, 64 bytes apart so that pins of neighbouring slots do
 * not share a cache line): the slot's generation in bits 32-63, LOADING in bit 30, the number of
 * readers pinning it in bits 0-29. Each block of an open file has a table entry (a long, in
 * FileBlocks.table): 0 when the block is not cached, else generation << 32 | slot + 1, with
 * LOADED_ENTRY (bit 31) set once the block's contents are in the slot. An entry is never 0 in its
 * low 32 bits, which the Outcome encoding relies on.
 *
 * A block's life: entry 0 -> loading entry (slot LOADING at the new generation) -> loaded entry
 * (slot published) -> 0 (slot claimed away, or file closed). A failed or abandoned load goes from
 * loading straight back to 0.
 *
 * Transitions of a state word (s = slot, g = generation):
 *   S1 claim    (g, not loading, no pins) -> (g + 1, LOADING)   CAS; policy lock held
 *   S2 publish  (g, LOADING) -> (g, 0)                          release store; the claimer, no lock
 *   S3 abandon  (g, LOADING) -> (g + 1, 0)                      release store; the claimer, policy lock held
 *   S4 pin      (g, not loading, p) -> (g, p + 1)               CAS; any reader, only at the generation its entry names
 *   S5 unpin    (g, p + 1) -> (g, p)                            atomic add; the reader that pinned
 * Transitions of a table entry of block b:
 *   T1 install  0 -> E(s, g)                                    CAS; policy lock held, right after S1 gave s at g
 *   T2 loaded   E(s, g) -> E(s, g) | LOADED                     CAS; the claimer, after the contents are in, before S2
 *   T3 clear    E(s, g) [| LOADED] -> 0                         CAS from that exact value, by
 *                 (a) whoever claims s away from g (eviction, a closed file's blocks): policy lock
 *                     held, after S1 and before anything writes s's memory;
 *                 (b) the claimer giving up a load, before S3 (policy lock held);
 *                 (c) anyone who finds s past g (a stale entry that (a) is about to clear).
 * No other write of either word exists.
 *
 * Invariants.
 *   I1. A block has at most one slot and a slot serves at most one block: T1 only from 0 and only
 *       under the lock, for a slot S1 took exclusively.
 *   I2. A loaded entry means the contents are in: T2 is a volatile CAS after the memory was
 *       written, and readers read entries with acquire (entry()), so a reader that sees LOADED
 *       sees the contents.
 *   I3. An unchanged entry proves an unpinned read saw the block (holds()): S1 moves the generation
 *       before T3a clears the old entry, and T3a comes before the slot's memory is written, so a
 *       reader that reads the memory and then finds the entry unchanged (acquire fence, then an
 *       opaque read) read it before anyone could write it.
 *   I4. A pinned or loading slot is never claimed (S1 needs no pins and not loading), and a pin
 *       succeeds only at the generation the reader's entry named and not while loading.
 *   I5. Nobody waits on a load nobody makes: a LOADING state ends in S2 or S3 by its claimer, in a
 *       finally (FileBlocks.finishLoad, or the prefetch's hand-off, which gives the claim back if
 *       the load cannot start); a waiter (awaitLoaded) returns when the state changes in any way.
 *
 * Locks: the policy lock (ClockPolicy) is held for S1, S3, T1, T3a and T3b, and guards the
 * policy's own arrays and free list; S2, T2, pins and T3c take no lock. Reads: entries are read with
 * acquire, or (holds) after an acquire fence with an opaque read; state words with acquire or
 * volatile.
 *
 * A generation wraps after 2^32 reuses of one slot; a reader would have to stall between reading
 * a table entry and pinning through that many reuses to be fooled.
 */
final class BlockStates {
  static final long LOADING = 1L << 30;
  static final long PINS = LOADING - 1;

  /** Set in a table entry once the block's contents are in its slot; bit 31 of the low word. */
  static final long LOADED_ENTRY = 1L << 31;

  /** Outcome of {@link #tryPin}. */
  static final int PINNED = 0, STALE = 1, BUSY_LOADING = 2;

  private static final int STRIDE = 8; // longs: 64 bytes between state words
  private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle TABLE = MethodHandles.arrayElementVarHandle(long[].class);

  final int count;
  private final long[] states;

  BlockStates(int count) {
    this.count = count;
    this.states = new long[count * STRIDE];
  }

  /** Bytes on the Java heap for the state words, per slot. */
  static long bytesPerSlot() {
    return STRIDE * Long.BYTES;
  }

  // ---- Table entries: encoding

  /** A table entry naming {@code slot} at {@code generation}, still loading; never 0. */
  static long entry(int slot, int generation) {
    return ((long) generation << 32) | (slot + 1L);
  }

  /** {@code entry} marked loaded. */
  static long loaded(long entry) {
    return entry | LOADED_ENTRY;
  }

  static boolean isLoaded(long entry) {
    return (entry & LOADED_ENTRY) != 0;
  }

  /** True if the two entries name the same slot at the same generation, loaded or not. */
  static boolean sameBlock(long a, long b) {
    return ((a ^ b) & ~LOADED_ENTRY) == 0;
  }

  static int slotOf(long entry) {
    return (int) (entry & (LOADED_ENTRY - 1)) - 1;
  }

  static int generationOf(long entry) {
    return (int) (entry >>> 32);
  }

  // ---- Table entries: reads

  /** The entry of {@code block} in {@code table}, read with acquire (I2). */
  static long entry(long[] table, int block) {
    return (long) TABLE.getAcquire(table, block);
  }

  /**
   * True if {@code block}'s entry is still {@code entry}: the check that makes an unpinned read of
   * the slot's memory valid (I3). Call it after reading; bytes read before a false answer may be
   * the slot's next contents and must be discarded.
   */
  static boolean holds(long[] table, int block, long entry) {
    // Orders the caller's reads of the block before this read of the entry (as StampedLock's
    // validate does); opaque so that the JIT reads the entry again on every call.
    VarHandle.acquireFence();
    return (long) TABLE.getOpaque(table, block) == entry;
  }

  // ---- State words: reads and the readers' transitions (S4, S5, T3c)

  long state(int slot) {
    return (long) STATE.getAcquire(states, slot * STRIDE);
  }

  /** The generation {@code slot} is at. */
  int generation(int slot) {
    return (int) (state(slot) >>> 32);
  }

  /** S4: pins {@code slot} if it still holds {@code generation} and is loaded. */
  int tryPin(int slot, int generation) {
    int i = slot * STRIDE;
    while (true) {
      long s = (long) STATE.getVolatile(states, i);
      if ((int) (s >>> 32) != generation) {
        return STALE;
      }
      if ((s & LOADING) != 0) {
        return BUSY_LOADING;
      }
      if ((s & PINS) == PINS) {
        Thread.onSpinWait(); // 2^30 readers: cannot happen, but never overflow into LOADING
        continue;
      }
      if (STATE.compareAndSet(states, i, s, s + 1)) {
        return PINNED;
      }
    }
  }

  /** S5. */
  void unpin(int slot) {
    STATE.getAndAdd(states, slot * STRIDE, -1L);
  }

  /**
   * T3c: clears {@code block}'s entry in {@code file}'s table if it is still {@code stale}, whose
   * slot was found past its generation (the claimer clears it too; this only spares the caller the
   * wait).
   */
  void clearStale(FileBlocks file, int block, long stale) {
    clear(file.table, block, stale);
  }

  /** Waits while {@code slot} is loading {@code generation}; returns when it is loaded or gone. */
  void awaitLoaded(int slot, int generation) {
    for (int spins = 0; ; spins++) {
      long s = state(slot);
      if ((int) (s >>> 32) != generation || (s & LOADING) == 0) {
        return;
      }
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 64 + 256) {
        // A read from the disk takes on the order of a hundred microseconds, and parking sleeps
        // at least the timer slack: yield for a while first so a finished load is seen at once.
        Thread.yield();
      } else {
        LockSupport.parkNanos(20_000L);
      }
    }
  }

  // ---- The claimers' transitions. Under the policy lock: S1, T1, T3a, T3b, S3.

  /**
   * S1: takes {@code slot} for new contents if nobody pins or loads it.
   *
   * @return the new generation (the slot is then LOADING), or {@code -1} if it is busy. The
   *     generation is returned as a long so that every int value is a valid generation.
   */
  long tryClaim(int slot) {
    return tryClaim(slot, (int) (state(slot) >>> 32));
  }

  /** S1, only if {@code slot} still holds {@code generation}. */
  long tryClaim(int slot, int generation) {
    int i = slot * STRIDE;
    long s = (long) STATE.getVolatile(states, i);
    if ((s & (PINS | LOADING)) != 0 || (int) (s >>> 32) != generation) {
      return -1;
    }
    int next = (int) (s >>> 32) + 1;
    long claimed = ((long) next << 32) | LOADING;
    return STATE.compareAndSet(states, i, s, claimed) ? Integer.toUnsignedLong(next) : -1;
  }

  /**
   * S1 then T3a: claims {@code slot}, which held block {@code block} of {@code file} at {@code
   * generation}, and clears that block's entry, before anything writes the slot's memory.
   *
   * @return the claim as a loading entry, or {@link Outcome#BUSY} if the slot was pinned or
   *     claimed since
   */
  long claimFrom(int slot, int generation, FileBlocks file, int block) {
    long next = tryClaim(slot, generation);
    if (next < 0) {
      return Outcome.BUSY;
    }
    clear(file.table, block, entry(slot, generation));
    return entry(slot, (int) next);
  }

  /** S1 for a slot that holds no block: the claim as a loading entry, or {@link Outcome#BUSY}. */
  long claimFree(int slot) {
    long next = tryClaim(slot);
    return next < 0 ? Outcome.BUSY : entry(slot, (int) next);
  }

  /** T1: installs {@code claim} (a loading entry) as {@code block}'s entry if it has none. */
  boolean install(FileBlocks file, int block, long claim) {
    return TABLE.compareAndSet(file.table, block, 0L, claim);
  }

  /**
   * T3b then S3: gives up the claim {@code claim} on {@code block} of {@code file} (its load failed
   * or was not made): the entry is cleared and the slot's generation moves on, so that anyone
   * waiting looks again and finds the block missing.
   */
  void abandon(FileBlocks file, int block, long claim) {
    clear(file.table, block, claim);
    abandon(slotOf(claim), generationOf(claim));
  }

  /** S3 alone: for a claim whose entry is cleared already, or never installed. */
  void abandon(int slot, int generation) {
    STATE.setRelease(states, slot * STRIDE, (long) (generation + 1) << 32);
  }

  // ---- The loader's transitions: T2 then S2, no lock.

  /** T2 then S2: marks {@code block}'s entry loaded and makes the claimed slot readable. */
  void publish(FileBlocks file, int block, long claim) {
    // The entry first: a slot can be claimed away (its entry cleared) only once its state is
    // published, so the entry is still the loading one here, and never marked loaded after it
    // was cleared.
    TABLE.compareAndSet(file.table, block, claim, loaded(claim));
    publish(slotOf(claim), generationOf(claim));
  }

  /** S2 alone, for a claim never installed in a table (tests of the state word). */
  void publish(int slot, int generation) {
    STATE.setRelease(states, slot * STRIDE, (long) generation << 32);
  }

  /** T3: clears the entry of {@code block} if it names {@code expected}'s slot and generation. */
  private static void clear(long[] table, int block, long expected) {
    long current = entry(table, block);
    if (current != 0 && sameBlock(current, expected)) {
      TABLE.compareAndSet(table, block, current, 0L);
    }
  }
}
