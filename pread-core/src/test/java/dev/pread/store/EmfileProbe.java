package dev.pread.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Run by {@link TestDescriptorExhaustion} in a child JVM whose open-file limit is low: opens inputs
 * until the process runs out of descriptors, prints the failure, closes a few inputs, opens again
 * and reads, and prints one result line the parent checks.
 */
public final class EmfileProbe {
  private EmfileProbe() {}

  public static void main(String[] args) throws Exception {
    Path root = Files.createTempDirectory("emfile-probe").toRealPath();
    long seed = 0xE3F11EL;
    List<IndexInput> open = new ArrayList<>();
    try (PreadDirectory dir = new PreadDirectory(root)) {
      if (!dir.isNativePread()) {
        System.out.println("emfile: native=false " + PreadDirectory.nativeUnavailableReason().orElse(""));
        System.exit(2);
      }
      TestContent.write(dir, "f", seed, 4096);
      // Load what the failure path needs while descriptors are free: classes are read from files.
      Class.forName("dev.pread.nativeio.NativeIOException", true, EmfileProbe.class.getClassLoader());
      try (IndexInput warm = dir.openInput("f", IOContext.DEFAULT)) {
        readsRight(warm.clone(), seed); // the read path's classes
      }
      try {
        dir.openInput("missing", IOContext.DEFAULT);
      } catch (NoSuchFileException expected) {
        // loads the errno naming path
      }
      IOException failure = null;
      for (int i = 0; i < 1_000_000 && failure == null; i++) {
        try {
          open.add(dir.openInput("f", IOContext.DEFAULT));
        } catch (IOException e) {
          failure = e;
        }
      }
      String message = failure == null ? "none" : failure.getMessage();
      int opened = open.size();
      System.out.println("emfile: message=" + message);
      boolean namesEmfile = message.contains("EMFILE");
      boolean namesPath = message.contains(root.resolve("f").toString());
      // Inputs opened before the failure still read.
      boolean oldOk = true;
      for (int i = 0; i < open.size(); i += 17) {
        oldOk &= readsRight(open.get(i), seed);
      }
      // Free a few descriptors: opening works again.
      for (int i = 0; i < 8 && !open.isEmpty(); i++) {
        open.remove(open.size() - 1).close();
      }
      boolean reopenOk;
      try (IndexInput again = dir.openInput("f", IOContext.DEFAULT)) {
        reopenOk = readsRight(again, seed);
      }
      for (IndexInput in : open) {
        in.close();
      }
      open.clear();
      dir.deleteFile("f");
      System.out.println(
          "emfile: result opened=" + opened + " failure=" + (failure == null ? "none" : failure.getClass().getSimpleName())
              + " names-emfile=" + namesEmfile + " names-path=" + namesPath
              + " open-inputs-read=" + oldOk + " reopen-read=" + reopenOk);
    } finally {
      for (IndexInput in : open) {
        in.close();
      }
      Files.deleteIfExists(root.resolve("f"));
      Files.deleteIfExists(root.resolve("write.lock"));
      Files.deleteIfExists(root);
    }
  }

  private static boolean readsRight(IndexInput in, long seed) throws IOException {
    in.seek(800);
    return in.readLong() == TestContent.word(seed, 100);
  }
}
