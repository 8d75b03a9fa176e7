package dev.pread.bench.raw;

import static dev.pread.bench.raw.StrategyRegistry.MMAP;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code mmap}: the whole file mapped once ({@link FileChannel#map} into a shared {@link Arena}),
 * each read a {@link MemorySegment#copy} from the mapping into the thread's heap array. No
 * syscall per read and no Lucene input: the floor of the mmap approach.
 *
 * <p>Thread-safe: the mapping is shared; each thread reads through its own {@link Reader}.
 */
final class MappedSegmentStrategy implements Strategy {
  private final Arena arena = Arena.ofShared();
  private final MemorySegment mapping;

  MappedSegmentStrategy(Path path) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      mapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return MMAP;
  }

  @Override
  public Reader newReader(int readSize) {
    return new HeapArrayReader(readSize) {
      @Override
      void fill(long position) {
        MemorySegment.copy(mapping, ValueLayout.JAVA_BYTE, position, buf, 0, readSize);
      }
    };
  }

  @Override
  public void close() {
    arena.close();
  }
}
