package dev.pread.store;

import dev.pread.cache.FakeProc;
import dev.pread.nativeio.NativeAccess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link CompiledPath}: the constant follows the paths of the regimes in use and the truncated
 * files open, and reads give the file's bytes whatever the constant says (it lags behind a switch).
 */
public class TestCompiledPath extends LuceneTestCase {
  private static final long MIB = 1L << 20;

  public void testTheConstantFollowsTheRegimesInUse() throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    assertEquals("no adaptive directory open", AdaptiveFile.MAPPED, CompiledPath.value());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 1024 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), 100 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 4 * MIB);
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), new byte[3 << 20]);
    long changes = CompiledPath.changes();
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      regime.check();
      assertFalse(d.isReadingCache());
      assertEquals(AdaptiveFile.MAPPED, CompiledPath.value());
      assertEquals("nothing changed yet", changes, CompiledPath.changes());

      // 3 MiB open and less than 3.33 MiB left for files: the cache, and the constant with it
      setCurrent(fake, group, limit - (long) (3 * MIB / AdaptiveRegime.FIT_SHARE) + MIB);
      regime.check();
      assertTrue(d.isReadingCache());
      assertEquals(AdaptiveFile.CACHE, CompiledPath.value());
      assertEquals(changes + 1, CompiledPath.changes());

      // A second regime in use on another path: mixed, until its directory closes.
      try (AdaptiveDirectory other = new AdaptiveDirectory(createTempDir("other"), FSLockFactory.getDefault(),
          AdaptiveDirectory.regime(AdaptiveRegime.Mode.MAPPED, MIB))) {
        assertEquals(CompiledPath.MIXED, CompiledPath.value());
      }
      assertEquals(AdaptiveFile.CACHE, CompiledPath.value());
      // A regime that switches at every read is mixed whatever its path.
      try (AdaptiveDirectory alternating = new AdaptiveDirectory(createTempDir("alt"), FSLockFactory.getDefault(),
          AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, MIB))) {
        assertEquals(CompiledPath.MIXED, CompiledPath.value());
      }

      // Memory comes back: mappings, and the constant with them.
      setCurrent(fake, group, 100 * MIB);
      regime.check();
      assertFalse(d.isReadingCache());
      assertEquals(AdaptiveFile.MAPPED, CompiledPath.value());
      in.seek(0);
      in.readLong();
    }
    assertEquals("the last directory closed", AdaptiveFile.MAPPED, CompiledPath.value());
  }

  /**
   * The constant says mappings while the files read the block cache (a reader that has not seen the
   * switch yet): reads go to the mapping, without looking at the file's path, and give its bytes.
   */
  public void testAStaleMappedConstantReadsTheMapping() throws IOException {
    withOneFile(AdaptiveRegime.Mode.CACHED, (regime, d, in, content) -> {
      assertTrue(d.isReadingCache());
      assertEquals(AdaptiveFile.CACHE, CompiledPath.value());
      CompiledPath.forget(regime); // as if the reader had not seen the switch to the cache
      try {
        assertEquals(AdaptiveFile.MAPPED, CompiledPath.value());
        long missesBefore = d.cacheStats().misses();
        long hitsBefore = d.cacheStats().hits();
        assertReadsEveryWay(in, content);
        assertEquals("no read went through the cache", missesBefore, d.cacheStats().misses());
        assertEquals("no read went through the cache", hitsBefore, d.cacheStats().hits());
      } finally {
        CompiledPath.follow(regime, AdaptiveFile.CACHE);
      }
      long missesBefore = d.cacheStats().misses();
      assertReadsEveryWay(in, content);
      assertTrue("with the constant right, the reads go through the cache", d.cacheStats().misses() > missesBefore);
    });
  }

  /**
   * A file found shorter than at open turns the constant off mappings while it is open, once however
   * often it is found so: every read of it then looks at its path and throws an IOException naming
   * it, the part still in the file included, and the other files read on.
   */
  public void testATruncatedOpenFileTurnsTheConstantOffMappings() throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    byte[] content = content(1 << 20);
    byte[] other = content(300_000);
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), content);
    Files.write(dir.resolve("g"), other);
    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.MAPPED, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput g = d.openInput("g", IOContext.DEFAULT)) {
      IndexInput f = d.openInput("f", IOContext.DEFAULT);
      IndexInput clone = f.clone();
      assertEquals(AdaptiveFile.MAPPED, CompiledPath.value());
      try (FileChannel ch = FileChannel.open(dir.resolve("f"), StandardOpenOption.WRITE)) {
        ch.truncate(4096);
      }
      regime.check();
      regime.check(); // found truncated again: counted once
      assertEquals(CompiledPath.MIXED, CompiledPath.value());
      clone.seek(content.length - 100);
      IOException e = expectThrows(IOException.class, clone::readLong);
      assertTrue(e.getMessage(), e.getMessage().contains(dir.resolve("f").toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("4096 bytes now, " + content.length + " at open"));
      expectThrows(IOException.class, () -> ((RandomAccessInput) f).readByte(10));
      clone.seek(0);
      expectThrows(IOException.class, () -> clone.readBytes(new byte[8], 0, 8));
      assertReadsEveryWay(g, other);
      f.close();
      assertEquals("the truncated file closed", AdaptiveFile.MAPPED, CompiledPath.value());
      assertReadsEveryWay(g, other);
    }
  }

  /** The constant says the cache while the files read their mappings: no cache is made for them. */
  public void testAStaleCacheConstantReadsTheMapping() throws IOException {
    withOneFile(AdaptiveRegime.Mode.MAPPED, (regime, d, in, content) -> {
      CompiledPath.follow(regime, AdaptiveFile.CACHE);
      try {
        assertEquals(AdaptiveFile.CACHE, CompiledPath.value());
        assertReadsEveryWay(in, content);
        assertNull("no block cache was made", regime.existingCache());
      } finally {
        CompiledPath.follow(regime, AdaptiveFile.MAPPED);
      }
    });
  }

  /** What a test does with one file of random bytes open through a directory of its own regime. */
  private interface OneFile {
    void check(AdaptiveRegime regime, AdaptiveDirectory d, IndexInput in, byte[] content) throws IOException;
  }

  private static void withOneFile(AdaptiveRegime.Mode mode, OneFile test) throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    byte[] content = content(300_000);
    Path dir = createTempDir("index");
    Files.write(dir.resolve("f"), content);
    AdaptiveRegime regime = AdaptiveDirectory.regime(mode, 1 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      test.check(regime, d, in, content);
    }
  }

  private static byte[] content(int n) {
    byte[] content = new byte[n];
    new Random(random().nextLong()).nextBytes(content);
    return content;
  }

  /** Every kind of read, sequential and positional, at random positions of a clone of {@code in}. */
  private static void assertReadsEveryWay(IndexInput in, byte[] content) throws IOException {
    ByteBuffer le = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
    Random r = new Random(random().nextLong());
    IndexInput c = in.clone();
    RandomAccessInput ra = (RandomAccessInput) in;
    for (int i = 0; i < 200; i++) {
      int p = r.nextInt(content.length - 64);
      c.seek(p);
      switch (r.nextInt(8)) {
        case 0 -> assertEquals(content[p], c.readByte());
        case 1 -> assertEquals(le.getShort(p), c.readShort());
        case 2 -> assertEquals(le.getInt(p), c.readInt());
        case 3 -> assertEquals(le.getLong(p), c.readLong());
        case 4 -> {
          byte[] b = new byte[1 + r.nextInt(48)];
          c.readBytes(b, 0, b.length);
          assertArrayEquals(java.util.Arrays.copyOfRange(content, p, p + b.length), b);
        }
        case 5 -> {
          long[] v = new long[3];
          c.readLongs(v, 0, 3);
          for (int k = 0; k < 3; k++) {
            assertEquals(le.getLong(p + 8 * k), v[k]);
          }
        }
        case 6 -> {
          int[] v = new int[3];
          c.readInts(v, 0, 3);
          for (int k = 0; k < 3; k++) {
            assertEquals(le.getInt(p + 4 * k), v[k]);
          }
          float[] f = new float[2];
          c.seek(p);
          c.readFloats(f, 0, 2);
          assertEquals(Float.floatToRawIntBits(le.getFloat(p)), Float.floatToRawIntBits(f[0]));
        }
        default -> {
          assertEquals(content[p], ra.readByte(p));
          assertEquals(le.getShort(p), ra.readShort(p));
          assertEquals(le.getInt(p), ra.readInt(p));
          assertEquals(le.getLong(p), ra.readLong(p));
        }
      }
    }
  }

  private static void setCurrent(FakeProc fake, Path group, long bytes) {
    fake.write(group.resolve("memory.current"), bytes + "\n");
    fake.write(group.resolve("memory.stat"), "anon " + bytes + "\nactive_file 0\ninactive_file 0\n");
  }
}
