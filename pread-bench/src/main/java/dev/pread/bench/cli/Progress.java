package dev.pread.bench.cli;

import java.io.Console;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a long step, suited to where the output goes. On a terminal: one progress bar, with
 * its estimate of the time left. Otherwise (output redirected to a log): a plain line at most every
 * {@value #LINE_SECONDS} seconds, {@code task: message (n/N, elapsed, about T left)}, so that a log
 * reads like a log.
 *
 * <p>Work started while another progress is open is nested in it: it draws no bar and prints no
 * line of its own, but shows in the open one's line after a {@code >}. So a data file or an index
 * built during a run shares the run's one line.
 *
 * <p>Thread-safe: every method takes one lock shared by all instances.
 */
public final class Progress implements AutoCloseable {
  /** Least seconds between two plain lines. */
  static final int LINE_SECONDS = 5;

  private static final Object LOCK = new Object();
  private static final boolean TERMINAL = terminal();
  /** The outermost open progress, which the others nest in; null when none is open. */
  private static Progress open;
  private static long lastLineNanos;

  private final String task;
  private final String unit;
  private final Progress parent;
  private final ProgressBar bar;
  /** Where plain lines go, and the clock they are spaced by. */
  private final PrintStream out;
  private final LongSupplier nanos;
  private final long startNanos;
  private final long max;
  private long current;
  private String message = "";
  /** The open nested progress's text; volatile, as the bar's estimate reads it on its own thread. */
  private volatile String nested = "";
  /**
   * When the first of the nested progresses now open started; the time until the last of them
   * closes counts in {@link #nestedNanos}, once however many overlap (a data file written beside an
   * index build).
   */
  private long nestedSince;
  /** Nested progresses open now. */
  private int nestedOpen;
  /**
   * Time spent in nested progresses that have closed (an index built once): left out of this
   * progress's rate, which counts its own steps only.
   */
  private volatile long nestedNanos;

  private Progress(String task, long max, String unit, Progress parent, boolean terminal, PrintStream out,
      LongSupplier nanos) {
    this.task = task;
    this.max = max;
    this.unit = unit;
    this.parent = parent;
    this.out = out;
    this.nanos = nanos;
    this.startNanos = nanos.getAsLong();
    this.bar = parent == null && terminal
        ? new ProgressBarBuilder().setTaskName(task).setInitialMax(max).setUnit(unit, 1)
            .setStyle(ProgressBarStyle.ASCII).continuousUpdate().setUpdateIntervalMillis(250)
            .setEtaFunction(state -> secondsLeft(nanos.getAsLong(), state.getCurrent())
                .stream().mapToObj(left -> Duration.ofSeconds(Math.round(left))).findFirst())
            .build()
        : null;
  }

  /**
   * Starts the progress of {@code task}, of {@code max} steps counted in {@code unit} (empty for
   * plain steps, or e.g. {@code " MiB"}); nested in the open progress if there is one.
   */
  public static Progress start(String task, long max, String unit) {
    return start(task, max, unit, TERMINAL, System.err, System::nanoTime);
  }

  /** As {@link #start(String, long, String)}, with the output, and whether it is a terminal, given; for tests. */
  public static Progress start(String task, long max, String unit, boolean terminal, PrintStream out, LongSupplier nanos) {
    synchronized (LOCK) {
      Progress p = open == null
          ? new Progress(task, max, unit, null, terminal, out, nanos)
          : new Progress(task, max, unit, open, false, open.out, open.nanos);
      if (open == null) {
        open = p;
        lastLineNanos = Long.MIN_VALUE;
      } else if (open.nestedOpen++ == 0) {
        open.nestedSince = open.nanos.getAsLong();
      }
      p.changed();
      return p;
    }
  }

  /** Whether output goes to a terminal: a console that is one (JDK 22+ has a console even when redirected). */
  private static boolean terminal() {
    Console c = System.console();
    return c != null && c.isTerminal();
  }

  void step() {
    stepBy(1);
  }

  void stepBy(long n) {
    synchronized (LOCK) {
      stepTo(current + n);
    }
  }

  public void stepTo(long n) {
    synchronized (LOCK) {
      current = n;
      changed();
    }
  }

  public long getMax() {
    return max;
  }

  /** Says what is being done now, beside the count. */
  public void setExtraMessage(String message) {
    synchronized (LOCK) {
      this.message = message == null ? "" : message;
      changed();
    }
  }

  private void changed() {
    if (parent != null) {
      parent.nested = text();
      parent.changed();
      return;
    }
    String extra = nested.isEmpty() ? message : message.isEmpty() ? nested : message + " > " + nested;
    if (bar != null) {
      bar.stepTo(current);
      bar.setExtraMessage(extra);
      return;
    }
    long now = nanos.getAsLong();
    if (lastLineNanos != Long.MIN_VALUE && now - lastLineNanos < LINE_SECONDS * 1_000_000_000L) {
      return;
    }
    lastLineNanos = now;
    out.println(line(extra, now));
  }

  /** This progress as a nested part of another's line: {@code task message n/N unit}. */
  private String text() {
    String m = message.isEmpty() ? "" : " " + message;
    String t = nested.isEmpty() ? "" : " > " + nested;
    return String.format(Locale.ROOT, "%s%s %d/%d%s%s", task, m, current, max, unit, t);
  }

  /**
   * The line of a top-level progress. The time left is estimated from the rate of its own steps:
   * none while nested work runs (its length is not in this progress's steps), and the time nested
   * work took is left out of the rate.
   */
  private String line(String extra, long now) {
    double elapsed = (now - startNanos) / 1e9;
    OptionalDouble secondsLeft = secondsLeft(now, current);
    String left = secondsLeft.isPresent() ? ", about " + duration(secondsLeft.getAsDouble()) + " left" : "";
    return String.format(Locale.ROOT, "%s: %s(%d/%d%s, %s elapsed%s)", task, extra.isEmpty() ? "" : extra + " ",
        current, max, unit, duration(elapsed), left);
  }

  /**
   * Seconds left at {@code done} steps, from the rate of this progress's own steps; empty before
   * the first step, after the last, and while nested work runs. Takes no lock: the bar calls it
   * from its own thread.
   */
  private OptionalDouble secondsLeft(long now, long done) {
    if (done <= 0 || done >= max || !nested.isEmpty()) {
      return OptionalDouble.empty();
    }
    double own = (now - startNanos - nestedNanos) / 1e9;
    return OptionalDouble.of(own * (max - done) / done);
  }

  static String duration(double seconds) {
    long s = Math.round(seconds);
    return s < 60 ? s + " s" : s < 3600 ? (s / 60) + " min " + (s % 60) + " s" : (s / 3600) + " h " + (s / 60 % 60) + " min";
  }

  /** Ends this progress: a nested one leaves its parent's line; a bar is finished; a log gets a last line. */
  @Override
  public void close() {
    synchronized (LOCK) {
      if (parent != null) {
        if (--parent.nestedOpen == 0) {
          parent.nestedNanos += parent.nanos.getAsLong() - parent.nestedSince;
          parent.nested = "";
        }
        parent.changed();
        return;
      }
      open = null;
      if (bar != null) {
        bar.close();
      } else {
        out.println(String.format(Locale.ROOT, "%s: done (%d/%d%s, %s)", task, current, max, unit,
            duration((nanos.getAsLong() - startNanos) / 1e9)));
      }
    }
  }
}
