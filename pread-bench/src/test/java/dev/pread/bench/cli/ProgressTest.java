package dev.pread.bench.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** Progress written to a log (not a terminal): plain lines, spaced in time, nested work in one line. */
public class ProgressTest {
  private static final long SECOND = 1_000_000_000L;

  /** What the progress under test writes: a log, not a terminal. A new one for each test. */
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  @Test
  public void aLogGetsPlainLinesAtMostEveryFiveSecondsWithNestedWorkInTheOuterLine() {
    AtomicLong clock = new AtomicLong(100 * SECOND);
    try (Progress bench = Progress.start("bench", 10, "", false, out, clock::get)) {
      bench.setExtraMessage("lucene warm");
      for (int i = 0; i < 4; i++) { // 4 steps within 4 s of the first line: no line
        clock.addAndGet(SECOND);
        bench.step();
      }
      clock.addAndGet(2 * SECOND); // 6 s after the first line
      try (Progress index = Progress.start("Indexing src.zip", 128, " MiB", false, out, clock::get)) {
        clock.addAndGet(10 * SECOND);
        index.stepTo(64);
      }
      clock.addAndGet(SECOND);
      bench.step(); // the nested work closed 0 s after the last line: no line
      clock.addAndGet(5 * SECOND);
      bench.step(); // 6 s after the last line
    }
    String log = bytes.toString(StandardCharsets.UTF_8);
    assertFalse("no carriage returns or escapes in a log: " + log, log.contains("\r") || log.contains("\u001b"));
    List<String> lines = log.lines().toList();
    assertEquals(log, 5, lines.size());
    assertEquals("bench: (0/10, 0 s elapsed)", lines.get(0));
    // No estimate while nested work runs; afterwards its 10 s are left out of the rate.
    assertEquals("bench: lucene warm > Indexing src.zip 0/128 MiB (4/10, 6 s elapsed)", lines.get(1));
    assertEquals("bench: lucene warm > Indexing src.zip 64/128 MiB (4/10, 16 s elapsed)", lines.get(2));
    assertEquals("bench: lucene warm (6/10, 22 s elapsed, about 8 s left)", lines.get(3));
    assertEquals("bench: done (6/10, 22 s)", lines.get(4));
  }

  @Test
  public void overlappingNestedWorkIsLeftOutOfTheRateOnce() {
    AtomicLong clock = new AtomicLong(100 * SECOND);
    try (Progress bench = Progress.start("bench", 10, "", false, out, clock::get)) {
      clock.addAndGet(4 * SECOND);
      bench.stepTo(4);
      clock.addAndGet(2 * SECOND);
      Progress index = Progress.start("Indexing src.zip", 128, " MiB", false, out, clock::get); // from 6 s
      clock.addAndGet(SECOND);
      try (Progress file = Progress.start("Writing data.dat", 1024, " MiB", false, out, clock::get)) { // 7 s to 11 s
        clock.addAndGet(4 * SECOND);
        file.stepTo(1024);
      }
      clock.addAndGet(5 * SECOND);
      index.stepTo(128);
      index.close(); // at 16 s: nested work from 6 s to 16 s, 10 s
      clock.addAndGet(SECOND);
      bench.step();
      clock.addAndGet(5 * SECOND);
      bench.step(); // 6 steps in the 12 s left of 22: 2 s a step
    }
    String log = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(log, log.contains("bench: (6/10, 22 s elapsed, about 8 s left)"));
  }

  @Test
  public void withNothingOpenEachProgressIsTopLevelAgain() {
    AtomicLong clock = new AtomicLong();
    try (Progress first = Progress.start("first", 1, "", false, out, clock::get)) {
      first.step();
    }
    try (Progress second = Progress.start("second", 2, "", false, out, clock::get)) {
      second.step();
    }
    String log = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(log, log.contains("first: done (1/1, 0 s)"));
    assertTrue(log, log.contains("second: (0/2, 0 s elapsed)"));
    assertTrue(log, log.contains("second: done (1/2, 0 s)"));
  }

  @Test
  public void durationsReadAsSecondsMinutesAndHours() {
    assertEquals("59 s", Progress.duration(59.4));
    assertEquals("2 min 5 s", Progress.duration(125));
    assertEquals("1 h 1 min", Progress.duration(3661));
  }
}
