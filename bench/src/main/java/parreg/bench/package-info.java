/**
 * Benchmark programs (STYLE: programs that print figures, kept out of the unit tests): the CPU
 * gradient throughput of the fast and reference kernels, and partition loading. Run them through
 * {@code scripts/bench/cpu.sh} and {@code scripts/bench/load.sh}; figures in BENCHMARKS.md; what
 * the metrics and the cluster port's framing guard cost a step ({@code MetricsCostBench}, {@code
 * FramingGuardBench}). May depend on {@code parreg.device} and its subpackages, and on the node
 * packages it measures.
 */
package parreg.bench;
