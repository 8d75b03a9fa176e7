package dev.pread.nativeio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Read-only memory mappings of whole files, and {@code madvise(2)} advice on them.
 *
 * <p>A mapping is made with {@link FileChannel#map(FileChannel.MapMode, long, long, Arena)}; the
 * channel is closed at once (the mapping does not need it) and the mapping lives until its arena
 * closes. Advice is a hint: failures are reported as {@code false}, never thrown.
 *
 * <p><b>Interrupts.</b> A channel's {@code map} is interruptible: an interrupt of the mapping thread
 * closes the channel and fails the map with {@link ClosedByInterruptException}. An interrupt (a
 * cancelled search, say) must not fail an open, so {@link #map} maps with the thread's interrupt
 * status cleared, and if an interrupt still arrives during the map, maps again on a thread of its
 * own, which interrupts of the caller cannot reach; the caller's interrupt status is set again
 * before it returns. The trade-off: an interrupted open takes a thread start longer.
 *
 * <p>Thread-safe: stateless.
 */
public final class MappedFiles {
  /** The page size mappings are aligned to for advice. */
  public static final long PAGE = 4096;

  private MappedFiles() {}

  /** What {@link #advise} can ask of the kernel. */
  public enum MapAdvice {
    /** The kernel's default: readahead around faults. */
    NORMAL(NativeIO.MADV_NORMAL),
    /** No readahead: a fault reads the faulting page only. */
    RANDOM(NativeIO.MADV_RANDOM),
    /** Start reading the range into the page cache without waiting. */
    WILLNEED(NativeIO.MADV_WILLNEED);

    final int value;

    MapAdvice(int value) {
      this.value = value;
    }
  }

  /**
   * Maps the first {@code size} bytes of {@code path} read-only into {@code arena}.
   *
   * @throws IOException naming the path if the file cannot be opened or mapped
   */
  public static MemorySegment map(Path path, long size, Arena arena) throws IOException {
    boolean interrupted = Thread.interrupted(); // set again below, whatever happens
    try {
      try {
        return mapHere(path, size, arena);
      } catch (ClosedByInterruptException e) {
        interrupted = true;
        Thread.interrupted();
      }
      FutureTask<MemorySegment> task = new FutureTask<>(() -> mapHere(path, size, arena));
      Thread.ofVirtual().name("pread-map").start(task);
      while (true) {
        try {
          return task.get();
        } catch (InterruptedException again) {
          interrupted = true; // wait on: the open must not fail for it
        } catch (ExecutionException failed) {
          Throwable cause = failed.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IOException(path + ": mapping failed", cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static MemorySegment mapHere(Path path, long size, Arena arena) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
    }
  }

  /**
   * Advises the pages of {@code mapping} that hold bytes {@code [offset, offset + length)}.
   *
   * @return true if the kernel took the advice; false if it refused, the range is empty, native
   *     access is off, or the mapping was closed
   */
  public static boolean advise(MemorySegment mapping, long offset, long length, MapAdvice advice) {
    if (length <= 0 || !NativeAccess.isAvailable() || !mapping.scope().isAlive()) {
      return false;
    }
    long address = mapping.address() + offset;
    long start = address & -PAGE;
    long end = address + length;
    try (Arena call = Arena.ofConfined()) {
      return NativeIO.madvise(NativeIO.allocateCapture(call), start, end - start, advice.value) == 0;
    }
  }
}
