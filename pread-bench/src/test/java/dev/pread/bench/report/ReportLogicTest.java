package dev.pread.bench.report;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.raw.PrefetchDistanceRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The report: sizes, statistics, tables and files. */
public class ReportLogicTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void parsesSizes() {
    assertEquals(1L << 30, Format.parseBytes("1g"));
    assertEquals(512L << 20, Format.parseBytes("512m"));
    assertEquals(16384, Format.parseBytes("16k"));
    assertEquals(16384, Format.parseBytes("16KiB"));
    assertEquals(4096, Format.parseBytes("4096"));
    assertEquals("1 GiB", Format.bytes(1L << 30));
  }

  @Test
  public void machineInfoNamesTheFileSystemOfADataFolderNotMadeYet() throws Exception {
    Path root = tmp.newFolder().toPath();
    java.util.Map<String, String> made = MachineInfo.collect(root.resolve("f.dat"));
    java.util.Map<String, String> notYet = MachineInfo.collect(root.resolve("bench-data/deeper/f.dat"));
    assertFalse(made.get("file system"), made.get("file system").startsWith("unknown"));
    assertEquals(made.get("file system"), notYet.get("file system"));
  }

  @Test
  public void cacheAndMemoryTablesAndChecks() throws Exception {
    CacheUse a = new CacheUse();
    a.budgetBytes = 1 << 20;
    a.blockSize = 16384;
    a.hits = 30;
    a.misses = 10;
    a.allocatedBytes = 512 << 10;
    CacheUse b = new CacheUse();
    b.budgetBytes = 1 << 20;
    b.blockSize = 16384;
    b.hits = 50;
    b.misses = 10;
    b.bytesRead = 10 * 16384;
    b.allocatedBytes = 1 << 20;
    CacheUse sum = CacheUse.add(a, b);
    assertEquals(80, sum.hits);
    assertEquals(0.8, sum.hitRatio(), 1e-9);
    assertEquals(1 << 20, sum.allocatedBytes);
    sum.check("fine");
    sum.allocatedBytes = (1 << 20) + 1;
    assertThrows(IllegalStateException.class, () -> sum.check("over budget"));
    sum.allocatedBytes = 1 << 20;

    MemoryCheck m = new MemoryCheck();
    m.limitBytes = 1L << 30;
    m.peakBytes = 900L << 20;
    m.anonBytes = 800L << 20;
    m.pageCacheBytes = 90L << 20;
    m.limitHits = 0;
    m.oomKills = 0;
    m.requireNoOom("fine");
    MemoryCheck killed = MemoryCheck.worse(m, m.withGroup(m));
    killed.oomKills = 1;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> killed.requireNoOom("worker"));
    assertTrue(e.getMessage(), e.getMessage().contains("OOM killer"));

    Results r = new Results();
    r.date = "2026-11-22 10:00:00";
    r.command = "./pread bench --sections cache";
    r.fileSize = 1L << 30;
    r.baselines.put("pressure, Zipf", "dir-pread");
    for (String s : new String[] {"dir-cached", "dir-pread"}) {
      Results.Cell c = new Results.Cell("pressure, Zipf", s, 16384, 1, 2);
      c.rounds = s.equals("dir-cached") ? new double[] {300, 150} : new double[] {100, 100};
      c.memory = m;
      c.cache = s.equals("dir-cached") ? sum : null;
      r.cells.add(c);
    }
    Results.Cell rl = new Results.Cell("warm, all cached", "dir-cached", 8, 1, 1);
    rl.rounds = new double[] {1000};
    r.cells.add(rl);
    String md = Report.markdown(r);
    assertTrue(md, md.contains("| dir-cached | 225 | 2.25x |"));
    assertTrue(md, md.contains("vs dir-pread"));
    assertTrue(md, md.contains("random readLong reads"));
    assertTrue(md, md.contains("| pressure, Zipf | dir-cached, 16 KiB, 1 thread | 1.0 MiB | 16 KiB | 0.8000 | 80 | 20 |"));
    assertTrue(md, md.contains("| pressure, Zipf | dir-cached, 16 KiB, 1 thread | 1.00 GiB | 900.0 MiB | 800.0 MiB"
        + " | 90.0 MiB | 1.0 MiB / 1.0 MiB | 0 | 0 |"));
    Path folder = tmp.getRoot().toPath().resolve("cache-out");
    Report.write(r, folder);
    assertTrue(Files.size(folder.resolve("random-reads-pressure-Zipf.png")) > 1000);
    assertTrue(Files.size(folder.resolve("random-reads-warm-all-cached.png")) > 1000);
  }

  @Test
  public void reportTablesAndFiles() throws Exception {
    Results r = new Results();
    r.date = "2026-11-22 10:00:00";
    r.command = "./pread bench";
    r.fileSize = 1L << 30;
    r.machine.put("cores", "2");
    r.regimes.put("warm", "test");
    for (String s : new String[] {"dir-pread", "dir-niofs"}) {
      for (int t : new int[] {1, 2}) {
        Results.Cell c = new Results.Cell("warm", s, 4096, t, 3);
        double base = s.equals("dir-pread") ? 120 : 100;
        c.rounds = new double[] {base * t, base * t * 0.5, base * t * 1.1};
        r.cells.add(c);
      }
    }
    r.prefetchDistance.add(new PrefetchDistanceRun.Result(0, 1000, 1000, new long[40], 64, 128));
    r.prefetchDistance.add(new PrefetchDistanceRun.Result(16, 4000, 4000, new long[40], 4, 64));
    String md = Report.markdown(r);
    assertTrue(md, md.contains("| dir-pread | 120 | 1.20x | 240 | 1.20x | 2.00x |"));
    assertTrue(md, md.contains("| 16 | 4.00k | 4.00x |"));
    Path folder = tmp.getRoot().toPath().resolve("out");
    Path report = Report.write(r, folder);
    assertTrue(Files.readString(report).contains("![random-reads-warm.png]"));
    assertTrue(Files.size(folder.resolve("random-reads-warm.png")) > 1000);
    assertTrue(Files.size(folder.resolve("prefetch-distance.png")) > 1000);
    String json = Files.readString(folder.resolve("results.json"));
    assertTrue(json, json.contains("\"strategy\": \"dir-pread\""));
    assertFalse(json.isEmpty());
    assertArrayEquals(new double[] {120, 60, 132}, r.cell("warm", "dir-pread", 4096, 1).rounds, 1e-9);
  }

  /**
   * The restart table gives the second from which a restarted JVM ran at 0.9x its warm QPS for
   * three intervals in a row (the last, possibly short, interval not counted), and the report
   * charts every cell's intervals.
   */
  @Test
  public void restartTableAndChart() throws Exception {
    Results r = new Results();
    r.date = "2026-11-27 10:00:00";
    r.command = "./pread bench";
    r.lucene = new Results.Lucene();
    r.lucene.corpus = "test";
    Results.QueryCell warm = new Results.QueryCell("restart warm", "dir-a", 1, 1);
    warm.qps[0] = 100;
    Results.QueryCell kept = new Results.QueryCell("restart kept", "dir-a", 1, 1);
    kept.qps[0] = 85;
    kept.intervalSeconds = 1;
    // 90 in interval 1, a dip in 2, then three in a row from 3; the last (short) interval is not counted
    kept.intervalQps = new double[] {40, 95, 50, 90, 91, 99, 20};
    kept.intervalP99Micros = new long[] {9000, 2000, 7000, 2000, 2000, 2000, 2000};
    Results.QueryCell dropped = new Results.QueryCell("restart dropped", "dir-a", 1, 1);
    dropped.qps[0] = 50;
    dropped.intervalSeconds = 1;
    dropped.intervalQps = new double[] {10, 20, 95, 96, 97}; // only two whole intervals at 0.9x
    dropped.intervalP99Micros = new long[] {1, 1, 1, 1, 1};
    kept.hotSetLoadedBytes = 2_000_000_000L; // found cached; no end seen within the window
    dropped.hotSetLoadedBytes = 3_000_000_000L;
    dropped.hotSetLoadSeconds = 1.84;
    r.queryCells.add(warm);
    r.queryCells.add(kept);
    r.queryCells.add(dropped);
    assertEquals("3", Report.toWarm(kept, warm));
    assertEquals("-", Report.toWarm(dropped, warm));
    assertEquals("", Report.toWarm(warm, warm)); // no intervals
    String md = Report.markdown(r);
    assertTrue(md, md.contains("| dir-a | 1 | 100.0 | 85.0 | 0.85x | 3 | 2000 | 50.0 | 0.50x | - | 3000 in 1.8 s |"));
    Path folder = tmp.getRoot().toPath().resolve("restart");
    Path report = Report.write(r, folder);
    assertTrue(Files.readString(report).contains("![restart-qps-1t.png]"));
    assertTrue(Files.size(folder.resolve("restart-qps-1t.png")) > 1000);
  }

  /** "(oversubscribed)" marks thread counts above the cores of the machine the run measured on, not this one's. */
  @Test
  public void oversubscriptionIsJudgedByTheRunsMachine() {
    for (String cores : new String[] {"1", "64"}) {
      Results r = new Results();
      r.date = "2026-11-22 10:00:00";
      r.command = "./pread bench";
      r.machine.put("cores", cores);
      for (int t : new int[] {1, 2}) {
        Results.Cell c = new Results.Cell("warm", "dir-pread", 4096, t, 1);
        c.rounds = new double[] {100};
        r.cells.add(c);
      }
      String md = Report.markdown(r);
      assertEquals(md, cores.equals("1"), md.contains("| 2 threads (oversubscribed) |"));
    }
  }

  /**
   * A disturbed run's query-thread seconds: on a core, waiting for one, and the rest blocked, per
   * phase; results written without the figures (or a phase unknown) show no table, or "?".
   */
  @Test
  public void threadTimesOfADisturbedRun() {
    DisturbedResult d = new DisturbedResult();
    d.directory = "dir-a";
    d.threads = 1;
    assertEquals("", Report.threadTimesTable(java.util.List.of(d))); // as read back from older results
    d.queryOnCoreMillis = new double[] {794.4, 666, 830};
    d.queryWaitingMillis = new double[] {2, 141.2, -1};
    d.otherCpuMillis = new double[] {28, 1109.6, 27};
    String table = Report.threadTimesTable(java.util.List.of(d));
    assertTrue(table, table.contains("| dir-a | 1 | 794 / 666 / 830 | 2 / 141 / ? | 204 / 193 / ? | 28 / 1110 / 27 |"));
  }
}
