package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The JIT compiler threads' CPU, from a made-up /proc task folder and from this JVM's own. */
public class CompilerCpuTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static void task(Path dir, int tid, String name, long utime, long stime) throws Exception {
    Path t = Files.createDirectories(dir.resolve(Integer.toString(tid)));
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    Files.writeString(t.resolve("stat"),
        tid + " (" + name + ") S 1 1 1 0 -1 4194368 10 0 2 0 " + utime + " " + stime + " 0 0 20 0 1 0 5 0 0\n");
  }

  @Test
  public void sumsTheCompilerThreadsOnly() throws Exception {
    Path dir = tmp.newFolder("task").toPath();
    task(dir, 100, "java", 500, 70);
    task(dir, 101, "C2 CompilerThre", 12, 3);
    task(dir, 102, "C1 CompilerThre", 4, 1);
    task(dir, 103, "VM Thread", 9, 9);
    task(dir, 104, "query (a) )x", 40, 2); // a name with parentheses, as any thread's may have
    CompilerCpu before = CompilerCpu.read(dir);
    task(dir, 100, "java", 900, 70);
    task(dir, 101, "C2 CompilerThre", 30, 5); // +20 ticks
    task(dir, 103, "VM Thread", 19, 9);
    task(dir, 104, "query (a) )x", 80, 2);
    task(dir, 105, "C2 CompilerThre", 6, 1); // started since: +7
    assertEquals((20 + 0 + 7) * 10, CompilerCpu.read(dir).millisSince(before));
    // A compiler thread that ended since the first reading takes its ticks with it.
    Files.delete(dir.resolve("101").resolve("stat"));
    Files.delete(dir.resolve("101"));
    assertEquals(7 * 10, CompilerCpu.read(dir).millisSince(before));
    assertEquals(0, before.millisSince(before));
  }

  @Test
  public void aFolderThatCannotBeReadIsUnknown() throws Exception {
    CompilerCpu missing = CompilerCpu.read(tmp.getRoot().toPath().resolve("missing"));
    Path dir = tmp.newFolder("task").toPath();
    task(dir, 101, "C2 CompilerThre", 12, 3);
    CompilerCpu known = CompilerCpu.read(dir);
    assertEquals(-1, missing.millisSince(known));
    assertEquals(-1, known.millisSince(missing));
  }

  @Test
  public void thisJvmsCompilerHasWorked() {
    Path self = Path.of("/proc/self/task");
    Assume.assumeTrue("no /proc/self/task: not Linux", Files.isDirectory(self));
    Assume.assumeTrue("no JIT compiler threads in this JVM", hasCompilerThread(self));
    // The test runner's classes were compiled hot by now: at least one tick of compiler CPU since
    // the JVM started (a reading against one that knows no thread).
    CompilerCpu none = CompilerCpu.read(tmp.getRoot().toPath()); // an empty folder: no threads
    assertTrue(CompilerCpu.now().millisSince(none) >= 10);
  }

  private static boolean hasCompilerThread(Path self) {
    try (var tasks = Files.list(self)) {
      return tasks.anyMatch(t -> {
        try {
          return Files.readString(t.resolve("stat")).contains("CompilerThre");
        } catch (Exception e) {
          return false;
        }
      });
    } catch (Exception e) {
      return false;
    }
  }
}
