package dev.pread.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * The real availability check, in child JVMs: without native access, or with the disable
 * property, PreadDirectory reads through NIOFS's inputs, says why in exactly one log line, and
 * reads correct bytes; the JVM prints no restricted-method warning of its own.
 */
public class TestNativeAccessFallback extends LuceneTestCase {

  public void testWithoutNativeAccessFallsBackWithOneLogLine() throws Exception {
    String out = runProbe(List.of());
    assertEquals(out, 3, count(out, "probe: native=false read-ok=true input=NIOFSIndexInput"));
    assertEquals(out, 1, count(out, "PreadDirectory: native pread is off"));
    assertTrue(out, out.contains("--enable-native-access=ALL-UNNAMED"));
    assertFalse(out, out.contains("restricted method"));
  }

  public void testDisableProperty() throws Exception {
    String out =
        runProbe(List.of("--enable-native-access=ALL-UNNAMED", "-Ddev.pread.nativeio.disable=true"));
    assertEquals(out, 3, count(out, "probe: native=false read-ok=true"));
    assertEquals(out, 1, count(out, "PreadDirectory: native pread is off"));
    assertTrue(out, out.contains("dev.pread.nativeio.disable=true"));
  }

  public void testWithNativeAccessReadsNatively() throws Exception {
    String out = runProbe(List.of("--enable-native-access=ALL-UNNAMED"));
    assertEquals(out, 3, count(out, "probe: native=true read-ok=true input=PreadIndexInput"));
    assertEquals(out, 0, count(out, "PreadDirectory: native pread is off"));
    assertTrue(out, out.contains("probe: reason=none"));
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  private static String runProbe(List<String> jvmArgs) throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java.toString());
    cmd.addAll(jvmArgs);
    cmd.add("-Xmx128m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(FallbackProbe.class.getName());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] output = p.getInputStream().readAllBytes();
    assertTrue("probe did not finish", p.waitFor(60, TimeUnit.SECONDS));
    String out = new String(output, StandardCharsets.UTF_8);
    assertEquals(out, 0, p.exitValue());
    return out;
  }
}
