package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.function.LongSupplier;
import org.junit.Test;

public class SteadyStateTest {
  /** A clock and a compiler that the slices drive: each slice is 250 ms, the compiler's milliseconds per slice given. */
  private static final class Fake {
    final long[] compiledPerSlice;
    long nanos;
    long compiled;
    int slices;

    Fake(long... compiledPerSlice) {
      this.compiledPerSlice = compiledPerSlice;
    }

    void slice(int index) {
      assertEquals(slices, index);
      nanos += 250_000_000L;
      compiled += compiledPerSlice[Math.min(slices, compiledPerSlice.length - 1)];
      slices++;
    }

    SteadyState.Settle settle(double capSeconds) throws Exception {
      return SteadyState.compilerQuiet(0.10, 1000, capSeconds, this::slice, () -> compiled, () -> nanos);
    }
  }

  @Test
  public void endsAtTheFirstWindowWhoseCompilerTimeIsWithinTheShare() throws Exception {
    // Four slices of 250 ms make a window; 100 ms of compiling in it is 10% of a core.
    Fake f = new Fake(200, 200, 200, 200, 30, 20, 30, 20, 0);
    SteadyState.Settle s = f.settle(10);
    assertTrue(s.quiet());
    assertEquals(8, f.slices);
    assertEquals(2.0, s.seconds(), 1e-9);
  }

  @Test
  public void aBusyCompilerRunsToTheCap() throws Exception {
    Fake f = new Fake(60); // 240 ms a window: 24% of a core
    SteadyState.Settle s = f.settle(3);
    assertFalse(s.quiet());
    assertEquals(12, f.slices);
    assertEquals(3.0, s.seconds(), 1e-9);
  }

  @Test
  public void aZeroCapRunsNoSlice() throws Exception {
    Fake f = new Fake(0);
    SteadyState.Settle s = f.settle(0);
    assertFalse(s.quiet());
    assertEquals(0, f.slices);
  }

  @Test
  public void anUnknownCompilerTimeEndsTheWaitAtOnce() throws Exception {
    long[] nanos = {0};
    LongSupplier unknown = () -> -1;
    SteadyState.Settle s = SteadyState.compilerQuiet(0.10, 1000, 5, i -> nanos[0] += 250_000_000L, unknown, () -> nanos[0]);
    assertFalse(s.quiet());
    assertEquals(0, nanos[0]);
  }

  @Test
  public void nonsenseArgumentsAreRefused() {
    Fake f = new Fake(0);
    assertThrows(IllegalArgumentException.class, () -> SteadyState.compilerQuiet(0, 1000, 5, f::slice, () -> 0, () -> 0));
    assertThrows(IllegalArgumentException.class, () -> SteadyState.compilerQuiet(0.1, 0, 5, f::slice, () -> 0, () -> 0));
    assertThrows(IllegalArgumentException.class, () -> SteadyState.compilerQuiet(0.1, 1000, Double.NaN, f::slice, () -> 0, () -> 0));
    assertEquals(0, f.slices);
  }
}
