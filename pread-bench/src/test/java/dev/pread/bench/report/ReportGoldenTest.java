package dev.pread.bench.report;

import static org.junit.Assert.assertEquals;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Test;

/**
 * The Markdown report of checked-in results against the checked-in report.md of the same run
 * (without its chart links, which {@link Report#write} appends), byte for byte: results.json is a
 * default {@code ./pread bench} run (the Lucene comparison with legend and headline, warm random
 * reads, reference rows, warm batches), results-changing.json a changing-memory run (its per-phase
 * table). Everything the report shows comes
 * from the results: date, command and machine are the run's, not this JVM's.
 *
 * <p>On a difference the test writes its rendering to {@code target/golden-actual-<name of the expected file>}: to
 * accept an intended change of the report, review it and copy it over the expected file.
 */
public class ReportGoldenTest {
  private static final String RESOURCES = "/dev/pread/bench/report/";

  private static String resource(String name) throws IOException {
    try (InputStream in = ReportGoldenTest.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IOException("missing test resource " + RESOURCES + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Results as Report.write stores them. */
  static Results parse(String json) {
    Gson gson = new GsonBuilder().serializeSpecialFloatingPointValues().create();
    return gson.fromJson(json, Results.class);
  }

  @Test
  public void rendersADefaultRunAsItsReport() throws IOException {
    check("results.json", "report.md");
  }

  @Test
  public void rendersAChangingMemoryRunAsItsReport() throws IOException {
    check("results-changing.json", "report-changing.md");
  }

  /**
   * A regime measured in several rounds (a worker each) shows the median QPS and says that its
   * fault and byte counts add up over the rounds; a regime of one round says neither.
   */
  @Test
  public void aRegimeOfSeveralRoundsSaysItsCountsAddUp() throws IOException {
    Results r = parse(resource("results.json"));
    int changed = 0;
    for (Results.QueryCell c : r.queryCells) {
      if (c.regime.equals("pressure")) {
        c.qps = new double[] {c.qps[0], 3 * c.qps[0], 2 * c.qps[0]};
        c.p50Micros = new double[] {c.p50Micros[0], c.p50Micros[0], c.p50Micros[0]};
        c.p99Micros = new double[] {c.p99Micros[0], c.p99Micros[0], c.p99Micros[0]};
        changed++;
      }
    }
    assertEquals("the default run has pressure cells", true, changed > 0);
    String md = Report.markdown(r);
    String pressure = md.substring(md.indexOf("#### pressure"));
    pressure = pressure.substring(0, pressure.indexOf("\n\n", pressure.indexOf("|---")));
    assertEquals(pressure, true, pressure.startsWith("#### pressure (QPS, median of 3 rounds; latency in ms)"));
    assertEquals(pressure, true, pressure.contains("| major faults, all rounds | MB read from storage, all rounds |"));
    Results.QueryCell first = r.queryCells.stream().filter(c -> c.regime.equals("pressure")).findFirst().orElseThrow();
    assertEquals(pressure, true, pressure.contains(String.format(java.util.Locale.ROOT, "| %s | %d | %.1f |",
        first.directory, first.threads, 2 * first.qps[0])));
    String warm = md.substring(md.indexOf("#### warm"));
    warm = warm.substring(0, warm.indexOf("\n\n", warm.indexOf("|---")));
    assertEquals(warm, false, warm.contains("all rounds"));
    assertEquals(warm, false, warm.contains("median of"));
  }

  private static void check(String results, String report) throws IOException {
    String actual = Report.markdown(parse(resource(results)));
    String expected = resource(report);
    if (!expected.equals(actual)) {
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target", "golden-actual-" + report), actual);
    }
    assertEquals(expected, actual);
  }

  @Test
  public void aRoundTripThroughJsonRendersTheSame() throws IOException {
    Results r = parse(resource("results.json"));
    String json = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create().toJson(r);
    assertEquals(Report.markdown(r), Report.markdown(parse(json)));
  }
}
