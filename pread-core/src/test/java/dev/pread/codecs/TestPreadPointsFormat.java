package dev.pread.codecs;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.tests.index.BasePointsFormatTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's BasePointsFormatTestCase for the default codec. Its directories come from {@code
 * -Dtests.directory=dev.pread.store.PreadDirectory}, set by the build for every test JVM.
 */
public class TestPreadPointsFormat extends BasePointsFormatTestCase {
  @Override
  protected Codec getCodec() {
    return TestUtil.getDefaultCodec();
  }
}
