package dev.pread.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.lucene.util.IOUtils;

/**
 * The record of a directory's hot set: for each file, its name, length, identity and the byte
 * ranges that were cached; and how it is stored in the file {@value #FILE_NAME} of the index
 * directory.
 *
 * <p><b>Format</b> (big-endian): the magic {@code "PRHS"}, the version ({@value #VERSION}), the
 * number of entries; per entry the name's length and UTF-8 bytes, the file's length, its identity
 * (the last 8 bytes of the file: a Lucene codec footer's checksum), the number of ranges and each
 * range's start and end; then a CRC-32C of everything before it. {@link #decode} accepts nothing
 * else: a wrong magic, version or checksum, a truncated or over-long record, an invalid name,
 * ranges out of order, overlapping or beyond their file's length all make it throw.
 *
 * <p><b>Writing</b> ({@link #write}) is crash-safe: the bytes go to {@value #TEMP_NAME}, which is
 * synced, renamed over {@value #FILE_NAME} atomically, and the directory is synced. A crash leaves
 * the old record, the new one, or a temporary file that the next write replaces.
 *
 * <p>Immutable and thread-safe; {@link #write} serializes writers within the JVM.
 */
final class HotSetRecord {
  /**
   * The record's file name: Lucene never creates, lists as its own or deletes such a name (its
   * files start with {@code _}, {@code segments} or {@code pending_segments}, or are {@code
   * write.lock}); the directories hide it from {@code listAll()}.
   */
  static final String FILE_NAME = "pread-hotset";

  /** The temporary file a record is written to before it is renamed over {@link #FILE_NAME}. */
  static final String TEMP_NAME = "pread-hotset.tmp";

  static final int MAGIC = 0x50524853; // "PRHS"
  static final int VERSION = 1;

  /** Records larger than this are not read (nor written: see {@link #MAX_RANGES}). */
  static final int MAX_BYTES = 64 << 20;

  /** Most ranges a record holds, across its entries. */
  static final int MAX_RANGES = 1 << 20;

  private static final int MAX_NAME_BYTES = 1024;
  private static final Object WRITE_LOCK = new Object();

  /**
   * One file of a record.
   *
   * @param ranges start and end (exclusive) of each range, in pairs, sorted and disjoint
   */
  record Entry(String name, long length, long identity, long[] ranges) {
    int rangeCount() {
      return ranges.length / 2;
    }

    long bytes() {
      long sum = 0;
      for (int i = 0; i < ranges.length; i += 2) {
        sum += ranges[i + 1] - ranges[i];
      }
      return sum;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e
          && name.equals(e.name)
          && length == e.length
          && identity == e.identity
          && Arrays.equals(ranges, e.ranges);
    }

    @Override
    public int hashCode() {
      return name.hashCode() * 31 + Arrays.hashCode(ranges);
    }
  }

  final List<Entry> entries;

  HotSetRecord(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  long ranges() {
    long n = 0;
    for (Entry e : entries) {
      n += e.rangeCount();
    }
    return n;
  }

  long bytes() {
    long n = 0;
    for (Entry e : entries) {
      n += e.bytes();
    }
    return n;
  }

  /** The entry for {@code name}, or null. */
  Entry entry(String name) {
    for (Entry e : entries) {
      if (e.name.equals(name)) {
        return e;
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HotSetRecord r && entries.equals(r.entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  /** This record in the format of the class comment. */
  byte[] encode() {
    long size = 12 + 4;
    for (Entry e : entries) {
      size += 2 + e.name.getBytes(StandardCharsets.UTF_8).length + 8 + 8 + 4 + 8L * e.ranges.length;
    }
    if (size > MAX_BYTES) {
      throw new IllegalArgumentException("hot-set record of " + size + " bytes exceeds " + MAX_BYTES);
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    b.putInt(MAGIC).putInt(VERSION).putInt(entries.size());
    for (Entry e : entries) {
      byte[] name = e.name.getBytes(StandardCharsets.UTF_8);
      b.putShort((short) name.length).put(name).putLong(e.length).putLong(e.identity).putInt(e.rangeCount());
      for (long v : e.ranges) {
        b.putLong(v);
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * The record {@code bytes} hold.
   *
   * @throws IOException saying what is wrong, if they are not exactly a valid record
   */
  static HotSetRecord decode(byte[] bytes) throws IOException {
    if (bytes.length < 16) {
      throw new IOException("too short (" + bytes.length + " bytes)");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != MAGIC) {
      throw new IOException("bad magic");
    }
    int version = b.getInt();
    if (version != VERSION) {
      throw new IOException("unknown version " + version);
    }
    if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
      throw new IOException("checksum mismatch");
    }
    b.limit(bytes.length - 4);
    int count = b.getInt();
    // each entry takes at least 22 bytes
    if (count < 0 || count > b.remaining() / 22) {
      throw new IOException("invalid entry count " + count);
    }
    List<Entry> entries = new ArrayList<>(count);
    long totalRanges = 0;
    String previous = null;
    try {
      for (int i = 0; i < count; i++) {
        int nameLength = Short.toUnsignedInt(b.getShort());
        if (nameLength == 0 || nameLength > MAX_NAME_BYTES) {
          throw new IOException("invalid name length " + nameLength);
        }
        byte[] nameBytes = new byte[nameLength];
        b.get(nameBytes);
        String name = decodeName(nameBytes);
        if (previous != null && previous.compareTo(name) >= 0) {
          throw new IOException("entries out of order at " + name);
        }
        previous = name;
        long length = b.getLong();
        long identity = b.getLong();
        int ranges = b.getInt();
        if (length < 0 || ranges < 0 || ranges > b.remaining() / 16) {
          throw new IOException("invalid entry " + name + ": length " + length + ", " + ranges + " ranges");
        }
        totalRanges += ranges;
        if (totalRanges > MAX_RANGES) {
          throw new IOException("more than " + MAX_RANGES + " ranges");
        }
        long[] values = new long[ranges * 2];
        long end = 0;
        for (int r = 0; r < values.length; r += 2) {
          long start = b.getLong();
          long stop = b.getLong();
          if (start < end || stop <= start || stop > length) {
            throw new IOException("invalid range [" + start + ", " + stop + ") of " + name + " (length " + length + ")");
          }
          values[r] = start;
          values[r + 1] = stop;
          end = stop;
        }
        entries.add(new Entry(name, length, identity, values));
      }
    } catch (java.nio.BufferUnderflowException e) {
      throw new IOException("truncated");
    }
    if (b.hasRemaining()) {
      throw new IOException(b.remaining() + " bytes after the last entry");
    }
    return new HotSetRecord(entries);
  }

  private static String decodeName(byte[] bytes) throws IOException {
    String name;
    try {
      name =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw new IOException("name is not UTF-8");
    }
    if (name.equals(".") || name.equals("..") || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
      throw new IOException("invalid file name \"" + name + "\"");
    }
    return name;
  }

  /**
   * The record in {@code directory} (a real path), or null if there is none.
   *
   * @throws IOException if it cannot be read or is not a valid record
   */
  static HotSetRecord read(Path directory) throws IOException {
    return uninterrupted(() -> readUninterrupted(directory));
  }

  /** A file channel's call, which an interrupt would fail by closing the channel. */
  @FunctionalInterface
  private interface ChannelCall<T> {
    T call() throws IOException;
  }

  /**
   * Runs {@code call} with the thread's interrupt status cleared and sets it again after: a
   * directory may be closed, and its record written, on an interrupted thread (a cancelled task, a
   * node shutting down). An interrupt that arrives during the call still fails it.
   */
  private static <T> T uninterrupted(ChannelCall<T> call) throws IOException {
    boolean interrupted = Thread.interrupted();
    try {
      return call.call();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static HotSetRecord readUninterrupted(Path directory) throws IOException {
    Path file = directory.resolve(FILE_NAME);
    byte[] bytes;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size > MAX_BYTES) {
        throw new IOException("larger than " + MAX_BYTES + " bytes");
      }
      ByteBuffer buffer = ByteBuffer.allocate((int) size);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // read on
      }
      bytes = Arrays.copyOf(buffer.array(), buffer.position());
    } catch (NoSuchFileException e) {
      return null;
    }
    return decode(bytes);
  }

  /**
   * Writes this record to {@code directory} (a real path) crash-safely; see the class comment. Read
   * and written with the thread's interrupt status cleared ({@link #uninterrupted}); an interrupt
   * that arrives during the write still fails it, and the record is a hint.
   */
  void write(Path directory) throws IOException {
    uninterrupted(() -> {
      writeUninterrupted(directory);
      return null;
    });
  }

  private void writeUninterrupted(Path directory) throws IOException {
    byte[] bytes = encode();
    Path temp = directory.resolve(TEMP_NAME);
    synchronized (WRITE_LOCK) {
      try (FileChannel channel =
          FileChannel.open(
              temp, StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, directory.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.deleteIfExists(temp);
        throw e;
      }
      IOUtils.fsync(directory, true);
    }
  }
}
