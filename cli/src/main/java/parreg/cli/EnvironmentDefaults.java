package parreg.cli;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Defaults of a command's options from the environment: {@code --bind-host} from {@code
 * PARREG_BIND_HOST}, {@code --exit-when-done} from {@code PARREG_EXIT_WHEN_DONE=true}, and so on
 * for every option but help and version. The precedence is flags > environment > {@code --config} >
 * defaults: a flag on the command line wins, and an option the environment sets is a flag as far as
 * the configuration is concerned. Containers and service managers set a node's deployment this way
 * without a wrapper script.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {
  private final Map<String, String> env;

  EnvironmentDefaults(Map<String, String> env) {
    this.env = env;
  }

  /** The variable of an option: {@code PARREG_} and its longest name in upper snake case. */
  static String variable(OptionSpec o) {
    return "PARREG_"
        + o.longestName().replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec o) || o.usageHelp() || o.versionHelp()) {
      return null;
    }
    return env.get(variable(o));
  }
}
