package dev.pread.bench.pressure;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

public class MachineQuietTest {
  @Test
  public void busyTicksAreUserNiceSystemIrqSoftirqAndSteal() {
    long[] t = MachineQuiet.parse("cpu  100 2 30 500 40 5 6 7 0 0\ncpu0 50 1 15 250 20 2 3 3 0 0\n");
    assertArrayEquals(new long[] {100 + 2 + 30 + 5 + 6 + 7, 100 + 2 + 30 + 5 + 6 + 7 + 500 + 40}, t);
  }

  @Test
  public void theShareIsOfTheTicksBetweenTwoReadings() {
    long[] before = MachineQuiet.parse("cpu  100 0 0 900 0 0 0 0 0 0\n");
    long[] after = MachineQuiet.parse("cpu  150 0 50 1000 0 0 0 0 0 0\n");
    assertEquals(0.5, MachineQuiet.busyShare(before, after), 1e-9);
    assertEquals("no tick passed: not known to be idle", 1, MachineQuiet.busyShare(after, after), 0);
  }

  @Test
  public void anotherFileIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MachineQuiet.parse("intr 1 2 3\n"));
    assertEquals("not /proc/stat's cpu line: 'intr 1 2 3'", e.getMessage());
  }
}
