package dev.gmp;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/** JfcTest's child JVM: builds an executor, then lists the gmp event types JFR knows. */
public final class EventTypesMain {
  private EventTypesMain() {}

  public static void main(String[] args) {
    GmpExecutor ex = GmpExecutor.create(1); // gmp's types are JFR's while an executor lives
    try {
      for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
        if (t.getName().startsWith("dev.gmp.")) {
          System.out.println(t.getName());
        }
      }
    } finally {
      ex.shutdown();
    }
  }
}
