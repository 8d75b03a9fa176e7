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
}
