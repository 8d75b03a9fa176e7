package dev.pread.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The syscall baseline of BENCHMARKING.md: {@code FileChannel.read} into a per-thread direct
 * buffer, as NIOFSDirectory would without its heap copy.
 */
final class FileChannelStrategy implements Strategy {
  private final FileChannel channel;

  FileChannelStrategy(Path file) throws IOException {
    this.channel = FileChannel.open(file);
  }

  @Override
  public String name() {
    return "fc-direct";
  }

  @Override
  public Reader newReader(int readSize) {
    ByteBuffer buf = ByteBuffer.allocateDirect(readSize).order(ByteOrder.LITTLE_ENDIAN);
    return new Reader() {
      @Override
      public long read(long position) throws IOException {
        buf.clear();
        while (buf.hasRemaining()) {
          if (channel.read(buf, position + buf.position()) < 0) {
            throw new java.io.EOFException("EOF at " + (position + buf.position()));
          }
        }
        return Strategy.fingerprint(buf.getLong(0), buf.getLong(readSize - 8));
      }

      @Override
      public boolean verifyFully(long position) throws IOException {
        read(position);
        for (int i = 0; i < readSize; i += 8) {
          if (buf.getLong(i) != DataFile.expectedAt(position + i)) {
            return false;
          }
        }
        return true;
      }
    };
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
