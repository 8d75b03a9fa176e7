package dev.pread.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Counts this process's open file descriptors from {@code /proc/self/fd}. */
final class OpenDescriptors {
  private static final Path PROC_FD = Path.of("/proc/self/fd");

  private OpenDescriptors() {}

  static boolean available() {
    return Files.isDirectory(PROC_FD);
  }

  /** Descriptors whose target lies under {@code dir} (a real path); 0 without /proc. */
  static long under(Path dir) throws IOException {
    if (!available()) {
      return 0;
    }
    long n = 0;
    try (Stream<Path> fds = Files.list(PROC_FD)) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(dir)) {
            n++;
          }
        } catch (IOException e) {
          // closed while we listed
        }
      }
    }
    return n;
  }

  /** The numbers of the descriptors whose target lies under {@code dir} (a real path); empty without /proc. */
  static Set<Integer> numbersUnder(Path dir) throws IOException {
    Set<Integer> numbers = new HashSet<>();
    if (!available()) {
      return numbers;
    }
    try (Stream<Path> fds = Files.list(PROC_FD)) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(dir)) {
            numbers.add(Integer.parseInt(fd.getFileName().toString()));
          }
        } catch (IOException e) {
          // closed while we listed
        }
      }
    }
    return numbers;
  }

  /** Every open descriptor of this process (the listing's own excluded) and its target, by number. */
  static Map<Integer, String> targets() throws IOException {
    Map<Integer, String> targets = new TreeMap<>();
    if (!available()) {
      return targets;
    }
    try (Stream<Path> fds = Files.list(PROC_FD)) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (!target.equals("/proc/" + ProcessHandle.current().pid() + "/fd")) {
            targets.put(Integer.parseInt(fd.getFileName().toString()), target);
          }
        } catch (IOException e) {
          // closed while we listed (the listing's own descriptor among them)
        }
      }
    }
    return targets;
  }

  /** Every open descriptor of this process (the listing's own excluded); -1 without /proc. */
  static long total() throws IOException {
    if (!available()) {
      return -1;
    }
    try (Stream<Path> fds = Files.list(PROC_FD)) {
      return fds.count() - 1;
    }
  }
}
