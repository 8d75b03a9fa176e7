package dev.pread.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link NativeMemory#mapAnonymous}: memory is zero-filled and writable, unmapped when its arena
 * closes, and a mapping made for an arena that is already closed is unmapped at once.
 */
public class TestNativeMemory extends LuceneTestCase {

  public void testUnmappedWhenTheArenaCloses() {
    long before = NativeMemory.liveMappings();
    long length = random().nextBoolean() ? NativeMemory.HUGE_PAGE * (1 + random().nextInt(3)) : 4096L * (1 + random().nextInt(8));
    try (Arena arena = Arena.ofShared()) {
      MemorySegment m = NativeMemory.mapAnonymous(length, arena);
      assertEquals(length, m.byteSize());
      assertEquals(before + 1, NativeMemory.liveMappings());
      long at = random().nextLong(length);
      assertEquals(0, m.get(ValueLayout.JAVA_BYTE, at));
      m.set(ValueLayout.JAVA_BYTE, at, (byte) 7);
      assertEquals(7, m.get(ValueLayout.JAVA_BYTE, at));
      if (length >= NativeMemory.HUGE_PAGE) {
        assertEquals(0, m.address() % NativeMemory.HUGE_PAGE);
      }
    }
    assertEquals(before, NativeMemory.liveMappings());
  }

  /** The arena is closed (a cache closing): the mmap succeeds, the arena refuses it, it is unmapped. */
  public void testMappingForAClosedArenaIsUnmapped() {
    long before = NativeMemory.liveMappings();
    Arena arena = Arena.ofShared();
    arena.close();
    long length = random().nextBoolean() ? NativeMemory.HUGE_PAGE : 4096;
    IllegalStateException e = expectThrows(IllegalStateException.class, () -> NativeMemory.mapAnonymous(length, arena));
    assertFalse(arena.scope().isAlive());
    assertNotNull(e.getMessage());
    assertEquals("a mapping for a closed arena was left mapped", before, NativeMemory.liveMappings());
  }

  /** discard gives the pages back: the mapping stays, reads see zeros, a write commits again. */
  public void testDiscardGivesThePagesBack() {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    long length = NativeMemory.HUGE_PAGE * (1 + random().nextInt(2));
    try (Arena arena = Arena.ofShared()) {
      MemorySegment m = NativeMemory.mapAnonymous(length, arena);
      m.fill((byte) 5);
      long pages = length / 4096;
      long first = random().nextLong(pages);
      long count = 1 + random().nextLong(pages - first);
      NativeMemory.discard(m.asSlice(first * 4096, count * 4096));
      for (long p = 0; p < pages; p++) {
        byte expected = p >= first && p < first + count ? (byte) 0 : (byte) 5;
        assertEquals("page " + p, expected, m.get(ValueLayout.JAVA_BYTE, p * 4096 + random().nextInt(4096)));
      }
      m.set(ValueLayout.JAVA_BYTE, first * 4096, (byte) 9);
      assertEquals(9, m.get(ValueLayout.JAVA_BYTE, first * 4096));
      IllegalArgumentException e =
          expectThrows(IllegalArgumentException.class, () -> NativeMemory.discard(m.asSlice(1, 4096)));
      assertTrue(e.getMessage(), e.getMessage().contains("page-aligned"));
    }
  }
}
