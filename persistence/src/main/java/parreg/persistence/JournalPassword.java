package parreg.persistence;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Where the password of a PostgreSQL journal comes from, first match wins (libpq's order, so that
 * what works for {@code psql} works here):
 *
 * <ol>
 *   <li>the {@code password} parameter of the {@code --journal} URL (visible in the process list:
 *       the others are for that reason), or {@code --journal-password-file FILE}; not both;
 *   <li>the environment variable {@code PGPASSWORD};
 *   <li>the password file: the system property {@code org.postgresql.pgpassfile}, else the
 *       environment variable {@code PGPASSFILE}, else {@code ~/.pgpass} (the files the PostgreSQL
 *       driver 42.7.14 reads, in its order). The driver reads and matches that file itself ({@code
 *       host:port:database:user:password}, {@code *} wildcards), but neither checks its mode nor
 *       knows {@code PGPASSWORD}: both are here. As libpq does, a password file that the group or
 *       others may access is ignored with a warning; the driver is then given an empty password, so
 *       that it does not read that file either.
 * </ol>
 *
 * A {@code --journal-password-file} holds the password on its first line (the line ending is not
 * part of it; spaces are). It must be a regular file that the group and others may not access (mode
 * 0600 or 0400): a readable one is refused, not ignored, since it was named on purpose.
 */
final class JournalPassword {
  /** The system property of the driver's password file. */
  static final String PGPASSFILE_PROPERTY = "org.postgresql.pgpassfile";

  private static final Set<PosixFilePermission> GROUP_OR_OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  /**
   * The outcome: the password for the driver ({@code null}: none given, the driver may still find
   * one in its password file), where it came from (for messages: never the password itself), and a
   * warning for the user, or null.
   */
  record Resolved(String password, String source, String warning) {}

  /** Where this process's settings come from: the environment and system properties. */
  record Sources(UnaryOperator<String> environment, UnaryOperator<String> properties) {
    static Sources system() {
      return new Sources(System::getenv, System::getProperty);
    }
  }

  private JournalPassword() {}

  /**
   * @param inUrl the URL's {@code password} parameter, decoded, or null when it has none
   * @param file {@code --journal-password-file}, or null
   * @throws IllegalArgumentException naming the problem (never the password): both a URL password
   *     and a file, a file that cannot be read, is not a regular file, is open to the group or
   *     others, or holds an empty first line
   */
  static Resolved resolve(String inUrl, Path file, Sources sources) {
    if (file != null) {
      if (inUrl != null && !inUrl.isEmpty()) {
        throw new IllegalArgumentException(
            "the --journal URL has a password and --journal-password-file gives one too: give it"
                + " once (the file keeps it out of the process list)");
      }
      return new Resolved(readFile(file), "--journal-password-file " + file, null);
    }
    if (inUrl != null && !inUrl.isEmpty()) {
      return new Resolved(inUrl, "the --journal URL", null);
    }
    String env = sources.environment().apply("PGPASSWORD");
    if (env != null && !env.isEmpty()) {
      return new Resolved(env, "PGPASSWORD", null);
    }
    Path pgpass = passwordFile(sources);
    if (pgpass != null && openToOthers(pgpass)) {
      return new Resolved(
          "",
          null,
          "password file "
              + pgpass
              + " has group or world access and is ignored, as libpq ignores it; permissions"
              + " should be u=rw (0600) or less (chmod 600 "
              + pgpass
              + ")");
    }
    return new Resolved(null, pgpass == null ? null : pgpass.toString(), null);
  }

  /** The password file the driver would read, or null when there is none. */
  static Path passwordFile(Sources sources) {
    String named = sources.properties().apply(PGPASSFILE_PROPERTY);
    if (named == null || named.isBlank()) {
      named = sources.environment().apply("PGPASSFILE");
    }
    Path p;
    if (named != null && !named.isBlank()) {
      p = Path.of(named.strip());
    } else {
      String home = sources.properties().apply("user.home");
      if (home == null) {
        return null;
      }
      p = Path.of(home, ".pgpass");
    }
    return Files.isRegularFile(p) ? p : null;
  }

  private static String readFile(Path file) {
    String where = "--journal-password-file " + file;
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          where + ": " + (Files.exists(file) ? "not a regular file" : "no such file"));
    }
    if (openToOthers(file)) {
      throw new IllegalArgumentException(
          where
              + ": the group or others may access it; a password file must be the owner's alone"
              + " (chmod 600 "
              + file
              + ")");
    }
    String line;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      line = in.readLine();
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(where + ": no such file");
    } catch (IOException e) {
      // the message of an IOException names the file and the reason, never its content
      throw new IllegalArgumentException(where + ": cannot read it (" + e.getMessage() + ")");
    }
    if (line == null || line.isEmpty()) {
      throw new IllegalArgumentException(where + ": the first line (the password) is empty");
    }
    return line;
  }

  /** Whether the group or others hold any permission on {@code file} (false off POSIX). */
  private static boolean openToOthers(Path file) {
    try {
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
      perms.retainAll(GROUP_OR_OTHERS);
      return !perms.isEmpty();
    } catch (UnsupportedOperationException | IOException e) {
      return false; // no POSIX modes here (or it vanished): nothing to check
    }
  }
}
