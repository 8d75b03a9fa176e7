package dev.pread.bench;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BitUtil;

/**
 * Reads through a Lucene directory's {@link IndexInput}: the input is opened once, and each
 * thread reads a clone of it with {@code seek} + {@code readBytes}, as Lucene's codecs do.
 */
final class IndexInputStrategy implements Strategy {
  private final String name;
  private final FSDirectory directory;
  private final IndexInput input;

  IndexInputStrategy(String name, FSDirectory directory, Path file) throws IOException {
    this.name = name;
    this.directory = directory;
    this.input = directory.openInput(file.getFileName().toString(), IOContext.DEFAULT);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Reader newReader(int readSize) {
    IndexInput clone = input.clone();
    byte[] buf = new byte[readSize];
    return new Reader() {
      @Override
      public long read(long position) throws IOException {
        clone.seek(position);
        clone.readBytes(buf, 0, readSize);
        return Strategy.fingerprint(
            (long) BitUtil.VH_LE_LONG.get(buf, 0), (long) BitUtil.VH_LE_LONG.get(buf, readSize - 8));
      }

      @Override
      public void prefetch(long position) throws IOException {
        clone.prefetch(position, readSize);
      }

      @Override
      public boolean verifyFully(long position) throws IOException {
        read(position);
        for (int i = 0; i < readSize; i += 8) {
          if ((long) BitUtil.VH_LE_LONG.get(buf, i) != DataFile.expectedAt(position + i)) {
            return false;
          }
        }
        return true;
      }
    };
  }

  @Override
  public void close() throws IOException {
    try {
      input.close();
    } finally {
      directory.close();
    }
  }
}
