package dev.pread.bench.raw;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.report.Headline;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.Directory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Every name opens, describes itself and checks the platform; an unknown name lists the known. */
public class StrategyRegistryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final StrategyRegistry.Platform FULL = new StrategyRegistry.Platform(true, Optional.empty());
  private static final StrategyRegistry.Platform NO_MADVISE = new StrategyRegistry.Platform(false, Optional.empty());
  private static final StrategyRegistry.Platform NO_NATIVE =
      new StrategyRegistry.Platform(true, Optional.of("native access is not enabled"));

  @Test
  public void namesAreDistinctAndTheDefaultsKnown() {
    assertEquals(StrategyRegistry.STRATEGIES.size(), new HashSet<>(StrategyRegistry.STRATEGIES).size());
    assertEquals(StrategyRegistry.DIRECTORIES.size(), new HashSet<>(StrategyRegistry.DIRECTORIES).size());
    assertTrue(StrategyRegistry.STRATEGIES.containsAll(StrategyRegistry.CLI_DEFAULT));
    assertTrue(StrategyRegistry.DIRECTORIES.containsAll(StrategyRegistry.LUCENE_DEFAULT));
    assertTrue(StrategyRegistry.DIRECTORIES.containsAll(Headline.ALTERNATIVES));
  }

  /** Each strategy opens over a data file under its own name (the name cells and tables carry), and reads it. */
  @Test
  public void everyStrategyOpensAndReadsUnderItsName() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("s.dat");
    long size = 1 << 20;
    DataFile.ensure(f, size);
    for (String name : StrategyRegistry.STRATEGIES) {
      Optional<String> why = StrategyRegistry.unavailableReason(name);
      if (why.isPresent()) {
        IllegalStateException e =
            assertThrows(name, IllegalStateException.class, () -> StrategyRegistry.openStrategy(name, f, 16384));
        assertEquals(why.get(), e.getMessage());
        continue;
      }
      try (Strategy s = StrategyRegistry.openStrategy(name, f, 16384)) {
        assertEquals(name, s.name());
        assertTrue(name, RandomReadRun.run(s, 1, 4096, size, 0, 20, 1) > 0);
      }
    }
  }

  /** Each Directory opens over a folder as an instance of the class its legend names, and describes itself. */
  @Test
  public void everyDirectoryOpensAsTheClassItsLegendNames() throws Exception {
    Path folder = tmp.newFolder("index").toPath();
    CacheSettings cache = CacheSettings.holding(1 << 20, 16384);
    StrategyRegistry.LegendContext context = new StrategyRegistry.LegendContext(16384, true, 1 << 20, null);
    for (String name : StrategyRegistry.DIRECTORIES) {
      String configuration = StrategyRegistry.configuration(name, context);
      assertFalse(name, configuration.isBlank());
      if (StrategyRegistry.unavailableReason(name).isPresent()) {
        assertThrows(name, IllegalStateException.class, () -> StrategyRegistry.openDirectory(name, folder, cache));
        continue;
      }
      try (Directory d = StrategyRegistry.openDirectory(name, folder, cache)) {
        assertTrue(name + " is " + d.getClass(), Class.forName(StrategyRegistry.className(name)).isInstance(d));
        assertEquals(0, d.listAll().length);
      }
    }
    assertTrue(StrategyRegistry.configuration(StrategyRegistry.DIR_CACHED, context).contains("16 KiB blocks"));
    for (String name : StrategyRegistry.STRATEGIES) {
      Class.forName(StrategyRegistry.className(name));
    }
  }

  @Test
  public void anUnknownNameListsTheKnownOnes() {
    Path p = tmp.getRoot().toPath().resolve("x.dat");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.openStrategy("dir-nope", p, 16384, null));
    assertTrue(e.getMessage(), e.getMessage().contains("'dir-nope'"));
    assertTrue(e.getMessage(), e.getMessage().contains(StrategyRegistry.STRATEGIES.toString()));
    e = assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.openDirectory("mmap", tmp.getRoot().toPath()));
    assertTrue(e.getMessage(), e.getMessage().contains(StrategyRegistry.DIRECTORIES.toString()));
    e = assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.className("nope"));
    for (String name : StrategyRegistry.STRATEGIES) {
      assertTrue(e.getMessage(), e.getMessage().contains(name));
    }
    assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.unavailableReason("nope"));
    assertThrows(IllegalArgumentException.class,
        () -> StrategyRegistry.configuration(StrategyRegistry.FFI_PREAD, new StrategyRegistry.LegendContext(4096, true, 0, null)));
  }

  @Test
  public void dirCachedNeedsItsCacheSettings() {
    Path folder = tmp.getRoot().toPath();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StrategyRegistry.openDirectory(StrategyRegistry.DIR_CACHED, folder, null, FULL));
    assertTrue(e.getMessage(), e.getMessage().contains("cache budget"));
    assertThrows(IllegalArgumentException.class,
        () -> StrategyRegistry.openStrategy(StrategyRegistry.DIR_CACHED, folder.resolve("x"), 16384, null, FULL));
  }

  /** dir-mmap-random refuses without madvise, as a Directory and as a strategy, instead of measuring plain mmap. */
  @Test
  public void dirMmapRandomNeedsMadvise() throws Exception {
    Path folder = tmp.newFolder("m").toPath();
    Path f = folder.resolve("m.dat");
    DataFile.ensure(f, 1 << 16);
    String why = StrategyRegistry.unavailableReason(StrategyRegistry.DIR_MMAP_RANDOM, NO_MADVISE).orElseThrow();
    assertTrue(why, why.contains("madvise"));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> StrategyRegistry.openDirectory(StrategyRegistry.DIR_MMAP_RANDOM, folder, null, NO_MADVISE));
    assertEquals(why, e.getMessage());
    assertThrows(IllegalStateException.class,
        () -> StrategyRegistry.openStrategy(StrategyRegistry.DIR_MMAP_RANDOM, f, 16384, null, NO_MADVISE));
    for (String name : List.of(StrategyRegistry.DIR_MMAP, StrategyRegistry.MMAP, StrategyRegistry.DIR_NIOFS)) {
      assertEquals(name, Optional.empty(), StrategyRegistry.unavailableReason(name, NO_MADVISE));
    }
    try (Directory d = StrategyRegistry.openDirectory(StrategyRegistry.DIR_MMAP, folder, null, NO_MADVISE)) {
      assertEquals(1, d.listAll().length);
    }
    for (String name : StrategyRegistry.DIRECTORIES) {
      assertEquals(name, Optional.empty(), StrategyRegistry.unavailableReason(name, FULL));
    }
  }

  /** Without native access the pread names refuse, saying what they would measure instead. */
  @Test
  public void preadNamesNeedNativeAccess() {
    for (String name : List.of(StrategyRegistry.DIR_PREAD, StrategyRegistry.DIR_PREAD_READAHEAD, StrategyRegistry.DIR_CACHED)) {
      assertEquals(Optional.of(name + " would measure the NIOFS fallback: native access is not enabled"),
          StrategyRegistry.unavailableReason(name, NO_NATIVE));
    }
    for (String name : List.of(StrategyRegistry.FFI_PREAD, StrategyRegistry.FFI_PREAD_ODIRECT)) {
      assertEquals(Optional.of(name + " needs native access: native access is not enabled"),
          StrategyRegistry.unavailableReason(name, NO_NATIVE));
    }
    for (String name : List.of(StrategyRegistry.DIR_NIOFS, StrategyRegistry.DIR_MMAP, StrategyRegistry.MMAP,
        StrategyRegistry.FILECHANNEL_DIRECT, StrategyRegistry.FILECHANNEL_HEAP, StrategyRegistry.DIR_ADAPTIVE)) {
      assertEquals(name, Optional.empty(), StrategyRegistry.unavailableReason(name, NO_NATIVE));
    }
    Path folder = tmp.getRoot().toPath();
    assertThrows(IllegalStateException.class,
        () -> StrategyRegistry.openDirectory(StrategyRegistry.DIR_PREAD, folder, null, NO_NATIVE));
  }
}
