package parreg.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Where a node's journal lives: the value of {@code --journal DIR-or-JDBC-URL}.
 *
 * <ul>
 *   <li>A directory (existing, or creatable): an embedded H2 file database {@code
 *       DIR/journal.mv.db}, URL {@code
 *       jdbc:h2:file:DIR/journal;WRITE_DELAY=0;COMPRESS=TRUE;DB_CLOSE_ON_EXIT=FALSE}, user {@code
 *       sa}. {@code WRITE_DELAY=0} because H2's MVStore otherwise writes committed transactions to
 *       the file in the background about once a second, and a {@code kill -9} loses what was
 *       acknowledged in that second (measured: about 750 of 266,000 committed rows lost; none with
 *       {@code WRITE_DELAY=0}, see STACK.md). SPEC section 3 needs an acknowledged write to be on
 *       disk. {@code COMPRESS=TRUE} keeps the file small (issue 13 item 6; BENCHMARKS.md, "Journal
 *       size"): compressed pages (LZF; the rows repeat their persistence id, writer and manifests)
 *       store a row in fewer bytes than its raw columns, and each commit's chunk is smaller. The
 *       rewriting of partly dead chunks is {@link H2Compaction}'s. H2's {@code RETENTION_TIME} (45
 *       s: how long a dead chunk is kept before its space is reused) stays as it is. Once H2 writes
 *       commits into reused space, a kill -9 can lose the last acknowledged commits: with a
 *       retention of 0 or 1000 ms, 1 to 3 of a few hundred in 8 of 16 trials of 4 s; with the
 *       default retention none in 11 such trials, but after 60 s of commits (space reused) 11 and
 *       20 with this URL before compression and compaction, 1 and 0 with them (BENCHMARKS.md,
 *       "Journal size"). A node that comes back behind is served the missing steps by its peers
 *       (SPEC section 3), but a shorter retention would make that more frequent. {@code
 *       DB_CLOSE_ON_EXIT=FALSE}: H2 would otherwise close the database in its own JVM shutdown hook
 *       while the node's orderly shutdown (SIGTERM) still persists its last step.
 *   <li>{@code jdbc:postgresql://HOST[:PORT]/DB[?user=U&...]}: PostgreSQL; user from the URL's
 *       {@code user} parameter, else {@code postgres}; the password from the URL's {@code password}
 *       parameter, {@code --journal-password-file}, {@code PGPASSWORD} or the password file ({@link
 *       JournalPassword} says in which order). A {@code user:password@} before the host is refused:
 *       the driver would take it for a host name and print it.
 *   <li>{@code jdbc:h2:file:PATH[;...]}: H2 at an explicit path; {@code ;WRITE_DELAY=0} and {@code
 *       ;COMPRESS=TRUE} are appended unless the URL sets them itself (then they are respected: a
 *       test may want delayed durability on purpose); user from {@code ;USER=}, else {@code sa}.
 * </ul>
 *
 * Anything else is an {@link IllegalArgumentException} whose message names the problem.
 *
 * <p>Secrets ({@code password}, {@code sslpassword}, any parameter {@link JournalUrl#isSecret}
 * names) are taken out of the URL: the driver and the connection pool get the URL without them
 * ({@link #jdbcUrl}) and the secrets as connection properties, so no message of theirs that echoes
 * the URL can carry one; every form that is shown ({@link #display}, {@link #toString}, every
 * message of this class) is built from the parts without them.
 *
 * <p>{@link #parse} has no side effect; {@link #openConnection} creates the H2 directory when
 * missing; {@link #openExistingConnection} (for the CLI's readers) refuses to create anything.
 *
 * <p>An embedded H2 database is locked by the process that has it open: a second process cannot
 * open a running node's journal; the CLI's readers read a snapshot of it ({@link JournalReading}).
 */
public final class JournalLocation {

  /** Name of the H2 database inside a journal directory (files {@code journal.mv.db} …). */
  public static final String H2_DATABASE_NAME = "journal";

  private static final String STEP_LOG_SUFFIX = ".steplog";

  /** The classpath resource with the static persistence configuration. */
  public static final String PERSISTENCE_CONF = "persistence.conf";

  /** The H2 settings every embedded journal gets (see the class comment), by name. */
  private static final Map<String, String> H2_SETTINGS = new LinkedHashMap<>();

  static {
    H2_SETTINGS.put("WRITE_DELAY", "WRITE_DELAY=0");
    H2_SETTINGS.put("COMPRESS", "COMPRESS=TRUE");
  }

  private static final String SLICK = "pekko-persistence-jdbc.shared-databases.slick";
  private static final Pattern URL_LIKE = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:(//)?.*");

  private final String shown; // display(): the value as given, its secrets left out
  private final JournalDialect dialect;
  private final String jdbcUrl; // without secrets
  private final String user;
  private final String password; // for the driver; null: none given (the driver may find one)
  private final Map<String, String> secrets; // other secret connection properties (sslpassword)
  private final List<String> warnings;
  private final Path directory; // H2 directory form only, else null

  private JournalLocation(
      String shown,
      JournalDialect dialect,
      String jdbcUrl,
      String user,
      String password,
      Map<String, String> secrets,
      List<String> warnings,
      Path directory) {
    this.shown = shown;
    this.dialect = dialect;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.secrets = Map.copyOf(secrets);
    this.warnings = List.copyOf(warnings);
    this.directory = directory;
  }

  /**
   * Parses a {@code --journal} value, the password (of a PostgreSQL journal) from the URL, {@code
   * PGPASSWORD} or the password file. Does not touch the file system beyond reading it.
   *
   * @throws IllegalArgumentException naming the problem: blank, an existing non-directory, a
   *     directory that could not be created (no existing writable ancestor directory), a URL that
   *     is not a supported JDBC URL
   */
  public static JournalLocation parse(String value) {
    return parse(value, null);
  }

  /**
   * As {@link #parse(String)}, with {@code --journal-password-file} ({@code passwordFile}, or
   * null): see {@link JournalPassword}.
   *
   * @throws IllegalArgumentException also for a password file that cannot be used, one given with a
   *     password in the URL too, or one given for a journal that is not PostgreSQL
   */
  public static JournalLocation parse(String value, Path passwordFile) {
    return parse(value, passwordFile, JournalPassword.Sources.system());
  }

  static JournalLocation parse(String value, Path passwordFile, JournalPassword.Sources sources) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("--journal needs a directory or a JDBC URL, got nothing");
    }
    String v = value.strip();
    String lower = v.toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:postgresql:")) {
      return postgres(v, passwordFile, sources);
    }
    if (passwordFile != null) {
      throw new IllegalArgumentException(
          "--journal-password-file is for a PostgreSQL journal (jdbc:postgresql://...), not for "
              + display(v));
    }
    if (lower.startsWith("jdbc:h2:")) {
      return h2Url(v);
    }
    if (lower.startsWith("jdbc:")) {
      throw new IllegalArgumentException(
          "unsupported journal URL "
              + display(v)
              + " (supported: a directory, jdbc:postgresql://HOST:PORT/DB, jdbc:h2:file:PATH)");
    }
    // "postgres://..." or "file:/..." would otherwise become odd relative directories.
    if (URL_LIKE.matcher(v).matches()) {
      throw new IllegalArgumentException(
          "journal "
              + display(v)
              + " looks like a URL but is not a supported JDBC URL (use jdbc:postgresql://HOST:PORT/DB"
              + " or a directory)");
    }
    return directory(v);
  }

  /**
   * How a {@code --journal} value is shown, whether it parses or not: a directory as given; a URL
   * as given but for its secrets (every parameter {@link JournalUrl#isSecret} names, and a {@code
   * user:password@} before the host), which are left out. The one form of a journal location in any
   * message, log line, status or output.
   */
  public static String display(String value) {
    if (value == null) {
      return "";
    }
    String v = value.strip();
    return URL_LIKE.matcher(v).matches() ? JournalUrl.of(v).withoutSecrets() : v;
  }

  private static JournalLocation directory(String v) {
    if (v.indexOf(';') >= 0) {
      throw new IllegalArgumentException("journal directory must not contain ';': " + v);
    }
    Path dir;
    try {
      dir = Path.of(v).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("journal directory is not a valid path: " + v, e);
    }
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new IllegalArgumentException("journal " + v + " exists and is not a directory");
      }
      if (!Files.isWritable(dir)) {
        throw new IllegalArgumentException("journal directory " + v + " is not writable");
      }
    } else {
      Path ancestor = dir.getParent();
      while (ancestor != null && !Files.exists(ancestor)) {
        ancestor = ancestor.getParent();
      }
      if (ancestor == null || !Files.isDirectory(ancestor) || !Files.isWritable(ancestor)) {
        throw new IllegalArgumentException(
            "journal directory "
                + v
                + " does not exist and cannot be created"
                + (ancestor == null ? "" : " (" + ancestor + " is not a writable directory)"));
      }
    }
    String url =
        "jdbc:h2:file:"
            + dir.resolve(H2_DATABASE_NAME)
            + ";"
            + String.join(";", H2_SETTINGS.values())
            + ";DB_CLOSE_ON_EXIT=FALSE";
    return new JournalLocation(v, JournalDialect.H2, url, "sa", "", Map.of(), List.of(), dir);
  }

  private static JournalLocation h2Url(String v) {
    String lower = v.toLowerCase(Locale.ROOT);
    if (!lower.startsWith("jdbc:h2:file:")) {
      throw new IllegalArgumentException(
          "unsupported H2 journal URL "
              + display(v)
              + " (only jdbc:h2:file:PATH, or give a directory)");
    }
    JournalUrl parts = JournalUrl.of(v);
    Map<String, String> settings = parts.settings();
    // The password goes to H2 as a connection property, not in the URL.
    StringBuilder url = new StringBuilder(parts.withoutSecrets());
    H2_SETTINGS.forEach(
        (key, setting) -> {
          if (!settings.containsKey(key)) {
            url.append(';').append(setting);
          }
        });
    String user = settings.getOrDefault("USER", "sa");
    String password = settings.getOrDefault("PASSWORD", "");
    return new JournalLocation(
        parts.withoutSecrets(),
        JournalDialect.H2,
        url.toString(),
        user,
        password,
        Map.of(),
        List.of(),
        null);
  }

  private static JournalLocation postgres(
      String v, Path passwordFile, JournalPassword.Sources sources) {
    JournalUrl parts = JournalUrl.of(v);
    String shown = parts.withoutSecrets();
    if (parts.hasUserInfo()) {
      throw new IllegalArgumentException(
          "PostgreSQL journal URL "
              + shown
              + ": a user or password before the host (USER:PASSWORD@HOST) is not read by the"
              + " driver, which would take it for a host name; give ?user=USER and the password in"
              + " --journal-password-file, PGPASSWORD or ~/.pgpass");
    }
    String rest = parts.head().substring("jdbc:postgresql:".length());
    if (!rest.startsWith("//") || rest.length() <= 2) {
      throw new IllegalArgumentException(
          "PostgreSQL journal URL must look like jdbc:postgresql://HOST:PORT/DB, got " + shown);
    }
    String hostAndDb = rest.substring(2);
    int slash = hostAndDb.indexOf('/');
    if (slash <= 0 || slash == hostAndDb.length() - 1) {
      throw new IllegalArgumentException(
          "PostgreSQL journal URL must name a host and a database (jdbc:postgresql://HOST:PORT/DB),"
              + " got "
              + shown);
    }
    Map<String, String> params;
    try {
      params = parts.query();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("PostgreSQL journal URL " + shown + ": " + e.getMessage());
    }
    String user = params.getOrDefault("user", "postgres");
    JournalPassword.Resolved password =
        JournalPassword.resolve(params.get("password"), passwordFile, sources);
    return new JournalLocation(
        shown,
        JournalDialect.POSTGRES,
        shown,
        user,
        password.password(),
        parts.otherQuerySecrets(),
        password.warning() == null ? List.of() : List.of(password.warning()),
        null);
  }

  public JournalDialect dialect() {
    return dialect;
  }

  /**
   * The JDBC URL used by pekko-persistence-jdbc and by {@link #openConnection}: without secrets
   * (they go to the driver as connection properties).
   */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  public String user() {
    return user;
  }

  /** The password, empty when none. */
  public String password() {
    return password == null ? "" : password;
  }

  /**
   * What the user should know about the credentials (a password file ignored for its mode), one
   * line each; empty when nothing.
   */
  public List<String> warnings() {
    return warnings;
  }

  /** The journal directory, for the directory form only. */
  public Optional<Path> directory() {
    return Optional.ofNullable(directory);
  }

  /**
   * Where an embedded H2 journal keeps its step log ({@link StepLog}): {@code DIR/journal.steplog}
   * beside {@code DIR/journal.mv.db}, or {@code PATH.steplog} beside {@code PATH.mv.db} for {@code
   * jdbc:h2:file:PATH} ({@code ~} is the home directory, as for H2). Empty for PostgreSQL, which
   * commits each step itself.
   */
  public Optional<Path> stepLogDirectory() {
    if (dialect != JournalDialect.H2) {
      return Optional.empty();
    }
    if (directory != null) {
      return Optional.of(directory.resolve(H2_DATABASE_NAME + STEP_LOG_SUFFIX));
    }
    String path = jdbcUrl.substring("jdbc:h2:file:".length());
    int semicolon = path.indexOf(';');
    path = semicolon < 0 ? path : path.substring(0, semicolon);
    if (path.startsWith("~")) {
      path = System.getProperty("user.home") + path.substring(1);
    }
    return Optional.of(Path.of(path + STEP_LOG_SUFFIX).toAbsolutePath().normalize());
  }

  /**
   * The keys that depend on this location, under {@code
   * pekko-persistence-jdbc.shared-databases.slick}: {@code profile}, {@code db.url}, {@code
   * db.user}, {@code db.password}, {@code db.driver}.
   */
  public Config databaseConfig() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(SLICK + ".profile", dialect.slickProfile());
    m.put(SLICK + ".db.url", jdbcUrl);
    m.put(SLICK + ".db.user", user);
    if (password != null) {
      // None given: the pool gives the driver none either, so that it may read its password file.
      m.put(SLICK + ".db.password", password);
    }
    if (!secrets.isEmpty()) {
      m.put(SLICK + ".db.properties", secrets);
    }
    m.put(SLICK + ".db.driver", dialect.driver());
    return ConfigFactory.parseMap(m, "--journal " + display());
  }

  /**
   * The whole persistence configuration for this location: {@link #databaseConfig()} over the
   * static {@code persistence.conf} resource (plugin ids, shared database, pool sizes). Lay it over
   * the application's configuration: {@code location.persistenceConfig().withFallback(config)}.
   *
   * @throws com.typesafe.config.ConfigException if {@code persistence.conf} is not on the classpath
   */
  public Config persistenceConfig() {
    Config statics =
        ConfigFactory.parseResources(
            JournalLocation.class.getClassLoader(),
            PERSISTENCE_CONF,
            ConfigParseOptions.defaults().setAllowMissing(false));
    return databaseConfig().withFallback(statics);
  }

  /**
   * Opens a plain JDBC connection (auto-commit on), creating the H2 directory (and database) when
   * missing. For the node, before its ActorSystem starts: {@code JournalSchema.createIfNotExists(c,
   * location.dialect())}.
   *
   * @throws IllegalStateException when another process (a running node) holds the H2 journal
   */
  public Connection openConnection() throws SQLException {
    if (directory != null) {
      try {
        Files.createDirectories(directory);
      } catch (IOException e) {
        throw new SQLException("cannot create journal directory " + directory + ": " + e, e);
      }
    }
    try {
      return connect(jdbcUrl);
    } catch (SQLException e) {
      throw inUse(e);
    }
  }

  /**
   * Opens a connection to a journal that must already exist (the CLI's {@code predict} and {@code
   * export}): an H2 database is not created when missing.
   *
   * @throws IllegalArgumentException when the H2 journal does not exist
   * @throws IllegalStateException when another process (a running node) holds the H2 journal
   */
  public Connection openExistingConnection() throws SQLException {
    if (dialect == JournalDialect.H2) {
      if (directory != null
          && !Files.isRegularFile(directory.resolve(H2_DATABASE_NAME + ".mv.db"))) {
        throw new IllegalArgumentException(
            "no journal in "
                + shown
                + " ("
                + directory.resolve(H2_DATABASE_NAME + ".mv.db")
                + " does not exist)");
      }
      try {
        return connect(jdbcUrl + ";IFEXISTS=TRUE");
      } catch (SQLException e) {
        if (e.getErrorCode() == 90146) { // DATABASE_NOT_FOUND_WITH_IF_EXISTS_1
          throw new IllegalArgumentException("no journal at " + shown + ": " + e.getMessage(), e);
        }
        throw inUse(e);
      }
    }
    return connect(jdbcUrl);
  }

  /** H2's DATABASE_ALREADY_OPEN_1 (90020), turned into a message a user can act on. */
  private SQLException inUse(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getErrorCode() == 90020) {
        throw new IllegalStateException(
            "journal "
                + shown
                + " is in use by another process (a running node holds its embedded H2 database"
                + " locked); stop that node first, or ask it with 'parreg status'",
            e);
      }
    }
    return e;
  }

  /** Opens a connection and creates the schema when missing (see {@link JournalSchema}). */
  public void createSchema() throws SQLException {
    try (Connection c = openConnection()) {
      JournalSchema.createIfNotExists(c, dialect);
    }
  }

  private Connection connect(String url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) {
      // (An empty one is set on purpose: a password file ignored for its mode, which the driver
      // must not read itself.)
      p.setProperty("password", password);
    }
    secrets.forEach(p::setProperty);
    return DriverManager.getConnection(url, p);
  }

  /**
   * The value as given, its secrets left out (see {@link #display(String)}): for messages, logs,
   * status and output.
   */
  public String display() {
    return shown;
  }

  /** The location, without its secrets. */
  @Override
  public String toString() {
    return dialect + " " + display();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JournalLocation other
        && other.jdbcUrl.equals(jdbcUrl)
        && other.user.equals(user);
  }

  @Override
  public int hashCode() {
    return Objects.hash(jdbcUrl, user);
  }
}
