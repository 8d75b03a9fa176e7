/**
 * Raw reads of one data file: the read strategies, opened by name through {@link
 * dev.pread.bench.raw.StrategyRegistry} (which also opens the Lucene comparison's Directories), and
 * the runs that time them: warm, cold, batched prefetch, prefetch distance and latency, and the
 * pressure worker.
 */
package dev.pread.bench.raw;
