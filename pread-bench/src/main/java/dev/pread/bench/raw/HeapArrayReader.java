package dev.pread.bench.raw;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A {@link Strategy.Reader} whose bytes land in a heap array of its own, allocated when the reader
 * is made (outside any measured code). Subclasses only fill the array.
 *
 * <p>Not thread-safe: one per thread.
 */
abstract class HeapArrayReader implements Strategy.Reader {
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  final byte[] buf;
  final int readSize;

  HeapArrayReader(int readSize) {
    this.readSize = readSize;
    this.buf = new byte[readSize];
  }

  /** Puts the file's bytes {@code [position, position + readSize)} into {@link #buf}. */
  abstract void fill(long position) throws IOException;

  @Override
  public final long read(long position) throws IOException {
    fill(position);
    return Strategy.fingerprint((long) LE_LONG.get(buf, 0), (long) LE_LONG.get(buf, readSize - 8));
  }

  @Override
  public final boolean verifyFully(long position) throws IOException {
    fill(position);
    for (int i = 0; i < readSize; i += 8) {
      if ((long) LE_LONG.get(buf, i) != DataFile.expectedAt(position + i)) {
        return false;
      }
    }
    return true;
  }
}
