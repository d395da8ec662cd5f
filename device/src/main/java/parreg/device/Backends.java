package parreg.device;

import java.lang.reflect.InvocationTargetException;

/**
 * Chooses a backend from the deployment inputs {@code --backend auto|cpu|cuda} and {@code --device
 * UUID-or-ordinal}. The CUDA backend is looked up by name so that this class loads (and the CPU
 * backend works) on machines where JCuda's native library cannot be loaded.
 *
 * <p>A device named explicitly ({@code --device}) binds exactly, under {@code auto} too: if no such
 * card answers, the selection fails instead of falling back to the CPU. Without one, {@code auto}
 * tries card 0 and picks the CPU where none answers; {@code cuda} requires card 0.
 */
public final class Backends {
  static final String CUDA_FACTORY = "parreg.device.cuda.CudaBackend";

  private Backends() {}

  /** The outcome of a selection: the backend and a sentence saying what was picked and why. */
  public record Selection(KernelBackend backend, String reason) {}

  public static Selection select(String backend, String device) throws BackendUnavailableException {
    String kind = backend == null ? "auto" : backend;
    switch (kind) {
      case "cpu":
        return new Selection(new CpuBackend(), "backend cpu (requested)");
      case "cuda":
        return new Selection(openCuda(device), "backend cuda (requested)");
      case "auto":
        if (device != null) {
          // Binding is exact: a card the user named must be there; auto only decides where none was
          // named.
          KernelBackend b = openCuda(device);
          return new Selection(
              b,
              "backend auto: picked cuda, the card named by --device, "
                  + b.info().deviceName()
                  + " "
                  + b.info().deviceUuid());
        }
        try {
          KernelBackend b = openCuda(device);
          return new Selection(
              b,
              "backend auto: picked cuda, " + b.info().deviceName() + " " + b.info().deviceUuid());
        } catch (BackendUnavailableException e) {
          return new Selection(
              new CpuBackend(), "backend auto: picked cpu (" + e.getMessage() + ")");
        }
      default:
        throw new BackendUnavailableException(
            "unknown backend '" + kind + "': use auto, cpu or cuda");
    }
  }

  private static KernelBackend openCuda(String device) throws BackendUnavailableException {
    try {
      Class<?> c = Class.forName(CUDA_FACTORY);
      return (KernelBackend)
          c.getMethod("open", String.class).invoke(null, device == null ? "0" : device);
    } catch (ClassNotFoundException e) {
      throw new BackendUnavailableException("this build has no CUDA backend");
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof BackendUnavailableException b) {
        throw b;
      }
      throw new BackendUnavailableException("no usable CUDA device: " + t, t);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new BackendUnavailableException("no usable CUDA device: " + e, e);
    }
  }
}
