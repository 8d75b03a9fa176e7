package dev.pread.bench.pressure;

import com.google.gson.Gson;
import dev.pread.bench.report.Results;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A worker JVM that stays up between cells, so that the parent can interleave the cells of several
 * Directories in time, each in its own JVM: it starts as {@link WorkerProcess} starts one, says
 * {@value #READY} once it has compiled and is ready, runs each cell the parent writes to its
 * standard input ({@value #CELL} {@code <regime> <threads> <first query>}) and says {@value #DONE}, and
 * writes its {@link Results} after {@value #QUIT}. One thread talks to a worker at a time; lines
 * the worker prints in between (its Directory's log) are read with the next answer.
 *
 * <p>{@link #close} kills a worker that is still running and removes its files; a worker that
 * exits early becomes an exception with the end of its output, as with {@link WorkerProcess}.
 */
public final class LiveWorker implements AutoCloseable {
  /** The worker's line once it is ready for cells. */
  public static final String READY = "pread-worker: ready";
  /** The worker's line after each cell. */
  public static final String DONE = "pread-worker: done";
  /** The parent's command for a cell. */
  public static final String CELL = "cell";
  /** The parent's command to write the results and exit. */
  public static final String QUIT = "quit";

  private final String command;
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final Path tmp;
  private final Path specFile;
  private final Path outFile;
  private final Predicate<String> progress;
  private final Consumer<String> onLine;
  private final List<String> log = new ArrayList<>();

  private LiveWorker(String command, Process process, Path tmp, Path specFile, Path outFile, Predicate<String> progress,
      Consumer<String> onLine) {
    this.command = command;
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.tmp = tmp;
    this.specFile = specFile;
    this.outFile = outFile;
    this.progress = progress;
    this.onLine = onLine;
  }

  /**
   * Starts {@code command} of this jar with {@code spec} and a heap of {@code heap}, not pre-touched
   * (a live worker serves the warm and cold cells, without a memory limit: {@link JvmFlags#worker}),
   * and waits until it is ready; lines that {@code progress} accepts go to {@code onLine}.
   */
  public static LiveWorker start(String command, Object spec, String heap, Predicate<String> progress,
      Consumer<String> onLine) throws Exception {
    return start(command, spec, files -> WorkerProcess.command(JvmFlags.worker(heap, false), command, "--spec",
        files[0].toString(), "--out", files[1].toString()), progress, onLine);
  }

  /** What starts a worker, given its spec and results files. */
  @FunctionalInterface
  interface CommandLine {
    List<String> of(Path[] specAndOut) throws Exception;
  }

  /** As {@link #start(String, Object, String, Predicate, Consumer)}, with the command line {@code cmd} makes. */
  static LiveWorker start(String command, Object spec, CommandLine cmdOf, Predicate<String> progress,
      Consumer<String> onLine) throws Exception {
    Path tmp = Files.createTempDirectory("pread-bench-" + command);
    Path specFile = tmp.resolve("spec.json");
    Path outFile = tmp.resolve("out.json");
    Files.writeString(specFile, new Gson().toJson(spec));
    List<String> cmd = cmdOf.of(new Path[] {specFile, outFile});
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      deleteAll(tmp, specFile, outFile);
      throw e;
    }
    LiveWorker w = new LiveWorker(command, p, tmp, specFile, outFile, progress, onLine);
    try {
      w.readUntil(READY);
    } catch (Exception e) {
      w.close();
      throw e;
    }
    return w;
  }

  /**
   * Runs one cell of {@code regime} at {@code threads} query threads from query {@code first} of the
   * mix (or another command the worker knows in place of a regime), and waits for it.
   */
  public void cell(String regime, int threads, int first) throws IOException {
    send(CELL + " " + regime + " " + threads + " " + first);
    readUntil(DONE);
  }

  /** Asks the worker to write its results and exit, and returns them. */
  public Results finish() throws IOException, InterruptedException {
    send(QUIT);
    readUntil(null);
    int rc = process.waitFor();
    if (rc != 0) {
      throw failed(rc);
    }
    return new Gson().fromJson(Files.readString(outFile), Results.class);
  }

  private void send(String line) throws IOException {
    try {
      in.write(line + "\n");
      in.flush();
    } catch (IOException e) {
      // The worker exited: say why it did, not that the pipe broke.
      readUntil(null);
      throw failed(exitCode());
    }
  }

  /** Reads lines until {@code marker} (or, for null, the end of the output). */
  private void readUntil(String marker) throws IOException {
    String line;
    while ((line = out.readLine()) != null) {
      if (line.equals(marker)) {
        return;
      }
      log.add(line);
      if (progress.test(line)) {
        onLine.accept(line);
      }
    }
    if (marker != null) {
      throw failed(exitCode());
    }
  }

  private int exitCode() {
    try {
      return process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private IllegalStateException failed(int rc) {
    return new IllegalStateException(command + " worker failed (exit " + rc + "):\n" + WorkerProcess.tail(log));
  }

  /** Whether the worker's process is running. */
  boolean alive() {
    return process.isAlive();
  }

  /** The worker's folder for its spec and results. */
  Path folder() {
    return tmp;
  }

  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
      exitCode();
    }
    try {
      in.close();
    } catch (IOException ignored) {
      // the worker is gone: its end of the pipe is closed
    }
    out.close();
    WorkerProcess.appendToWorkerLog(command, log);
    deleteAll(tmp, specFile, outFile);
  }

  private static void deleteAll(Path tmp, Path specFile, Path outFile) throws IOException {
    Files.deleteIfExists(specFile);
    Files.deleteIfExists(outFile);
    Files.deleteIfExists(tmp);
  }
}
