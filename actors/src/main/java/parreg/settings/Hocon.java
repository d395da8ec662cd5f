package parreg.settings;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;

/** Values written into a node's HOCON flag overlay. */
public final class Hocon {
  private Hocon() {}

  /** {@code s} as a quoted HOCON string, whatever characters it holds (a path, a password). */
  public static String quote(String s) {
    return ConfigFactory.empty()
        .withValue("v", ConfigValueFactory.fromAnyRef(s))
        .getValue("v")
        .render();
  }
}
