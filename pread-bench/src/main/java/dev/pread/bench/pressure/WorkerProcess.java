package dev.pread.bench.pressure;

import com.google.gson.Gson;
import dev.pread.bench.cli.Main;
import dev.pread.bench.report.Results;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Runs a hidden worker command of this jar in a child JVM started as production JVMs are ({@link
 * JvmFlags}): writes its spec as JSON, starts {@code java ... Main <command> --spec F --out G}
 * (inside a memory cgroup when one is given, joined before exec), passes the lines it prints that {@code progress} accepts to {@code onLine}, and
 * returns the {@link Results} it wrote. A failed worker becomes an exception with the end of its
 * output; so does one whose cgroup's OOM killer struck, whatever its exit status.
 *
 * <p>With the environment variable {@value #LOG_VARIABLE} set to a file's path, every worker's
 * whole output (its Directory's log lines included: an {@code AdaptiveDirectory}'s switches and
 * sizes) is appended to that file, under a line naming the command.
 */
public final class WorkerProcess {
  /** The environment variable naming a file that collects every worker's output. */
  public static final String LOG_VARIABLE = "PREAD_BENCH_WORKER_LOG";

  private WorkerProcess() {}

  /** The last lines of a worker's output, for the message of its failure. */
  static String tail(List<String> log) {
    return String.join("\n", log.subList(Math.max(0, log.size() - 30), log.size()));
  }

  static synchronized void appendToWorkerLog(String command, List<String> log) throws IOException {
    String file = System.getenv(LOG_VARIABLE);
    if (file == null || file.isBlank()) {
      return;
    }
    List<String> lines = new ArrayList<>(log.size() + 1);
    lines.add("=== " + command + " worker, ended " + java.time.Instant.now());
    lines.addAll(log);
    Files.write(Path.of(file), lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /**
   * The command line of a JVM running {@code command} of this jar with {@code args}: this JVM's java
   * binary, {@link JvmFlags#PRODUCTION}, then {@code flags}.
   */
  public static List<String> command(List<String> flags, String command, String... args) throws Exception {
    String jar = Path.of(WorkerProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmFlags.PRODUCTION);
    cmd.addAll(flags);
    cmd.addAll(List.of("-cp", jar, Main.class.getName(), command));
    cmd.addAll(List.of(args));
    return cmd;
  }

  public static Results run(String command, Object spec, String heap, MemoryCgroup cgroup, Predicate<String> progress,
      Consumer<String> onLine) throws Exception {
    return run(command, spec, heap, cgroup, null, progress, onLine);
  }

  /** As {@link #run(String, Object, String, MemoryCgroup, Predicate, Consumer)}, the worker also in {@code io}'s group. */
  public static Results run(String command, Object spec, String heap, MemoryCgroup cgroup, IoThrottle io,
      Predicate<String> progress, Consumer<String> onLine) throws Exception {
    Path tmp = Files.createTempDirectory("pread-bench-" + command);
    Path specFile = tmp.resolve("spec.json");
    Path outFile = tmp.resolve("out.json");
    try {
      Gson gson = new Gson();
      Files.writeString(specFile, gson.toJson(spec));
      List<String> cmd = command(JvmFlags.worker(heap, true), command, "--spec", specFile.toString(), "--out",
          outFile.toString());
      if (io != null) {
        cmd = io.wrap(cmd);
      }
      Process p = new ProcessBuilder(cgroup != null ? cgroup.wrap(cmd) : cmd).redirectErrorStream(true).start();
      List<String> log = new ArrayList<>();
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          log.add(line);
          if (progress.test(line)) {
            onLine.accept(line);
          }
        }
      }
      int rc = p.waitFor();
      appendToWorkerLog(command, log);
      long killed = cgroup != null ? cgroup.oomKills() : 0;
      if (rc != 0 || killed > 0) {
        throw new IllegalStateException(command + " worker failed (exit " + rc
            + (cgroup == null ? "" : rc == 137 || killed > 0
                ? "; KILLED by the memory cgroup's OOM killer (oom_kill " + killed + ", " + cgroup.describe() + ")"
                : "; oom_kill " + killed + " in " + cgroup.describe()) + "):\n"
            + tail(log));
      }
      return gson.fromJson(Files.readString(outFile), Results.class);
    } finally {
      Files.deleteIfExists(specFile);
      Files.deleteIfExists(outFile);
      Files.deleteIfExists(tmp);
    }
  }
}
