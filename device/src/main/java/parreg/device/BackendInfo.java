package parreg.device;

/**
 * Which backend computes a node's gradients and on which device.
 *
 * @param backend "cpu" or "cuda"
 * @param deviceName human name ("NVIDIA H200", or the CPU model)
 * @param deviceUuid the card's UUID ("GPU-..."), or "none" for the CPU
 * @param detail free text: compute capability, driver, thread count
 */
public record BackendInfo(String backend, String deviceName, String deviceUuid, String detail) {}
