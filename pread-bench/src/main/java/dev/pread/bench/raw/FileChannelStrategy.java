package dev.pread.bench.raw;

import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_DIRECT;
import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_HEAP;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code filechannel-direct} and {@code filechannel-heap}: positional {@link
 * FileChannel#read(ByteBuffer, long)} on one channel shared by all threads, into a per-thread
 * direct or heap buffer. With a heap buffer the JDK reads into a temporary direct buffer of its own
 * and copies. Every read registers the thread in the channel's internal thread set, the monitor
 * NIOFSDirectory also pays.
 *
 * <p>Thread-safe: the channel is shared; each thread reads through its own {@link Reader}.
 */
final class FileChannelStrategy implements Strategy {
  private final FileChannel channel;
  private final boolean direct;

  FileChannelStrategy(Path path, boolean direct) throws IOException {
    this.channel = FileChannel.open(path, StandardOpenOption.READ);
    this.direct = direct;
  }

  @Override
  public String name() {
    return direct ? FILECHANNEL_DIRECT : FILECHANNEL_HEAP;
  }

  @Override
  public Reader newReader(int readSize) {
    if (direct) {
      ByteBuffer bb = ByteBuffer.allocateDirect(readSize);
      return new NativeSegmentReader(MemorySegment.ofBuffer(bb)) {
        @Override
        void fill(long position) throws IOException {
          readFully(bb, position);
        }
      };
    }
    return new HeapArrayReader(readSize) {
      private final ByteBuffer bb = ByteBuffer.wrap(buf);

      @Override
      void fill(long position) throws IOException {
        readFully(bb, position);
      }
    };
  }

  private void readFully(ByteBuffer bb, long position) throws IOException {
    bb.clear();
    while (bb.hasRemaining()) {
      if (channel.read(bb, position + bb.position()) < 0) {
        throw new EOFException("read past EOF at " + (position + bb.position()));
      }
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
