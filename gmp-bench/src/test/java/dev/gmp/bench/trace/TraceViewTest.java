package dev.gmp.bench.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace view: a real recording of the demo workload becomes a lane per processor, and the
 * page renders in headless Chromium without a script error and with a non-empty lane set. The
 * checks are shown to fail on a page whose script throws and on one with no lanes.
 */
class TraceViewTest {
  @TempDir static Path dir;

  static Path jfr;

  @BeforeAll
  static void record() throws Exception {
    jfr = dir.resolve("demo.jfr");
    TraceDemo.record(jfr, "demo", 4);
  }

  @Test
  void aLanePerProcessorOfOrderedSegments() throws Exception {
    TraceModel t = TraceModel.read(jfr, null);
    assertEquals("demo", t.executor);
    assertEquals(Set.of(0, 1, 2, 3), t.procs.keySet());
    for (var lane : t.procs.entrySet()) {
      List<TraceModel.Segment> segs = lane.getValue();
      assertFalse(segs.isEmpty(), "lane P" + lane.getKey());
      long prev = 0;
      for (TraceModel.Segment s : segs) {
        assertTrue(s.start() >= prev && s.end() >= s.start() && s.end() <= t.span,
            "P" + lane.getKey() + " " + s);
        prev = s.end();
      }
      assertTrue(segs.stream().anyMatch(s -> s.state().equals("running") && s.m() >= 1),
          "P" + lane.getKey() + " ran something");
    }
    assertTrue(t.counts.getOrDefault("Park", 0) > 0, t.counts.toString());
    assertTrue(!t.threads.isEmpty(), "threads with park intervals");
  }

  @Test
  void aRecordingWithoutGmpEventsIsAClearError() throws Exception {
    Path empty = dir.resolve("empty.jfr");
    try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
      r.start();
      r.stop();
      r.dump(empty);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TraceModel.read(empty, null));
    assertTrue(e.getMessage().contains("dev.gmp.ProcState"), e.getMessage());
  }

  @Test
  void thePageHoldsItsDataAndScriptAndFetchesNothing() throws Exception {
    String html = TracePage.html(TraceModel.read(jfr, "demo"));
    assertTrue(html.contains("const TRACE = {\"executor\":\"demo\""), "data inlined");
    assertTrue(html.contains("View trace by proc"), "renderer inlined");
    assertFalse(html.contains("src=") || html.contains("href="), "nothing fetched");
    assertEquals("\"a\\u003c/script>\\\"\"", TracePage.str("a</script>\""));
  }

  // ---------------------------------------------------------------- in a real browser

  private static Path chromium() {
    Path c = Chromium.find();
    if (Chromium.required()) {
      assertTrue(c != null, "GMP_REQUIRE_CHROMIUM=1 but no chromium found (.ci/run installs it"
          + " with apt-get when run as root)");
    } else {
      assumeTrue(c != null, "no chromium on the PATH: the browser checks are skipped");
    }
    return c;
  }

  /** What the rendered page says about itself: data-status, data-lanes, lanes, errors. */
  record Rendered(String status, int lanesAttr, int laneGroups, int running, String errors) {
    static Rendered of(String dom) {
      Matcher body = Pattern.compile("<body([^>]*)>").matcher(dom);
      assertTrue(body.find(), "a body in the DOM: " + dom);
      String attrs = body.group(1);
      Matcher status = Pattern.compile("data-status=\"([^\"]*)\"").matcher(attrs);
      Matcher lanes = Pattern.compile("data-lanes=\"(\\d+)\"").matcher(attrs);
      Matcher errs = Pattern.compile("<ul id=\"errors\">(.*?)</ul>", Pattern.DOTALL)
          .matcher(dom);
      return new Rendered(
          status.find() ? status.group(1) : "",
          lanes.find() ? Integer.parseInt(lanes.group(1)) : 0,
          count(dom, "<g class=\"lane\""),
          count(dom, "class=\"seg running\""),
          errs.find() ? errs.group(1) : "(no error list)");
    }

    boolean ok() {
      return status.equals("rendered") && errors.isEmpty() && laneGroups > 0
          && lanesAttr == laneGroups;
    }
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  private static Rendered render(String html, String name) throws Exception {
    Path work = Files.createDirectories(dir.resolve("chromium-" + name));
    Path page = work.resolve(name + ".html");
    Files.writeString(page, html, StandardCharsets.UTF_8);
    return Rendered.of(Chromium.dumpDom(chromium(), page, work));
  }

  @Test
  void theDemoPageRendersALanePerProcessorInHeadlessChromium() throws Exception {
    Rendered r = render(TracePage.html(TraceModel.read(jfr, "demo")), "demo");
    assertTrue(r.ok(), r.toString());
    assertEquals(4, r.laneGroups(), r.toString());
    assertTrue(r.running() > 0, r.toString());
  }

  /** The demo page with its data replaced by {@code data} (a JSON literal). */
  private static String withData(String data) throws Exception {
    String html = TracePage.html(TraceModel.read(jfr, "demo"));
    int i = html.indexOf("const TRACE = ");
    int j = html.indexOf(";\n", i);
    return html.substring(0, i) + "const TRACE = " + data + html.substring(j);
  }

  @Test
  void theCheckFailsOnAScriptError() throws Exception {
    // Well-formed data the renderer cannot draw: segs is not a list (a TypeError while drawing).
    Rendered r = render(withData("{\"executor\":\"x\",\"span\":10,\"counts\":{},"
        + "\"procs\":[{\"p\":0,\"segs\":7}],\"marks\":[],\"steals\":[],\"threads\":[]}"),
        "broken");
    assertFalse(r.ok(), r.toString());
    assertEquals("error", r.status(), r.toString());
    assertFalse(r.errors().isEmpty(), r.toString());
  }

  @Test
  void theCheckFailsOnAnEmptyLaneSet() throws Exception {
    Rendered r = render(withData("{\"executor\":\"x\",\"span\":10,\"counts\":{},"
        + "\"procs\":[],\"marks\":[],\"steals\":[],\"threads\":[]}"), "empty");
    assertFalse(r.ok(), r.toString());
    assertTrue(r.errors().contains("empty lane set"), r.toString());
  }
}
