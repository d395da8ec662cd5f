package parreg.persistence;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The text of a journal URL in its parts: what comes before its parameters, its {@code ;NAME=VALUE}
 * settings (H2's form) and its {@code ?name=value&...} query (PostgreSQL's form), each parameter
 * kept as written. {@link #withoutSecrets} builds the one form that is ever shown, logged or handed
 * to a JDBC driver or a connection pool: the same text with every secret-bearing parameter ({@link
 * #isSecret}) and any {@code user:password@} before the host left out. Secrets travel separately,
 * as connection properties ({@link #secrets}), so that no driver, pool or exception message that
 * echoes the URL can carry them.
 */
final class JournalUrl {
  /** A parameter as written ({@code raw}, e.g. {@code password=p%40ss}) and its name. */
  private record Param(String name, String raw, boolean query) {
    String rawValue() {
      int eq = raw.indexOf('=');
      return eq < 0 ? "" : raw.substring(eq + 1);
    }
  }

  private final String head;
  private final String userInfo; // "user:password" written before the host, or null
  private final List<Param> params;

  private JournalUrl(String head, String userInfo, List<Param> params) {
    this.head = head;
    this.userInfo = userInfo;
    this.params = params;
  }

  /** Splits {@code text}; never fails (a value that is no URL has no parameters). */
  static JournalUrl of(String text) {
    int q = text.indexOf('?');
    String base = q < 0 ? text : text.substring(0, q);
    List<Param> params = new ArrayList<>();
    String[] settings = base.split(";", -1);
    String head = settings[0];
    for (int i = 1; i < settings.length; i++) {
      add(params, settings[i], false);
    }
    if (q >= 0) {
      for (String kv : text.substring(q + 1).split("&", -1)) {
        add(params, kv, true);
      }
    }
    String userInfo = null;
    int authority = head.indexOf("//");
    if (authority >= 0) {
      int end = head.indexOf('/', authority + 2);
      int at = head.lastIndexOf('@', end < 0 ? head.length() : end);
      if (at > authority + 1) {
        userInfo = head.substring(authority + 2, at);
        head = head.substring(0, authority + 2) + head.substring(at + 1);
      }
    }
    return new JournalUrl(head, userInfo, params);
  }

  private static void add(List<Param> params, String raw, boolean query) {
    if (raw.isEmpty()) {
      return;
    }
    int eq = raw.indexOf('=');
    String name = (eq < 0 ? raw : raw.substring(0, eq)).strip();
    params.add(new Param(name, raw, query));
  }

  /**
   * Whether a parameter of this name carries a secret: {@code password}, {@code sslpassword}, and
   * any other whose name speaks of a password, a secret or a token (in any letter case).
   */
  static boolean isSecret(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.contains("password")
        || n.contains("passwd")
        || n.contains("pwd")
        || n.contains("secret")
        || n.contains("token");
  }

  /** Whether {@code user:password@} was written before the host. */
  boolean hasUserInfo() {
    return userInfo != null;
  }

  /** The part before the parameters (without any {@code user:password@}). */
  String head() {
    return head;
  }

  /**
   * The text without its secrets: every parameter that is no secret, as written and in its place;
   * no {@code user:password@}. The only form of a journal URL that is shown or given to a driver.
   */
  String withoutSecrets() {
    StringBuilder sb = new StringBuilder(head);
    boolean firstQuery = true;
    for (Param p : params) {
      if (isSecret(p.name())) {
        continue;
      }
      if (p.query()) {
        sb.append(firstQuery ? '?' : '&');
        firstQuery = false;
      } else {
        sb.append(';');
      }
      sb.append(p.raw());
    }
    return sb.toString();
  }

  /**
   * The query parameters by lower-case name, decoded ({@code %40} is {@code @}, {@code +} a space,
   * as the PostgreSQL driver reads them); the last of a repeated name counts.
   *
   * @throws IllegalArgumentException when a value is not valid URL encoding (the message names the
   *     parameter, never its value)
   */
  Map<String, String> query() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Param p : params) {
      if (p.query() && p.raw().indexOf('=') > 0) {
        out.put(p.name().toLowerCase(Locale.ROOT), decode(p));
      }
    }
    return out;
  }

  /** The {@code ;NAME=VALUE} settings by upper-case name, as written; the last one counts. */
  Map<String, String> settings() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Param p : params) {
      if (!p.query() && p.raw().indexOf('=') > 0) {
        out.put(p.name().toUpperCase(Locale.ROOT), p.rawValue());
      }
    }
    return out;
  }

  /**
   * The secret query parameters other than {@code password} (e.g. {@code sslpassword}), by their
   * names as written, decoded: connection properties for the driver.
   */
  Map<String, String> otherQuerySecrets() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Param p : params) {
      if (p.query()
          && isSecret(p.name())
          && !p.name().equalsIgnoreCase("password")
          && p.raw().indexOf('=') > 0) {
        out.put(p.name(), decode(p));
      }
    }
    return out;
  }

  private static String decode(Param p) {
    try {
      return URLDecoder.decode(p.rawValue(), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the value of URL parameter '"
              + p.name()
              + "' is not valid URL encoding (a % must be followed by two hex digits)");
    }
  }
}
