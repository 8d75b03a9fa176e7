package dev.pread.bench.pressure;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A stand-in for a live query worker, run in its own JVM by {@link LiveWorkerTest}: it speaks
 * {@link LiveWorker}'s protocol with the JDK only. Arguments: {@code --spec F --out G MODE}, where
 * MODE is {@code ok}, {@code exit-before-ready} or {@code exit-at-cell-N} (exits with status 3 when
 * asked for cell N, counted from 0).
 */
public final class FakeLiveWorker {
  private FakeLiveWorker() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[3]);
    String mode = args[4];
    System.out.println("a line of the Directory's log");
    if (mode.equals("exit-before-ready")) {
      System.out.println("cannot open the index");
      System.exit(2);
    }
    System.out.println(LiveWorker.READY);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    List<String> cells = new ArrayList<>();
    String line;
    while ((line = in.readLine()) != null && !line.equals(LiveWorker.QUIT)) {
      String[] w = line.split(" ");
      if (mode.equals("exit-at-cell-" + cells.size())) {
        System.out.println("worker gave up at cell " + cells.size());
        System.exit(3);
      }
      System.out.println("lucene " + w[1] + " fake x" + w[2] + ": 1.0 QPS");
      cells.add("{\"regime\":\"" + w[1] + "\",\"threads\":" + w[2] + ",\"qps\":[" + w[3] + ".0]}");
      System.out.println(LiveWorker.DONE);
    }
    Files.writeString(out, "{\"queryCells\":[" + String.join(",", cells) + "]}");
  }
}
