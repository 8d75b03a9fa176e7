package dev.pread.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * Descriptor exhaustion, for real: a child JVM started with {@code ulimit -n 256} opens inputs
 * until open(2) fails. The failure must be an IOException naming EMFILE and the path; inputs
 * already open keep reading; after a few are closed, opening and reading work again.
 */
public class TestDescriptorExhaustion extends LuceneTestCase {
  private static final int LIMIT = 256;

  public void testEmfileNamesErrnoAndPathAndRecovers() throws Exception {
    Path sh = Path.of("/bin/sh");
    assumeTrue("needs /bin/sh to lower the open-file limit of a child JVM", Files.isExecutable(sh));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(sh.toString());
    cmd.add("-c");
    cmd.add("ulimit -n " + LIMIT + " && exec \"$@\"");
    cmd.add("sh");
    cmd.add(java.toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-Xmx128m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(EmfileProbe.class.getName());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] output = p.getInputStream().readAllBytes();
    assertTrue("probe did not finish", p.waitFor(120, TimeUnit.SECONDS));
    String out = new String(output, StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(out, 0, p.exitValue());
    assertTrue(out, out.contains("open failed: EMFILE (Too many open files)"));
    String result = resultLine(out);
    assertTrue(out, result.contains("failure=NativeIOException"));
    assertTrue(out, result.contains("names-emfile=true"));
    assertTrue(out, result.contains("names-path=true"));
    assertTrue(out, result.contains("open-inputs-read=true"));
    assertTrue(out, result.contains("reopen-read=true"));
    int opened = Integer.parseInt(result.replaceAll(".*opened=(\\d+).*", "$1"));
    // The JVM itself holds some descriptors (jars, the module image, pipes); inputs take the rest.
    assertTrue(out, opened > LIMIT / 2 && opened < LIMIT);
  }

  private static String resultLine(String out) throws IOException {
    for (String line : out.split("\n")) {
      if (line.startsWith("emfile: result ")) {
        return line;
      }
    }
    throw new AssertionError("no result line in:\n" + out);
  }
}
