package dev.pread.cache;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.LuceneTestCase.SuppressSysoutChecks;

/**
 * Files whose file system refuses O_DIRECT are read with buffered pread into the same cache, after
 * one WARNING per JVM (logger {@code dev.pread.cache.BlockCache}; System.Logger goes to
 * java.util.logging here). The refusal is made real on tmpfs where the kernel refuses O_DIRECT
 * there, and is injected (EINVAL from open, as such file systems answer) on this disk.
 */
@SuppressSysoutChecks(bugUrl = "the warning under test goes to the console handler too")
public class TestBufferedFallback extends LuceneTestCase {
  private static final int BLOCK = 4096;

  /** Collects the cache logger's WARNING records while installed. */
  private static final class Captured extends Handler implements AutoCloseable {
    // A strong reference: java.util.logging holds loggers weakly.
    final Logger logger = Logger.getLogger(BlockCache.class.getName());
    final List<LogRecord> warnings = new ArrayList<>();

    Captured() {
      logger.addHandler(this);
      BlockCache.BUFFERED_LOGGED.set(false); // "once per JVM": start this test's JVM-wide count afresh
    }

    @Override
    public synchronized void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
        warnings.add(record);
      }
    }

    synchronized List<String> messages() {
      return warnings.stream().map(LogRecord::getMessage).toList();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
    }
  }

  private static void readAll(CachedFile f, long seed) throws IOException {
    byte[] all = new byte[(int) f.size()];
    f.read(0, all, 0, all.length);
    Content.check(f.path().toString(), seed, 0, all, 0, all.length);
    byte[] b = new byte[100];
    for (int i = 0; i < 50; i++) {
      long pos = random().nextLong(f.size() - 100);
      f.read(pos, b, 0, 100);
      Content.check(f.path().toString(), seed, pos, b, 0, 100);
    }
  }

  public void testRefusedODirectReadsBufferedAfterOneWarning() throws IOException {
    Path dir = createTempDir();
    long s1 = random().nextLong(), s2 = random().nextLong();
    Path p1 = Content.write(dir, "a", s1, 7L * BLOCK + 11);
    Path p2 = Content.write(dir, "b", s2, 3L * BLOCK + 5);
    try (Captured log = new Captured();
        FaultInjection faults = FaultInjection.install(dir);
        BlockCache cache = BlockCache.builder(4L * BLOCK).blockSize(BLOCK).build()) {
      faults.failNext(Call.OPEN, Kind.EINVAL, 1); // the O_DIRECT open; the buffered one succeeds
      try (CachedFile a = cache.open(p1)) {
        assertFalse(a.isDirect());
        faults.failNext(Call.OPEN, Kind.EINVAL, 1);
        try (CachedFile b = cache.open(p2)) {
          assertFalse(b.isDirect());
          readAll(a, s1);
          readAll(b, s2);
        }
      }
      List<String> messages = log.messages();
      assertEquals(messages.toString(), 1, messages.size());
      String m = messages.get(0);
      assertTrue(m, m.contains(p1.toString()) && m.contains("buffered pread") && m.contains("EINVAL"));
      BlockCacheStats stats = cache.stats();
      assertTrue("buffered reads go into the cache: " + stats, stats.misses() > 0 && stats.hits() > 0);
      assertTrue(stats.toString(), stats.evictions() > 0);
    }
  }

  public void testDirectIOTurnedOffLogsNothing() throws IOException {
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "a", seed, 5L * BLOCK + 1);
    try (Captured log = new Captured();
        BlockCache cache = BlockCache.builder(2L * BLOCK).blockSize(BLOCK).directIO(false).build();
        CachedFile f = cache.open(p)) {
      assertFalse(f.isDirect());
      readAll(f, seed);
      assertEquals(List.of(), log.messages());
    }
  }

  /**
   * A real tmpfs. Linux refused O_DIRECT there until 6.6; since then tmpfs accepts it (and serves it
   * from memory), so on a newer kernel the file is read "directly" and nothing is logged. Either
   * way every byte must be right and the rule "one warning at most" hold.
   */
  public void testTmpfs() throws IOException {
    Path shm = Path.of("/dev/shm");
    boolean tmpfs = false;
    String why;
    if (!Files.isDirectory(shm)) {
      why = "/dev/shm does not exist";
    } else {
      String type = Files.getFileStore(shm).type();
      tmpfs = type.equals("tmpfs");
      why = "/dev/shm is " + type + ", not tmpfs";
    }
    if (!tmpfs) {
      System.out.println("TestBufferedFallback.testTmpfs skipped: " + why);
    }
    assumeTrue(why, tmpfs);
    Path dir = Files.createTempDirectory(shm, "pread-cache-test");
    try (Captured log = new Captured();
        BlockCache cache = BlockCache.builder(4L * BLOCK).blockSize(BLOCK).build()) {
      long s1 = random().nextLong(), s2 = random().nextLong();
      Path p1 = Content.write(dir, "a", s1, 9L * BLOCK + 100);
      Path p2 = Content.write(dir, "b", s2, 2L * BLOCK + 1);
      try (CachedFile a = cache.open(p1);
          CachedFile b = cache.open(p2)) {
        readAll(a, s1);
        readAll(b, s2);
        assertEquals(a.isDirect(), b.isDirect());
        List<String> messages = log.messages();
        if (a.isDirect()) {
          System.out.println("TestBufferedFallback.testTmpfs: this kernel (" + System.getProperty("os.version")
              + ") takes O_DIRECT on tmpfs: no fallback, no warning");
          assertEquals(List.of(), messages);
        } else {
          assertEquals(messages.toString(), 1, messages.size());
          assertTrue(messages.get(0), messages.get(0).contains(p1.toString()));
        }
      }
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
