package parreg.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws a {@link LossHistory} as a PNG line chart (JFreeChart, headless): step on x, loss on a
 * logarithmic y axis (a loss falls over orders of magnitude; the seed run's from 9 to 1e-90).
 *
 * <p>A log axis cannot show a loss of 0 or a non-finite one (a run that reached its exact optimum,
 * or diverged): those steps are left out and the subtitle says how many. Past {@value #MAX_POINTS}
 * steps the curve is drawn from each bucket's lowest and highest loss, in step order, so that a
 * spike stays visible while the PNG stays quick to draw.
 */
final class LossChart {
  static final int MAX_POINTS = 4000;

  private LossChart() {}

  /**
   * Writes the chart as PNG.
   *
   * @throws IllegalStateException where this Java runtime cannot draw text: AWT's font rendering
   *     links the system's libharfbuzz/libfreetype, which a bare machine may lack (seen on the GPU
   *     machine with the distribution's runtime); the message says what is missing
   */
  static void writePng(LossHistory h, OutputStream out, int width, int height) throws IOException {
    guarded(() -> draw(h, out, width, height));
  }

  /** Drawing that may need AWT's native font libraries. */
  interface Drawing {
    void run() throws IOException;
  }

  /** Runs {@code d}, turning a runtime that cannot render text into one clear message. */
  static void guarded(Drawing d) throws IOException {
    try {
      d.run();
    } catch (LinkageError | java.awt.AWTError | InternalError e) {
      throw new IllegalStateException(
          "cannot draw the loss chart: this Java runtime's font rendering is unavailable ("
              + e.getMessage()
              + "); install the system's font libraries (libharfbuzz, libfreetype, fontconfig and a font), or"
              + " write the history as CSV with --out",
          e);
    }
  }

  private static void draw(LossHistory h, OutputStream out, int width, int height)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeries series = new XYSeries("loss", false, true);
    int n = h.size();
    int bucket = Math.max(1, (n + MAX_POINTS / 2 - 1) / (MAX_POINTS / 2));
    long notShown = 0;
    for (int from = 0; from < n; from += bucket) {
      int to = Math.min(n, from + bucket);
      int lo = -1;
      int hi = -1;
      for (int i = from; i < to; i++) {
        double l = h.losses()[i];
        if (!(l > 0) || Double.isInfinite(l)) {
          notShown++;
          continue;
        }
        if (lo < 0 || l < h.losses()[lo]) {
          lo = i;
        }
        if (hi < 0 || l > h.losses()[hi]) {
          hi = i;
        }
      }
      if (lo >= 0) {
        int first = Math.min(lo, hi);
        int second = Math.max(lo, hi);
        series.add(h.steps()[first], h.losses()[first]);
        if (second != first) {
          series.add(h.steps()[second], h.losses()[second]);
        }
      }
    }

    NumberAxis stepAxis = new NumberAxis("step");
    stepAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    stepAxis.setAutoRangeIncludesZero(false);
    if (n > 1) {
      // The whole run, also where the log axis cannot show the loss (a tail of exact zeros).
      stepAxis.setRange(h.steps()[0], h.steps()[n - 1]);
    }
    LogAxis lossAxis = new LogAxis("loss (log scale)");
    lossAxis.setSmallestValue(Double.MIN_VALUE);
    lossAxis.setBase(10);
    // Ticks as 1E-30 rather than JFreeChart's default "10^-30" with a small font.
    lossAxis.setNumberFormatOverride(new java.text.DecimalFormat("0.#E0"));
    Font tickFont = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    Font labelFont = new Font(Font.SANS_SERIF, Font.BOLD, 14);
    for (var axis : new org.jfree.chart.axis.ValueAxis[] {stepAxis, lossAxis}) {
      axis.setTickLabelFont(tickFont);
      axis.setLabelFont(labelFont);
    }
    XYLineAndShapeRenderer line = new XYLineAndShapeRenderer(true, series.getItemCount() <= 60);
    line.setSeriesPaint(0, new Color(0x1f, 0x77, 0xb4));
    line.setSeriesStroke(0, new BasicStroke(2f));
    XYPlot plot = new XYPlot(new XYSeriesCollection(series), stepAxis, lossAxis, line);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));

    String title =
        "parreg loss: run " + h.contract().runName() + ", participant " + h.participant();
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    // Room on the right for the last step's tick label, which sits on the plot's edge.
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(4, 4, 4, 20));
    chart.addSubtitle(
        new TextTitle(subtitle(h, notShown), new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
    ChartUtils.writeChartAsPNG(out, chart, width, height);
  }

  /**
   * Steps shown, the last loss, the wall time the journal recorded, and what the log axis left out.
   */
  private static String subtitle(LossHistory h, long notShown) {
    int n = h.size();
    if (n == 0) {
      return "no committed steps in the journal";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("steps ").append(h.steps()[0]).append("..").append(h.steps()[n - 1]);
    sb.append(", last loss ").append(h.losses()[n - 1]);
    long t0 = h.writtenAtMillis()[0];
    long t1 = h.writtenAtMillis()[n - 1];
    if (t0 > 0 && t1 >= t0) {
      Duration d = Duration.ofMillis(t1 - t0);
      sb.append(", journaled over ").append(String.format("%.1f s", d.toMillis() / 1000.0));
    }
    if (notShown > 0) {
      sb.append("; ")
          .append(notShown)
          .append(" step(s) with loss 0 or non-finite not shown (log scale)");
    }
    return sb.toString();
  }
}
