package dev.pread.store;

import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Version;

/**
 * Guards the premise of {@code ./pread test}'s runs on other Lucene releases: the tests run on the
 * Lucene the build was asked for ({@code -Dlucene.version}, passed to the test JVM as {@code
 * pread.lucene.version} by pread-core/pom.xml), not on one that a dependency or a stale build
 * brought in.
 */
public class TestLuceneRelease extends LuceneTestCase {
  public void testRunsOnTheRequestedLucene() {
    String requested = System.getProperty("pread.lucene.version");
    assertNotNull("pread.lucene.version is not set; run the tests through Maven", requested);
    assertEquals(
        "the build asked for Lucene " + requested + " but the tests run on " + Version.LATEST,
        requested,
        Version.LATEST.toString());
  }
}
