package dev.pread.bench.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.Test;

/** The headline table: each cell against the best alternative of its regime and thread count. */
public class HeadlineTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  private static Results.QueryCell cell(String regime, String dir, int threads, double... qps) {
    Results.QueryCell c = new Results.QueryCell(regime, dir, threads, qps.length);
    c.qps = qps.clone();
    return c;
  }

  @Test
  public void eachCellIsAgainstTheBestAlternativeOfItsOwnRegimeAndThreads() {
    List<Results.QueryCell> cells = new ArrayList<>();
    // warm x1: mmap is best; pressure x1: mmap-random is best; pressure x2: niofs is best.
    cells.add(cell("warm", "dir-mmap", 1, 100));
    cells.add(cell("warm", "dir-mmap-random", 1, 90));
    cells.add(cell("warm", "dir-niofs", 1, 60));
    cells.add(cell("warm", "dir-adaptive", 1, 95));
    cells.add(cell("pressure", "dir-mmap", 1, 10));
    cells.add(cell("pressure", "dir-mmap-random", 1, 200));
    cells.add(cell("pressure", "dir-niofs", 1, 150));
    cells.add(cell("pressure", "dir-adaptive", 1, 300));
    cells.add(cell("pressure", "dir-mmap", 2, 10));
    cells.add(cell("pressure", "dir-mmap-random", 2, 200));
    cells.add(cell("pressure", "dir-niofs", 2, 250));
    cells.add(cell("pressure", "dir-adaptive", 2, 200));
    List<Headline.Cell> h = Headline.compute(cells);
    assertEquals(3, h.size());
    assertEquals("dir-mmap", h.get(0).bestAlternative());
    assertEquals(0.95, h.get(0).ratio(), 1e-12);
    assertEquals("dir-mmap-random", h.get(1).bestAlternative());
    assertEquals(1.5, h.get(1).ratio(), 1e-12);
    assertEquals("dir-niofs", h.get(2).bestAlternative());
    assertEquals(0.8, h.get(2).ratio(), 1e-12);
    Headline.Cell worst = Headline.worst(h, "dir-adaptive");
    assertEquals("pressure", worst.regime());
    assertEquals(2, worst.threads());
    String md = Headline.markdown(h);
    assertEquals("exactly one bold cell: " + md, 2, md.split("\\*\\*", -1).length - 1);
    assertTrue(md, md.contains("| dir-adaptive | 0.95x | 1.50x | **0.80x** |"));
    assertTrue(md, md.contains("Worst cell of dir-adaptive: pressure, 2 threads: 0.80x of dir-niofs (200.0 against 250.0 QPS)."));
  }

  @Test
  public void aFailedCellIsTheWorstAndAFailedAlternativeIsNoBaseline() {
    List<Results.QueryCell> cells = new ArrayList<>();
    cells.add(cell("changing", "dir-mmap", 1, 500));
    cells.get(0).failure = "KILLED by the OOM killer";
    cells.add(cell("changing", "dir-niofs", 1, 40));
    cells.add(cell("changing", "dir-adaptive", 1, 0));
    cells.get(2).failure = "the memory hog died";
    cells.add(cell("changing", "dir-pread", 1, 60));
    cells.add(cell("warm", "dir-niofs", 1, 100));
    cells.add(cell("warm", "dir-adaptive", 1, 50));
    List<Headline.Cell> h = Headline.compute(cells);
    Headline.Cell pread = h.stream().filter(c -> c.directory().equals("dir-pread")).findFirst().orElseThrow();
    assertEquals("dir-niofs", pread.bestAlternative());
    assertEquals(1.5, pread.ratio(), 1e-12);
    Headline.Cell worst = Headline.worst(h, "dir-adaptive");
    assertEquals("changing", worst.regime());
    assertTrue(worst.failed());
    String md = Headline.markdown(h);
    assertTrue(md, md.contains("**FAILED**"));
    assertTrue(md, md.contains("FAILED (the memory hog died)"));
  }

  @Test
  public void theSpreadLineIsMMapOverMMapRandomWarmPerThreadCount() {
    List<Results.QueryCell> cells = new ArrayList<>();
    cells.add(cell("warm", "dir-mmap", 1, 100, 90, 80));
    cells.add(cell("warm", "dir-mmap-random", 1, 100, 100, 100));
    cells.add(cell("warm", "dir-mmap", 2, 200));
    cells.add(cell("warm", "dir-mmap-random", 2, 160));
    cells.add(cell("pressure", "dir-mmap", 1, 10)); // another regime: not a spread
    cells.add(cell("pressure", "dir-mmap-random", 1, 300));
    assertEquals("Spread of this run: two Directories that read alike, dir-mmap over dir-mmap-random warm (every"
        + " page resident, so the advice changes nothing), scored 0.90x / 1.25x at 1 / 2 threads; a ratio within"
        + " 0.25 of 1 is within this run's noise.", Headline.spreadLine(cells));
    cells.get(3).failure = "KILLED by the OOM killer";
    assertTrue(Headline.spreadLine(cells), Headline.spreadLine(cells).contains("scored 0.90x at 1 thread;"));
    cells.remove(1);
    assertEquals("", Headline.spreadLine(cells));
  }

  @Test
  public void noAlternativeNoCell() {
    List<Results.QueryCell> cells = List.of(cell("cold", "dir-adaptive", 1, 10), cell("cold", "dir-pread", 1, 12));
    assertTrue(Headline.compute(cells).isEmpty());
    assertNull(Headline.worst(List.of(), "dir-adaptive"));
    assertEquals("", Headline.markdown(List.of()));
  }

  @Test
  public void randomTablesPickTheBestAlternativePerRoundAndBoldTheWorstCell() {
    Random random = new Random(SEED);
    for (int iter = 0; iter < 300; iter++) {
      String where = "seed " + SEED + ", iteration " + iter;
      int rounds = 1 + random.nextInt(4);
      List<Results.QueryCell> cells = new ArrayList<>();
      for (String regime : Headline.REGIMES) {
        if (random.nextInt(4) == 0) {
          continue;
        }
        for (int t = 1; t <= 2; t++) {
          for (String dir : List.of("dir-adaptive", "dir-pread", "dir-cached", "dir-mmap", "dir-mmap-random",
              "dir-niofs")) {
            if (!dir.equals("dir-adaptive") && random.nextInt(5) == 0) {
              continue;
            }
            double[] qps = new double[rounds];
            for (int k = 0; k < rounds; k++) {
              qps[k] = 1 + random.nextInt(1000);
            }
            cells.add(cell(regime, dir, t, qps));
          }
        }
      }
      List<Headline.Cell> h = Headline.compute(cells);
      Headline.Cell worst = Headline.worst(h, "dir-adaptive");
      for (Headline.Cell c : h) {
        double[] ratios = new double[rounds];
        double bestMedian = -1;
        for (int k = 0; k < rounds; k++) {
          double top = 0;
          for (Results.QueryCell x : cells) {
            if (x.regime.equals(c.regime()) && x.threads == c.threads()
                && Headline.ALTERNATIVES.contains(x.directory)) {
              top = Math.max(top, x.qps[k]);
            }
          }
          Results.QueryCell mine = cells.stream().filter(x -> x.regime.equals(c.regime()) && x.threads == c.threads()
              && x.directory.equals(c.directory())).findFirst().orElseThrow();
          ratios[k] = mine.qps[k] / top;
        }
        for (Results.QueryCell x : cells) {
          if (x.regime.equals(c.regime()) && x.threads == c.threads() && Headline.ALTERNATIVES.contains(x.directory)) {
            bestMedian = Math.max(bestMedian, Stats.median(x.qps));
          }
        }
        assertEquals(where + " " + c, Stats.median(ratios), c.ratio(), 1e-12);
        assertEquals(where + " " + c, bestMedian, c.bestQps(), 0);
        if (c.directory().equals("dir-adaptive")) {
          assertTrue(where + ": the worst cell is no better than " + c, worst.ratio() <= c.ratio());
        }
      }
      String md = Headline.markdown(h);
      if (worst == null) {
        assertTrue(where, md.isEmpty() || !md.contains("**"));
        continue;
      }
      assertNotNull(worst);
      assertEquals(where + ": one bold cell\n" + md, 2, md.split("\\*\\*", -1).length - 1);
      String row = md.lines().filter(l -> l.startsWith("| dir-adaptive |")).findFirst().orElseThrow();
      assertTrue(where + ": bold in dir-adaptive's row\n" + md, row.contains("**" + Format.ratio(worst.ratio()) + "**"));
      assertTrue(where, md.contains(Headline.worstLine(worst)));
    }
  }
}
