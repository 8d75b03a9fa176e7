package dev.pread.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/**
 * {@code ./pread jmh [JMH options] [benchmark regex]}: runs the JMH benchmarks bundled in this jar
 * with JMH's own command line ({@code ./pread jmh -h} lists its options). Forked JVMs inherit
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
@Command(
    name = "jmh",
    description = "Run the JMH benchmarks (arguments are JMH's; -h for JMH's help).",
    mixinStandardHelpOptions = false)
final class JmhCommand implements Callable<Integer> {
  @Unmatched List<String> unmatched = new ArrayList<>();

  @Parameters(arity = "0..*", hidden = true)
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<String> all = new ArrayList<>();
    all.add("-jvmArgsAppend");
    all.add("--enable-native-access=ALL-UNNAMED");
    all.addAll(unmatched);
    all.addAll(args);
    org.openjdk.jmh.Main.main(all.toArray(String[]::new));
    return 0;
  }
}
