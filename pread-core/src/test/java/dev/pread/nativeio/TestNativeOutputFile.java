package dev.pread.nativeio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/** Writing through the native layer: content, truncation, preallocation, errors and close. */
public class TestNativeOutputFile extends LuceneTestCase {

  private Path realTempDir() {
    return Unwrappable.unwrapAll(createTempDir()).toAbsolutePath();
  }

  private static MemorySegment segmentOf(Arena arena, byte[] bytes, int from, int to) {
    MemorySegment seg = arena.allocate(to - from);
    MemorySegment.copy(bytes, from, seg, ValueLayout.JAVA_BYTE, 0, to - from);
    return seg;
  }

  public void testWritesLandAtTheirPositions() throws IOException {
    byte[] content = new byte[3 * NativeBuffers.BUFFER_SIZE + 1234];
    random().nextBytes(content);
    Path p = realTempDir().resolve("w");
    int split = random().nextInt(content.length);
    try (NativeOutputFile f = NativeOutputFile.create(p);
        Arena arena = Arena.ofConfined()) {
      assertEquals(p, f.path());
      // The second half first: the first write extends the file with a hole before it.
      f.write(split, segmentOf(arena, content, split, content.length));
      f.write(0, segmentOf(arena, content, 0, split));
      f.write(0, arena.allocate(0));
    }
    assertArrayEquals(content, Files.readAllBytes(p));
  }

  public void testCreateTruncatesAnExistingFile() throws IOException {
    Path p = realTempDir().resolve("t");
    Files.write(p, new byte[10_000]);
    try (NativeOutputFile f = NativeOutputFile.create(p)) {
      assertEquals(0, Files.size(p));
      try (Arena arena = Arena.ofConfined()) {
        f.write(0, segmentOf(arena, new byte[] {1, 2, 3}, 0, 3));
      }
    }
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(p));
  }

  public void testModeIsAtMost0644() throws IOException {
    Path p = realTempDir().resolve("m");
    NativeOutputFile.create(p).close();
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
    Set<PosixFilePermission> allowed =
        EnumSet.of(
            PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.OTHERS_READ);
    assertTrue(perms.toString(), allowed.containsAll(perms));
    assertTrue(perms.toString(), perms.contains(PosixFilePermission.OWNER_WRITE));
  }

  public void testPreallocateExtendsWithZerosAndWritesKeepTheSize() throws IOException {
    Path p = realTempDir().resolve("pre");
    try (NativeOutputFile f = NativeOutputFile.create(p);
        Arena arena = Arena.ofConfined()) {
      try {
        f.preallocate(1 << 20);
      } catch (NativeIOException e) {
        assumeTrue("file system without fallocate: " + e.getMessage(), e.errno() != Errno.EOPNOTSUPP);
        throw e;
      }
      f.preallocate(0);
      assertEquals(1 << 20, Files.size(p));
      f.write(4096, segmentOf(arena, new byte[] {7, 7}, 0, 2));
      assertEquals(1 << 20, Files.size(p));
      expectThrows(IllegalArgumentException.class, () -> f.preallocate(-1));
    }
    byte[] back = Files.readAllBytes(p);
    byte[] expected = new byte[1 << 20];
    expected[4096] = 7;
    expected[4097] = 7;
    assertArrayEquals(expected, back);
  }

  public void testSetLengthAndSync() throws IOException {
    Path p = realTempDir().resolve("len");
    try (NativeOutputFile f = NativeOutputFile.create(p);
        Arena arena = Arena.ofConfined()) {
      f.setLength(100_000);
      assertEquals(100_000, Files.size(p));
      f.write(0, segmentOf(arena, new byte[] {1, 2, 3, 4}, 0, 4));
      f.setLength(2);
      f.sync();
      expectThrows(IllegalArgumentException.class, () -> f.setLength(-1));
    }
    assertArrayEquals(new byte[] {1, 2}, Files.readAllBytes(p));
  }

  public void testInvalidArguments() throws IOException {
    Path p = realTempDir().resolve("args");
    try (NativeOutputFile f = NativeOutputFile.create(p);
        Arena arena = Arena.ofConfined()) {
      expectThrows(
          IllegalArgumentException.class, () -> f.write(0, MemorySegment.ofArray(new byte[4])));
      expectThrows(IllegalArgumentException.class, () -> f.write(-1, arena.allocate(4)));
    }
  }

  /** Far beyond any file system's largest file: the kernel refuses, and the message says where. */
  public void testWriteFailureNamesPathOffsetAndErrno() throws IOException {
    Path p = realTempDir().resolve("big");
    long offset = 1L << 62;
    try (NativeOutputFile f = NativeOutputFile.create(p);
        Arena arena = Arena.ofConfined()) {
      NativeIOException e = expectThrows(NativeIOException.class, () -> f.write(offset, arena.allocate(8)));
      assertEquals("pwrite", e.operation());
      assertEquals(offset, e.offset());
      assertTrue(e.getMessage(), e.getMessage().startsWith(p + ": pwrite failed at offset " + offset));
      assertTrue(e.getMessage(), e.errno() == Errno.EFBIG || e.errno() == Errno.EINVAL);
      assertTrue(e.getMessage(), e.getMessage().contains(Errno.name(e.errno())));
    }
    assertEquals(0, Files.size(p));
  }

  public void testMissingParentNamesPathAndErrno() {
    Path p = realTempDir().resolve("no-such-dir").resolve("f");
    NoSuchFileException e = expectThrows(NoSuchFileException.class, () -> NativeOutputFile.create(p));
    assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("ENOENT"));
  }

  public void testDirectoryIsRefused() {
    Path dir = realTempDir();
    NativeIOException e = expectThrows(NativeIOException.class, () -> NativeOutputFile.create(dir));
    assertEquals(Errno.EISDIR, e.errno());
    assertTrue(e.getMessage(), e.getMessage().contains(dir.toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("EISDIR"));
  }

  public void testReadOnlyFileIsRefused() throws IOException {
    assumeFalse("root may write any file", "root".equals(System.getProperty("user.name")));
    Path p = realTempDir().resolve("ro");
    Files.write(p, new byte[1]);
    Files.setPosixFilePermissions(p, EnumSet.of(PosixFilePermission.OWNER_READ));
    AccessDeniedException e = expectThrows(AccessDeniedException.class, () -> NativeOutputFile.create(p));
    assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("EACCES"));
  }

  public void testCloseThenCallsThrowAndDoubleCloseIsHarmless() throws IOException {
    Path p = realTempDir().resolve("c");
    NativeOutputFile f = NativeOutputFile.create(p);
    f.close();
    assertTrue(f.isClosed());
    f.close();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment seg = arena.allocate(1);
      ClosedFileException e = expectThrows(ClosedFileException.class, () -> f.write(0, seg));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
    }
    expectThrows(ClosedFileException.class, () -> f.preallocate(10));
    expectThrows(ClosedFileException.class, () -> f.setLength(10));
    expectThrows(ClosedFileException.class, f::sync);
    assertEquals(0, Files.size(p));
  }

  /** Threads writing disjoint ranges at once: every byte ends up where it belongs. */
  public void testConcurrentDisjointWrites() throws Exception {
    int threads = 4;
    int chunk = 8192;
    int perThread = 16;
    Path p = realTempDir().resolve("conc");
    try (NativeOutputFile f = NativeOutputFile.create(p)) {
      Thread[] ts = new Thread[threads];
      Throwable[] failure = new Throwable[1];
      for (int t = 0; t < threads; t++) {
        int id = t;
        ts[t] =
            new Thread(
                () -> {
                  try (Arena arena = Arena.ofConfined()) {
                    MemorySegment seg = arena.allocate(chunk);
                    seg.fill((byte) (id + 1));
                    for (int i = 0; i < perThread; i++) {
                      f.write((long) (i * threads + id) * chunk, seg);
                    }
                  } catch (Throwable e) {
                    synchronized (failure) {
                      failure[0] = e;
                    }
                  }
                });
        ts[t].start();
      }
      for (Thread t : ts) {
        t.join();
      }
      synchronized (failure) {
        if (failure[0] != null) {
          throw new AssertionError(failure[0]);
        }
      }
    }
    byte[] back = Files.readAllBytes(p);
    assertEquals(threads * perThread * chunk, back.length);
    for (int c = 0; c < threads * perThread; c++) {
      byte[] expected = new byte[chunk];
      Arrays.fill(expected, (byte) (c % threads + 1));
      assertArrayEquals(expected, Arrays.copyOfRange(back, c * chunk, (c + 1) * chunk));
    }
  }
}
