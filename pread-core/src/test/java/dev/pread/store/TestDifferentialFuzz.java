package dev.pread.store;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeBuffers;
import java.nio.file.Path;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.LuceneTestCase.SuppressSysoutChecks;

/**
 * {@link DifferentialFuzzer} against ByteBuffersDirectory: a short run per fault mode, each
 * reproducible by seed ({@code -Dtests.seed}, or {@code -Dpread.fuzz.seed=0x...} to replay one
 * fuzzer seed). {@code -Dpread.fuzz.ops=N} sets the operations per run. Long runs: {@link TestSoak}.
 */
@SuppressSysoutChecks(bugUrl = "prints its figures, one line per run")
public class TestDifferentialFuzz extends LuceneTestCase {

  private static long fuzzSeed() {
    String s = System.getProperty("pread.fuzz.seed");
    return s == null || s.isEmpty() ? random().nextLong() : Long.parseUnsignedLong(s.replaceFirst("^0x", ""), 16);
  }

  private static long ops(long dflt) {
    return Long.getLong("pread.fuzz.ops", dflt);
  }

  private DifferentialFuzzer.Stats run(DifferentialFuzzer.FaultMode mode, long ops) throws Exception {
    Path root = createTempDir();
    long seed = fuzzSeed();
    FaultInjection.allocateWholeBufferPool();
    long buffersBefore = NativeBuffers.liveBuffers();
    long bytesBefore = NativeBuffers.liveBytes();
    DifferentialFuzzer.Stats stats;
    try (FaultInjection faults = mode == DifferentialFuzzer.FaultMode.NONE ? null : FaultInjection.install(root)) {
      try (DifferentialFuzzer fuzzer = new DifferentialFuzzer(seed, root, faults, mode)) {
        stats = fuzzer.run(ops, System.nanoTime() + 60_000_000_000L);
      }
    }
    assertEquals("native buffers", buffersBefore, NativeBuffers.liveBuffers());
    assertEquals("native bytes", bytesBefore, NativeBuffers.liveBytes());
    System.out.printf(
        "fuzz %s seed=0x%x: %s; descriptors under the directory after: %d; native buffers %d -> %d%n",
        mode, seed, stats, OpenDescriptors.under(org.apache.lucene.util.Unwrappable.unwrapAll(root).toAbsolutePath()), buffersBefore, NativeBuffers.liveBuffers());
    System.out.println("fuzz " + mode + " ops by kind: " + stats.byOp);
    assertEquals(ops, stats.ops);
    return stats;
  }

  public void testNoFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.NONE, ops(30_000));
    assertTrue(s.readCalls > s.ops / 3);
    assertTrue("closed inputs must be exercised", s.closedChecks > 0);
  }

  public void testTransparentFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.TRANSPARENT, ops(20_000));
    assertTrue(s.faultsInjected.getOrDefault("PREAD/EINTR", 0L) > 0);
    assertTrue(s.faultsInjected.getOrDefault("PREAD/SHORT_READ", 0L) > 0);
    assertTrue(s.faultsInjected.getOrDefault("OPEN/EINTR", 0L) > 0);
    assertTrue(s.callsWithTransparentFaults > 0);
  }

  public void testErrorFaults() throws Exception {
    DifferentialFuzzer.Stats s = run(DifferentialFuzzer.FaultMode.ERRORS, ops(20_000));
    for (Kind k : new Kind[] {Kind.EIO, Kind.EAGAIN, Kind.ENOMEM, Kind.EBADF}) {
      assertTrue("PREAD/" + k + " must be injected and surface", s.errorsSurfacedThenCorrect.getOrDefault("PREAD/" + k, 0L) > 0);
    }
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("OPEN/EMFILE", 0L) > 0);
    assertTrue(s.errorsSurfacedThenCorrect.getOrDefault("CLOSE/EIO", 0L) > 0);
  }
}
