package dev.pread.codecs;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.tests.index.BaseNormsFormatTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's BaseNormsFormatTestCase for the default codec. Its directories come from {@code
 * -Dtests.directory=dev.pread.store.PreadDirectory}, set by the build for every test JVM.
 */
public class TestPreadNormsFormat extends BaseNormsFormatTestCase {
  @Override
  protected Codec getCodec() {
    return TestUtil.getDefaultCodec();
  }
}
