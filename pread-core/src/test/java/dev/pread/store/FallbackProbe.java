package dev.pread.store;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;

/**
 * Run by {@link TestNativeAccessFallback} in a child JVM: opens three directories, writes and
 * reads a file through each, and prints what it saw.
 */
public final class FallbackProbe {
  private FallbackProbe() {}

  public static void main(String[] args) throws Exception {
    Path root = Files.createTempDirectory("fallback-probe");
    for (int i = 0; i < 3; i++) {
      try (PreadDirectory dir = new PreadDirectory(root.resolve("d" + i))) {
        try (IndexOutput out = dir.createOutput("f", IOContext.DEFAULT)) {
          out.writeLong(0x1234_5678_9ABC_DEF0L + i);
        }
        try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
          long v = in.readLong();
          System.out.println("probe: native=" + dir.isNativePread() + " read-ok=" + (v == 0x1234_5678_9ABC_DEF0L + i)
              + " input=" + in.getClass().getSimpleName());
        }
        dir.deleteFile("f");
      }
      Files.delete(root.resolve("d" + i));
    }
    Files.delete(root);
    System.out.println("probe: reason=" + PreadDirectory.nativeUnavailableReason().orElse("none"));
  }
}
