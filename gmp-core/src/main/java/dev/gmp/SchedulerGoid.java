package dev.gmp;

// Scheduler's one contended word laid out on its own cache line by class hierarchy (as
// JCTools pads its queues), so that the layout shows in the types and JOL can confirm it.

/** Padding around Go's sched.goidgen, which every P bumps once per 16 spawns. */
abstract class SchedulerPad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class SchedulerGoid extends SchedulerPad0 {
  volatile long goidgen = 1;
}

abstract class SchedulerPad1 extends SchedulerGoid {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}
