/**
 * Benchmark programs (STYLE: programs that print figures, kept out of the unit tests): the CPU
 * gradient throughput of the fast and reference kernels, and partition loading. Run them through
 * {@code scripts/bench/cpu.sh} and {@code scripts/bench/load.sh}; figures in BENCHMARKS.md. May
 * depend on {@code parreg.device} and its subpackages.
 */
package parreg.bench;
