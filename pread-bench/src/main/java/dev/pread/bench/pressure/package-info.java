/**
 * Memory pressure: memory cgroups and their files, worker JVMs and their spec and result files, the
 * memory hog of the changing-memory regime, and the steady state a pressure cell starts from.
 */
package dev.pread.bench.pressure;
