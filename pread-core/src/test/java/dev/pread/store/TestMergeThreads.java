package dev.pread.store;

import dev.pread.nativeio.CpuPriority;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.MergeScheduler;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link MergeThreads}: a {@code ConcurrentMergeScheduler} merge thread that writes a merge through
 * an {@link AdaptiveDirectory} runs at the configured nice value; threads of other schedulers are
 * never changed. Skips, saying why, where the kernel gives no nice value.
 */
public class TestMergeThreads extends LuceneTestCase {

  /** A merge scheduler that records the nice value of the thread that ran its last merge, after it. */
  private static final class RecordingScheduler extends ConcurrentMergeScheduler {
    final AtomicInteger nice = new AtomicInteger(Integer.MIN_VALUE);
    final AtomicInteger merges = new AtomicInteger();

    @Override
    protected void doMerge(MergeScheduler.MergeSource mergeSource, MergePolicy.OneMerge merge) throws IOException {
      super.doMerge(mergeSource, merge);
      nice.set(CpuPriority.current());
      merges.incrementAndGet();
    }
  }

  private static int niceOrSkip() {
    int nice = CpuPriority.current();
    assumeTrue("getpriority is not available here", nice != Integer.MIN_VALUE);
    return nice;
  }

  /** Whether a thread may lower its priority to {@code nice}: tried in a thread that then ends. */
  private static boolean canYield(int nice) throws InterruptedException {
    AtomicInteger yielded = new AtomicInteger();
    Thread t = new Thread(() -> yielded.set(CpuPriority.yieldTo(nice) ? 1 : 0));
    t.start();
    t.join();
    return yielded.get() == 1;
  }

  /** Writes a few segments and merges them into one, from the calling thread. */
  private static void indexAndMerge(Directory dir, MergeScheduler scheduler) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig().setMergeScheduler(scheduler);
    try (IndexWriter w = new IndexWriter(dir, config)) {
      int segments = 2 + random().nextInt(3);
      for (int s = 0; s < segments; s++) {
        for (int i = 0; i < 20 + random().nextInt(50); i++) {
          Document doc = new Document();
          doc.add(new StringField("id", s + "-" + i, Field.Store.YES));
          doc.add(new TextField("body", "segment " + s + " document " + i, Field.Store.NO));
          w.addDocument(doc);
        }
        w.commit();
      }
      w.forceMerge(1);
      w.commit();
    }
  }

  public void testConcurrentMergeSchedulerThreadYields() throws Exception {
    int before = niceOrSkip();
    int expected = AdaptiveRegime.mergeNice();
    assumeTrue("merge threads are left alone (" + AdaptiveRegime.MERGE_NICE_PROPERTY + "=0)", expected > 0);
    assumeTrue("this thread runs at nice " + before + " already", before < expected);
    assumeTrue("the kernel refuses setpriority here", canYield(expected));
    RecordingScheduler scheduler = new RecordingScheduler();
    try (AdaptiveDirectory dir = new AdaptiveDirectory(createTempDir("merge"))) {
      indexAndMerge(dir, scheduler);
    }
    assertTrue("no merge ran", scheduler.merges.get() > 0);
    assertEquals(expected, scheduler.nice.get());
    assertEquals("the thread that asked for the merge keeps its priority", before, CpuPriority.current());
  }

  public void testZeroLeavesMergeThreadsAlone() throws IOException {
    int before = niceOrSkip();
    String old = System.getProperty(AdaptiveRegime.MERGE_NICE_PROPERTY);
    AdaptiveRegime regime;
    try {
      System.setProperty(AdaptiveRegime.MERGE_NICE_PROPERTY, " 0 ");
      regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, dev.pread.cache.ContainerMemory.system(), 0);
    } finally {
      restore(old);
    }
    RecordingScheduler scheduler = new RecordingScheduler();
    Path path = createTempDir("merge");
    try (AdaptiveDirectory dir = new AdaptiveDirectory(path, FSLockFactory.getDefault(), regime)) {
      indexAndMerge(dir, scheduler);
    }
    assertTrue("no merge ran", scheduler.merges.get() > 0);
    assertEquals(before, scheduler.nice.get());
  }

  public void testOtherThreadsAreLeftAlone() throws Exception {
    int before = niceOrSkip();
    // A serial merge runs in the indexing thread, which goes on with other work: never lowered.
    // In a thread of its own, so that a failure cannot leave the test runner's thread lowered.
    AtomicInteger after = new AtomicInteger(Integer.MIN_VALUE);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Path path = createTempDir("merge");
    Thread t =
        new Thread(
            () -> {
              try (AdaptiveDirectory dir = new AdaptiveDirectory(path)) {
                indexAndMerge(dir, new SerialMergeScheduler());
                after.set(CpuPriority.current());
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    t.start();
    t.join();
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertEquals(before, after.get());
    assertFalse(MergeThreads.isMergeThread(Thread.currentThread()));
    assertFalse(MergeThreads.isMergeThread(t));
    assertFalse("not a merge thread: nothing to do", MergeThreads.yieldCpu(CpuPriority.MAX_NICE));
    assertEquals(before, CpuPriority.current());
  }

  public void testMergeNiceProperty() {
    String old = System.getProperty(AdaptiveRegime.MERGE_NICE_PROPERTY);
    try {
      System.clearProperty(AdaptiveRegime.MERGE_NICE_PROPERTY);
      assertEquals(AdaptiveRegime.DEFAULT_MERGE_NICE, AdaptiveRegime.mergeNice());
      int nice = random().nextInt(CpuPriority.MAX_NICE + 1);
      System.setProperty(AdaptiveRegime.MERGE_NICE_PROPERTY, " " + nice + " ");
      assertEquals(nice, AdaptiveRegime.mergeNice());
      String bad = switch (random().nextInt(4)) {
        case 0 -> "-1";
        case 1 -> "20";
        case 2 -> "ten";
        default -> "";
      };
      System.setProperty(AdaptiveRegime.MERGE_NICE_PROPERTY, bad);
      IllegalArgumentException e = expectThrows(IllegalArgumentException.class,
          () -> new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, dev.pread.cache.ContainerMemory.system(), 0));
      assertTrue(e.getMessage(), e.getMessage().contains(AdaptiveRegime.MERGE_NICE_PROPERTY)
          && e.getMessage().contains("\"" + bad + "\""));
    } finally {
      restore(old);
    }
  }

  private static void restore(String old) {
    if (old == null) {
      System.clearProperty(AdaptiveRegime.MERGE_NICE_PROPERTY);
    } else {
      System.setProperty(AdaptiveRegime.MERGE_NICE_PROPERTY, old);
    }
  }
}
