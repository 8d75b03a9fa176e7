package dev.pread.store;

import com.carrotsearch.randomizedtesting.annotations.TimeoutSuite;
import dev.pread.cache.BlockCache;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.NativeBuffers;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.LuceneTestCase.SuppressSysoutChecks;
import org.apache.lucene.tests.util.TimeUnits;

/**
 * The long run: {@link DifferentialFuzzer} (each fault mode) and {@link ConcurrencyStress} in
 * rounds, for {@code -Dpread.soak.minutes=N} minutes, printing the figures as lines starting with
 * {@code soak:}. Rounds take turns between {@link AdaptiveDirectory} with every input moving to the
 * next read path (mapping, a block cache of one to eight blocks, page cache) at every open, clone,
 * slice and prefetch, {@link PreadDirectory}, and {@link CachedPreadDirectory} through a block
 * cache of one to eight blocks (eviction churn). Skipped without the property; {@code ./pread soak --minutes N} runs it. Every
 * round uses new seeds, printed, so a failure can be replayed ({@code -Dpread.fuzz.seed} for a
 * fuzz round, {@code -Dtests.seed} for the whole run).
 *
 * <p>At the end it asserts, besides no wrong read: the process has the same open descriptors as at
 * the start (those it gained are listed on failure); {@link NativeBuffers} has the same live
 * buffers and bytes; and, when native memory tracking is on ({@code ./pread soak} turns it on), the
 * JVM's "Other" category, where FFM arenas and direct buffers allocate, holds at most {@value
 * #NMT_OTHER_TOLERANCE} allocations more than at the start, and at most that many times {@link
 * NativeBuffers#BUFFER_SIZE} bytes more.
 */
@TimeoutSuite(millis = 100 * TimeUnits.HOUR)
@SuppressSysoutChecks(bugUrl = "prints its figures")
public class TestSoak extends LuceneTestCase {
  private static final long FUZZ_PHASE_MILLIS = 20_000;
  private static final long STRESS_PHASE_MILLIS = 30_000;
  /**
   * Allocations NMT "Other" may hold above its start at the end: room for a JDK-internal buffer or
   * two (a thread's cached temporary direct buffer), far below one per round, which a leaked cache,
   * arena or buffer per run would exceed within a round (each round opens several caches and many
   * thousands of inputs).
   */
  private static final int NMT_OTHER_TOLERANCE = 4;

  public void testSoak() throws Exception {
    String minutesProperty = System.getProperty("pread.soak.minutes", "");
    if (minutesProperty.isBlank()) {
      System.out.println("soak: skipped: set -Dpread.soak.minutes=N (./pread soak --minutes N)");
    }
    assumeTrue("the soak runs only with -Dpread.soak.minutes=N (./pread soak --minutes N)", !minutesProperty.isBlank());
    double minutes = Double.parseDouble(minutesProperty);
    long start = System.nanoTime();
    long deadline = start + (long) (minutes * 60e9);

    FaultInjection.allocateWholeBufferPool();
    Map<Integer, String> fdsAtStart = OpenDescriptors.targets();
    long fdsBefore = OpenDescriptors.total();
    long buffersBefore = NativeBuffers.liveBuffers();
    long bufferBytesBefore = NativeBuffers.liveBytes();
    NmtOther nmtBefore = nmtOther();
    System.out.printf(Locale.ROOT, "soak: %.1f minutes; at start: process descriptors %d, native buffers %d (%,d bytes), %s, %s%n",
        minutes, fdsBefore, buffersBefore, bufferBytesBefore, describe(nmtBefore), rss());

    DifferentialFuzzer.Stats fuzz = new DifferentialFuzzer.Stats();
    Map<String, DifferentialFuzzer.Stats> fuzzByMode = new TreeMap<>();
    long fuzzRuns = 0;
    long stressRuns = 0;
    long stressMillis = 0;
    long reads = 0, bytes = 0, wrong = 0, closes = 0, churn = 0, privateOpens = 0, closedSeen = 0, interrupts = 0;
    Map<String, Long> stressFaults = new TreeMap<>();
    long maxFdsUnder = 0;
    long cachedStressReads = 0, cachedEvictions = 0, adaptiveStressReads = 0;
    int round = 0;
    List<String> seeds = new ArrayList<>();

    while (remaining(deadline) > 1_000) {
      round++;
      boolean adaptive = round % 3 == 1; // the default directory first
      boolean cached = round % 3 == 0;
      String label = cached ? "cached-" : adaptive ? "adaptive-" : "";
      long stressPhase = Math.min(STRESS_PHASE_MILLIS, remaining(deadline));
      if (stressPhase >= 1_000) {
        ConcurrencyStress.Config c = new ConcurrencyStress.Config();
        c.seed = random().nextLong();
        c.durationMillis = stressPhase;
        c.interrupts = true;
        c.transparentFaults = true;
        if (cached) {
          c.cacheBlockSize = 1 << (12 + random().nextInt(3));
          c.cacheBytes = (long) c.cacheBlockSize * (1 + random().nextInt(8));
        }
        if (adaptive) {
          c.adaptiveCacheBytes = (long) AdaptiveRegime.CACHE_BLOCK_SIZE * (1 + random().nextInt(8));
        }
        seeds.add(label + "stress:0x" + Long.toHexString(c.seed));
        Path root = createTempDir();
        ConcurrencyStress.Figures f = ConcurrencyStress.run(root, c);
        assertEquals("wrong reads in stress seed 0x" + Long.toHexString(c.seed) + "; first: " + f.firstWrong, 0, f.wrong.get());
        assertEquals("descriptors left by stress seed 0x" + Long.toHexString(c.seed), f.fdsUnderBefore, f.fdsUnderAfter);
        assertEquals("native buffers after stress seed 0x" + Long.toHexString(c.seed), f.buffersBefore, f.buffersAfter);
        maxFdsUnder = Math.max(maxFdsUnder, f.fdsUnderAfter);
        stressRuns++;
        stressMillis += f.millis;
        reads += f.reads.get();
        bytes += f.bytesVerified.get();
        wrong += f.wrong.get();
        closes += f.closesUnderReaders.get();
        churn += f.churnOpens.get();
        privateOpens += f.privateOpens.get();
        closedSeen += f.alreadyClosedSeen.get();
        interrupts += f.interrupts.get();
        f.faults.forEach((k, v) -> stressFaults.merge(k, v, Long::sum));
        if (cached) {
          cachedStressReads += f.reads.get();
          cachedEvictions += f.cacheStats.evictions();
        }
        if (adaptive) {
          adaptiveStressReads += f.reads.get();
        }
        emptyDirectory(root);
      }
      for (DifferentialFuzzer.FaultMode mode : DifferentialFuzzer.FaultMode.values()) {
        long millis = Math.min(FUZZ_PHASE_MILLIS, remaining(deadline));
        if (millis < 1_000) {
          break;
        }
        Path root = createTempDir();
        long seed = random().nextLong();
        seeds.add(label + mode + ":0x" + Long.toHexString(seed));
        DifferentialFuzzer.Stats s;
        int blockSize = 1 << (12 + random().nextInt(3));
        try (BlockCache cache =
                cached ? BlockCache.builder((long) blockSize * (1 + random().nextInt(8))).blockSize(blockSize).build() : null;
            FaultInjection faults = mode == DifferentialFuzzer.FaultMode.NONE ? null : FaultInjection.install(root)) {
          AdaptiveRegime regime = adaptive
              ? AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, (long) AdaptiveRegime.CACHE_BLOCK_SIZE * (1 + random().nextInt(8)))
              : null;
          try (DifferentialFuzzer fuzzer = new DifferentialFuzzer(seed, root, faults, mode, cache, regime)) {
            s = fuzzer.run(Long.MAX_VALUE, System.nanoTime() + millis * 1_000_000L);
          }
          if (cache != null) {
            cachedEvictions += cache.stats().evictions();
          }
        }
        fuzz.add(s);
        fuzzByMode.computeIfAbsent(label + mode, k -> new DifferentialFuzzer.Stats()).add(s);
        fuzzRuns++;
        emptyDirectory(root);
      }
      System.out.printf(Locale.ROOT,
          "soak: round %d done at %.1f min: fuzz %,d ops, stress %,d reads verified, %d wrong%n",
          round, (System.nanoTime() - start) / 60e9, fuzz.ops, reads, wrong);
    }

    long fdsAfter = OpenDescriptors.total();
    Map<Integer, String> fdsGained = new TreeMap<>(OpenDescriptors.targets());
    fdsGained.entrySet().removeIf(e -> e.getValue().equals(fdsAtStart.get(e.getKey())));
    long buffersAfter = NativeBuffers.liveBuffers();
    long bufferBytesAfter = NativeBuffers.liveBytes();
    NmtOther nmtAfter = nmtOther();
    double elapsed = (System.nanoTime() - start) / 60e9;
    System.out.printf(Locale.ROOT, "soak: ---- figures after %.1f minutes, %d rounds ----%n", elapsed, round);
    System.out.printf(Locale.ROOT,
        "soak: fuzz: %d runs, %,d ops, %,d calls compared with ByteBuffersDirectory (%,d reads, %,d bytes),"
            + " %,d exceptions matched, %,d closed-input checks, 0 mismatches%n",
        fuzzRuns, fuzz.ops, fuzz.comparedCalls, fuzz.readCalls, fuzz.bytesCompared, fuzz.exceptionsMatched, fuzz.closedChecks);
    for (Map.Entry<String, DifferentialFuzzer.Stats> e : fuzzByMode.entrySet()) {
      System.out.printf(Locale.ROOT, "soak: fuzz %s: %,d ops%n", e.getKey(), e.getValue().ops);
    }
    System.out.println("soak: fuzz faults injected: " + fuzz.faultsInjected);
    System.out.printf(Locale.ROOT,
        "soak: fuzz outcomes: %,d calls with EINTR/short reads gave the reference's result; errors surfaced"
            + " as IOException naming path, call, offset and errno, then the same call matched: %s%n",
        fuzz.callsWithTransparentFaults, fuzz.errorsSurfacedThenCorrect);
    System.out.printf(Locale.ROOT,
        "soak: stress: %d runs, %.1f s, %,d reads verified (%,d bytes), %d wrong, %,d closes under readers,"
            + " %,d churn opens, %,d private opens, %,d AlreadyClosedException seen, %,d interrupts%n",
        stressRuns, stressMillis / 1000.0, reads, bytes, wrong, closes, churn, privateOpens, closedSeen, interrupts);
    System.out.println("soak: stress faults injected (all retried, every read correct): " + stressFaults);
    System.out.printf(Locale.ROOT,
        "soak: through CachedPreadDirectory (every third round): %,d stress reads verified; %,d blocks evicted by stress and fuzz%n",
        cachedStressReads, cachedEvictions);
    System.out.printf(Locale.ROOT,
        "soak: through AdaptiveDirectory switching read paths (every third round): %,d stress reads verified%n",
        adaptiveStressReads);
    System.out.printf(Locale.ROOT,
        "soak: descriptors under the test directories after each run: max %d; process descriptors %d -> %d;"
            + " native buffers %d -> %d (%,d -> %,d bytes)%n",
        maxFdsUnder, fdsBefore, fdsAfter, buffersBefore, buffersAfter, bufferBytesBefore, bufferBytesAfter);
    System.out.println("soak: JVM native memory: before " + describe(nmtBefore) + "; after " + describe(nmtAfter) + ", " + rss());
    System.out.println("soak: seeds: " + String.join(" ", seeds));
    assertEquals("wrong reads", 0, wrong);
    assertEquals("NativeBuffers live buffers at the end", buffersBefore, buffersAfter);
    assertEquals("NativeBuffers live bytes at the end", bufferBytesBefore, bufferBytesAfter);
    if (OpenDescriptors.available()) {
      assertEquals("process descriptors at the end; opened since the start and still open: " + fdsGained, fdsBefore, fdsAfter);
      assertEquals("descriptors opened since the start and still open", Map.of(), fdsGained);
    }
    if (nmtBefore != null && nmtAfter != null) {
      String nmt = "NMT Other: " + describe(nmtBefore) + " -> " + describe(nmtAfter);
      assertTrue(nmt + ": more than " + NMT_OTHER_TOLERANCE + " allocations above the start",
          nmtAfter.allocations() <= nmtBefore.allocations() + NMT_OTHER_TOLERANCE);
      assertTrue(nmt + ": more than " + NMT_OTHER_TOLERANCE + " x " + NativeBuffers.BUFFER_SIZE + " bytes above the start",
          nmtAfter.committedKb() * 1024 <= nmtBefore.committedKb() * 1024 + (long) NMT_OTHER_TOLERANCE * NativeBuffers.BUFFER_SIZE);
    } else {
      System.out.println("soak: NMT off: native memory checked with NativeBuffers' counters only");
    }
  }

  private static long remaining(long deadline) {
    return (deadline - System.nanoTime()) / 1_000_000;
  }

  /** Deletes what a run left in its directory (the suite removes the directories at its end). */
  private static void emptyDirectory(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(root)) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** NMT's "Other" category: committed KiB and the number of allocations. */
  private record NmtOther(long committedKb, long allocations) {}

  private static String describe(NmtOther nmt) {
    return nmt == null
        ? "NMT off"
        : "NMT Other (FFM arenas, direct buffers) " + nmt.committedKb() + " KB in " + nmt.allocations() + " blocks";
  }

  /**
   * The JVM's native memory tracking figures for "Other", where FFM arenas and direct buffers
   * allocate; null unless the JVM runs with -XX:NativeMemoryTracking=summary (./pread soak sets it).
   */
  private static NmtOther nmtOther() {
    try {
      String summary =
          (String) ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "vmNativeMemory",
                  new Object[] {new String[] {"summary"}},
                  new String[] {String[].class.getName()});
      Matcher m = Pattern.compile("Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)\\s*\\(malloc=\\d+KB[^#]*#(\\d+)").matcher(summary);
      return m.find() ? new NmtOther(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))) : null;
    } catch (Exception e) {
      return null;
    }
  }

  /** The process's resident set size, for the figures (not asserted: it includes the Java heap). */
  private static String rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return "RSS " + line.replaceAll("[^0-9]", "") + " KiB";
        }
      }
    } catch (IOException | RuntimeException e) {
      // not on Linux
    }
    return "RSS unknown";
  }
}
