package parreg.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, written against its grammar
 * (prometheus.io/docs/instrumenting/exposition_formats): no maintained Java parser of the format is
 * served here (the prometheus-metrics libraries only write it). It rejects, with the line number,
 * what a Prometheus server would: bad metric or label names, a label name starting with {@code __},
 * bad escapes or quotes, an unparsable value or timestamp, a TYPE after its samples or twice, a
 * family's samples not together, duplicate series; and for histograms: {@code _bucket} without
 * {@code le}, buckets not cumulative, no {@code +Inf} bucket, {@code _count} not equal to it.
 */
final class PrometheusText {
  private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> TYPES =
      Set.of("counter", "gauge", "histogram", "summary", "untyped");

  record Sample(String name, Map<String, String> labels, double value) {}

  record Family(String name, String type, String help, List<Sample> samples) {}

  final Map<String, Family> families = new LinkedHashMap<>();

  private PrometheusText() {}

  static PrometheusText parse(String text) {
    PrometheusText out = new PrometheusText();
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IllegalArgumentException("the exposition does not end with a line feed");
    }
    String[] lines = text.split("\n", -1);
    Set<String> closed = new HashSet<>();
    Set<String> series = new HashSet<>();
    String current = null;
    for (int i = 0; i < lines.length - 1; i++) {
      String line = lines[i];
      int no = i + 1;
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#")) {
        String[] t = line.split(" ", 4);
        if (t.length >= 3 && (t[1].equals("HELP") || t[1].equals("TYPE"))) {
          String name = t[2];
          require(METRIC.matcher(name).matches(), no, "bad metric name '" + name + "'");
          Family f = out.families.get(name);
          if (t[1].equals("TYPE")) {
            require(t.length == 4 && TYPES.contains(t[3]), no, "bad TYPE line");
            require(
                f == null || f.samples().isEmpty(), no, "TYPE of " + name + " after its samples");
            require(f == null || f.type() == null, no, "TYPE of " + name + " given twice");
            f = new Family(name, t[3], f == null ? null : f.help(), new ArrayList<>());
          } else {
            require(f == null || f.help() == null, no, "HELP of " + name + " given twice");
            String help = t.length == 4 ? unescape(t[3], false, no) : "";
            f =
                new Family(
                    name,
                    f == null ? null : f.type(),
                    help,
                    f == null ? new ArrayList<>() : f.samples());
          }
          out.families.put(name, f);
        }
        continue; // any other comment
      }
      Sample s = sample(line, no);
      String family = out.familyOf(s.name());
      require(family != null, no, "sample " + s.name() + " has no TYPE before it");
      if (!family.equals(current)) {
        require(closed.add(family), no, "the samples of " + family + " are not together");
        current = family;
      }
      require(
          series.add(s.name() + new TreeMap<>(s.labels())),
          no,
          "duplicate series " + s.name() + s.labels());
      out.families.get(family).samples().add(s);
    }
    out.families.values().stream()
        .filter(f -> "histogram".equals(f.type()))
        .forEach(PrometheusText::checkHistogram);
    return out;
  }

  /**
   * The family a sample belongs to: its own name, or a histogram's/summary's/counter's base name.
   */
  private String familyOf(String name) {
    Family f = families.get(name);
    if (f != null && f.type() != null) {
      return name;
    }
    for (String suffix : List.of("_bucket", "_sum", "_count")) {
      if (name.endsWith(suffix)) {
        Family base = families.get(name.substring(0, name.length() - suffix.length()));
        if (base != null
            && ("histogram".equals(base.type())
                || "summary".equals(base.type()) && !suffix.equals("_bucket"))) {
          return base.name();
        }
      }
    }
    return null;
  }

  private static Sample sample(String line, int no) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    require(METRIC.matcher(name).matches(), no, "bad metric name '" + name + "'");
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        require(eq > i, no, "label without '='");
        String label = line.substring(i, eq);
        require(
            LABEL.matcher(label).matches() && !label.startsWith("__"),
            no,
            "bad label name '" + label + "'");
        require(eq + 1 < line.length() && line.charAt(eq + 1) == '"', no, "label value not quoted");
        int j = eq + 2;
        StringBuilder raw = new StringBuilder();
        while (true) {
          require(j < line.length(), no, "unterminated label value");
          char c = line.charAt(j);
          if (c == '\\') {
            require(j + 1 < line.length(), no, "dangling escape");
            raw.append(c).append(line.charAt(j + 1));
            j += 2;
          } else if (c == '"') {
            break;
          } else {
            raw.append(c);
            j++;
          }
        }
        require(
            labels.put(label, unescape(raw.toString(), true, no)) == null,
            no,
            "label " + label + " twice");
        i = j + 1;
        require(i < line.length(), no, "unterminated label set");
        if (line.charAt(i) == ',') {
          i++;
        } else {
          require(line.charAt(i) == '}', no, "expected ',' or '}' after a label");
        }
      }
      i++;
    }
    require(i < line.length() && line.charAt(i) == ' ', no, "no space before the value");
    String[] rest = line.substring(i + 1).split(" ", -1);
    require(rest.length == 1 || rest.length == 2, no, "expected a value and an optional timestamp");
    double value = value(rest[0], no);
    if (rest.length == 2) {
      try {
        Long.parseLong(rest[1]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("line " + no + ": bad timestamp '" + rest[1] + "'");
      }
    }
    return new Sample(name, labels, value);
  }

  private static double value(String v, int no) {
    switch (v) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        require(
            v.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?"), no, "bad value '" + v + "'");
        return Double.parseDouble(v);
    }
  }

  private static String unescape(String s, boolean quotes, int no) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char n = s.charAt(++i);
      require(n == '\\' || n == 'n' || (quotes && n == '"'), no, "bad escape \\" + n);
      b.append(n == 'n' ? '\n' : n);
    }
    return b.toString();
  }

  private static void checkHistogram(Family f) {
    Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
    Map<Map<String, String>, Double> counts = new LinkedHashMap<>();
    for (Sample s : f.samples()) {
      Map<String, String> rest = new TreeMap<>(s.labels());
      if (s.name().equals(f.name() + "_bucket")) {
        if (rest.remove("le") == null) {
          throw new IllegalArgumentException(f.name() + ": a bucket without le");
        }
        buckets.computeIfAbsent(rest, k -> new ArrayList<>()).add(s);
      } else if (s.name().equals(f.name() + "_count")) {
        counts.put(rest, s.value());
      }
    }
    for (var e : buckets.entrySet()) {
      double lastLe = Double.NEGATIVE_INFINITY;
      double lastCount = 0;
      for (Sample b : e.getValue()) {
        double le = value(b.labels().get("le"), 0);
        if (!(le > lastLe) || b.value() < lastCount) {
          throw new IllegalArgumentException(
              f.name() + e.getKey() + ": buckets not ascending and cumulative at le=" + le);
        }
        lastLe = le;
        lastCount = b.value();
      }
      if (lastLe != Double.POSITIVE_INFINITY
          || !Double.valueOf(lastCount).equals(counts.get(e.getKey()))) {
        throw new IllegalArgumentException(
            f.name() + e.getKey() + ": no +Inf bucket equal to _count");
      }
    }
  }

  private static void require(boolean ok, int no, String what) {
    if (!ok) {
      throw new IllegalArgumentException("line " + no + ": " + what);
    }
  }

  /** The value of the one sample with this name and these labels (label pairs name, value, ...). */
  double value(String name, String... labelPairs) {
    Map<String, String> want = new TreeMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      want.put(labelPairs[i], labelPairs[i + 1]);
    }
    for (Family f : families.values()) {
      for (Sample s : f.samples()) {
        if (s.name().equals(name) && new TreeMap<>(s.labels()).equals(want)) {
          return s.value();
        }
      }
    }
    throw new AssertionError("no sample " + name + want + " in " + families.keySet());
  }
}
