package dev.pread.cache;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: one read from storage, or copy from the page cache, into the cache (or around it). Committed
 * when the read ends.
 */
@Name("dev.pread.cache.BlockLoad")
@Label("Block Cache Load")
@Category({"pread", "Block Cache"})
@Description("A read of one or more adjacent blocks from storage")
@StackTrace(false)
final class BlockLoadEvent extends jdk.jfr.Event {
  @Label("File")
  String path;

  @Label("Offset")
  @DataAmount
  long offset;

  @Label("Bytes")
  @DataAmount
  long bytes;

  @Label("Blocks")
  int blocks;

  @Label("Kind")
  @Description("demand, prefetch or read-around")
  String kind;

  @Label("Failed")
  boolean failed;

  @Label("From Page Cache")
  @Description("copied from the page cache with a buffered read, which held every page of it")
  boolean pageCache;

  @Label("Idle I/O Class")
  @Description("read from storage in the idle I/O class (BlockCache.Builder#idleReadsAround)")
  boolean idle;

  @Label("First I/O Level")
  @Description("read from storage at the highest best-effort I/O level, or in the real-time class with dev.pread.io.realtime: a query's demand load, prefetch or read around")
  boolean first;
}
