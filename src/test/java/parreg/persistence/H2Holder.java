package parreg.persistence;

import java.sql.Connection;
import java.sql.DriverManager;

/** Test helper run as a separate process: holds an H2 database open until its stdin closes. */
public final class H2Holder {
  private H2Holder() {}

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], "sa", "")) {
      System.out.println("open");
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait
      }
    }
  }
}
