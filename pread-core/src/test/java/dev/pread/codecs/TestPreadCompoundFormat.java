package dev.pread.codecs;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.tests.index.BaseCompoundFormatTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's BaseCompoundFormatTestCase for the default codec. Its directories come from {@code
 * -Dtests.directory=dev.pread.store.PreadDirectory}, set by the build for every test JVM.
 */
public class TestPreadCompoundFormat extends BaseCompoundFormatTestCase {
  @Override
  protected Codec getCodec() {
    return TestUtil.getDefaultCodec();
  }
}
