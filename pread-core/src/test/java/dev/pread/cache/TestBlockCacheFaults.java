package dev.pread.cache;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import dev.pread.nativeio.NativeMemoryProbe;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Faults injected into the cache's system calls: EINTR and short reads change nothing (on
 * O_DIRECT files too, whose reads must stay aligned); read errors reach the reader naming path,
 * call, offset and errno, and the same read then succeeds; failed opens and closes leave no
 * descriptor and no file registered.
 */
public class TestBlockCacheFaults extends LuceneTestCase {

  public void testEintrAndShortReadsAreInvisible() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int block = 1 << TestUtil.nextInt(r, 12, 15);
    int files = 3;
    long[] seeds = new long[files];
    Path[] paths = new Path[files];
    long[] sizes = new long[files];
    for (int f = 0; f < files; f++) {
      seeds[f] = r.nextLong();
      sizes[f] = (long) block * TestUtil.nextInt(r, 1, 30) + r.nextInt(block);
      paths[f] = Content.write(dir, "f" + f, seeds[f], sizes[f]);
    }
    long reads = 0;
    try (BlockCache cache =
            BlockCache.builder((long) block * TestUtil.nextInt(r, 1, 16)).blockSize(block).prefetchThreads(2).build();
        FaultInjection faults = FaultInjection.install(dir)) {
      long s = r.nextLong();
      faults.random(Call.PREAD, 0.5, s, Kind.EINTR, Kind.SHORT_READ)
          .random(Call.OPEN, 0.5, s + 1, Kind.EINTR)
          .random(Call.STATX, 0.5, s + 2, Kind.EINTR)
          .random(Call.CLOSE, 0.5, s + 3, Kind.EINTR);
      byte[] b = new byte[4 * block];
      for (int round = 0; round < 40; round++) {
        int f = r.nextInt(files);
        try (CachedFile c = cache.open(paths[f], r.nextInt(3) != 0)) {
          assertTrue("ext4 takes O_DIRECT", c.isDirect());
          for (int i = 0; i < 20; i++) {
            long pos = r.nextLong(sizes[f]);
            int len = (int) Math.min(sizes[f] - pos, 1 + r.nextInt(b.length));
            if (r.nextInt(5) == 0) {
              c.prefetch(pos, len);
            }
            c.read(pos, b, 0, len);
            Content.check("f" + f, seeds[f], pos, b, 0, len);
            reads++;
          }
        }
      }
      Content.awaitPrefetches(cache);
      assertTrue(faults.summary(), faults.injected(Call.PREAD, Kind.SHORT_READ) > 0);
      assertTrue(faults.summary(), faults.injected(Call.PREAD, Kind.EINTR) > 0);
      assertEquals(cache.stats().toString(), 0, cache.stats().loadFailures());
      assertTrue(reads > 0);
    }
    assertEquals(0, Content.descriptorsUnder(dir));
  }

  public void testReadErrorsSurfaceThenTheReadSucceeds() throws IOException {
    Path dir = createTempDir();
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 50L * block);
    // scripted evictions: CLOCK alone
    try (BlockCache cache = BlockCache.builder(8L * block).blockSize(block).frequencyAdmission(false).build();
        CachedFile f = cache.open(p);
        CachedFile around = cache.open(p, false);
        FaultInjection faults = FaultInjection.install(dir)) {
      byte[] b = new byte[3 * block];
      int n = 0;
      for (Kind kind : new Kind[] {Kind.EIO, Kind.EAGAIN, Kind.ENOMEM, Kind.EBADF}) {
        for (CachedFile c : new CachedFile[] {f, around}) {
          long pos = (long) block * (n++ * 4) + 100;
          faults.failNext(Call.PREAD, kind, 1);
          NativeIOException e = expectThrows(NativeIOException.class, () -> c.read(pos, b, 0, 2 * block));
          String m = e.getMessage();
          long at = pos / block * block;
          assertTrue(m, m.contains(p.toString()));
          assertTrue(m, m.contains("preadv (O_DIRECT) failed at offset " + at));
          assertTrue(m, m.contains(kind.name()));
          assertEquals(kind.errno, e.errno());
          assertEquals(at, e.offset());
          c.read(pos, b, 0, 2 * block);
          Content.check(kind + " then again", seed, pos, b, 0, 2 * block);
        }
      }
      assertEquals(4, cache.stats().loadFailures());
    }
    assertEquals(0, Content.descriptorsUnder(dir));
  }

  /** Open: errors in open, statx and close (of the duplicate descriptor a second open makes). */
  public void testFailedOpensLeaveNothingOpen() throws IOException {
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 1, 5L * 4096);
    try (BlockCache cache = BlockCache.builder(1 << 20).blockSize(4096).build();
        FaultInjection faults = FaultInjection.install(dir)) {
      faults.failNext(Call.OPEN, Kind.EMFILE, 1);
      NativeIOException e = expectThrows(NativeIOException.class, () -> cache.open(p));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()) && e.getMessage().contains("EMFILE"));
      assertEquals(Kind.EMFILE.errno, e.errno());
      assertEquals(faults.summary(), 1, faults.injected(Call.OPEN, Kind.EMFILE));
      faults.failNext(Call.STATX, Kind.EIO, 1);
      e = expectThrows(NativeIOException.class, () -> cache.open(p));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()) && e.getMessage().contains("EIO"));
      assertEquals(Kind.EIO.errno, e.errno());
      assertEquals(faults.summary(), 1, faults.injected(Call.STATX, Kind.EIO));
      assertEquals(0, cache.openFiles());
      assertEquals(0, Content.descriptorsUnder(dir));

      List<CachedFile> open = new ArrayList<>();
      open.add(cache.open(p));
      // A second open of the same file shares the first's descriptor and closes its own; that close fails.
      faults.failNext(Call.CLOSE, Kind.EIO, 1);
      NativeIOException closeFailure = expectThrows(NativeIOException.class, () -> open.add(cache.open(p)));
      assertEquals(faults.summary(), 1, faults.injected(Call.CLOSE, Kind.EIO));
      String m = closeFailure.getMessage();
      assertTrue(m, m.contains(p.toString()));
      assertTrue(m, m.contains("close failed"));
      assertTrue(m, m.contains("EIO"));
      assertEquals(Kind.EIO.errno, closeFailure.errno());
      assertEquals("the failed open keeps no handle", 1, open.size());
      assertEquals(1, cache.openFiles());
      for (CachedFile c : open) {
        c.close();
      }
      assertEquals("every handle closed: the file must be gone from the cache", 0, cache.openFiles());
      assertEquals(0, Content.descriptorsUnder(dir));
    }
  }

  /** A failed close of the last handle still frees the file: no descriptor, no registration. */
  public void testFailedCloseStillReleases() throws IOException {
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 1, 5L * 4096);
    try (BlockCache cache = BlockCache.builder(1 << 20).blockSize(4096).build();
        FaultInjection faults = FaultInjection.install(dir)) {
      CachedFile c = cache.open(p);
      c.read(0, new byte[10], 0, 10);
      faults.failNext(Call.CLOSE, Kind.EIO, 1);
      NativeIOException e = expectThrows(NativeIOException.class, c::close);
      assertEquals(faults.summary(), 1, faults.injected(Call.CLOSE, Kind.EIO));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("close failed") && e.getMessage().contains("EIO"));
      assertEquals(Kind.EIO.errno, e.errno());
      assertTrue(c.isClosed());
      assertEquals(0, cache.openFiles());
      assertEquals(0, cache.stats().residentBytes());
      assertEquals(0, Content.descriptorsUnder(dir));
      c.close(); // harmless
    }
  }

  /**
   * A file's close throws a RuntimeException while the cache closes: the cache still closes its
   * other files and frees its block memory and scratch buffers, then throws that exception; a
   * second close does nothing.
   */
  public void testCacheCloseFreesEverythingWhenAFileCloseThrows() throws IOException {
    Path dir = createTempDir();
    int block = 4096;
    Path p1 = Content.write(dir, "f1", 1, 8L * block);
    Path p2 = Content.write(dir, "f2", 2, 8L * block);
    long before = NativeMemoryProbe.liveMappings();
    BlockCache cache = BlockCache.builder(16L * block).blockSize(block).build();
    CachedFile f1 = cache.open(p1);
    CachedFile f2 = cache.open(p2, false);
    f1.read(0, new byte[block], 0, block); // maps block memory
    f2.read(0, new byte[block], 0, block); // read around the cache: maps the scratch buffers
    assertEquals(before + 2, NativeMemoryProbe.liveMappings());
    RuntimeException thrown = new RuntimeException("injected: close threw");
    try (FaultInjection faults = FaultInjection.install(dir)) {
      // The first close fails with a RuntimeException before the real close (its descriptor stays
      // open: that one leaks, as a close that throws this way would leak it).
      faults.setListener(
          fault -> {
            if (fault.call() == Call.CLOSE) {
              throw thrown;
            }
          });
      faults.failNext(Call.CLOSE, Kind.EIO, 1);
      RuntimeException e = expectThrows(RuntimeException.class, cache::close);
      assertSame(thrown, e);
      assertEquals(1, faults.injected(Call.CLOSE, Kind.EIO));
    }
    assertTrue(cache.isClosed());
    assertTrue(f1.isClosed() && f2.isClosed());
    assertEquals("the cache's memory is still mapped", before, NativeMemoryProbe.liveMappings());
    assertEquals("the other file's descriptor is still open", 1, Content.descriptorsUnder(dir));
    cache.close(); // harmless
    expectThrows(AlreadyClosedException.class, () -> f1.read(0, new byte[1], 0, 1));
  }
}
