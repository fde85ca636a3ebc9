package dev.gmp.bench.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link TraceModel} as one self-contained HTML page: the data as a JSON literal, the
 * renderer (trace.js) and its style (trace.css) inlined, nothing fetched. The page draws itself
 * in any browser; TraceViewTest renders it in headless Chromium.
 */
final class TracePage {
  private TracePage() {}

  static String html(TraceModel t) {
    return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>gmp trace: %s</title>
        <style>
        %s</style>
        </head>
        <body data-status="loading">
        <h1>gmp trace by processor: %s</h1>
        <div id="summary"></div>
        <div class="legend">
        <span><i class="running"></i>running</span><span><i class="syscall"></i>in a blocking \
        call</span><span><i class="idle"></i>idle</span><span><i class="retaken"></i>retaken\
        </span><span><i class="dead"></i>retired</span><span><i class="parked"></i>thread parked\
        </span><span><i class="retake"></i>retake</span><span><i class="handoff"></i>hand-off\
        </span><span><i class="demotion"></i>runnext demotion</span><span>&#8595; steal</span>
        <label>zoom <input id="zoom" type="range" min="0" max="8" step="1" value="0"></label>
        </div>
        <ul id="errors"></ul>
        <div id="trace"></div>
        <script>
        const TRACE = %s;
        </script>
        <script>
        %s</script>
        </body>
        </html>
        """.formatted(text(t.executor), resource("trace.css"), text(t.executor), json(t),
            resource("trace.js"));
  }

  /** The data, as the renderer reads it (see trace.js). */
  static String json(TraceModel t) {
    StringBuilder b = new StringBuilder(1 << 16);
    b.append("{\"executor\":").append(str(t.executor)).append(",\"span\":").append(t.span);
    b.append(",\"counts\":{");
    String sep = "";
    for (Map.Entry<String, Integer> c : t.counts.entrySet()) {
      b.append(sep).append(str(c.getKey())).append(':').append(c.getValue());
      sep = ",";
    }
    b.append("},\"procs\":[");
    sep = "";
    for (Map.Entry<Integer, List<TraceModel.Segment>> lane : t.procs.entrySet()) {
      b.append(sep).append("{\"p\":").append(lane.getKey()).append(",\"segs\":[");
      String s2 = "";
      for (TraceModel.Segment s : lane.getValue()) {
        b.append(s2).append('[').append(s.start()).append(',').append(s.end()).append(',')
            .append(str(s.state())).append(',').append(s.m()).append(']');
        s2 = ",";
      }
      b.append("]}");
      sep = ",";
    }
    b.append("],\"marks\":[");
    sep = "";
    for (TraceModel.Mark m : t.marks) {
      b.append(sep).append('[').append(m.t()).append(',').append(m.p()).append(',')
          .append(str(m.kind())).append(',').append(str(m.label())).append(']');
      sep = ",";
    }
    b.append("],\"steals\":[");
    sep = "";
    for (TraceModel.Steal s : t.steals) {
      b.append(sep).append('[').append(s.t()).append(',').append(s.from()).append(',')
          .append(s.to()).append(',').append(s.tasks()).append(']');
      sep = ",";
    }
    b.append("],\"threads\":[");
    sep = "";
    for (TraceModel.Thread th : t.threads) {
      b.append(sep).append("{\"m\":").append(th.m()).append(",\"parks\":[");
      String s2 = "";
      for (long[] p : th.parks()) {
        b.append(s2).append('[').append(p[0]).append(',').append(p[1]).append(']');
        s2 = ",";
      }
      b.append("]}");
      sep = ",";
    }
    return b.append("]}").toString();
  }

  /** A JSON string literal that is also safe inside a script element. */
  static String str(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '<' -> b.append("\\u003c"); // no "</script>" can end the element early
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /** HTML text (the executor's name in the title and heading). */
  static String text(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static String resource(String name) {
    try (InputStream in = TracePage.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource " + name + " missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
