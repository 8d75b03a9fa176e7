package dev.pread.store;

import dev.pread.nativeio.NativeBuffers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/** Opening and closing many inputs returns every descriptor and every native buffer. */
public class TestNativeResources extends LuceneTestCase {
  private static final Path PROC_FD = Path.of("/proc/self/fd");

  public void testOpenCloseHundredThousandInputs() throws IOException {
    assumeTrue("needs /proc/self/fd to count descriptors", Files.isDirectory(PROC_FD));
    Path root = createTempDir();
    Path realRoot = Unwrappable.unwrapAll(root).toAbsolutePath();
    try (PreadDirectory dir = new PreadDirectory(root)) {
      TestContent.write(dir, "f", 42, 100_000);
      // Warm up: the calling thread's pooled buffer is allocated on its first read.
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.readLong();
      }
      long buffersBefore = NativeBuffers.liveBuffers();
      long bytesBefore = NativeBuffers.liveBytes();
      assertEquals(0, openDescriptorsUnder(realRoot));
      int inputs = 100_000;
      for (int i = 0; i < inputs; i++) {
        long pos = random().nextInt(100_000 / 8 - 1) * 8L;
        try (IndexInput original = dir.openInput("f", IOContext.DEFAULT)) {
          IndexInput reader =
              switch (i % 3) {
                case 0 -> original;
                case 1 -> original.clone();
                default -> original.slice("s", 0, 100_000);
              };
          reader.seek(pos);
          assertEquals(TestContent.word(42, pos / 8), reader.readLong());
          if (i == inputs / 2) {
            assertEquals("the open input's descriptor", 1, openDescriptorsUnder(realRoot));
          }
        }
      }
      assertEquals("descriptors left open", 0, openDescriptorsUnder(realRoot));
      assertEquals("native buffers", buffersBefore, NativeBuffers.liveBuffers());
      assertEquals("native bytes", bytesBefore, NativeBuffers.liveBytes());
      System.out.printf(
          "native resources: %d inputs opened, read and closed; descriptors under the index after: %d;"
              + " native buffers %d -> %d (%d bytes, pool of %d slots)%n",
          inputs, openDescriptorsUnder(realRoot), buffersBefore, NativeBuffers.liveBuffers(),
          NativeBuffers.liveBytes(), NativeBuffers.slotCount());
    }
  }

  /** A read-advice function that throws (an exception or an error) leaves no descriptor open. */
  public void testThrowingReadAdviceClosesTheFile() throws IOException {
    assumeTrue("needs /proc/self/fd to count descriptors", OpenDescriptors.available());
    Path root = createTempDir();
    Path realRoot = Unwrappable.unwrapAll(root).toAbsolutePath();
    try (PreadDirectory dir = new PreadDirectory(root)) {
      TestContent.write(dir, "f", 7, 1000);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        assertEquals(TestContent.word(7, 0), in.readLong());
        assertEquals("the open input's descriptor", 1, OpenDescriptors.under(realRoot));
      }
      int calls = TestUtil.nextInt(random(), 1, 20);
      for (int i = 0; i < calls; i++) {
        boolean error = random().nextBoolean();
        dir.setReadAdvice(
            (name, context) -> {
              if (error) {
                throw new AssertionError("advice error");
              }
              throw new IllegalStateException("advice exception");
            });
        Throwable t =
            error
                ? expectThrows(AssertionError.class, () -> dir.openInput("f", IOContext.DEFAULT))
                : expectThrows(IllegalStateException.class, () -> dir.openInput("f", IOContext.DEFAULT));
        assertEquals(error ? "advice error" : "advice exception", t.getMessage());
        assertEquals("descriptors left open after " + t, 0, OpenDescriptors.under(realRoot));
      }
      dir.setReadAdvice(PreadDirectory.ADVISE_BY_CONTEXT);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.seek(8);
        assertEquals(TestContent.word(7, 1), in.readLong());
      }
      assertEquals(0, OpenDescriptors.under(realRoot));
    }
  }

  private static long openDescriptorsUnder(Path root) throws IOException {
    long n = 0;
    try (Stream<Path> fds = Files.list(PROC_FD)) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(root)) {
            n++;
          }
        } catch (IOException e) {
          // the descriptor went away while we listed
        }
      }
    }
    return n;
  }
}
