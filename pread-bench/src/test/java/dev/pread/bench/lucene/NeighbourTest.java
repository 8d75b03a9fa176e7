package dev.pread.bench.lucene;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** What the neighbour is reported to have read: its loop's count takes in the children it has reaped. */
public class NeighbourTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void readBytesCountsAReapedChildsStorageReads() throws Exception {
    assumeTrue("needs Linux /proc/<pid>/io", Files.isReadable(Path.of("/proc/self/io")));
    Path file = tmp.newFile("neighbour.dat").toPath();
    byte[] data = new byte[4 << 20];
    new Random(42).nextBytes(data);
    Files.write(file, data);
    // dd with O_DIRECT reads from storage whatever the page cache holds; the shell reaps it, says so,
    // then waits on its stdin, alive, with no child.
    Process sh = new ProcessBuilder("/bin/sh", "-c",
        "dd if='" + file + "' of=/dev/null bs=1M iflag=direct 2>/dev/null && echo read || echo failed; read x")
        .start();
    try {
      String line = new BufferedReader(new InputStreamReader(sh.getInputStream(), StandardCharsets.US_ASCII)).readLine();
      assumeTrue("O_DIRECT reads not supported where the test's files live: " + line, "read".equals(line));
      long bytes = Neighbour.readBytes(sh.toHandle(), List.of());
      assertTrue("counted " + bytes + " of " + data.length, bytes >= data.length);
    } finally {
      sh.destroyForcibly().waitFor();
    }
    assertEquals(-1, Neighbour.readBytes(sh.toHandle(), List.of()));
  }
}
