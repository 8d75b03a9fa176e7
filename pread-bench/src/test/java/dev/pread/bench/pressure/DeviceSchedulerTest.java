package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Reading a disk's I/O scheduler and refusing one it does not offer, on a fake sysfs tree. */
public class DeviceSchedulerTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private Path disk(Path sysBlock, String name, String contents) throws IOException {
    Path queue = Files.createDirectories(sysBlock.resolve(name).resolve("queue"));
    return Files.writeString(queue.resolve("scheduler"), contents + "\n");
  }

  @Test
  public void theSchedulerInUseIsTheBracketedOne() {
    assertEquals("mq-deadline", DeviceScheduler.active("none [mq-deadline] kyber bfq\n"));
    assertEquals("none", DeviceScheduler.active("[none] mq-deadline"));
    assertEquals("bfq", DeviceScheduler.active("none mq-deadline kyber [bfq]"));
    assertNull(DeviceScheduler.active("none mq-deadline"));
    assertNull(DeviceScheduler.active(""));
    assertEquals(List.of("none", "mq-deadline", "kyber", "bfq"), DeviceScheduler.offered("none [mq-deadline] kyber bfq\n"));
  }

  @Test
  public void aPartitionHasItsDisksScheduler() throws IOException {
    Path sysBlock = tmp.newFolder("block").toPath();
    Path vda = disk(sysBlock, "vda", "none [mq-deadline] kyber bfq");
    Files.createDirectories(sysBlock.resolve("vda1"));
    assertEquals(Optional.of(vda), QueueSetting.queueFile(sysBlock, "/dev/vda1", "scheduler"));
    assertEquals(Optional.empty(), QueueSetting.queueFile(sysBlock, "/dev/sdz", "scheduler"));
  }

  @Test
  public void aSchedulerNotOfferedOrAMissingFileFailsNamingTheFile() throws IOException {
    Path file = disk(tmp.newFolder("block").toPath(), "vda", "none [mq-deadline] kyber");
    IOException e = assertThrows(IOException.class, () -> DeviceScheduler.set(file, "bfq"));
    assertTrue(e.getMessage(), e.getMessage().contains(file.toString()) && e.getMessage().contains("does not offer bfq"));
    assertEquals("left as it was", "none [mq-deadline] kyber", Files.readString(file).trim());
    Path odd = disk(tmp.newFolder("odd").toPath(), "vda", "none mq-deadline");
    e = assertThrows(IOException.class, () -> DeviceScheduler.set(odd, "none"));
    assertTrue(e.getMessage(), e.getMessage().contains(odd.toString()));
    Path missing = file.resolveSibling("nothing");
    NoSuchFileException m = assertThrows(NoSuchFileException.class, () -> DeviceScheduler.set(missing, "bfq"));
    assertTrue(m.getMessage(), m.getMessage().contains(missing.toString()));
  }
}
