package dev.pread.bench.lucene;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.nativeio.CpuPriority;
import dev.pread.nativeio.NativeAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.store.Directory;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The merge regime's bulk-indexing load: it writes and refreshes through the Directory while a
 * reader searches the commit, keeps to its rate, and leaves the index as it found it.
 */
public class IndexingDisturbanceTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private Path index() throws Exception {
    Path folder = tmp.newFolder("index").toPath();
    BenchIndex.build(folder, Corpus.generated(), 2L << 20, 1);
    return folder;
  }

  /**
   * Run for a little over a refresh interval as fast as it can: documents added, at least
   * one refresh, files written; after the stop the folder holds exactly the files it held before,
   * the commit is unchanged and the reader opened before still finds every document.
   */
  @Test
  public void indexesRefreshesAndRollsBack() throws Exception {
    Path folder = index();
    List<Corpus.Doc> docs = Corpus.generated().first(200_000);
    for (String name : List.of(StrategyRegistry.DIR_ADAPTIVE, "dir-mmap")) {
      try (Directory d = StrategyRegistry.openDirectory(name, folder); DirectoryReader reader = DirectoryReader.open(d)) {
        String[] before = d.listAll();
        SegmentInfos commit = SegmentInfos.readLatestCommit(d);
        IndexingDisturbance load = new IndexingDisturbance(d, docs, Double.POSITIVE_INFINITY, 0);
        load.start();
        // The load's duration: it runs until stopped, refreshing every REFRESH_SECONDS.
        Thread.sleep((long) (IndexingDisturbance.REFRESH_SECONDS * 1000 * 1.5));
        assertTrue(name + ": a load runs until it is stopped", !load.finished());
        load.stop();
        assertTrue(name + ": added " + load.added(), load.added() > 0);
        assertTrue(name + ": refreshes " + load.refreshes(), load.refreshes() >= 1);
        assertTrue(name + ": wrote " + load.writtenBytes(), load.writtenBytes() > 0);
        assertEquals(name, Arrays.asList(before), Arrays.asList(d.listAll()));
        assertEquals(name, commit.getGeneration(), SegmentInfos.readLatestCommit(d).getGeneration());
        assertEquals(name, reader.maxDoc(), new IndexSearcher(reader).count(new MatchAllDocsQuery()));
        assertTrue(load.describe(), load.describe().contains("refreshes"));
      }
    }
  }

  /** The rate bounds what is added: never more than the rate over the time it ran, and one document. */
  @Test
  public void keepsToItsRate() throws Exception {
    Path folder = index();
    List<Corpus.Doc> docs = Corpus.generated().first(100_000);
    int longest = docs.stream().mapToInt(doc -> doc.text().length()).max().orElseThrow();
    double rate = 50_000; // characters a second: a few documents
    try (Directory d = StrategyRegistry.openDirectory("dir-mmap", folder)) {
      IndexingDisturbance load = new IndexingDisturbance(d, docs, rate, 0);
      long start = System.nanoTime();
      load.start();
      Thread.sleep(600); // the load's duration
      load.stop();
      double seconds = (System.nanoTime() - start) / 1e9;
      assertTrue("added " + load.addedChars() + " characters in " + seconds + " s at " + rate + " a second",
          load.addedChars() <= rate * seconds + longest);
      assertTrue(load.addedChars() > 0); // the first document is due at once
    }
  }

  /**
   * At a nice value the writer's thread runs at it while it indexes (read from /proc, as the
   * kernel has it), and the test's own thread keeps its priority.
   */
  @Test
  public void theWriterRunsAtItsNiceValue() throws Exception {
    Assume.assumeTrue("no native access: no setpriority", NativeAccess.isAvailable());
    Assume.assumeTrue("no /proc/self/task: not Linux", Files.isDirectory(Path.of("/proc/self/task")));
    int mine = CpuPriority.current();
    Assume.assumeTrue("this thread already runs at nice " + mine, mine >= 0 && mine < 7);
    Path folder = index();
    try (Directory d = StrategyRegistry.openDirectory("dir-mmap", folder)) {
      IndexingDisturbance load = new IndexingDisturbance(d, Corpus.generated().first(100_000), 200_000, 7);
      load.start();
      try {
        int seen = Integer.MIN_VALUE;
        for (int i = 0; i < 500 && seen != 7; i++) { // the thread sets it first thing; up to 5 s
          seen = niceOf("indexing");
          Thread.sleep(10);
        }
        assertEquals("the writer thread's nice value", 7, seen);
      } finally {
        load.stop();
      }
      assertTrue(load.added() > 0);
      assertEquals(mine, CpuPriority.current());
    }
  }

  /** The nice value of this JVM's thread named {@code name}, or MIN_VALUE if there is none. */
  private static int niceOf(String name) throws Exception {
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (java.io.IOException e) {
          continue; // ended since listed
        }
        int close = stat.lastIndexOf(')');
        if (stat.substring(stat.indexOf('(') + 1, close).equals(name)) {
          // fields after the name: state is field 3 overall, nice field 19
          return Integer.parseInt(stat.substring(close + 2).split(" ")[16]);
        }
      }
    }
    return Integer.MIN_VALUE;
  }

  @Test
  public void aFailedWriterFailsTheStop() throws Exception {
    Path folder = index();
    Directory d = StrategyRegistry.openDirectory("dir-mmap", folder);
    d.close();
    IndexingDisturbance load = new IndexingDisturbance(d, Corpus.generated().first(10_000), 1e6, 0);
    load.start();
    IllegalStateException e = assertThrows(IllegalStateException.class, load::stop);
    assertTrue(e.getMessage(), e.getMessage().contains("indexing load failed"));
  }

  @Test
  public void refusesNoDocumentsAndNoRate() throws Exception {
    Path folder = index();
    try (Directory d = StrategyRegistry.openDirectory("dir-mmap", folder)) {
      List<Corpus.Doc> docs = Corpus.generated().first(10_000);
      assertThrows(IllegalArgumentException.class, () -> new IndexingDisturbance(d, List.of(), 1e6, 0));
      assertThrows(IllegalArgumentException.class, () -> new IndexingDisturbance(d, docs, 0, 0));
      assertThrows(IllegalArgumentException.class, () -> new IndexingDisturbance(d, docs, Double.NaN, 0));
      assertThrows(IllegalArgumentException.class, () -> new IndexingDisturbance(d, docs, 1e6, -1));
      assertThrows(IllegalArgumentException.class, () -> new IndexingDisturbance(d, docs, 1e6, 20));
      assertThrows(IllegalArgumentException.class, () -> Corpus.generated().first(0));
    }
  }
}
