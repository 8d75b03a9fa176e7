/**
 * The Lucene-level comparison: index, corpus and seeded query mix, one worker JVM per Directory and
 * regime (warm, cold, pressure, changing memory, throttled disk, merge, noisy neighbour, restart), the
 * disturbances of the merge and neighbour regimes, and dir-cached's sizing under a limit.
 */
package dev.pread.bench.lucene;
