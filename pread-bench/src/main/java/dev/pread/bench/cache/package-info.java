/**
 * The block-cache sections of dir-cached: its cache settings and counters, and Zipf-skewed reads
 * under pressure in worker JVMs.
 */
package dev.pread.bench.cache;
