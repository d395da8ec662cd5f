/**
 * The numerical core of parreg (SPEC sections 1, 2 and 5): the run contract, partitions and
 * batches, the documented reduction order, the CPU reference kernel, the combination and update
 * rule, and the {@link parreg.device.KernelBackend} interface behind which the CPU and CUDA
 * backends sit.
 *
 * <p>Plain Java: this package must not depend on Pekko, on {@code parreg.persistence} or on the
 * node's packages (enforced by {@code ArchitectureTest}).
 */
package parreg.device;
