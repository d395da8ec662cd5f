package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The test parser of the Prometheus text format takes what the grammar allows and refuses the rest.
 */
class PrometheusTextTest {
  static final String GOOD =
      """
      # HELP a_total a counter with a \\\\ backslash
      # TYPE a_total counter
      a_total{peer="1",x="q\\"uote\\n"} 3.0
      a_total{peer="2"} 4 1700000000000
      # TYPE h_seconds histogram
      h_seconds_bucket{le="0.1"} 1
      h_seconds_bucket{le="+Inf"} 2
      h_seconds_count 2
      h_seconds_sum 0.5
      # TYPE g gauge
      g NaN
      """;

  @Test
  void readsValuesAndLabels() {
    PrometheusText t = PrometheusText.parse(GOOD);
    assertEquals(3.0, t.value("a_total", "peer", "1", "x", "q\"uote\n"));
    assertEquals(2, t.value("h_seconds_count"));
    assertEquals("a counter with a \\ backslash", t.families.get("a_total").help());
    assertEquals(Double.NaN, t.value("g"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "# TYPE g gauge\ng 1", // no final line feed
        "g 1\n", // no TYPE
        "# TYPE g gauge\n1g 1\n", // bad name
        "# TYPE g gauge\ng{__x=\"1\"} 1\n", // reserved label name
        "# TYPE g gauge\ng{x=1} 1\n", // unquoted value
        "# TYPE g gauge\ng{x=\"\\t\"} 1\n", // bad escape
        "# TYPE g gauge\ng one\n", // bad value
        "# TYPE g gauge\ng 1 2.5\n", // bad timestamp
        "# TYPE g gauge\ng 1\ng 2\n", // duplicate series
        "# TYPE g gauge\ng 1\n# TYPE g gauge\n", // TYPE after samples
        "# TYPE g gauge\n# TYPE k gauge\ng{a=\"1\"} 1\nk 1\ng{a=\"2\"} 1\n", // family split
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", // not
        // cumulative
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n", // no +Inf
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 2\n", // count differs
      })
  void refusesWhatTheGrammarDoesNot(String text) {
    assertThrows(IllegalArgumentException.class, () -> PrometheusText.parse(text));
  }
}
