package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gmp-core's module-info: a tiny modular application (compiled here, run in a child JVM on the
 * module path with no flags) uses dev.gmp, once without Micrometer on the module path (requires
 * static), once with it, through dev.gmp.micrometer, and once recording gmp's JFR events.
 */
class ModularApplicationTest {

  @TempDir Path dir;

  private static Path codeSource(Class<?> c) throws Exception {
    return ChildJvm.codeSource(c);
  }

  @Test
  void theModuleDescriptorExportsTheApiAndRequiresMicrometerStatically() throws Exception {
    ModuleDescriptor d = ModuleFinder.of(codeSource(GmpExecutor.class)).find("dev.gmp")
        .orElseThrow().descriptor();
    assertEquals(Set.of("dev.gmp", "dev.gmp.micrometer"),
        d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
    ModuleDescriptor.Requires mm = d.requires().stream()
        .filter(r -> r.name().equals("micrometer.core")).findFirst().orElseThrow();
    assertEquals(Set.of(ModuleDescriptor.Requires.Modifier.STATIC), mm.modifiers());
  }

  @Test
  void aModularApplicationRunsWithoutMicrometer() throws Exception {
    String main = """
        package app;
        import dev.gmp.GmpExecutor;
        import java.util.concurrent.TimeUnit;
        public class Main {
          public static void main(String[] a) throws Exception {
            System.out.println(Main.class.getModule().getName() + " "
                + GmpExecutor.class.getModule().getName());
            try (GmpExecutor ex = GmpExecutor.builder().name("modular").parallelism(2)
                .jmx(true).taskDecorator(r -> r).build()) {
              System.out.println(ex.submit(() -> 6 * 7).get(10, TimeUnit.SECONDS));
              System.out.println(ex.dump().startsWith("SCHED modular: "));
            }
            System.out.println(ModuleLayer.boot().findModule("micrometer.core").isPresent());
          }
        }
        """;
    List<String> out = compileAndRun("module app { requires dev.gmp; }", main,
        List.of(codeSource(GmpExecutor.class)));
    assertEquals(List.of("app dev.gmp", "42", "true", "false"), out);
  }

  @Test
  void aModularApplicationBindsTheMicrometerMetrics() throws Exception {
    String main = """
        package app;
        import dev.gmp.GmpExecutor;
        import dev.gmp.micrometer.GmpExecutorMetrics;
        import io.micrometer.core.instrument.Tags;
        import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
        import java.util.concurrent.TimeUnit;
        public class Main {
          public static void main(String[] a) throws Exception {
            try (GmpExecutor ex = GmpExecutor.create(3)) {
              SimpleMeterRegistry r = new SimpleMeterRegistry();
              new GmpExecutorMetrics(ex, "m", Tags.empty()).bindTo(r);
              System.out.println(r.get("executor.parallelism").tag("name", "m").gauge().value());
              System.out.println(GmpExecutorMetrics.class.getModule().getName());
            }
          }
        }
        """;
    List<Path> mp = new ArrayList<>(List.of(
        codeSource(GmpExecutor.class),
        codeSource(MeterRegistry.class), codeSource(KeyValue.class),
        codeSource(Observation.class), codeSource(Histogram.class)));
    List<String> out = compileAndRun(
        "module app { requires dev.gmp; requires micrometer.core; }", main, mp);
    assertEquals(List.of("3.0", "dev.gmp"), out);
  }

  @Test
  void gmpEventsAreRecordedOnTheModulePath() throws Exception {
    String main = """
        package app;
        import dev.gmp.GmpExecutor;
        import java.nio.file.Path;
        import java.util.concurrent.TimeUnit;
        import jdk.jfr.Recording;
        import jdk.jfr.consumer.RecordingFile;
        public class Main {
          public static void main(String[] a) throws Exception {
            Path f = Path.of(a[0]);
            try (Recording r = new Recording()) {
              r.enable("dev.gmp.ProcState");
              r.start();
              try (GmpExecutor ex = GmpExecutor.builder().name("rec").parallelism(1).build()) {
                System.out.println(ex.submit(() -> 1).get(10, TimeUnit.SECONDS));
              }
              r.stop();
              r.dump(f);
            }
            System.out.println(RecordingFile.readAllEvents(f).stream()
                .anyMatch(e -> e.getEventType().getName().equals("dev.gmp.ProcState")
                    && e.getString("executor").equals("rec")
                    && e.getString("state").equals("running")));
          }
        }
        """;
    List<String> out = compileAndRun("module app { requires dev.gmp; requires jdk.jfr; }", main,
        List.of(codeSource(GmpExecutor.class)),
        dir.resolve("rec.jfr").toString());
    assertEquals(List.of("1", "true"), out);
  }

  /**
   * The virtual-thread builder on the module path: gmp-core is the named module dev.gmp, so
   * {@code --add-opens java.base/java.lang=ALL-UNNAMED} does not reach it and the message says
   * so; {@code --add-opens java.base/java.lang=dev.gmp} does. Nothing on stderr in any case.
   */
  @Test
  void virtualThreadsOnTheModulePathNeedJavaLangOpenedToDevGmp() throws Exception {
    String main = """
        package app;
        import dev.gmp.GmpExecutor;
        public class Main {
          public static void main(String[] a) throws Exception {
            try (GmpExecutor ex = GmpExecutor.create(1)) {
              try {
                ex.virtualThreadBuilder()
                    .start(() -> System.out.println("carried " + (GmpExecutor.current() == ex)))
                    .join();
              } catch (UnsupportedOperationException e) {
                String m = e.getMessage();
                System.out.println("refused " + m.contains("--add-opens java.base/java.lang=dev.gmp")
                    + " " + m.contains("--add-opens java.base/java.lang=ALL-UNNAMED")
                    + " " + m.contains("named module dev.gmp"));
              }
            }
          }
        }
        """;
    List<Path> mp =
        List.of(codeSource(GmpExecutor.class));
    String info = "module app { requires dev.gmp; }";
    assertEquals(List.of("refused true true true"), compileAndRun(info, main, mp, List.of()));
    assertEquals(List.of("refused true true true"), compileAndRun(info, main, mp,
        List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED")));
    assertEquals(List.of("carried true"), compileAndRun(info, main, mp,
        List.of("--add-opens", "java.base/java.lang=dev.gmp")));
  }

  private List<String> compileAndRun(String moduleInfo, String main, List<Path> modulePath,
      String... args) throws Exception {
    return compileAndRun(moduleInfo, main, modulePath, List.of(), args);
  }

  /**
   * Compiles module {@code app} against {@code modulePath} and runs app/app.Main on it, with
   * {@code jvmOptions} before the module path.
   */
  private List<String> compileAndRun(String moduleInfo, String main, List<Path> modulePath,
      List<String> jvmOptions, String... args) throws Exception {
    Path src = dir.resolve("src");
    Files.createDirectories(src.resolve("app"));
    Files.writeString(src.resolve("module-info.java"), moduleInfo);
    Files.writeString(src.resolve("app/Main.java"), main);
    Path classes = dir.resolve("app");
    String mp = modulePath.stream().map(Path::toString)
        .collect(Collectors.joining(File.pathSeparator));
    // javac as a process: the test classes are patched into dev.gmp, which does not read
    // java.compiler (and must not, for a test).
    Path jdkBin = Path.of(System.getProperty("java.home"), "bin");
    List<String> javacOut = run(List.of(jdkBin.resolve("javac").toString(), "--release", "21",
        "--module-path", mp, "-d", classes.toString(), src.resolve("module-info.java").toString(),
        src.resolve("app/Main.java").toString()), "javac");
    assertEquals(List.of(), javacOut, "javac prints nothing (no warning)");
    List<String> java = new ArrayList<>(List.of(jdkBin.resolve("java").toString()));
    java.addAll(jvmOptions);
    java.addAll(List.of("--module-path", classes + File.pathSeparator + mp, "-m", "app/app.Main"));
    java.addAll(List.of(args));
    return run(java, "java");
  }

  /** Runs a command; it must exit 0 with nothing on stderr. Returns its stdout lines. */
  private List<String> run(List<String> command, String what) throws Exception {
    Path out = dir.resolve(what + ".out");
    Path err = dir.resolve(what + ".err");
    Process p = new ProcessBuilder(command)
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    boolean exited = p.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    assertTrue(exited, what + " did not exit");
    String stderr = Files.readString(err);
    assertEquals("", stderr, what + ": nothing on stderr (no warning, no exception)");
    assertEquals(0, p.exitValue(), what + " exit status");
    return Files.readAllLines(out);
  }
}
