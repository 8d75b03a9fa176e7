package dev.pread.codecs;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.tests.index.BaseKnnVectorsFormatTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's BaseKnnVectorsFormatTestCase for the default codec. Its directories come from {@code
 * -Dtests.directory=dev.pread.store.PreadDirectory}, set by the build for every test JVM.
 */
public class TestPreadKnnVectorsFormat extends BaseKnnVectorsFormatTestCase {
  @Override
  protected Codec getCodec() {
    return TestUtil.getDefaultCodec();
  }

  @Override
  protected boolean supportsFloatVectorFallback() {
    return false;
  }
}
