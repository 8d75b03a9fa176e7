package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Setting and restoring a disk's readahead window, on a fake sysfs tree. */
public class DeviceReadAheadTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private Path disk(Path sysBlock, String name, String kb) throws IOException {
    Path queue = Files.createDirectories(sysBlock.resolve(name).resolve("queue"));
    return Files.writeString(queue.resolve("read_ahead_kb"), kb + "\n");
  }

  @Test
  public void aDiskHasItsOwnFileAndAPartitionItsDisks() throws IOException {
    Path sysBlock = tmp.newFolder("block").toPath();
    Path vda = disk(sysBlock, "vda", "8192");
    Path nvme = disk(sysBlock, "nvme0n1", "128");
    Files.createDirectories(sysBlock.resolve("vda1")); // a partition: no queue of its own
    Files.createDirectories(sysBlock.resolve("nvme0n1p2"));
    assertEquals(Optional.of(vda), DeviceReadAhead.queueFile(sysBlock, "/dev/vda"));
    assertEquals(Optional.of(vda), DeviceReadAhead.queueFile(sysBlock, "/dev/vda1"));
    assertEquals(Optional.of(nvme), DeviceReadAhead.queueFile(sysBlock, "/dev/nvme0n1p2"));
    assertEquals(Optional.empty(), DeviceReadAhead.queueFile(sysBlock, "/dev/sdz"));
    assertEquals(Optional.empty(), DeviceReadAhead.queueFile(sysBlock, "tmpfs"));
  }

  @Test
  public void setWritesTheValueAndCloseRestoresTheOldOne() throws IOException {
    Path file = disk(tmp.newFolder("block").toPath(), "vda", "8192");
    try (DeviceReadAhead ra = DeviceReadAhead.set(file, 128)) {
      assertEquals("128", Files.readString(file).trim());
      assertEquals("8192", ra.before());
    }
    assertEquals("8192", Files.readString(file).trim());
  }

  @Test
  public void badValuesAndMissingFilesFailNamingTheFile() throws IOException {
    Path file = disk(tmp.newFolder("block").toPath(), "vda", "8192");
    assertThrows(IllegalArgumentException.class, () -> DeviceReadAhead.set(file, -1));
    assertEquals("8192", Files.readString(file).trim());
    Path missing = file.resolveSibling("nothing");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> DeviceReadAhead.set(missing, 128));
    assertTrue(e.getMessage(), e.getMessage().contains(missing.toString()));
  }
}
