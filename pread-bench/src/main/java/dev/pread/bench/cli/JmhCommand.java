package dev.pread.bench.cli;

import dev.pread.bench.pressure.JvmFlags;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code ./pread jmh [JMH options] [benchmark regex]}: runs the JMH benchmarks bundled in this jar
 * with JMH's own command line ({@code ./pread jmh -h} lists its options). Forked JVMs start as
 * production JVMs do ({@link JvmFlags#PRODUCTION}: native access and the Vector API module), and
 * on JDK 23 or newer with {@code --sun-misc-unsafe-memory-access=allow}, which keeps JMH's own use
 * of {@code sun.misc.Unsafe} from printing warnings in every fork. Each is a separate {@code -jvmArgsAppend}: JMH splits a single
 * occurrence at spaces but takes repeated ones verbatim, so a user's own {@code -jvmArgsAppend}
 * still works.
 */
@Command(
    name = "jmh",
    description = "Run the JMH benchmarks (arguments are JMH's; -h for JMH's help).",
    mixinStandardHelpOptions = false)
final class JmhCommand implements Callable<Integer> {
  /**
   * Every argument, in the order given. With no options or positional parameters of its own, the
   * command leaves all of them unmatched, so an option's value stays next to its option ({@code -f
   * 1}); a separate positional list would have pulled the values away from their options.
   */
  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<String> all = new ArrayList<>();
    for (String flag : JvmFlags.PRODUCTION) {
      all.add("-jvmArgsAppend");
      all.add(flag);
    }
    if (Runtime.version().feature() >= 23) {
      all.add("-jvmArgsAppend");
      all.add("--sun-misc-unsafe-memory-access=allow");
    }
    all.addAll(args);
    org.openjdk.jmh.Main.main(all.toArray(String[]::new));
    return 0;
  }
}
