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
 *       slot and the slot's generation, marked loaded once the contents are in. There is no shared
 *       hash map: a lookup is one array read. A file's table is shared by everything that has the
 *       file open.
 *   <li><b>The block-state protocol</b> (slot state words with generations, pins and a loading
 *       flag; table entries going empty, loading, loaded, empty) has one owner, {@link
 *       dev.pread.cache.BlockStates}, the only writer of both; its implementation notes state the
 *       transitions, which lock guards which, and the invariants: a pinned or loading block is
 *       never reused, a reader with a stale entry fails to pin instead of reading recycled bytes,
 *       and an entry still unchanged after a read of a slot's memory proves the read saw that
 *       block, which lets {@link dev.pread.cache.BlockReader} read in place without a pin. Block
 *       memory stays mapped until the cache closes, so such a read never touches unmapped memory.
 *   <li><b>Hits</b> take no lock and allocate nothing: read the entry, then either pin, copy,
 *       unpin ({@link dev.pread.cache.CachedFile#read}), or read in place and check the entry
 *       again ({@link dev.pread.cache.BlockReader}); count; and, unless the block's use count is
 *       at its maximum, record the hit in a lossy buffer that the next taker of the eviction lock
 *       applies to the policy.
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
 *       used more than the victim). Hits count in the sketch only while they raise a block's use
 *       count, so a hot block's hits write nothing.
 *   <li><b>Prefetch</b> claims slots on the caller's thread (so that a read right after finds them
 *       loading and waits, instead of reading them twice), then submits one load per run of missing
 *       blocks to a thread pool that hands each load straight to an idle thread, under a cap on
 *       blocks in flight; what exceeds the cap, or cannot start (the pool cannot make a thread),
 *       is dropped, counted, and its slots given back.
 * </ul>
 */
package dev.pread.cache;
