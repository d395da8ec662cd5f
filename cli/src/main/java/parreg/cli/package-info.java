/**
 * The command line ({@code bin/parreg}): one picocli subcommand per verb. User errors are thrown as
 * {@link parreg.cli.UserError} and end in exit code 2 with one line on stderr, never a stack trace.
 * May depend on every other package.
 */
package parreg.cli;
