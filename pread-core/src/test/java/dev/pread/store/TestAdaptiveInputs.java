package dev.pread.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MemorySegmentAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;

/** What {@link AdaptiveDirectory}'s inputs promise beyond Lucene's suite, in each read path. */
public class TestAdaptiveInputs extends LuceneTestCase {
  private AdaptiveRegime.Mode mode() {
    return random().nextBoolean() ? AdaptiveRegime.Mode.MAPPED : AdaptiveRegime.Mode.CACHED;
  }

  public void testTruncatedFileIsAnIOExceptionNamingIt() throws IOException {
    Path dir = createTempDir("index");
    byte[] content = new byte[1 << 20];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    // Mapped reads only: a cached read goes through O_DIRECT reads, which see the short file.
    try (AdaptiveDirectory d =
            new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(AdaptiveRegime.Mode.MAPPED, 0));
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      try (FileChannel ch = FileChannel.open(dir.resolve("f"), StandardOpenOption.WRITE)) {
        ch.truncate(4096);
      }
      in.seek(content.length - 100);
      IOException e = expectThrows(IOException.class, () -> in.readLong());
      assertTrue(e.getMessage(), e.getMessage().contains(dir.resolve("f").toString()));
      assertEquals(content[10], ((org.apache.lucene.store.RandomAccessInput) in).readByte(10)); // the part that is left still reads
    }
  }

  public void testSegmentsOnlyWhileMapped() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    for (AdaptiveRegime.Mode m : new AdaptiveRegime.Mode[] {AdaptiveRegime.Mode.MAPPED, AdaptiveRegime.Mode.CACHED}) {
      try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(m, 1 << 20));
          IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
        MemorySegmentAccessInput msai = (MemorySegmentAccessInput) in;
        if (m == AdaptiveRegime.Mode.MAPPED) {
          assertEquals(50, msai.segmentSliceOrNull(10, 50).byteSize());
          expectThrows(java.io.EOFException.class, () -> msai.segmentSliceOrNull(99_990, 50));
        } else {
          assertNull(msai.segmentSliceOrNull(10, 50));
        }
      }
    }
  }

  public void testClonesAfterCloseThrowAlreadyClosed() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), AdaptiveDirectory.regime(mode(), 1 << 20))) {
      IndexInput in = d.openInput("f", IOContext.DEFAULT);
      IndexInput clone = in.clone();
      IndexInput slice = in.slice("s", 10, 1000);
      clone.readByte();
      in.close();
      expectThrows(AlreadyClosedException.class, clone::readByte);
      expectThrows(AlreadyClosedException.class, () -> ((org.apache.lucene.store.RandomAccessInput) slice).readLong(0));
      expectThrows(AlreadyClosedException.class, () -> slice.readBytes(new byte[10], 0, 10));
      expectThrows(AlreadyClosedException.class, clone::clone);
    }
  }

  public void testClosedDirectoryFreesItsFiles() throws IOException {
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[100_000]);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      try (IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
        in.readLong();
        assertEquals(100_000, d.openFileBytes());
        assertEquals(1, regime.existingCache().openFiles());
      }
      assertEquals(0, d.openFileBytes());
      assertEquals(0, regime.existingCache().openFiles());
    }
    assertNull("the last directory closes the cache", regime.existingCache());
  }
}
