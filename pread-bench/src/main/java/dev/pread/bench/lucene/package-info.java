/**
 * The Lucene-level comparison: index, corpus and seeded query mix, one worker JVM per Directory and
 * regime (warm, cold, pressure, changing memory), and dir-cached's sizing under a limit.
 */
package dev.pread.bench.lucene;
