package parreg.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code bin/parreg}: dispatches to the subcommands, maps errors to exit codes. */
@Command(
    name = "parreg",
    mixinStandardHelpOptions = true,
    version = "parreg 0.1.0",
    description = "Distributed, GPU-backed, crash-proof trainer for regression models.",
    subcommands = {CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  /** Exit codes of SPEC section 4. */
  public static final int OK = 0;

  public static final int USAGE = 2;
  public static final int RUNTIME = 1;

  @Override
  public void run() {
    throw new UserError("a command is required (see parreg --help)");
  }

  public static void main(String[] args) {
    parreg.metrics.StartupTrace.mark("main");
    int code;
    try {
      code = execute(args);
    } catch (Throwable t) {
      // An Error escaping a command (a class missing from a trimmed runtime, say) must still end
      // the process: Pekko's non-daemon threads would otherwise keep it alive.
      System.err.println("parreg: fatal: " + t);
      code = RUNTIME;
    }
    System.exit(code);
  }

  /** Runs the command line and returns the exit code (tests call this). */
  public static int execute(String... args) {
    CommandLine cl = commandLine();
    return cl.execute(args);
  }

  /** Same, with picocli's messages (usage errors, user errors) written to {@code err}. */
  public static int execute(java.io.PrintWriter err, String... args) {
    CommandLine cl = commandLine();
    cl.setErr(err);
    return cl.execute(args);
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.addSubcommand(new DemoCommand());
    cl.addSubcommand(new NodeCommand());
    cl.getSubcommands()
        .get("node")
        .setDefaultValueProvider(new EnvironmentDefaults(System.getenv()));
    cl.addSubcommand(new StatusCommand());
    cl.addSubcommand(new PredictCommand());
    cl.addSubcommand(new EvaluateCommand());
    cl.addSubcommand(new HistoryCommand());
    cl.addSubcommand(new ExportCommand());
    cl.addSubcommand(new SummaryCommand());
    cl.addSubcommand(new FitCommand());
    cl.addSubcommand(new JournalCommand());
    cl.addSubcommand("generate", new GenerateCommand());
    cl.addSubcommand("convert", new ConvertCommand());
    cl.addSubcommand("keys", new KeysCommand());
    cl.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          // The messages show journal locations without their secrets already; an exception of a
          // library that quotes an argument is covered too.
          String[] args = parsed.originalArgs().toArray(String[]::new);
          if (ex instanceof UserError) {
            cmd.getErr().println("parreg: " + withoutSecrets(ex.getMessage(), args));
            return USAGE;
          }
          // Runtime failures of this code carry a message written for the user; others keep their
          // type.
          cmd.getErr()
              .println(
                  "parreg: error: "
                      + withoutSecrets(
                          ex instanceof IllegalStateException && ex.getMessage() != null
                              ? ex.getMessage()
                              : ex.toString(),
                          args));
          if (System.getenv("PARREG_DEBUG") != null) {
            ex.printStackTrace(cmd.getErr());
          }
          return RUNTIME;
        });
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          CommandLine cmd = ex.getCommandLine();
          // picocli's messages quote the values given (an option group's, an unmatched argument)
          cmd.getErr().println("parreg: " + withoutSecrets(ex.getMessage(), args));
          cmd.getErr().println("usage: " + cmd.getCommandSpec().qualifiedName() + " --help");
          return USAGE;
        });
    return cl;
  }

  /**
   * {@code message} with every argument that is a journal URL with secrets shown as {@link
   * parreg.persistence.JournalLocation#display(String)} shows it: without them.
   */
  static String withoutSecrets(String message, String[] args) {
    if (message == null) {
      return null;
    }
    String out = message;
    for (String a : args) {
      int eq = a.startsWith("--") ? a.indexOf('=') : -1;
      for (String value : eq > 0 ? new String[] {a, a.substring(eq + 1)} : new String[] {a}) {
        String shown = parreg.persistence.JournalLocation.display(value);
        if (!shown.equals(value.strip())) {
          out = out.replace(value, shown);
        }
      }
    }
    return out;
  }
}
