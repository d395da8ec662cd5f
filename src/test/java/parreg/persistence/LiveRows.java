package parreg.persistence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/** The bytes of a journal's live rows, for the journal-size tests' bound (2 × rows + a few MB). */
public final class LiveRows {
  private LiveRows() {}

  /** Every column of every event row, numbers at their width. */
  public static long bytes(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT COALESCE(SUM(1 + 8 + 8 + 8 + 4 + OCTET_LENGTH(\"persistence_id\")"
                    + " + OCTET_LENGTH(\"writer\") + OCTET_LENGTH(\"adapter_manifest\") + OCTET_LENGTH(\"event_payload\")"
                    + " + OCTET_LENGTH(\"event_ser_manifest\")), 0) FROM \"event_journal\"")) {
      r.next();
      return r.getLong(1);
    }
  }
}
