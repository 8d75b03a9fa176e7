package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** What limit the keeper of a pressure cell's page-cache budget sets, and when. */
public class LimitKeeperTest {
  private static final long MIB = 1L << 20;

  @Test
  public void targetLeavesTheBudgetBesideWhatIsNotPageCache() {
    // 300 MiB charged, 30 of it page cache, 4 of it a cache of our own's blocks: 266 held besides both.
    assertEquals(266 * MIB + 34 * MIB, LimitKeeper.target(300 * MIB, 30 * MIB, 4 * MIB, 34 * MIB));
    assertEquals(270 * MIB + 34 * MIB, LimitKeeper.target(300 * MIB, 30 * MIB, 0, 34 * MIB));
  }

  @Test
  public void targetIsUnknownWhenAFigureIs() {
    assertEquals(-1, LimitKeeper.target(-1, 30 * MIB, 0, 34 * MIB));
    assertEquals(-1, LimitKeeper.target(300 * MIB, -1, 0, 34 * MIB));
  }

  @Test
  public void setsOnlyWhenTheTargetMovedByAStepEitherWay() {
    long limit = 360 * MIB;
    assertFalse(LimitKeeper.shouldSet(limit, limit));
    assertFalse(LimitKeeper.shouldSet(limit, limit + LimitKeeper.STEP - 1));
    assertFalse(LimitKeeper.shouldSet(limit, limit - LimitKeeper.STEP + 1));
    assertTrue(LimitKeeper.shouldSet(limit, limit + LimitKeeper.STEP));
    assertTrue(LimitKeeper.shouldSet(limit, limit - LimitKeeper.STEP));
    assertFalse(LimitKeeper.shouldSet(limit, -1));
  }
}
