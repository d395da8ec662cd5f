package parreg.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * Creates, when missing, the tables pekko-persistence-jdbc 1.1.1 reads and writes ({@code
 * event_journal}, {@code event_tag}, {@code snapshot}, {@code durable_state}), then checks that
 * every column the plugin uses is there. Idempotent, and every SQL error is thrown, never swallowed
 * (unlike the plugin's test-only {@code SchemaUtils}).
 *
 * <p>The DDL is the plugin's own ({@code schema/h2/h2-create-schema.sql} and {@code
 * schema/postgres/postgres-create-schema.sql} in its jar) with these changes: every statement is
 * {@code IF NOT EXISTS} (the shipped ordering index is not), table names are not qualified with a
 * schema (the plugin's {@code schemaName = ""} resolves them through the connection's default
 * schema or search path, and so does this), and the PostgreSQL {@code durable_state} indexes are
 * not {@code CONCURRENTLY} (which cannot run in a transaction; the table is new and empty). On H2
 * the redundant second unique index on {@code ordering} is left out (see the DDL).
 *
 * <p>H2 names are quoted lower case, as the plugin's H2 profile quotes them; PostgreSQL folds
 * unquoted names to lower case, so the same quoted names work there.
 *
 * <p>On PostgreSQL, where all nodes share one database and may start together, the statements run
 * in one transaction under an advisory lock, so that concurrent {@code CREATE TABLE IF NOT EXISTS}
 * cannot collide in the catalog.
 */
public final class JournalSchema {

  /** The tables and the columns the plugin uses in each (verified after creation). */
  public static final Map<String, List<String>> COLUMNS =
      Map.of(
          "event_journal",
          List.of(
              "ordering",
              "deleted",
              "persistence_id",
              "sequence_number",
              "writer",
              "write_timestamp",
              "adapter_manifest",
              "event_payload",
              "event_ser_id",
              "event_ser_manifest",
              "meta_payload",
              "meta_ser_id",
              "meta_ser_manifest"),
          "event_tag",
          List.of("event_id", "tag"),
          "snapshot",
          List.of(
              "persistence_id",
              "sequence_number",
              "created",
              "snapshot_ser_id",
              "snapshot_ser_manifest",
              "snapshot_payload",
              "meta_ser_id",
              "meta_ser_manifest",
              "meta_payload"),
          "durable_state",
          List.of(
              "global_offset",
              "persistence_id",
              "revision",
              "state_payload",
              "state_serial_id",
              "state_serial_manifest",
              "tag",
              "state_timestamp"));

  /** Key of the PostgreSQL transaction-level advisory lock taken around creation ("parreg"). */
  static final long ADVISORY_LOCK_KEY = 0x7061727265670001L;

  private static final List<String> H2 =
      List.of(
          """
          CREATE TABLE IF NOT EXISTS "event_journal" (
            "ordering" BIGINT UNIQUE NOT NULL AUTO_INCREMENT,
            "deleted" BOOLEAN DEFAULT false NOT NULL,
            "persistence_id" VARCHAR(255) NOT NULL,
            "sequence_number" BIGINT NOT NULL,
            "writer" VARCHAR NOT NULL,
            "write_timestamp" BIGINT NOT NULL,
            "adapter_manifest" VARCHAR NOT NULL,
            "event_payload" BLOB NOT NULL,
            "event_ser_id" INTEGER NOT NULL,
            "event_ser_manifest" VARCHAR NOT NULL,
            "meta_payload" BLOB,
            "meta_ser_id" INTEGER,
            "meta_ser_manifest" VARCHAR,
            PRIMARY KEY("persistence_id", "sequence_number")
          )""",
          // No separate "event_journal_ordering_idx" on H2 (the plugin's H2 DDL has one): the
          // column's UNIQUE constraint already gives "ordering" a unique index, and a second one is
          // one more B-tree that every step's commit rewrites (about 10 % of H2's CPU per commit,
          // BENCHMARKS.md). Journals created before keep theirs; both work. PostgreSQL needs its
          // index (BIGSERIAL has no UNIQUE), see below.
          //
          // "ordering"'s identity sequence hands out values from a cache of 32 by default; each
          // time the cache runs out H2 writes the sequence and commits it on its own, which is one
          // more MVStore chunk: a write of 256 steps made 9 chunks instead of 1, and chunks are
          // what fills the file (H2 keeps each for 45 s; BENCHMARKS.md, "Journal size"). A large
          // cache makes that a chunk per 2^20 rows. It is safe: H2 writes the sequence's new
          // limit before it hands out a value of it, so a kill -9 can only leave a gap in
          // "ordering", never a duplicate (no parreg code relies on its values; the plugin's tag
          // queries, which parreg does not use, tolerate gaps). Altered on every open, so journals
          // created before get it too.
          """
          ALTER TABLE "event_journal" ALTER COLUMN "ordering" SET CACHE 1048576""",
          """
          CREATE TABLE IF NOT EXISTS "event_tag" (
            "event_id" BIGINT NOT NULL,
            "tag" VARCHAR NOT NULL,
            PRIMARY KEY("event_id", "tag"),
            CONSTRAINT "fk_event_journal"
              FOREIGN KEY("event_id")
              REFERENCES "event_journal"("ordering")
              ON DELETE CASCADE
          )""",
          """
          CREATE TABLE IF NOT EXISTS "snapshot" (
            "persistence_id" VARCHAR(255) NOT NULL,
            "sequence_number" BIGINT NOT NULL,
            "created" BIGINT NOT NULL,
            "snapshot_ser_id" INTEGER NOT NULL,
            "snapshot_ser_manifest" VARCHAR NOT NULL,
            "snapshot_payload" BLOB NOT NULL,
            "meta_ser_id" INTEGER,
            "meta_ser_manifest" VARCHAR,
            "meta_payload" BLOB,
            PRIMARY KEY("persistence_id", "sequence_number")
          )""",
          """
          CREATE SEQUENCE IF NOT EXISTS "global_offset_seq\"""",
          """
          CREATE TABLE IF NOT EXISTS "durable_state" (
            "global_offset" BIGINT DEFAULT NEXT VALUE FOR "global_offset_seq",
            "persistence_id" VARCHAR(255) NOT NULL,
            "revision" BIGINT NOT NULL,
            "state_payload" BLOB NOT NULL,
            "state_serial_id" INTEGER NOT NULL,
            "state_serial_manifest" VARCHAR,
            "tag" VARCHAR,
            "state_timestamp" BIGINT NOT NULL,
            PRIMARY KEY("persistence_id")
          )""",
          """
          CREATE INDEX IF NOT EXISTS "state_tag_idx" ON "durable_state" ("tag")""",
          """
          CREATE INDEX IF NOT EXISTS "state_global_offset_idx"
            ON "durable_state" ("global_offset")""");

  private static final List<String> POSTGRES =
      List.of(
          """
          CREATE TABLE IF NOT EXISTS event_journal (
            ordering BIGSERIAL,
            persistence_id VARCHAR(255) NOT NULL,
            sequence_number BIGINT NOT NULL,
            deleted BOOLEAN DEFAULT FALSE NOT NULL,
            writer VARCHAR(255) NOT NULL,
            write_timestamp BIGINT,
            adapter_manifest VARCHAR(255),
            event_ser_id INTEGER NOT NULL,
            event_ser_manifest VARCHAR(255) NOT NULL,
            event_payload BYTEA NOT NULL,
            meta_ser_id INTEGER,
            meta_ser_manifest VARCHAR(255),
            meta_payload BYTEA,
            PRIMARY KEY(persistence_id, sequence_number)
          )""",
          """
          CREATE UNIQUE INDEX IF NOT EXISTS event_journal_ordering_idx
            ON event_journal(ordering)""",
          """
          CREATE TABLE IF NOT EXISTS event_tag (
            event_id BIGINT,
            tag VARCHAR(256),
            PRIMARY KEY(event_id, tag),
            CONSTRAINT fk_event_journal
              FOREIGN KEY(event_id)
              REFERENCES event_journal(ordering)
              ON DELETE CASCADE
          )""",
          """
          CREATE TABLE IF NOT EXISTS snapshot (
            persistence_id VARCHAR(255) NOT NULL,
            sequence_number BIGINT NOT NULL,
            created BIGINT NOT NULL,
            snapshot_ser_id INTEGER NOT NULL,
            snapshot_ser_manifest VARCHAR(255) NOT NULL,
            snapshot_payload BYTEA NOT NULL,
            meta_ser_id INTEGER,
            meta_ser_manifest VARCHAR(255),
            meta_payload BYTEA,
            PRIMARY KEY(persistence_id, sequence_number)
          )""",
          """
          CREATE TABLE IF NOT EXISTS durable_state (
            global_offset BIGSERIAL,
            persistence_id VARCHAR(255) NOT NULL,
            revision BIGINT NOT NULL,
            state_payload BYTEA NOT NULL,
            state_serial_id INTEGER NOT NULL,
            state_serial_manifest VARCHAR(255),
            tag VARCHAR,
            state_timestamp BIGINT NOT NULL,
            PRIMARY KEY(persistence_id)
          )""",
          """
          CREATE INDEX IF NOT EXISTS state_tag_idx ON durable_state (tag)""",
          """
          CREATE INDEX IF NOT EXISTS state_global_offset_idx ON durable_state (global_offset)""");

  private JournalSchema() {}

  /** The DDL statements for {@code dialect}, in execution order. */
  public static List<String> statements(JournalDialect dialect) {
    return dialect == JournalDialect.H2 ? H2 : POSTGRES;
  }

  /**
   * Creates the missing tables, indexes and sequences, then {@link #verify verifies} the columns.
   * Leaves {@code connection}'s auto-commit as it found it.
   *
   * @throws SQLException naming the failing statement, if any statement fails
   */
  public static void createIfNotExists(Connection connection, JournalDialect dialect)
      throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    try {
      if (dialect == JournalDialect.POSTGRES) {
        connection.setAutoCommit(false);
        try {
          try (PreparedStatement lock =
              connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            lock.setLong(1, ADVISORY_LOCK_KEY);
            lock.execute();
          }
          execute(connection, statements(dialect));
          connection.commit();
        } catch (SQLException | RuntimeException e) {
          connection.rollback();
          throw e;
        }
      } else {
        connection.setAutoCommit(true);
        execute(connection, statements(dialect));
      }
    } finally {
      connection.setAutoCommit(autoCommit);
    }
    verify(connection);
  }

  /**
   * Checks that every table in {@link #COLUMNS} exists with all of its columns (for instance that
   * an older, incompatible "legacy" table of the same name is not in the way).
   *
   * @throws SQLException naming the table when a table or column is missing
   */
  public static void verify(Connection connection) throws SQLException {
    for (Map.Entry<String, List<String>> table : COLUMNS.entrySet()) {
      String columns =
          String.join(", ", table.getValue().stream().map(c -> '"' + c + '"').toList());
      String sql = "SELECT " + columns + " FROM \"" + table.getKey() + "\" WHERE 1 = 0";
      try (Statement s = connection.createStatement()) {
        s.executeQuery(sql).close();
      } catch (SQLException e) {
        throw new SQLException(
            "journal table \""
                + table.getKey()
                + "\" is missing or lacks a column pekko-persistence-jdbc 1.1.1 needs ("
                + String.join(", ", table.getValue())
                + "): "
                + e.getMessage(),
            e.getSQLState(),
            e.getErrorCode(),
            e);
      }
    }
  }

  private static void execute(Connection connection, List<String> statements) throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (String sql : statements) {
        try {
          s.execute(sql);
        } catch (SQLException e) {
          throw new SQLException(
              "creating the journal schema failed at: "
                  + sql.strip().lines().findFirst().orElse(sql)
                  + " ... : "
                  + e.getMessage(),
              e.getSQLState(),
              e.getErrorCode(),
              e);
        }
      }
    }
  }
}
