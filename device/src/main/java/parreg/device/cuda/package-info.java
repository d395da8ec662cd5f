/**
 * The CUDA backend of {@link parreg.device.KernelBackend}: JCuda's driver API, PTX kernels built
 * from {@code parreg/kernels/local_sums.cu} (the gradient's local sums) and {@code
 * parreg/kernels/gram_stats.cu} (the exact solver's statistics, {@link
 * parreg.device.cuda.CudaGramPass}); see {@code scripts/build/gen-ptx.sh} and docs/GPU.md.
 *
 * <p>Depends only on {@code parreg.device}, {@code parreg.solver} (the statistics' order and
 * record) and JCuda ({@code jcuda.*}); {@link parreg.device.Backends} loads it by name, so the rest
 * of the program runs where JCuda's native library cannot be loaded.
 */
package parreg.device.cuda;
