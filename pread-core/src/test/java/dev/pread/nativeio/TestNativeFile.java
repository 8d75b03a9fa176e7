package dev.pread.nativeio;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/** The native layer on its own: errors, EOF, close, and the buffer pool's accounting. */
public class TestNativeFile extends LuceneTestCase {

  private Path realTempDir() {
    return Unwrappable.unwrapAll(createTempDir()).toAbsolutePath();
  }

  private static Path writeFile(Path dir, String name, byte[] content) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, content);
    return p;
  }

  public void testAvailableInTestJvm() {
    assertTrue(NativeAccess.unavailableReason().orElse(""), NativeAccess.isAvailable());
  }

  public void testMissingFileNamesPathAndErrno() throws IOException {
    Path missing = realTempDir().resolve("missing.bin");
    NoSuchFileException e = expectThrows(NoSuchFileException.class, () -> NativeFile.open(missing));
    assertTrue(e.getMessage(), e.getMessage().contains(missing.toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("ENOENT"));
    assertTrue(e.getMessage(), e.getMessage().contains("No such file or directory"));
  }

  public void testReopenReachesADeletedFileAndNamesItsPath() throws IOException {
    Path p = realTempDir().resolve("f");
    byte[] content = new byte[3 * 4096 + 100];
    random().nextBytes(content);
    Files.write(p, content);
    NativeFile reopened;
    boolean direct = random().nextBoolean();
    try (NativeFile f = NativeFile.open(p)) {
      Files.delete(p);
      reopened = f.reopen(direct);
    }
    try (NativeFile r = reopened) {
      assertEquals(p.toAbsolutePath(), r.path());
      assertEquals(content.length, r.size());
      byte[] got = new byte[4096];
      r.read(4096, got, 0, 4096);
      assertArrayEquals(java.util.Arrays.copyOfRange(content, 4096, 8192), got);
      assertEquals(direct, r.isDirect());
      long at = direct ? 3 * 4096 : content.length - 10; // direct reads must stay aligned
      EOFException e = expectThrows(EOFException.class, () -> r.read(at, new byte[4096], 0, 4096));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toAbsolutePath().toString()));
    }
    NativeFile closed = NativeFile.open(writeOne());
    closed.close();
    expectThrows(ClosedFileException.class, () -> closed.reopen(false));
  }

  private Path writeOne() throws IOException {
    Path p = realTempDir().resolve("one");
    Files.write(p, new byte[10]);
    return p;
  }

  public void testPathOfAnotherFileSystemIsRejected() {
    Path wrapped = createTempDir().resolve("x");
    if (wrapped.getFileSystem() != java.nio.file.FileSystems.getDefault()) {
      expectThrows(IllegalArgumentException.class, () -> NativeFile.open(wrapped));
    }
  }

  public void testReadsAndEof() throws IOException {
    byte[] content = new byte[10_000];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "f", content);
    try (NativeFile f = NativeFile.open(p)) {
      assertEquals(content.length, f.size());
      byte[] b = new byte[200_000];
      f.read(100, b, 5, 9_900);
      assertArrayEquals(
          java.util.Arrays.copyOfRange(content, 100, 10_000), java.util.Arrays.copyOfRange(b, 5, 9_905));
      EOFException eof = expectThrows(EOFException.class, () -> f.read(9_999, b, 0, 2));
      assertTrue(eof.getMessage(), eof.getMessage().contains(p.toString()));
      assertTrue(eof.getMessage(), eof.getMessage().contains("offset 10000"));
      expectThrows(IllegalArgumentException.class, () -> f.read(-1, b, 0, 1));
      expectThrows(IndexOutOfBoundsException.class, () -> f.read(0, b, 199_999, 2));
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment seg = arena.allocate(1000);
        f.read(2000, seg);
        for (int i = 0; i < 1000; i++) {
          assertEquals(content[2000 + i], seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i));
        }
      }
      expectThrows(
          IllegalArgumentException.class, () -> f.read(0, MemorySegment.ofArray(new byte[4])));
    }
  }

  /** Larger than a pooled buffer: the read is split into several preads. */
  public void testReadsLargerThanThePoolBuffer() throws IOException {
    byte[] content = new byte[3 * NativeBuffers.BUFFER_SIZE + 17];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "big", content);
    try (NativeFile f = NativeFile.open(p)) {
      byte[] b = new byte[content.length];
      f.read(0, b, 0, b.length);
      assertArrayEquals(content, b);
    }
  }

  public void testTruncatedUnderOpenFileThrowsEof() throws IOException {
    byte[] content = new byte[100_000];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "t", content);
    try (NativeFile f = NativeFile.open(p)) {
      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
        ch.truncate(50_000);
      }
      byte[] b = new byte[1000];
      f.read(49_000, b, 0, 1000);
      EOFException e = expectThrows(EOFException.class, () -> f.read(49_500, b, 0, 1000));
      assertTrue(e.getMessage(), e.getMessage().contains("offset 50000"));
      // Asking for more than needed returns what still exists, across pool-buffer chunks too.
      byte[] big = new byte[3 * NativeBuffers.BUFFER_SIZE];
      assertEquals(1000, f.readAtLeast(49_000, big, 7, 500, 5000));
      assertArrayEquals(
          java.util.Arrays.copyOfRange(content, 49_000, 50_000), java.util.Arrays.copyOfRange(big, 7, 1007));
      assertEquals(50_000 - 100, f.readAtLeast(100, big, 0, 1, big.length));
      assertEquals(0, f.readAtLeast(50_000, big, 0, 0, 10));
      e = expectThrows(EOFException.class, () -> f.readAtLeast(49_500, b, 0, 600, 1000));
      assertTrue(e.getMessage(), e.getMessage().contains("offset 50000 (100 more bytes wanted"));
      expectThrows(IllegalArgumentException.class, () -> f.readAtLeast(0, b, 0, 10, 5));
      expectThrows(IndexOutOfBoundsException.class, () -> f.readAtLeast(0, b, 0, 1, b.length + 1));
      assertEquals(1000, f.readAtLeast(0, b, 0, 1, 1000)); // never more than asked
    }
  }

  public void testCloseThenReadThrowsAndDoubleCloseIsHarmless() throws IOException {
    Path p = writeFile(realTempDir(), "c", new byte[100]);
    NativeFile f = NativeFile.open(p);
    f.close();
    assertTrue(f.isClosed());
    f.close();
    ClosedFileException e = expectThrows(ClosedFileException.class, () -> f.read(0, new byte[1], 0, 1));
    assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
  }

  public void testErrnoMessages() {
    String m = NativeIOException.message(Path.of("/x/y"), "pread", 4096, 16384, Errno.EIO);
    assertEquals("/x/y: pread failed at offset 4096 (length 16384): EIO (Input/output error)", m);
    assertEquals("EMFILE (Too many open files)", NativeIOException.describe(Errno.EMFILE));
  }

  /** Temporaries are freed when released; pooled buffers stay, bounded by the slot count. */
  public void testBufferPoolAccounting() {
    int slots = NativeBuffers.slotCount();
    NativeBuffers.Scratch[] pooled = new NativeBuffers.Scratch[slots];
    for (int i = 0; i < slots; i++) {
      pooled[i] = NativeBuffers.borrow(100);
      assertTrue(pooled[i].slot >= 0);
    }
    long live = NativeBuffers.liveBuffers();
    long bytes = NativeBuffers.liveBytes();
    assertEquals((long) slots * NativeBuffers.BUFFER_SIZE, bytes);
    NativeBuffers.Scratch t1 = NativeBuffers.borrow(100);
    NativeBuffers.Scratch t2 = NativeBuffers.borrow(1 << 30);
    assertEquals(-1, t1.slot);
    assertEquals(100, t1.capacity());
    assertEquals(NativeBuffers.BUFFER_SIZE, t2.capacity());
    assertEquals(live + 2, NativeBuffers.liveBuffers());
    NativeBuffers.release(t1);
    NativeBuffers.release(t2);
    assertEquals(live, NativeBuffers.liveBuffers());
    assertEquals(bytes, NativeBuffers.liveBytes());
    for (NativeBuffers.Scratch s : pooled) {
      NativeBuffers.release(s);
    }
    assertEquals(live, NativeBuffers.liveBuffers());
    NativeBuffers.Scratch again = NativeBuffers.borrow(10);
    assertTrue(again.slot >= 0);
    NativeBuffers.release(again);
    assertEquals(live, NativeBuffers.liveBuffers());
  }

  public void testAdvice() throws IOException {
    Path p = writeFile(realTempDir(), "a", new byte[100_000]);
    NativeFile f = NativeFile.open(p);
    for (Advice a : Advice.values()) {
      f.advise(0, 100_000, a);
    }
    f.advise(4096, 0, Advice.WILLNEED); // 0 = to the end of the file
    expectThrows(IllegalArgumentException.class, () -> f.advise(-1, 10, Advice.WILLNEED));
    f.close();
    expectThrows(ClosedFileException.class, () -> f.advise(0, 10, Advice.WILLNEED));
  }

  public void testDirectReadsAlignedAndRejectsUnaligned() throws IOException {
    byte[] content = new byte[64 * 1024];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "direct", content);
    NativeFile f;
    try {
      f = NativeFile.openDirect(p);
    } catch (NativeIOException e) {
      assumeTrue("file system refuses O_DIRECT: " + e.getMessage(), e.errno() != Errno.EINVAL);
      throw e;
    }
    try (f;
        Arena arena = Arena.ofConfined()) {
      assertTrue(f.isDirect());
      MemorySegment aligned = arena.allocate(8192, 4096);
      f.read(4096, aligned);
      for (int i = 0; i < 8192; i++) {
        assertEquals(content[4096 + i], aligned.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i));
      }
      NativeIOException e = expectThrows(NativeIOException.class, () -> f.read(4096 + 1, aligned));
      assertEquals(Errno.EINVAL, e.errno());
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("EINVAL"));
    }
  }

  private static NativeFile openDirectOrSkip(Path p) throws IOException {
    try {
      return NativeFile.openDirect(p);
    } catch (NativeIOException e) {
      assumeTrue("file system refuses O_DIRECT: " + e.getMessage(), e.errno() != Errno.EINVAL);
      throw e;
    }
  }

  private static MemorySegment[] blocks(Arena arena, int count) {
    MemorySegment[] blocks = new MemorySegment[count];
    for (int i = 0; i < count; i++) {
      blocks[i] = arena.allocate(4096, 4096);
    }
    return blocks;
  }

  /** Asserts that {@code segs}, read as one buffer, start with {@code content[from..from+length)}. */
  private static void assertRead(byte[] content, int from, int length, MemorySegment... segs) {
    int i = 0;
    for (MemorySegment seg : segs) {
      for (long j = 0; j < seg.byteSize() && i < length; j++, i++) {
        assertEquals("byte " + (from + i), content[from + i], seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, j));
      }
    }
    assertEquals(length, i);
  }

  /**
   * The last, partial block of an O_DIRECT file reads without any read at the unaligned end of
   * file, which kernels using the generic direct-I/O path refuse with EINVAL (simulated here): the
   * short read that ends at the file's size is end of file.
   */
  public void testDirectReadOfTheTailBlockIssuesNoUnalignedRead() throws IOException {
    int tail = TestUtil.nextInt(random(), 1, 4095);
    byte[] content = new byte[3 * 4096 + tail];
    random().nextBytes(content);
    Path dir = realTempDir();
    Path p = writeFile(dir, "tail", content);
    try (FaultInjection faults = FaultInjection.install(dir).failUnalignedDirectReads(4096);
        NativeFile f = openDirectOrSkip(p);
        Arena arena = Arena.ofConfined()) {
      MemorySegment[] blocks = blocks(arena, 4);
      assertEquals(tail, f.readInto(3 * 4096, blocks, 1));
      assertRead(content, 3 * 4096, tail, blocks[0]);
      // the last two blocks and two more beyond the end, in one vector
      assertEquals(4096 + tail, f.readInto(2 * 4096, blocks, 4));
      assertRead(content, 2 * 4096, 4096 + tail, blocks);
      assertEquals(content.length, f.readInto(0, blocks, 4));
      assertRead(content, 0, content.length, blocks);
      // the pread paths: what exists is returned; an exact read is EOF, naming path and offset
      byte[] b = new byte[8192];
      assertEquals(tail, f.readAtLeast(3 * 4096, b, 0, 1, 4096));
      assertRead(content, 3 * 4096, tail, MemorySegment.ofArray(b).asSlice(0, tail));
      assertEquals(4096 + tail, f.readAtLeast(2 * 4096, b, 0, 4096, 8192));
      EOFException e = expectThrows(EOFException.class, () -> f.read(3 * 4096, blocks[0]));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("offset " + content.length));
      assertEquals(faults.summary(), 0, faults.injected(FaultInjection.Call.PREAD, FaultInjection.Kind.EINVAL));
      assertTrue(faults.directReads() > 0);
      // the rule itself: an unaligned read is refused
      NativeIOException einval = expectThrows(NativeIOException.class, () -> f.read(512, blocks[0]));
      assertEquals(Errno.EINVAL, einval.errno());
      assertEquals(1, faults.injected(FaultInjection.Call.PREAD, FaultInjection.Kind.EINVAL));
    }
  }

  /**
   * A short O_DIRECT read before the size the file had at open continues only at an aligned
   * offset: at an unaligned one the file has shrunk, and its end is end of file.
   */
  public void testDirectShortReadsContinueOnlyAligned() throws IOException {
    byte[] content = new byte[4 * 4096 + 100];
    random().nextBytes(content);
    Path dir = realTempDir();
    Path p = writeFile(dir, "short", content);
    try (FaultInjection faults = FaultInjection.install(dir).failUnalignedDirectReads(4096);
        NativeFile f = openDirectOrSkip(p);
        Arena arena = Arena.ofConfined()) {
      MemorySegment[] blocks = blocks(arena, 4);
      // short reads the kernel might return mid-file: the rest is read
      faults.failNext(FaultInjection.Call.PREAD, FaultInjection.Kind.SHORT_READ, 1);
      assertEquals(4 * 4096, f.readInto(0, blocks, 4));
      assertRead(content, 0, 4 * 4096, blocks);
      faults.failNext(FaultInjection.Call.PREAD, FaultInjection.Kind.SHORT_READ, 1);
      f.read(4096, blocks[1]);
      assertRead(content, 4096, 4096, blocks[1]);
      assertEquals(2, faults.injected(FaultInjection.Call.PREAD, FaultInjection.Kind.SHORT_READ));

      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
        ch.truncate(2 * 4096); // shrunk to a block boundary: the next read there finds EOF
      }
      assertEquals(2 * 4096, f.readInto(0, blocks, 4));
      assertRead(content, 0, 2 * 4096, blocks);

      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
        ch.truncate(4096 + 100); // shrunk within a block: its end is end of file
      }
      assertEquals(4096 + 100, f.readInto(0, blocks, 4));
      assertRead(content, 0, 4096 + 100, blocks);
      byte[] b = new byte[8192];
      assertEquals(4096 + 100, f.readAtLeast(0, b, 0, 1, 8192));
      EOFException e = expectThrows(EOFException.class, () -> f.readAtLeast(0, b, 0, 8192, 8192));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("offset " + (4096 + 100)));
      assertEquals(faults.summary(), 0, faults.injected(FaultInjection.Call.PREAD, FaultInjection.Kind.EINVAL));
    }
  }

  public void testCachedPages() throws IOException {
    Path p = writeFile(realTempDir(), "cached", new byte[1 << 20]);
    try (NativeFile f = NativeFile.open(p)) {
      assumeTrue("needs cachestat(2), Linux 6.5+", f.cachedPages(0, 4096) >= 0);
      java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE).force(true);
      f.advise(0, 0, Advice.DONTNEED);
      assumeTrue("DONTNEED does not drop pages on this file system", f.cachedPages(0, 1 << 20) == 0);
      f.read(8192, new byte[8192], 0, 8192);
      // The read brought in at least its two pages; counting did not bring in the rest.
      long cached = f.cachedPages(0, 1 << 20);
      assertTrue("cached=" + cached, cached >= 2 && cached < 256);
      assertEquals(2, f.cachedPages(8192, 8192));
      expectThrows(IllegalArgumentException.class, () -> f.cachedPages(-1, 1));
    }
  }

  /**
   * Reads with drop-behind return the file's bytes, leave none of the pages they brought in cached,
   * and leave the pages that were cached before them cached. Skipped where the kernel refuses it.
   */
  public void testDropBehindLeavesOnlyWhatWasCached() throws IOException {
    byte[] content = new byte[1 << 20];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "dropbehind", content);
    try (NativeFile f = NativeFile.open(p)) {
      assumeTrue("needs cachestat(2), Linux 6.5+", f.cachedPages(0, 4096) >= 0);
      java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE).force(true);
      f.advise(0, 0, Advice.DONTNEED);
      assumeTrue("DONTNEED does not drop pages on this file system", f.cachedPages(0, 1 << 20) == 0);
      f.advise(0, 0, Advice.RANDOM); // no readahead: exactly the pages read
      int cachedBefore = 4096 * TestUtil.nextInt(random(), 1, 64);
      byte[] b = new byte[content.length];
      f.read(0, b, 0, cachedBefore); // these pages are cached by a plain read
      f.dropBehind();
      assertTrue(f.isDropBehind());
      int pos = 0;
      while (pos < content.length) {
        int len = Math.min(content.length - pos, TestUtil.nextInt(random(), 1, 200_000));
        f.read(pos, b, pos, len);
        pos += len;
      }
      assertArrayEquals(content, b);
      assumeTrue("the kernel refused RWF_DONTCACHE (Linux 6.14+, and file system support)", f.isDropBehind());
      assertEquals(cachedBefore / 4096, f.cachedPages(0, cachedBefore));
      assertEquals(0, f.cachedPages(cachedBefore, content.length - cachedBefore));
    }
    try (NativeFile direct = openDirectOrSkip(p)) {
      expectThrows(IllegalStateException.class, direct::dropBehind);
    }
  }

  public void testDirectByteBufferDestination() throws IOException {
    byte[] content = new byte[5000];
    random().nextBytes(content);
    Path p = writeFile(realTempDir(), "d", content);
    try (NativeFile f = NativeFile.open(p)) {
      ByteBuffer bb = ByteBuffer.allocateDirect(3000);
      f.read(1000, MemorySegment.ofBuffer(bb));
      for (int i = 0; i < 3000; i++) {
        assertEquals(content[1000 + i], bb.get(i));
      }
    }
  }
}
