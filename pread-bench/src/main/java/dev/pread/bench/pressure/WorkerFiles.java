package dev.pread.bench.pressure;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The two files of a worker JVM's protocol with {@link WorkerProcess}: the spec it reads (JSON) and
 * the results it writes (JSON). A picocli mixin shared by the worker commands.
 */
public final class WorkerFiles {
  private static final Gson GSON = new GsonBuilder().serializeSpecialFloatingPointValues().create();

  @Option(names = "--spec", required = true)
  Path specFile;

  @Option(names = "--out", required = true)
  Path outFile;

  public <T> T readSpec(Class<T> type) throws IOException {
    return GSON.fromJson(Files.readString(specFile), type);
  }

  public void writeResults(Object results) throws IOException {
    Files.writeString(outFile, GSON.toJson(results));
  }
}
