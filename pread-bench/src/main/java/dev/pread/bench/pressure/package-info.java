/**
 * Memory pressure: memory cgroups and their files, worker JVMs and their spec and result files, the
 * memory hog of the changing-memory regime, the steady state a pressure cell starts from, the I/O
 * cgroup of the throttled regime and the dirty page limits of the merge regime on cgroup v1.
 */
package dev.pread.bench.pressure;
