package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal location's secrets: every shown form is built from the parts with the secrets left out,
 * whatever their encoding or length; the URL given to the driver and the pool carries none; the
 * password comes from the URL, a password file, {@code PGPASSWORD} or the driver's password file,
 * in libpq's order, with libpq's mode checks.
 */
class JournalSecretsTest {
  static final String SLICK = "pekko-persistence-jdbc.shared-databases.slick.db.";
  static final String PG = "jdbc:postgresql://127.0.0.1:5432/parreg";

  @TempDir Path tmp;

  /** No environment, no system properties but a home directory without a password file. */
  JournalPassword.Sources none() {
    return sources(Map.of());
  }

  JournalPassword.Sources sources(Map<String, String> env) {
    Map<String, String> props = Map.of("user.home", tmp.toString());
    return new JournalPassword.Sources(env::get, props::get);
  }

  JournalLocation parse(String value) {
    return JournalLocation.parse(value, null, none());
  }

  static void assertNoSecret(String text, String... secrets) {
    for (String s : secrets) {
      assertFalse(text.contains(s), "'" + s + "' in: " + text);
    }
  }

  @Test
  void anEncodedPasswordIsLeftOutOfEveryShownForm() {
    JournalLocation loc = parse(PG + "?user=trainer&password=p%40ss%21word");
    assertEquals("p@ss!word", loc.password());
    assertEquals(PG + "?user=trainer", loc.display());
    assertEquals("POSTGRES " + PG + "?user=trainer", loc.toString());
    assertEquals(PG + "?user=trainer", loc.jdbcUrl(), "the driver's URL carries no secret");
    assertEquals(PG + "?user=trainer", JournalLocation.display(PG + "?user=trainer&password=x"));
  }

  @Test
  void aPlusIsASpaceAndIsLeftOutToo() {
    JournalLocation loc = parse(PG + "?password=Plus+Secret&user=u");
    assertEquals("Plus Secret", loc.password());
    assertEquals(PG + "?user=u", loc.display());
  }

  // Searching the text as given for the decoded password "1" would turn 127.0.0.1 into
  // ***27.0.0.***: the shown form is built from the parts instead.
  @Test
  void aShortPasswordGarblesNothing() {
    JournalLocation loc = parse(PG + "?password=1&user=u1&ssl=false");
    assertEquals(PG + "?user=u1&ssl=false", loc.display());
    assertEquals("1", loc.password());
  }

  @Test
  void otherSecretParametersAreConnectionPropertiesNotPartOfTheUrl() {
    JournalLocation loc =
        parse(PG + "?user=u&sslpassword=SslSecret%21&sslmode=disable&PASSWORD=Upper");
    assertEquals(PG + "?user=u&sslmode=disable", loc.display());
    assertEquals(loc.display(), loc.jdbcUrl());
    assertEquals("Upper", loc.password(), "a parameter name in any letter case");
    Config c = loc.databaseConfig();
    assertEquals(loc.display(), c.getString(SLICK + "url"));
    assertEquals("Upper", c.getString(SLICK + "password"));
    assertEquals(
        "SslSecret!", c.getConfig(SLICK + "properties").root().get("sslpassword").unwrapped());
    assertNoSecret(c.origin().description(), "SslSecret", "Upper");
  }

  @Test
  void anH2PasswordSettingIsLeftOutOfTheUrl() {
    JournalLocation loc =
        parse("jdbc:h2:file:" + tmp.resolve("j") + ";USER=me;PASSWORD=H2Secret;WRITE_DELAY=0");
    assertEquals("H2Secret", loc.password());
    assertEquals("me", loc.user());
    assertEquals("jdbc:h2:file:" + tmp.resolve("j") + ";USER=me;WRITE_DELAY=0", loc.display());
    assertNoSecret(loc.jdbcUrl(), "H2Secret", "PASSWORD");
  }

  @Test
  void refusedValuesAreShownWithoutTheirSecrets() {
    for (String bad :
        List.of(
            "jdbc:postgresql://trainer:Leak0@127.0.0.1:5432/parreg",
            "jdbc:postgresql://127.0.0.1:5432?password=Leak0",
            "jdbc:postgresql:parreg?password=Leak%30",
            "jdbc:postgresql://127.0.0.1/parreg?password=%zzLeak0",
            "jdbc:mysql://127.0.0.1/parreg?user=u&password=Leak0",
            "postgres://127.0.0.1/parreg?password=Leak%30",
            "jdbc:h2:mem:x;PASSWORD=Leak0")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(bad));
      assertNoSecret(e.getMessage(), "Leak0", "Leak%30", "zzLeak");
      assertNoSecret(JournalLocation.display(bad), "Leak0", "Leak%30", "zzLeak");
    }
    IllegalArgumentException userInfo =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse("jdbc:postgresql://trainer:Leak0@127.0.0.1:5432/parreg"));
    assertTrue(
        userInfo
            .getMessage()
            .startsWith(
                "PostgreSQL journal URL jdbc:postgresql://127.0.0.1:5432/parreg: a user or password"
                    + " before the host"),
        userInfo.getMessage());
  }

  @Test
  void withoutAPasswordThePoolGivesTheDriverNoneSoItMayReadItsPasswordFile() {
    JournalLocation loc = parse(PG + "?user=u");
    assertEquals("", loc.password());
    assertFalse(loc.databaseConfig().hasPath(SLICK + "password"));
    assertTrue(loc.warnings().isEmpty());
  }

  Path file(String name, String content, String mode) throws Exception {
    Path f = Files.writeString(tmp.resolve(name), content);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    return f;
  }

  @Test
  void aPasswordFileGivesItsFirstLine() throws Exception {
    Path f = file("pw", " spaced Secret \nsecond line\n", "rw-------");
    JournalLocation loc = JournalLocation.parse(PG + "?user=u", f, none());
    assertEquals(" spaced Secret ", loc.password());
    assertEquals(PG + "?user=u", loc.display());
    assertEquals(" spaced Secret ", loc.databaseConfig().getString(SLICK + "password"));
    Path readOnly = file("ro", "ReadOnly\r\n", "r--------");
    assertEquals("ReadOnly", JournalLocation.parse(PG, readOnly, none()).password());
  }

  @Test
  void aPasswordFileThatOthersMayReadIsRefusedWithoutShowingIt() throws Exception {
    for (String mode : List.of("rw-r--r--", "rw-rw----", "rw-----w-")) {
      Path f = file("open-" + mode, "OpenSecret\n", mode);
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> JournalLocation.parse(PG, f, none()), mode);
      assertEquals(
          "--journal-password-file "
              + f
              + ": the group or others may access it; a password file must be the owner's alone"
              + " (chmod 600 "
              + f
              + ")",
          e.getMessage());
    }
  }

  @Test
  void unusablePasswordFilesAreRefused() throws Exception {
    Path empty = file("empty", "\nSecond\n", "rw-------");
    assertEquals(
        "--journal-password-file " + empty + ": the first line (the password) is empty",
        assertThrows(IllegalArgumentException.class, () -> JournalLocation.parse(PG, empty, none()))
            .getMessage());
    Path missing = tmp.resolve("missing");
    assertEquals(
        "--journal-password-file " + missing + ": no such file",
        assertThrows(
                IllegalArgumentException.class, () -> JournalLocation.parse(PG, missing, none()))
            .getMessage());
    assertEquals(
        "--journal-password-file " + tmp + ": not a regular file",
        assertThrows(IllegalArgumentException.class, () -> JournalLocation.parse(PG, tmp, none()))
            .getMessage());
    Path f = file("pw", "FileSecret\n", "rw-------");
    IllegalArgumentException both =
        assertThrows(
            IllegalArgumentException.class,
            () -> JournalLocation.parse(PG + "?password=UrlSecret", f, none()));
    assertTrue(
        both.getMessage().startsWith("the --journal URL has a password and"), both.getMessage());
    assertNoSecret(both.getMessage(), "UrlSecret", "FileSecret");
    IllegalArgumentException h2 =
        assertThrows(
            IllegalArgumentException.class,
            () -> JournalLocation.parse(tmp.resolve("j").toString(), f, none()));
    assertTrue(
        h2.getMessage().startsWith("--journal-password-file is for a PostgreSQL journal"),
        h2.getMessage());
  }

  @Test
  void pgpasswordComesAfterTheUrlAndTheFile() throws Exception {
    JournalPassword.Sources env = sources(Map.of("PGPASSWORD", "EnvSecret"));
    assertEquals("EnvSecret", JournalLocation.parse(PG, null, env).password());
    assertEquals("Url", JournalLocation.parse(PG + "?password=Url", null, env).password());
    Path f = file("pw", "File\n", "rw-------");
    assertEquals("File", JournalLocation.parse(PG, f, env).password());
    assertEquals(
        "EnvSecret",
        JournalLocation.parse(PG + "?password=", null, env).password(),
        "an empty password= is none");
    assertEquals(
        "", JournalLocation.parse(tmp.toString(), null, env).password(), "not for an H2 journal");
  }

  @Test
  void aPasswordFileOfTheDriverIsLeftToItUnlessOthersMayReadIt() throws Exception {
    // strict: the driver reads it itself (nothing set here, no warning)
    file(".pgpass", "*:*:*:*:PgpassSecret\n", "rw-------");
    JournalLocation strict = JournalLocation.parse(PG, null, none());
    assertTrue(strict.warnings().isEmpty());
    assertFalse(strict.databaseConfig().hasPath(SLICK + "password"));
    // open to others: ignored with libpq's warning, and an empty password keeps the driver from it
    Path lax = file("lax", "*:*:*:*:PgpassSecret\n", "rw-r--r--");
    for (JournalPassword.Sources s :
        List.of(
            sources(Map.of("PGPASSFILE", lax.toString())),
            new JournalPassword.Sources(
                Map.<String, String>of()::get,
                Map.of(JournalPassword.PGPASSFILE_PROPERTY, lax.toString())::get))) {
      JournalLocation loc = JournalLocation.parse(PG, null, s);
      assertEquals(
          List.of(
              "password file "
                  + lax
                  + " has group or world access and is ignored, as libpq ignores it; permissions"
                  + " should be u=rw (0600) or less (chmod 600 "
                  + lax
                  + ")"),
          loc.warnings());
      assertEquals("", loc.databaseConfig().getString(SLICK + "password"));
    }
  }

  @Test
  void displayOfAnythingKeepsWhatIsNoSecret() {
    assertEquals("/var/parreg/j?x", JournalLocation.display("/var/parreg/j?x"));
    assertEquals("jdbc:h2:file:/j;USER=a", JournalLocation.display("jdbc:h2:file:/j;USER=a;pwd=b"));
    assertEquals(
        "jdbc:postgresql://h/db?user=u&options=-c%20a%3Db",
        JournalLocation.display("jdbc:postgresql://h/db?user=u&auth_token=t&options=-c%20a%3Db"));
    assertEquals("", JournalLocation.display(null));
  }
}
