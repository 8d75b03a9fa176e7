package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.report.Results;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** {@link LiveWorker}'s protocol against {@link FakeLiveWorker} in a child JVM. */
public class LiveWorkerTest {
  private final List<String> progress = new ArrayList<>();

  private LiveWorker start(String mode) throws Exception {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classes = Path.of(FakeLiveWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        + java.io.File.pathSeparator
        + Path.of(LiveWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return LiveWorker.start("fake", Map.of("regime", "warm"), files -> List.of(javaBin, "-cp", classes,
        FakeLiveWorker.class.getName(), "--spec", files[0].toString(), "--out", files[1].toString(), mode),
        line -> line.startsWith("lucene "), progress::add);
  }

  @Test
  public void cellsRunInOrderAndResultsComeBack() throws Exception {
    Path folder;
    try (LiveWorker w = start("ok")) {
      folder = w.folder();
      assertTrue("the spec is written before the worker starts", Files.exists(folder.resolve("spec.json")));
      w.cell("warm", 1, 7);
      w.cell("warm", 2, 11);
      w.cell("cold", 1, 13);
      assertEquals("progress lines only, as each cell ends",
          List.of("lucene warm fake x1: 1.0 QPS", "lucene warm fake x2: 1.0 QPS", "lucene cold fake x1: 1.0 QPS"), progress);
      Results r = w.finish();
      assertEquals(3, r.queryCells.size());
      assertEquals(List.of(1, 2, 1), r.queryCells.stream().map(c -> c.threads).toList());
      assertEquals(List.of("warm", "warm", "cold"), r.queryCells.stream().map(c -> c.regime).toList());
      assertEquals("each cell got the first query it was sent", List.of(7.0, 11.0, 13.0),
          r.queryCells.stream().map(c -> c.qps[0]).toList());
      assertFalse(w.alive());
    }
    assertFalse("close removes the worker's files", Files.exists(folder));
  }

  @Test
  public void aWorkerThatExitsBeforeItIsReadyFailsTheStartWithItsOutput() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> start("exit-before-ready"));
    assertTrue(e.getMessage(), e.getMessage().contains("exit 2"));
    assertTrue(e.getMessage(), e.getMessage().contains("cannot open the index"));
  }

  @Test
  public void aWorkerThatExitsDuringACellFailsThatCellWithItsOutput() throws Exception {
    try (LiveWorker w = start("exit-at-cell-1")) {
      w.cell("warm", 1, 0);
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.cell("warm", 2, 101));
      assertTrue(e.getMessage(), e.getMessage().contains("exit 3"));
      assertTrue(e.getMessage(), e.getMessage().contains("worker gave up at cell 1"));
      assertFalse(w.alive());
    }
  }

  @Test
  public void closeStopsAWorkerThatStillRuns() throws Exception {
    LiveWorker w = start("ok");
    w.cell("warm", 1, 0);
    assertTrue(w.alive());
    w.close();
    assertFalse(w.alive());
    assertFalse(Files.exists(w.folder()));
  }
}
