package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the code references in README.md, docs/design.md and the user topic pages must name
 * code that exists.
 *
 * <p>The documents are {@link #DOCS}. What is checked, in backtick spans, fenced code blocks and
 * table rows: every {@code Class.member}, {@code Class#member} and {@code Class.Nested.member}
 * whose {@code Class} is a type of gmp-core (a top-level or nested class of {@code dev.gmp} or
 * {@code dev.gmp.micrometer}, public or not, found by scanning {@code gmp-core/src/main/java} and
 * {@code src/production/java} and loaded without initialisation). The member must be a method,
 * field (constants and enum constants included), nested type or record component that the class
 * declares or inherits. A name that is not a gmp-core type (a JDK class, Go's {@code sched.runq},
 * prose) is ignored, with two exceptions that catch a renamed or removed class: the {@code
 * Class#member} form and a {@code Name.java} file name are gmp's own by convention, so their class
 * must exist in gmp-core (or be a JDK class). A name right after a package or a variable ({@code
 * dev.gmp.Steal}, {@code s.counters}) is skipped: {@code dev.gmp.Steal} is a JFR event name, not a
 * class.
 *
 * <p>Every missing reference is reported at once, as {@code file:line: reference (why)}.
 */
class DocsReferenceTest {

  /**
   * The documents checked, relative to the repository root: the README, the design map and the
   * user topic pages. Not benchmarks.md: its experiments name code as it was when they ran.
   */
  static final List<String> DOCS =
      List.of(
          "README.md",
          "docs/design.md",
          "docs/blocking.md",
          "docs/configuration.md",
          "docs/observability.md",
          "docs/timers.md",
          "docs/virtual-threads.md");

  /** JDK packages tried for a {@code Class#member} or {@code Name.java} that is not gmp's. */
  private static final List<String> JDK_PACKAGES =
      List.of(
          "java.lang.",
          "java.lang.invoke.",
          "java.lang.ref.",
          "java.lang.management.",
          "java.util.",
          "java.util.concurrent.",
          "java.util.concurrent.atomic.",
          "java.util.concurrent.locks.",
          "java.io.",
          "java.nio.",
          "java.time.",
          "jdk.jfr.");

  /** A reference: Name, then any number of .name or #name; group 1 is the whole chain. */
  private static final Pattern REF =
      Pattern.compile("(?<![\\w$.#])([A-Z][A-Za-z0-9_$]*(?:[.#][A-Za-z_$][A-Za-z0-9_$]*)*)");

  /** A top-level type declaration: not indented, after modifiers and annotations. */
  private static final Pattern TOP_LEVEL_TYPE =
      Pattern.compile(
          "(?m)^(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*"
              + "(?:(?:public|abstract|final|sealed|non-sealed|static|strictfp)\\s+)*"
              + "(?:class|interface|record|enum|@interface)\\s+([A-Za-z_$][\\w$]*)");

  @Test
  void docsNameOnlyCodeThatExists() throws IOException {
    Path root = repoRoot();
    // src/production/java holds the production variant of Mutations (src/mutants/java the other).
    Checker checker =
        Checker.forSources(
            root.resolve("gmp-core/src/main/java"), root.resolve("gmp-core/src/production/java"));
    List<String> problems = new ArrayList<>();
    for (String doc : DOCS) {
      Path file = root.resolve(doc);
      assertTrue(Files.isRegularFile(file), "missing document " + file);
      problems.addAll(checker.check(doc, Files.readString(file)));
    }
    if (!problems.isEmpty()) {
      fail(
          problems.size()
              + " code reference(s) in the docs name nothing in gmp-core:\n  "
              + String.join("\n  ", problems));
    }
  }

  /** The checker itself: one good reference passes, one bad one is reported with its line. */
  @Test
  void checkerReportsAMissingMemberWithItsLine() {
    Checker checker = Checker.forTypes(List.of(GmpExecutor.class, GmpStats.class, P.class));
    String text =
        "# title\n"
            + "Use `GmpExecutor.blocking(...)` and `GmpStats#steals`; `P.Pidle` is a constant.\n"
            + "Prose with GmpExecutor.frobnicate outside backticks is not a reference.\n"
            + "But `GmpExecutor.frobnicate()` is wrong, `ForkJoinPool.managedBlock` is the JDK's,\n"
            + "`dev.gmp.Steal#enabled=true` is a JFR setting and `s.counters.x` a variable.\n"
            + "| `Idle#handoffp` | a table row naming a class gmp-core does not have |\n"
            + "```java\n"
            + "GmpExecutor.builder().parallelism(4).build(); GmpStats.nope();\n"
            + "```\n";
    List<String> problems = checker.check("x.md", text);
    assertEquals(3, problems.size(), problems::toString);
    assertTrue(problems.get(0).startsWith("x.md:4: GmpExecutor.frobnicate"), problems::toString);
    assertTrue(problems.get(1).startsWith("x.md:6: Idle#handoffp"), problems::toString);
    assertTrue(problems.get(2).startsWith("x.md:8: GmpStats.nope"), problems::toString);
  }

  @Test
  void checkerKnowsNestedTypesFilesAndInheritedMembers() {
    Checker checker = Checker.forTypes(List.of(GmpExecutor.class, G.class));
    String text =
        "`GmpExecutor.Builder#timeSlice`, `Builder.keepAlive`, `GmpExecutor.submit`,"
            + " `GmpExecutor.invokeAll`, `G.java`, `Gone.java`, `GmpExecutor.Builder.nope`\n";
    List<String> problems = checker.check("y.md", text);
    assertEquals(2, problems.size(), problems::toString);
    assertTrue(problems.get(0).startsWith("y.md:1: Gone.java"), problems::toString);
    assertTrue(problems.get(1).startsWith("y.md:1: GmpExecutor.Builder.nope"), problems::toString);
  }

  /** The repository root: the nearest directory at or above here with README.md, gmp-core/. */
  static Path repoRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("gmp-core"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no repository root (README.md next to gmp-core/) above " + Path.of("").toAbsolutePath());
  }

  /** Resolves references against a set of classes by simple name. */
  static final class Checker {
    private final Map<String, List<Class<?>>> bySimpleName = new HashMap<>();
    private final Set<String> topLevel = new HashSet<>();

    private Checker(List<Class<?>> types) {
      for (Class<?> c : types) {
        topLevel.add(c.getSimpleName());
        addWithNested(c);
      }
    }

    static Checker forTypes(List<Class<?>> types) {
      return new Checker(types);
    }

    /** Every class of gmp-core, from its source files, loaded without initialising it. */
    static Checker forSources(Path... sourceRoots) throws IOException {
      List<Class<?>> types = new ArrayList<>();
      for (Path sourceRoot : sourceRoots) {
        if (Files.isDirectory(sourceRoot)) {
          addSources(sourceRoot, types);
        }
      }
      assertTrue(types.size() > 10, "found only " + types + " under " + List.of(sourceRoots));
      return new Checker(types);
    }

    private static void addSources(Path sourceRoot, List<Class<?>> types) throws IOException {
      ClassLoader loader = DocsReferenceTest.class.getClassLoader();
      try (Stream<Path> files = Files.walk(sourceRoot)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          String name = f.getFileName().toString();
          if (!name.endsWith(".java") || name.equals("module-info.java")
              || name.equals("package-info.java")) {
            continue;
          }
          String rel = sourceRoot.relativize(f).toString().replace('\\', '/');
          int slash = rel.lastIndexOf('/');
          String pkg = slash < 0 ? "" : rel.substring(0, slash).replace('/', '.');
          // Every top-level type of the file (one file may hold several, e.g. padding classes).
          Matcher decl = TOP_LEVEL_TYPE.matcher(Files.readString(f));
          while (decl.find()) {
            String binary = pkg.isEmpty() ? decl.group(1) : pkg + "." + decl.group(1);
            try {
              types.add(Class.forName(binary, false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
              throw new IllegalStateException("cannot load " + binary + " (from " + f + ")", e);
            }
          }
        }
      }
    }

    private void addWithNested(Class<?> c) {
      bySimpleName.computeIfAbsent(c.getSimpleName(), k -> new ArrayList<>()).add(c);
      for (Class<?> n : c.getDeclaredClasses()) {
        addWithNested(n);
      }
    }

    /** Problems in one document, as "file:line: reference (why)", in document order. */
    List<String> check(String fileName, String text) {
      List<String> problems = new ArrayList<>();
      String[] lines = text.split("\n", -1);
      boolean fenced = false;
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        if (line.strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        for (String span : spans(line, fenced)) {
          Matcher m = REF.matcher(span);
          while (m.find()) {
            String why = resolve(m.group(1));
            if (why != null) {
              problems.add(fileName + ":" + (i + 1) + ": " + m.group(1) + " (" + why + ")");
            }
          }
        }
      }
      return problems;
    }

    /** The parts of a line that hold code: all of it in a fence or a table row, else backticks. */
    private static List<String> spans(String line, boolean fenced) {
      if (fenced || line.strip().startsWith("|")) {
        return List.of(line);
      }
      List<String> out = new ArrayList<>();
      int from = 0;
      while (true) {
        int open = line.indexOf('`', from);
        if (open < 0) {
          return out;
        }
        int close = line.indexOf('`', open + 1);
        if (close < 0) {
          return out;
        }
        out.add(line.substring(open + 1, close));
        from = close + 1;
      }
    }

    /** Null when the reference is fine or not gmp's; else why it is not. */
    private String resolve(String ref) {
      String[] parts = ref.split("(?=[.#])");
      String head = parts[0];
      boolean hash = ref.indexOf('#') >= 0;
      boolean javaFile = ref.endsWith(".java") && parts.length == 2;
      List<Class<?>> classes = bySimpleName.get(head);
      if (classes == null) {
        if ((hash || javaFile) && !isJdkClass(head)) {
          return "no such class in gmp-core";
        }
        return null; // not gmp's: the JDK, Go, prose
      }
      if (javaFile) {
        return topLevel.contains(head) ? null : "no such source file in gmp-core";
      }
      Set<Class<?>> current = new LinkedHashSet<>(classes);
      for (int k = 1; k < parts.length; k++) {
        String name = parts[k].substring(1);
        Set<Class<?>> nested = new LinkedHashSet<>();
        for (Class<?> c : current) {
          for (Class<?> n : allNested(c)) {
            if (n.getSimpleName().equals(name)) {
              nested.add(n);
            }
          }
        }
        if (!nested.isEmpty()) {
          current = nested;
          continue;
        }
        for (Class<?> c : current) {
          if (hasMember(c, name)) {
            return null; // a member ends the chain: what follows is a call's result
          }
        }
        return "no member '" + name + "' in " + describe(current);
      }
      return null;
    }

    private static String describe(Set<Class<?>> classes) {
      List<String> names = new ArrayList<>();
      for (Class<?> c : classes) {
        names.add(c.getName());
      }
      return String.join(" or ", names);
    }

    private static boolean isJdkClass(String simpleName) {
      for (String pkg : JDK_PACKAGES) {
        try {
          Class.forName(pkg + simpleName, false, ClassLoader.getPlatformClassLoader());
          return true;
        } catch (ClassNotFoundException | LinkageError e) {
          // try the next package
        }
      }
      return false;
    }

    private static List<Class<?>> allNested(Class<?> c) {
      List<Class<?>> out = new ArrayList<>();
      for (Class<?> k = c; k != null; k = k.getSuperclass()) {
        out.addAll(List.of(k.getDeclaredClasses()));
      }
      return out;
    }

    private static boolean hasMember(Class<?> c, String name) {
      for (Class<?> k = c; k != null; k = k.getSuperclass()) {
        if (declares(k, name)) {
          return true;
        }
      }
      for (Class<?> i : allInterfaces(c)) {
        if (declares(i, name)) {
          return true;
        }
      }
      return false;
    }

    private static boolean declares(Class<?> k, String name) {
      for (Method m : k.getDeclaredMethods()) {
        if (m.getName().equals(name)) {
          return true;
        }
      }
      for (Field f : k.getDeclaredFields()) {
        if (f.getName().equals(name)) {
          return true;
        }
      }
      if (k.isRecord()) {
        for (RecordComponent rc : k.getRecordComponents()) {
          if (rc.getName().equals(name)) {
            return true;
          }
        }
      }
      for (Class<?> n : k.getDeclaredClasses()) {
        if (n.getSimpleName().equals(name)) {
          return true;
        }
      }
      return false;
    }

    private static Set<Class<?>> allInterfaces(Class<?> c) {
      Set<Class<?>> out = new LinkedHashSet<>();
      List<Class<?>> todo = new ArrayList<>();
      for (Class<?> k = c; k != null; k = k.getSuperclass()) {
        todo.addAll(List.of(k.getInterfaces()));
      }
      while (!todo.isEmpty()) {
        Class<?> i = todo.remove(todo.size() - 1);
        if (out.add(i)) {
          todo.addAll(List.of(i.getInterfaces()));
        }
      }
      return out;
    }
  }
}
