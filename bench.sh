#!/usr/bin/env bash
# gmp benchmarks (module gmp-bench). Results and how to read them: docs/benchmarks.md.
# Every view compares gmp with ForkJoinPool in the same run and prints gmp time / ForkJoinPool
# time (< 1: gmp faster), medians with min-max over rounds.
#
#   ./bench.sh                main job (~3 min after the build): in fresh JVMs, gmp and
#                             ForkJoinPool interleaved, every workload at parallelism 1, 2, 4:
#                             operations 1-30 (short runs) and 10 after 0.6 s of warm-up
#                             (ShortRuns, ThreeViews; JMH's steady state: ./bench.sh steady)
#   ./bench.sh busy           the same with a CPU burner JVM beside each JVM (one busy thread per
#                             CPU), quiet and busy rounds interleaved (~7 min)
#   ./bench.sh jit            JIT volume (-XX:+CITime), wall and CPU (/usr/bin/time -v) of a short
#                             cold job, gmp vs ForkJoinPool (~1 min)
#   ./bench.sh compare REV    short runs and JIT view of REV's gmp-core against this tree's, each
#                             with its own ForkJoinPool partner, interleaved (~10 min)
#   ./bench.sh views ARGS...  ThreeViews with your own options (--jvms, --p, --workloads, --views,
#                             --gmp LABEL=CORE_JAR, ...; see ThreeViews.java), or "views jit ARGS"
#   ./bench.sh steady         JMH steady state on a representative subset at parallelism 2,
#                             2 forks (the former main job, ~2 min); BENCH_BURN=1: beside a
#                             CPU burner JVM (one busy thread per CPU)
#   ./bench.sh full           the whole JMH suite, every executor, parallelism 1 and 2 (gmp and
#                             ForkJoinPool also at 4), the JDK HttpServer and Jetty on each (~31 min
#                             on 2 cores); tables to
#                             bench-results/full-*/report.md
#   ./bench.sh ablation       gmp with each scheduler switch flipped in turn (~12 min)
#   ./bench.sh plots [FULL_DIR [ABLATION_DIR]]
#                             regenerate docs/benchmarks/*.svg from JMH JSON (default: the
#                             recorded runs in docs/benchmarks/data/) and the three-view plots
#                             from data/views/headline/summary.json
#   ./bench.sh report FILE... print the tables for JMH JSON files
#   ./bench.sh jmh ARGS...    the JMH jar with your own arguments (-foe true is added)
#   ./bench.sh trace [OUT.html]
#                             record a short demo workload with gmp's JFR events and draw it as
#                             Go's "View trace by proc" (default bench-results/trace-STAMP.html)
#   ./bench.sh trace IN.jfr OUT.html [EXECUTOR]
#                             the same picture for your own recording
#
# Environment: BENCH_SKIP_BUILD=1 reuses gmp-bench/target/benchmarks.jar; BENCH_JAR=FILE runs a
# given benchmarks jar (the same code for several runs); BENCH_FORKS=N sets the
# forks of the parallelism-2 JMH runs; BENCH_JVMS=N the rounds (fresh JVMs per executor and cell)
# of the fresh-JVM views (main 3, busy 3, jit 5, compare 5); BENCH_SMOKE=1 shrinks every run to
# the least that still runs it (a check that everything runs; meaningless numbers). JAVA_HOME is
# used when it is a JDK >= 21, otherwise the newest JDK >= 21 under /usr/lib/jvm is picked.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1; }

pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ] 2>/dev/null; then
    return
  fi
  local best="" best_v=0 d v
  for d in /usr/lib/jvm/*; do
    [ -x "$d/bin/java" ] || continue
    v=$(java_major "$d" || echo 0)
    if [ "${v:-0}" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$d"; best_v=$v; fi
  done
  if [ -z "$best" ]; then
    echo "bench.sh: no JDK >= 21 found (JAVA_HOME or /usr/lib/jvm/*). Install one, e.g. Temurin 25." >&2
    exit 1
  fi
  export JAVA_HOME="$best"
}

pick_jdk
export PATH="$JAVA_HOME/bin:$PATH"
JAVA="$JAVA_HOME/bin/java"
mkdir -p bench-results
STAMP=$(date -u +%Y%m%d-%H%M%S)

build() {
  JAR="$ROOT/bench-results/benchmarks-$STAMP.jar"
  if [ -n "${BENCH_JAR:-}" ]; then # a jar built earlier (several runs on exactly the same code)
    cp "$BENCH_JAR" "$JAR"
    trap 'rm -f "$JAR"' EXIT
    return
  fi
  if [ "${BENCH_SKIP_BUILD:-0}" != 1 ] || [ ! -f gmp-bench/target/benchmarks.jar ]; then
    echo "Building gmp-bench (JDK $(java_major "$JAVA_HOME") at $JAVA_HOME)..."
    # Maven 3.8 prints terminal colour resets even with -B -q: keep its output in a log, shown
    # only if the build fails, so the table is the first thing on the screen.
    mvn -B -q -pl gmp-bench -am package -DskipTests > bench-results/build.log 2>&1 \
      || { cat bench-results/build.log; echo "bench.sh: build failed" >&2; exit 1; }
  fi
  # Run from a private copy: a build running meanwhile (mvn verify elsewhere) replaces the jar.
  cp gmp-bench/target/benchmarks.jar "$JAR"
  trap 'rm -f "$JAR"' EXIT
}

# The same heap for every fork, touched before the benchmark starts: JMH is the steady-state view,
# and a JVM that has run a while has faulted its heap in; on a VM whose memory the host backs
# lazily, a 3 s fork otherwise measures its first pass over eden for both executors (page faults,
# up to 5x the time: docs/benchmarks.md, "The heap's first touch in JMH forks"). The fresh-JVM
# views (ThreeViews' CHILD_JVM) keep the same heap untouched, as a program starts. Host and forks
# get the flag that silences JMH's own Unsafe warning on JDK 24+ (JMH's Blackhole and Utils use
# sun.misc.Unsafe; gmp and the benchmarks do not).
FORK_JVM="-Xms1g -Xmx1g -XX:+AlwaysPreTouch -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow"
HOST_JVM=(-XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow)

# BENCH_SMOKE=1: every run becomes one fork, one 100 ms iteration, no warm-up (checks that each
# benchmark runs and the scripts work end to end; the numbers mean nothing).
jmh() {
  local a=() skip=0 x
  if [ "${BENCH_SMOKE:-0}" = 1 ]; then
    for x in "$@"; do
      if [ "$skip" = 1 ]; then skip=0; continue; fi
      case "$x" in -f|-wi|-w|-i|-r) skip=1 ;; *) a+=("$x") ;; esac
    done
    a+=(-f 1 -wi 0 -i 1 -w 100ms -r 100ms)
  else
    a=("$@")
  fi
  "$JAVA" "${HOST_JVM[@]}" -jar "$JAR" -foe true -jvmArgs "$FORK_JVM" "${a[@]}"
}
report() { "$JAVA" -cp "$JAR" dev.gmp.bench.report.Report "$@"; }

machine() {
  # Family and model too: VMs sold as the same type run gmp and ForkJoinPool differently
  # (docs/benchmarks.md, headline), so a table says which CPU it came from.
  echo "Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
    "(family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1))," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM;" \
    "JDK $("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p');" \
    "gmp $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- gmp-core 2>/dev/null || echo ' + uncommitted gmp-core changes')"
}

# The main job's subset: Tokio's core scheduler benches, one actor pair, the fork-join tree.
MAIN_BENCHES=(
  'TokioRt\.(chained_spawn|spawn_many_local|spawn_many_remote_idle|ping_pong|yield_many)$'
  'KotlinActors\.singlePingPong$'
  'ForkJoinTree\.forkJoinTree$'
)

steady_subset() {
  build
  local out="bench-results/steady-$STAMP.json" t0 t1
  machine
  echo "Steady state (JMH): gmp vs ForkJoinPool, parallelism 2, 2 forks x 3 iterations (~2 min)..."
  t0=$(date +%s)
  if [ "${BENCH_BURN:-0}" = 1 ]; then # the busy-machine view: a burner JVM beside every fork
    echo "with a CPU burner ($(nproc) busy threads) beside it"
    exec 3> >("$JAVA" -cp "$JAR" dev.gmp.bench.ShortRuns burn "$(nproc)") # ends when fd 3 closes
    sleep 1
  fi
  jmh "${MAIN_BENCHES[@]}" -p executor=gmp,fjp -p parallelism=2 \
    -f 2 -wi 3 -w 400ms -i 3 -r 700ms -rf json -rff "$out" > "bench-results/steady-$STAMP.log" 2>&1 \
    || { tail -40 "bench-results/steady-$STAMP.log"; echo "bench.sh: JMH failed, log: bench-results/steady-$STAMP.log" >&2; exit 1; }
  t1=$(date +%s)
  [ "${BENCH_BURN:-0}" = 1 ] && exec 3>&-
  echo
  report compare "$out" | tee "bench-results/steady-$STAMP.md"
  echo
  echo "JMH wall time: $((t1 - t0)) s. JSON: $out  log: bench-results/steady-$STAMP.log"
  cp "$out" bench-results/steady-latest.json
}

# The fresh-JVM views (ShortRuns in each JVM, ThreeViews drives them): operations 1-30 (short
# runs), then untimed operations until 600 ms, then 10 timed ones (warmed up, in the same JVM).
views() {
  local dir=$1; shift
  local smoke=()
  [ "${BENCH_SMOKE:-0}" = 1 ] && smoke=(--jvms 1 --p 2 --ops 2 --warm-ms 0 --steady-ops 1)
  mkdir -p "$dir"
  machine | tee "$dir/machine.txt"
  "$JAVA" "${HOST_JVM[@]}" -cp "$JAR" dev.gmp.bench.ThreeViews "$@" "${smoke[@]}" --out "$dir"
}
FRESH=(--p 1,2,4 --ops 30 --warm-ms 600 --steady-ops 10)

main_job() {
  build
  echo "Main job: short runs and operations after 0.6 s in fresh JVMs, gmp vs ForkJoinPool (~3 min)..."
  views "bench-results/main-$STAMP" "${FRESH[@]}" --jvms "${BENCH_JVMS:-3}"
  echo "Results: bench-results/main-$STAMP (table.md, summary.json, raw.csv)"
}

busy_view() {
  build
  echo "Busy machine: quiet and busy rounds interleaved, a CPU burner beside each busy JVM (~7 min)..."
  views "bench-results/busy-$STAMP" "${FRESH[@]}" --jvms "${BENCH_JVMS:-3}" --views quiet,busy
  echo "Results: bench-results/busy-$STAMP"
}

jit_view() {
  build
  echo "JIT view: a short cold job per fresh JVM, -XX:+CITime, /usr/bin/time -v (~1 min)..."
  [ -x /usr/bin/time ] || { echo "bench.sh: jit needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
  views "bench-results/jit-$STAMP" jit --p 2 --jvms "${BENCH_JVMS:-5}"
}

# REV's gmp-core built in a temporary worktree; this tree's gmp-core jar from the build above.
compare() {
  local rev=${1:?usage: ./bench.sh compare REV}
  build
  local short tmp dir="bench-results/compare-$STAMP" here
  short=$(git rev-parse --short "$rev")
  here=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- gmp-core 2>/dev/null || echo '+')
  tmp=$(mktemp -d)
  mkdir -p "$dir"
  echo "Building gmp-core at $short..."
  git worktree add --detach "$tmp/src" "$rev" > /dev/null 2>&1
  mvn -B -q -f "$tmp/src/pom.xml" -pl gmp-core package -DskipTests -Dmaven.javadoc.skip=true \
    > "$dir/build-$short.log" 2>&1 || { cat "$dir/build-$short.log"; git worktree remove --force "$tmp/src"; exit 1; }
  cp "$tmp"/src/gmp-core/target/gmp-core-*[0-9T].jar "$dir/gmp-core-$short.jar"
  git worktree remove --force "$tmp/src"
  cp gmp-core/target/gmp-core-*[0-9T].jar "$dir/gmp-core-$here.jar"
  local g=(--gmp "$here=$ROOT/$dir/gmp-core-$here.jar" --gmp "$short=$ROOT/$dir/gmp-core-$short.jar")
  views "$dir" "${FRESH[@]}" --jvms "${BENCH_JVMS:-5}" "${g[@]}"
  views "$dir" jit --p 2 --jvms "${BENCH_JVMS:-5}" "${g[@]}"
}

# The full suite: several JMH invocations sized for ~30 min on 2 cores (docs/benchmarks.md says
# why): parallelism 2 with 2 forks (BENCH_FORKS), parallelism 1 with 1 fork (for the scaling plot).
full_suite() {
  build
  local dir="bench-results/full-$STAMP" t0 t1 f2=${BENCH_FORKS:-2}
  mkdir -p "$dir"
  machine | tee "$dir/machine.txt"
  local W=(-wi 3 -w 400ms -i 3 -r 300ms)
  t0=$(date +%s)
  local failed=()
  # A failing group (-foe true stops it at its first error) is reported; the others still run.
  run() { local name=$1; shift; echo "[$(date -u +%H:%M:%S)] $name"; jmh "$@" -rf json -rff "$dir/$name.json" > "$dir/$name.log" 2>&1 \
    || { tail -40 "$dir/$name.log"; echo "bench.sh: JMH failed in $name, log: $dir/$name.log" >&2; failed+=("$name"); }; }
  local CORE=('TokioRt\.' 'GoProc\.' 'GoMatmult' 'KotlinActors\.' 'ForkJoinTree' 'BlockingMix')
  # every executor (the main comparison first; the parallelism-1 runs, for scaling, last)
  run core-p2 "${CORE[@]}" -p parallelism=2 -f "$f2" "${W[@]}"
  run latency 'Latency\.' -p parallelism=1,2 -f "$f2" "${W[@]}"
  # each operation lasts 1.2 s: one fork, two measured operations
  run idle 'IdleCpu' -p parallelism=2 -f 1 -wi 0 -i 2
  run busy 'TokioBusy' -p parallelism=1,2 -f "$f2" -wi 2 -w 400ms -i 2 -r 300ms
  # Go runs PingPongHog at GOMAXPROCS=1 only
  run hog 'GoPingPongHog' -p parallelism=1 -f "$f2" "${W[@]}"
  # the parameter-heavy ones: parallelism 2, fewer executors
  run wakeup 'GoWakeup' -p executor=gmp,fjp -p parallelism=2 -f "$f2" "${W[@]}"
  run remote 'TokioRemoteSpawn' -p executor=gmp,fjp,tpe -p parallelism=2 -f "$f2" "${W[@]}"
  # the JDK's HttpServer on each executor (gmp, ForkJoinPool, fixed pool, cached pool, virtual
  # threads), 4 and 16 keep-alive clients, tiny handlers and handlers that wait 1 ms unmarked,
  # in a sleep or in a read from a backend (~7 min)
  run http 'HttpServerBench' -p server=jdk -p parallelism=2 -f "$f2" -wi 2 -w 1s -i 3 -r 1s
  # Jetty 12 on the same executors, 16 clients (~4 min)
  run jetty 'HttpServerBench' -p server=jetty -p clients=16 -p executor=gmp,fjp,tpe,cached \
    -p parallelism=2 -f "$f2" -wi 2 -w 1s -i 3 -r 1s
  # and Tomcat 11 (~4 min)
  run tomcat 'HttpServerBench' -p server=tomcat -p clients=16 -p executor=gmp,fjp,tpe,cached \
    -p parallelism=2 -f "$f2" -wi 2 -w 1s -i 3 -r 1s
  run core-p1 "${CORE[@]}" -p parallelism=1 -f 1 "${W[@]}"
  # parallelism 4 on the same cores (the oversubscribed container case): gmp and ForkJoinPool
  run core-p4 "${CORE[@]}" -p executor=gmp,fjp -p parallelism=4 -f 1 "${W[@]}"
  t1=$(date +%s)
  echo "Full suite: $((t1 - t0)) s" | tee -a "$dir/machine.txt"
  find "$dir" -name '*.json' -empty -delete
  { report table "$dir"/*.json; echo; report compare "$dir"/*.json; } > "$dir/report.md"
  cat "$dir/report.md"
  echo "Results: $dir"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "bench.sh: these groups failed: ${failed[*]}" >&2
    exit 1
  fi
}

# Ablation: gmp alone, each switch of gmp-core/src/main/java/dev/gmp/Switches.java off in turn.
ABLATIONS=(
  "baseline|"
  "runnext=false|-Dgmp.runnext=false"
  "tick61=false|-Dgmp.tick61=false"
  "stealHalf=false|-Dgmp.stealHalf=false"
  "runnextBackoff=false|-Dgmp.runnextBackoff=false"
  "spinLimit=false|-Dgmp.spinLimit=false"
  "gfree=true|-Dgmp.gfree=true"
  "batchOverflow=false|-Dgmp.batchOverflow=false"
  "idleSpins=0|-Dgmp.idleSpins=0"
  "blockDetect=false|-Dgmp.blockDetect=false"
  "lifoPop=false|-Dgmp.lifoPop=false"
)
ABLATION_BENCHES=(
  'TokioRt\.(chained_spawn|spawn_many_local|spawn_many_remote_idle|ping_pong|yield_many)$'
  'TokioBusy2'
  'KotlinActors\.singlePingPong$'
  'ForkJoinTree\.forkJoinTree$'
  'GoWakeup'
  'Latency'
  'BlockingMix'
  'BlockingCalls'
)

ablation() {
  build
  local dir="bench-results/ablation-$STAMP" args=() failed=() a label flag t0 t1
  mkdir -p "$dir"
  machine | tee "$dir/machine.txt"
  t0=$(date +%s)
  for a in "${ABLATIONS[@]}"; do
    label=${a%%|*}; flag=${a#*|}
    echo "[$(date -u +%H:%M:%S)] $label $flag"
    jmh "${ABLATION_BENCHES[@]}" -p executor=gmp -p parallelism=2 -p delayUs=5 -p mode=burst -p blocking=managed \
      -p callMicros=10,200 -p tasks=10000 \
      ${flag:+-jvmArgsAppend "$flag"} -f "${BENCH_FORKS:-2}" -wi 3 -w 400ms -i 2 -r 300ms \
      -rf json -rff "$dir/$label.json" > "$dir/$label.log" 2>&1 \
      || { tail -40 "$dir/$label.log"; echo "bench.sh: JMH failed ($label), log: $dir/$label.log" >&2; failed+=("$label"); }
    [ -s "$dir/$label.json" ] && args+=("$dir/$label.json")
  done
  t1=$(date +%s)
  echo "Ablation: $((t1 - t0)) s" | tee -a "$dir/machine.txt"
  report ablation "${args[@]}" | tee "$dir/report.md"
  echo "Results: $dir"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "bench.sh: these ablation runs failed: ${failed[*]}" >&2
    exit 1
  fi
}

plots() {
  local full=${1:-docs/benchmarks/data/full} abl=${2:-docs/benchmarks/data/ablation} args=() a label
  build
  report svg docs/benchmarks "$full"/*.json
  # the headline's three views (a ./bench.sh busy run copied to data/views/headline)
  [ -f docs/benchmarks/data/views/headline/summary.json ] \
    && "$JAVA" -cp "$JAR" dev.gmp.bench.report.Report views-svg docs/benchmarks docs/benchmarks/data/views/headline/summary.json
  # gmp / ForkJoinPool at parallelism 1, 2 and 4 (the full suite's core-p4 group, or a recorded
  # gmp-and-ForkJoinPool run at all three)
  local byp=docs/benchmarks/data/p124
  [ -d "$full" ] && ls "$full"/core-p4.json > /dev/null 2>&1 && byp=$full
  ls "$byp"/*.json > /dev/null 2>&1 && report parallelism-svg docs/benchmarks/ratio-by-parallelism.svg "$byp"/*.json
  if [ -d "$abl" ]; then
    for a in "${ABLATIONS[@]}"; do
      label=${a%%|*}
      [ -f "$abl/$label.json" ] && args+=("$abl/$label.json")
    done
    report ablation-svg docs/benchmarks/ablation.svg "${args[@]}"
  fi
}

case "${1:-main}" in
  main) main_job ;;
  busy) busy_view ;;
  jit) jit_view ;;
  compare) shift; compare "$@" ;;
  views) shift; build; views "bench-results/views-$STAMP" "$@" ;;
  steady) steady_subset ;;
  full) full_suite ;;
  ablation) ablation ;;
  plots) shift; plots "$@" ;;
  report) shift; build; report table "$@"; echo; report compare "$@" ;;
  jmh) shift; build; jmh "$@" ;;
  trace) shift; build
    if [ $# -ge 2 ]; then
      "$JAVA" -cp "$JAR" dev.gmp.bench.trace.TraceView html "$@"
    else
      "$JAVA" -cp "$JAR" dev.gmp.bench.trace.TraceView demo "${1:-bench-results/trace-$STAMP.html}"
    fi ;;
  -h|--help|help) sed -n '2,42p' "$0" ;;
  *) echo "bench.sh: unknown command '$1' (try ./bench.sh help)" >&2; exit 2 ;;
esac
