package parreg.persistence;

/** The databases parreg journals to, with what pekko-persistence-jdbc and JDBC need for each. */
public enum JournalDialect {
  /** Embedded H2 file database, one per node. */
  H2("slick.jdbc.H2Profile$", "org.h2.Driver"),
  /** PostgreSQL, one database shared by all nodes. */
  POSTGRES("slick.jdbc.PostgresProfile$", "org.postgresql.Driver");

  private final String slickProfile;
  private final String driver;

  JournalDialect(String slickProfile, String driver) {
    this.slickProfile = slickProfile;
    this.driver = driver;
  }

  /** The Slick profile object's class name, for {@code shared-databases.slick.profile}. */
  public String slickProfile() {
    return slickProfile;
  }

  /** The JDBC driver class name. */
  public String driver() {
    return driver;
  }
}
