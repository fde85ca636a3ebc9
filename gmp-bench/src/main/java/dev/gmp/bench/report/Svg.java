package dev.gmp.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * A self-contained SVG writer for horizontal grouped bar charts on a logarithmic axis: one group
 * per category, one bar per series, an optional reference line (e.g. ratio 1.0). No dependencies.
 *
 * <p>Kept rather than a plotting library. JFreeChart with JFreeSVG draws the same charts
 * headless on JDK 25, but its SVG is several times larger, on a single line, with some axis text
 * as glyph outlines and clip-path ids that change on every run (so each regeneration of
 * docs/benchmarks/*.svg would be a diff), it needs AWT's font stack to lay out text, and
 * reproducing these charts (bars that grow from the reference line, per-bar colours, value
 * labels) takes about as much configuration as this class. XChart has no horizontal bar chart.
 * This writer's output is small, line-per-element and byte-identical when the data is.
 */
final class Svg {
  private Svg() {}

  static final String[] COLORS = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"
  };

  /**
   * @param values values[category][series]; NaN or non-positive values are left out
   * @param reference a vertical line at this x (NaN for none)
   * @param colorByReference colour single-series bars green at or below the reference, red above
   */
  static String hbars(
      String title,
      String xLabel,
      List<String> categories,
      List<String> series,
      double[][] values,
      double reference,
      boolean colorByReference) {
    int labelW = 330;
    int plotW = 520;
    int barH = 11;
    int groupGap = 9;
    int top = 58 + (series.size() > 1 ? 18 * ((series.size() + 3) / 4) : 0);
    int groupH = barH * series.size() + groupGap;
    int height = top + groupH * categories.size() + 50;
    int width = labelW + plotW + 90;

    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (double[] row : values) {
      for (double v : row) {
        if (v > 0 && Double.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (reference > 0) {
      lo = Math.min(lo, reference);
      hi = Math.max(hi, reference);
    }
    if (!(hi > 0)) {
      lo = 0.1;
      hi = 10;
    }
    double step = hi / lo > 1000 ? 10 : 2;
    double lmin = Math.floor(Math.log(lo) / Math.log(step)) * Math.log(step);
    double lmax = Math.ceil(Math.log(hi) / Math.log(step)) * Math.log(step);
    if (lmax - lmin < Math.log(step)) {
      lmax = lmin + Math.log(step);
    }
    final double fmin = lmin;
    final double fspan = lmax - lmin;
    java.util.function.DoubleUnaryOperator x =
        v -> labelW + plotW * (Math.log(v) - fmin) / fspan;

    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" "
                + "font-size=\"11\">\n",
            width,
            height,
            width,
            height));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    b.append(text(width / 2.0, 22, esc(title), "middle", 15, "bold"));
    // legend
    if (series.size() > 1) {
      for (int s = 0; s < series.size(); s++) {
        double lx = labelW - 200 + (s % 4) * 175;
        double ly = 40 + (s / 4) * 18;
        b.append(rect(lx, ly - 9, 12, 10, COLORS[s % COLORS.length]));
        b.append(text(lx + 16, ly, esc(series.get(s)), "start", 11, "normal"));
      }
    }
    // grid and ticks
    int plotBottom = top + groupH * categories.size();
    for (double lv = lmin; lv <= lmax + 1e-9; lv += Math.log(step)) {
      double v = Math.exp(lv);
      double gx = x.applyAsDouble(v);
      b.append(line(gx, top - 4, gx, plotBottom, "#dddddd", 1));
      b.append(text(gx, plotBottom + 14, tick(v), "middle", 10, "normal"));
    }
    b.append(text(labelW + plotW / 2.0, plotBottom + 34, esc(xLabel), "middle", 11, "normal"));
    // bars
    for (int c = 0; c < categories.size(); c++) {
      double gy = top + c * groupH;
      b.append(
          text(labelW - 8, gy + barH * series.size() / 2.0 + 4, esc(categories.get(c)), "end", 11,
              "normal"));
      for (int s = 0; s < series.size(); s++) {
        double v = values[c][s];
        if (!(v > 0) || !Double.isFinite(v)) {
          continue;
        }
        // with a reference line, bars grow from it (left: below, right: above)
        double x0 = reference > 0 ? x.applyAsDouble(reference) : labelW;
        double x1 = x.applyAsDouble(v);
        String color = COLORS[s % COLORS.length];
        if (colorByReference && series.size() == 1) {
          color = v <= reference ? "#2ca02c" : "#d62728";
        }
        b.append(rect(Math.min(x0, x1), gy + s * barH, Math.max(1, Math.abs(x1 - x0)), barH - 1,
            color));
        // bars left of the reference line get their value on its right, clear of the labels
        boolean left = x1 < x0;
        b.append(text(left ? x0 + 3 : x1 + 3, gy + s * barH + barH - 2, num(v), "start", 9,
            "normal"));
      }
    }
    if (reference > 0) {
      double rx = x.applyAsDouble(reference);
      b.append(line(rx, top - 6, rx, plotBottom, "#000000", 1.5));
    }
    b.append("</svg>\n");
    return b.toString();
  }

  private static String tick(double v) {
    if (v >= 1000 || v < 0.01) {
      return String.format(Locale.ROOT, "%.0e", v);
    }
    return num(v);
  }

  static String num(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (v >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  private static String rect(double x, double y, double w, double h, String fill) {
    return String.format(
        Locale.ROOT,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
        x,
        y,
        w,
        h,
        fill);
  }

  private static String line(double x1, double y1, double x2, double y2, String stroke, double w) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
        x1,
        y1,
        x2,
        y2,
        stroke,
        w);
  }

  private static String text(
      double x, double y, String s, String anchor, int size, String weight) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" font-weight=\"%s\">%s</text>\n",
        x,
        y,
        anchor,
        size,
        weight,
        s);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
