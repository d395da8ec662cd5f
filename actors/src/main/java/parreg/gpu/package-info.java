/**
 * The GPU actor (SPEC section 3): {@link parreg.gpu.GpuActor} owns the device on its own thread,
 * keeps the partition resident and serialises launches, each awaited through its fence; {@link
 * parreg.gpu.DeviceStart} opens the device and loads the partition; {@link
 * parreg.gpu.DeviceEvidence} writes the evidence file (SPEC section 6).
 *
 * <p>May depend on {@code parreg.device}, {@code parreg.settings} and {@code parreg.metrics}.
 */
package parreg.gpu;
