package dev.gmp.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader for JMH's result files (objects, arrays, strings, numbers, booleans,
 * null), so the report needs no dependency. Objects become LinkedHashMaps, arrays ArrayLists,
 * numbers Doubles. JMH writes "NaN" as a string; {@link #num} accepts that.
 */
final class Json {
  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    Json p = new Json(text);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != p.s.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  static double num(Object o) {
    if (o instanceof Double d) {
      return d;
    }
    if (o instanceof String str) {
      try {
        return Double.parseDouble(str);
      } catch (NumberFormatException e) {
        return Double.NaN;
      }
    }
    return Double.NaN;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> obj(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  static List<Object> arr(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : List.of();
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + i);
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private Object value() {
    if (i >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        expect("true");
        return Boolean.TRUE;
      case 'f':
        expect("false");
        return Boolean.FALSE;
      case 'n':
        expect("null");
        return null;
      default:
        return number();
    }
  }

  private void expect(String word) {
    if (!s.startsWith(word, i)) {
      throw error("expected " + word);
    }
    i += word.length();
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++; // {
    ws();
    if (s.charAt(i) == '}') {
      i++;
      return m;
    }
    for (; ; ) {
      ws();
      String k = string();
      ws();
      if (s.charAt(i++) != ':') {
        throw error("expected ':'");
      }
      ws();
      m.put(k, value());
      ws();
      char c = s.charAt(i++);
      if (c == '}') {
        return m;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++; // [
    ws();
    if (s.charAt(i) == ']') {
      i++;
      return l;
    }
    for (; ; ) {
      ws();
      l.add(value());
      ws();
      char c = s.charAt(i++);
      if (c == ']') {
        return l;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    if (s.charAt(i) != '"') {
      throw error("expected string");
    }
    i++;
    StringBuilder b = new StringBuilder();
    for (; ; ) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 't' -> b.append('\t');
          case 'r' -> b.append('\r');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private Double number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw error("unexpected character '" + s.charAt(i) + "'");
    }
    return Double.parseDouble(s.substring(start, i));
  }
}
