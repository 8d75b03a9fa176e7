/**
 * A block cache of fixed size off the Java heap, filled by {@code O_DIRECT} reads.
 *
 * <p>{@link dev.pread.cache.BlockCache} owns the memory and the prefetch threads; {@link
 * dev.pread.cache.CachedFile} reads one file through it. {@code dev.pread.store.CachedPreadDirectory}
 * is the Lucene {@code Directory} built on them.
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li><b>Lookup.</b> Each open file has a table with one entry per block of the file: 0, or a
 *       slot and the slot's generation. There is no shared hash map: a lookup is one array read.
 *       A file's table is shared by everything that has the file open.
 *   <li><b>Pinning and generations.</b> Each slot has one state word: generation, a loading flag and
 *       a pin count. A reader pins by CAS only if the generation is the one its table entry named
 *       and the slot is not loading; eviction claims a slot by CAS only from "no pins, not loading",
 *       moving it to the next generation. A reader with a stale entry therefore fails to pin
 *       instead of reading recycled bytes, and a pinned block is never reused.
 *   <li><b>Reading in place without a pin</b> ({@link dev.pread.cache.BlockReader}). An entry is
 *       marked loaded once its block's contents are in, and whoever claims a slot clears the entry
 *       of the block it held before the slot's memory is written. A reader can therefore read a
 *       slot's memory straight away and then check that the entry is unchanged: if so, the bytes
 *       were the block's; if not, it throws them away and looks again. Block memory stays mapped
 *       until the cache closes, so such a read never touches unmapped memory.
 *   <li><b>Hits</b> take no lock and allocate nothing: read the entry, then either pin, copy,
 *       unpin ({@link dev.pread.cache.CachedFile#read}), or read in place and check the entry
 *       again ({@link dev.pread.cache.BlockReader}); count.
 *   <li><b>Misses</b> take the eviction lock only to claim slots for the run of missing blocks the
 *       read needs and mark them loading in the file's table; the read itself (one vectored {@code
 *       preadv} for the run) happens outside the lock. A second reader of a loading block waits for
 *       that read rather than making its own.
 *   <li><b>Eviction</b> is CLOCK with a two-bit use count: blocks read once go first, a hot set
 *       survives scans of once-read blocks, and merges and read-once inputs do not insert at all.
 *   <li><b>Admission</b> (after W-TinyLFU): a count-min sketch of 4-bit counters, halved
 *       periodically, estimates each block's recent uses. A missed block takes CLOCK's victim's slot
 *       only if it was used more often than the victim; otherwise it goes into a window of 1% of
 *       the blocks, replacing the window's oldest (which moves to the main part instead if it was
 *       used more than the victim). Hits update the sketch only while they raise a block's use
 *       count, so a hot block's hits write nothing.
 *   <li><b>Prefetch</b> claims slots on the caller's thread (so that a read right after finds them
 *       loading and waits, instead of reading them twice), then submits one load per run of missing
 *       blocks to a thread pool that hands each load straight to an idle thread, under a cap on
 *       blocks in flight;
 *       what exceeds the cap is dropped and counted.
 * </ul>
 */
package dev.pread.cache;
