package dev.pread.codecs;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.tests.index.BasePostingsFormatTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's BasePostingsFormatTestCase for the default codec. Its directories come from {@code
 * -Dtests.directory=dev.pread.store.PreadDirectory}, set by the build for every test JVM.
 */
public class TestPreadPostingsFormat extends BasePostingsFormatTestCase {
  @Override
  protected Codec getCodec() {
    return TestUtil.getDefaultCodec();
  }
}
