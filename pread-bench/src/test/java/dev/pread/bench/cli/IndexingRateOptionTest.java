package dev.pread.bench.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;
import picocli.CommandLine.ParameterException;

/** {@code --indexing-rate}: max, off, or a positive rate in MB a second; anything else names the option. */
public class IndexingRateOptionTest {
  @Test
  public void maxOffAndRates() {
    BenchCommand c = new BenchCommand();
    assertEquals(Double.POSITIVE_INFINITY, c.parseIndexingRate("max"), 0);
    assertEquals(0, c.parseIndexingRate("off"), 0);
    assertEquals(2_500_000, c.parseIndexingRate("2.5"), 1e-6);
  }

  @Test
  public void anythingElseIsRefused() {
    BenchCommand c = new BenchCommand();
    for (String bad : new String[] {"0", "-1", "fast", "", "NaN", "Infinity", "1e400"}) {
      ParameterException e = assertThrows(bad, ParameterException.class, () -> c.parseIndexingRate(bad));
      assertTrue(e.getMessage(), e.getMessage().contains("--indexing-rate"));
    }
  }
}
