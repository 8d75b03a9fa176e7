package dev.pread.cache;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import dev.pread.nativeio.NativeMemoryProbe;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * The pinning protocol, step by step on one thread: a pinned or loading slot is never claimed, a
 * reader holding a stale (slot, generation) can never pin the slot's new contents, and giving up a
 * claim moves the generation on. Then the same through a cache: eviction passes over a pinned
 * block, and a failed load leaves its slot free.
 */
public class TestSlots extends LuceneTestCase {

  private static int generation(BlockStates states, int slot) {
    return (int) (states.state(slot) >>> 32);
  }

  public void testPinClaimPublishAbandon() {
    Slots slots = new Slots(4, 4096, 1 << 20);
    BlockStates states = new BlockStates(4);
    try {
      int g0 = generation(states, 0);
      // Claim: the slot is loading at the next generation.
      long claimed = states.tryClaim(0);
      assertEquals(g0 + 1, claimed);
      int g1 = (int) claimed;
      assertTrue((states.state(0) & BlockStates.LOADING) != 0);
      assertEquals("a loading slot is not claimed again", -1, states.tryClaim(0));
      assertEquals(BlockStates.BUSY_LOADING, states.tryPin(0, g1));
      assertEquals("the old generation is stale", BlockStates.STALE, states.tryPin(0, g0));
      MemorySegment seg = slots.segment(0);
      assertEquals(4096, seg.byteSize());
      assertEquals(0, seg.address() % 4096);
      seg.fill((byte) 1);

      // Publish: readers of this generation pin it.
      states.publish(0, g1);
      assertEquals(BlockStates.PINNED, states.tryPin(0, g1));
      assertEquals(BlockStates.PINNED, states.tryPin(0, g1));
      assertEquals(2, states.state(0) & BlockStates.PINS);
      assertEquals("a pinned slot is never claimed", -1, states.tryClaim(0));
      assertEquals(-1, states.tryClaim(0, g1));
      states.unpin(0);
      assertEquals("still pinned once", -1, states.tryClaim(0));
      states.unpin(0);
      assertEquals(0, states.state(0) & (BlockStates.PINS | BlockStates.LOADING));

      // A claim conditional on a generation that moved on fails.
      assertEquals(-1, states.tryClaim(0, g0));
      long again = states.tryClaim(0, g1);
      assertEquals(g1 + 1, again);
      int g2 = (int) again;
      // A stale holder of (0, g1) can never pin the slot's new contents, loading or loaded.
      assertEquals(BlockStates.STALE, states.tryPin(0, g1));
      states.publish(0, g2);
      assertEquals(BlockStates.STALE, states.tryPin(0, g1));
      assertEquals(BlockStates.PINNED, states.tryPin(0, g2));
      states.unpin(0);

      // Abandon: the generation moves on, nothing is loading, the claim's holders are stale.
      long g3 = states.tryClaim(0);
      assertEquals(g2 + 1, g3);
      states.abandon(0, (int) g3);
      assertEquals(g3 + 1, generation(states, 0));
      assertEquals(0, states.state(0) & (BlockStates.PINS | BlockStates.LOADING));
      assertEquals(BlockStates.STALE, states.tryPin(0, (int) g3));
      assertEquals(BlockStates.STALE, states.tryPin(0, g2));
      // awaitLoaded returns at once for a generation that is gone.
      states.awaitLoaded(0, (int) g3);
      // Other slots are untouched.
      assertEquals(0, states.state(1));
      assertEquals("one chunk holds the four slots", 4L * 4096, slots.allocatedBytes());
    } finally {
      slots.close();
    }
  }

  /**
   * The protocol under real concurrency, with its windows made wide: readers take a table entry,
   * yield, pin, check that the block holds what that generation stored, yield, check again and
   * unpin; claimers take unpinned blocks, yield in the middle of storing new contents, then publish
   * (or abandon) them. Every store writes the generation into the whole block, so a reader that
   * pinned a block a claimer then overwrote, or pinned a stale generation, sees another number.
   */
  public void testPinningStress() throws Exception {
    int count = 1 + random().nextInt(4);
    int words = 512;
    Slots slots = new Slots(count, 4096, 1 << 20);
    BlockStates states = new BlockStates(count);
    AtomicLongArray table = new AtomicLongArray(count); // slot -> entry of its latest publish
    try {
      for (int slot = 0; slot < count; slot++) {
        int g = (int) states.tryClaim(slot);
        store(slots, slot, g, words, null);
        states.publish(slot, g);
        table.set(slot, BlockStates.entry(slot, g));
      }
      AtomicLong pinned = new AtomicLong(), stale = new AtomicLong(), busy = new AtomicLong();
      AtomicLong claims = new AtomicLong(), wrong = new AtomicLong();
      AtomicReference<String> firstWrong = new AtomicReference<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      int iterations = atLeast(20_000);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        long seed = random().nextLong();
        threads.add(new Thread(() -> {
          Random r = new Random(seed);
          try {
            // Until this reader has pinned at least once: on a loaded machine every pin can find
            // its slot reused, but once the claimers are done (see below) every entry pins.
            long mine = 0;
            for (int i = 0; i < iterations || mine == 0; i++) {
              long e = table.get(r.nextInt(count));
              if (r.nextBoolean()) {
                Thread.yield(); // a reader stalled between the table and the pin
              }
              int slot = BlockStates.slotOf(e), g = BlockStates.generationOf(e);
              int outcome = states.tryPin(slot, g);
              if (outcome == BlockStates.PINNED) {
                try {
                  for (int pass = 0; pass < 2; pass++) {
                    for (int w : new int[] {0, words / 2, words - 1}) {
                      long v = slots.chunkOf(slot).getAtIndex(ValueLayout.JAVA_LONG, slots.offsetInChunk(slot) / 8 + w);
                      if (v != g && wrong.incrementAndGet() == 1) {
                        firstWrong.set("slot " + slot + " pinned at generation " + g + " holds " + v);
                      }
                    }
                    Thread.yield(); // a reader stalled in the middle of its copy
                  }
                } finally {
                  states.unpin(slot);
                }
                pinned.incrementAndGet();
                mine++;
              } else if (outcome == BlockStates.STALE) {
                stale.incrementAndGet();
              } else {
                busy.incrementAndGet(); // loading: move on (no wait, so that a broken protocol fails, not hangs)
              }
            }
          } catch (Throwable x) {
            failure.compareAndSet(null, x);
          }
        }, "pin-reader-" + t));
      }
      for (int t = 0; t < 2; t++) {
        long seed = random().nextLong();
        threads.add(new Thread(() -> {
          Random r = new Random(seed);
          try {
            for (int i = 0; i < iterations; i++) {
              int slot = r.nextInt(count);
              long claimed = states.tryClaim(slot);
              if (claimed < 0) {
                Thread.yield();
                continue;
              }
              int g = (int) claimed;
              claims.incrementAndGet();
              store(slots, slot, g, words, r);
              if (r.nextInt(10) == 0) {
                states.abandon(slot, g); // the table keeps the entry before: now stale
              } else {
                states.publish(slot, g);
                table.set(slot, BlockStates.entry(slot, g));
              }
            }
          } catch (Throwable x) {
            failure.compareAndSet(null, x);
          }
        }, "claimer-" + t));
      }
      threads.forEach(Thread::start);
      List<Thread> claimers = threads.subList(3, threads.size());
      for (Thread t : claimers) {
        t.join();
      }
      // The claimers are done: publish every slot once more, so that the table's entries are all
      // current and the readers that have not pinned yet can.
      for (int slot = 0; slot < count; slot++) {
        long claimed;
        while ((claimed = states.tryClaim(slot)) < 0) {
          Thread.yield(); // a reader pins it
        }
        int g = (int) claimed;
        store(slots, slot, g, words, null);
        states.publish(slot, g);
        table.set(slot, BlockStates.entry(slot, g));
      }
      for (Thread t : threads) {
        t.join();
      }
      assertNull(failure.get());
      String figures = pinned + " pins, " + stale + " stale, " + busy + " loading, " + claims + " claims";
      assertEquals("wrong values (" + figures + "); first: " + firstWrong.get(), 0, wrong.get());
      assertTrue(figures, pinned.get() > 0 && claims.get() > 0);
      for (int slot = 0; slot < count; slot++) {
        assertEquals("no pin left", 0, states.state(slot) & BlockStates.PINS);
      }
    } finally {
      slots.close();
    }
  }

  /** Writes the generation into every word of the block, yielding half way if {@code r} says so. */
  private static void store(Slots slots, int slot, int g, int words, Random r) {
    MemorySegment seg = slots.segment(slot);
    for (int w = 0; w < words; w++) {
      seg.setAtIndex(ValueLayout.JAVA_LONG, w, g);
      if (w == words / 2 && r != null && r.nextBoolean()) {
        Thread.yield();
      }
    }
  }

  /** Table entries carry every int generation, including negative ones after a wrap. */
  public void testEntryEncoding() {
    for (int slot : new int[] {0, 1, 7, (1 << 27) - 1}) {
      for (int g : new int[] {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
        long e = BlockStates.entry(slot, g);
        assertTrue("an entry is never 0", e != 0);
        assertEquals(slot, BlockStates.slotOf(e));
        assertEquals(g, BlockStates.generationOf(e));
      }
    }
  }

  /** Through a cache of two blocks: the hand passes over a block a reader pins. */
  public void testEvictionSkipsPinnedBlocks() throws IOException {
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.write(createTempDir(), "f", seed, 10L * block);
    // scripted evictions: CLOCK alone
    try (BlockCache cache = BlockCache.builder(2L * block).blockSize(block).frequencyAdmission(false).build();
        CachedFile f = cache.open(p)) {
      byte[] b = new byte[block];
      f.read(0, b, 0, 1); // slot 0
      f.read(block, b, 0, 1); // slot 1
      int g0 = generation(cache.states, 0);
      int g1 = generation(cache.states, 1);
      assertEquals(BlockStates.PINNED, cache.states.tryPin(0, g0));
      assertEquals(BlockStates.PINNED, cache.states.tryPin(1, g1));
      // Both pinned: a miss reads around the cache, evicts nothing, and returns the right bytes.
      f.read(2L * block + 10, b, 0, 100);
      Content.check("with every block pinned", seed, 2L * block + 10, b, 0, 100);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.evictions());
      assertEquals(s.toString(), 1, s.readAround());
      assertEquals(g0, generation(cache.states, 0));
      assertEquals(g1, generation(cache.states, 1));
      // Unpin slot 1 only: the next miss takes slot 1, never the pinned slot 0.
      cache.states.unpin(1);
      for (int i = 3; i < 8; i++) {
        f.read((long) i * block, b, 0, block);
        Content.check("block " + i, seed, (long) i * block, b, 0, block);
        assertEquals("the pinned slot keeps its generation", g0, generation(cache.states, 0));
      }
      assertEquals(5, cache.stats().evictions());
      assertEquals("a stale holder of slot 1 cannot pin it", BlockStates.STALE, cache.states.tryPin(1, g1));
      cache.states.unpin(0);
      f.read(9L * block, b, 0, block);
      assertTrue("unpinned, slot 0 can go", generation(cache.states, 0) != g0 || generation(cache.states, 1) != g1);
      Content.check("block 9", seed, 9L * block, b, 0, block);
    }
  }

  /**
   * Closing a file frees its blocks for reuse, except a block a reader still pins: that one keeps
   * its contents until unpinned, and is then reused like any other.
   */
  public void testCloseLeavesPinnedBlocksAlone() throws IOException {
    int block = 4096;
    Path dir = createTempDir();
    long seedA = random().nextLong(), seedB = random().nextLong();
    Path a = Content.write(dir, "a", seedA, 4L * block);
    Path b = Content.write(dir, "b", seedB, 8L * block);
    try (BlockCache cache = BlockCache.builder(2L * block).blockSize(block).build()) {
      CachedFile fa = cache.open(a);
      byte[] buf = new byte[block];
      fa.read(0, buf, 0, 1); // block 0 of a in slot 0
      fa.read(block, buf, 0, 1); // block 1 of a in slot 1
      int g0 = generation(cache.states, 0);
      assertEquals(BlockStates.PINNED, cache.states.tryPin(0, g0)); // a reader holds slot 0
      fa.close();
      assertEquals("the unpinned block is freed, the pinned one kept", (long) block, cache.stats().residentBytes());
      try (CachedFile fb = cache.open(b)) {
        for (int i = 0; i < 8; i++) {
          fb.read((long) i * block, buf, 0, block);
          Content.check("b block " + i, seedB, (long) i * block, buf, 0, block);
          assertEquals("the pinned slot is not reused", g0, generation(cache.states, 0));
        }
        byte[] held = new byte[block];
        MemorySegment.copy(cache.slots.chunkOf(0), ValueLayout.JAVA_BYTE, cache.slots.offsetInChunk(0), held, 0, block);
        Content.check("the pinned block's memory", seedA, 0, held, 0, block);
        cache.states.unpin(0);
        for (int i = 0; i < 8; i++) {
          fb.read((long) i * block, buf, 0, block);
          Content.check("b block " + i + " again", seedB, (long) i * block, buf, 0, block);
        }
        assertTrue("once unpinned, the slot is reused", generation(cache.states, 0) != g0);
      }
    }
  }

  /** A failed load clears its table entries and frees its slots: nothing stays loading. */
  public void testFailedLoadFreesItsSlots() throws IOException {
    int block = 4096;
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 10L * block);
    try (BlockCache cache = BlockCache.builder(4L * block).blockSize(block).build();
        CachedFile f = cache.open(p);
        FaultInjection faults = FaultInjection.install(dir)) {
      byte[] b = new byte[3 * block];
      faults.failNext(Call.PREAD, Kind.EIO, 1);
      NativeIOException e = expectThrows(NativeIOException.class, () -> f.read(0, b, 0, b.length));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()) && e.getMessage().contains("offset 0"));
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 1, s.loadFailures());
      assertEquals(s.toString(), 0, s.residentBytes());
      for (int slot = 0; slot < 3; slot++) {
        assertEquals(0, cache.states.state(slot) & (BlockStates.LOADING | BlockStates.PINS));
      }
      // The same read again succeeds, through the freed slots.
      f.read(0, b, 0, b.length);
      Content.check("after the failure", seed, 0, b, 0, b.length);
      assertEquals(3L * block, cache.stats().residentBytes());
      assertEquals(0, cache.stats().evictions());
    }
  }

  /**
   * Block memory and scratch buffers mapped for the first time while the cache closes: the mapping
   * succeeds, the closed arena refuses it, and it must be unmapped rather than leaked.
   */
  public void testFirstMappingAfterCloseIsUnmapped() {
    long before = NativeMemoryProbe.liveMappings();
    Slots slots = new Slots(8, 4096, 4L * 4096);
    slots.close();
    expectThrows(IllegalStateException.class, () -> slots.segment(random().nextInt(8)));
    assertEquals("block memory mapped after close was left mapped", before, NativeMemoryProbe.liveMappings());
    assertEquals(0, slots.allocatedBytes());

    ScratchBuffers scratch = new ScratchBuffers();
    scratch.close();
    expectThrows(IllegalStateException.class, () -> scratch.buffer(0));
    assertEquals("scratch memory mapped after close was left mapped", before, NativeMemoryProbe.liveMappings());
    assertEquals(0, scratch.mappedBytes());
  }
}
