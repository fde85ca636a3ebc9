package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped gmp.jfc: every gmp event on, and the command the README gives works. */
class JfcTest {
  static final String RESOURCE = "/dev/gmp/gmp.jfc";

  @Test
  void theShippedSettingsEnableEveryGmpEventAndNothingElse() throws Exception {
    Configuration c;
    try (InputStream in = GmpExecutor.class.getResourceAsStream(RESOURCE);
        Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
      c = Configuration.create(r);
    }
    Map<String, String> settings = c.getSettings();
    Set<String> names = new TreeSet<>();
    for (Class<? extends Event> e : JfrEventsTest.EVENTS) {
      String n = e.getAnnotation(Name.class).value();
      names.add(n);
      assertEquals("true", settings.get(n + "#enabled"), n);
    }
    for (String key : settings.keySet()) {
      assertTrue(names.contains(key.substring(0, key.indexOf('#'))), "a gmp event: " + key);
    }
    assertEquals("1 s", settings.get("dev.gmp.ExecutorStats#period"));
  }

  @Test
  void theDocumentedCommandRecordsGmpEventsBesideTheJdksDefaults(@TempDir Path dir)
      throws Exception {
    Path jfc = dir.resolve("gmp.jfc");
    Path rec = dir.resolve("app.jfr");
    try (InputStream in = GmpExecutor.class.getResourceAsStream(RESOURCE)) {
      Files.copy(in, jfc, StandardCopyOption.REPLACE_EXISTING); // what `unzip -p` gives a user
    }
    String cp = String.join(File.pathSeparator,
        ChildJvm.codeSource(GmpExecutor.class).toString(),
        ChildJvm.codeSource(JfcMain.class).toString());
    Process p = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:StartFlightRecording:settings=default,settings=" + jfc + ",filename=" + rec,
            "-cp", cp, JfcMain.class.getName())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("out.txt").toFile())
        .start();
    boolean exited = p.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    assertTrue(exited, "the child JVM did not exit");
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("out.txt")));
    Set<String> types = new TreeSet<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(rec)) {
      types.add(e.getEventType().getName());
    }
    assertTrue(types.contains("dev.gmp.ProcState"), "gmp's events: " + types);
    assertTrue(types.contains("jdk.JVMInformation"), "the JDK's defaults too: " + types);
  }

  @Test
  void aToolListingEventTypesSeesEveryGmpEventBeforeItsFirstUse() throws Exception {
    // A fresh JVM, where no gmp event has been emitted (emitting registers a type too).
    String cp = String.join(File.pathSeparator,
        ChildJvm.codeSource(GmpExecutor.class).toString(),
        ChildJvm.codeSource(EventTypesMain.class).toString());
    Path out = Files.createTempFile("gmp-types", ".out");
    try {
      Process p = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", cp, EventTypesMain.class.getName())
          .redirectErrorStream(true)
          .redirectOutput(out.toFile())
          .start();
      boolean exited = p.waitFor(60, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      assertTrue(exited, "the child JVM did not exit");
      Set<String> expected = new TreeSet<>();
      for (Class<? extends Event> e : JfrEventsTest.EVENTS) {
        expected.add(e.getAnnotation(Name.class).value());
      }
      assertEquals(expected, new TreeSet<>(Files.readAllLines(out)));
      assertEquals(0, p.exitValue());
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
