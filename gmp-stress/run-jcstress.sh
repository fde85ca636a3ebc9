#!/usr/bin/env bash
# Runs gmp-stress's jcstress tests in bounded time, with guards against jcstress's false greens
# (docs/stress.md).
#
#   run-jcstress.sh [quick|long] [jcstress args...]   all tests (or -t REGEX), must all pass
#   run-jcstress.sh mutants                           each test with its mutation: must FAIL
#
# quick: -m quick -iters 1 -time 100 -sc false (verified to catch every mutation, docs/stress.md)
# long:  -m default -iters 3 -time 1000
# Needs JAVA_HOME >= 21 (the java on PATH may be older). Builds target/jcstress.jar if missing
# (GMP_JCSTRESS_REBUILD=1 forces a build; GMP_JCSTRESS_NO_BUILD=1 never builds). Runs inside
# gmp-stress/target, so jcstress's results/ and *.bin.gz never land in the repository.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
mode="${1:-quick}"
[ $# -gt 0 ] && shift

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
  for j in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    if "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
      JAVA_HOME="${j%/}"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
  echo "run-jcstress.sh: no JDK >= 21 found; set JAVA_HOME" >&2
  exit 2
fi
export JAVA_HOME
java="$JAVA_HOME/bin/java"
jar="$here/target/jcstress.jar"

if [ "${GMP_JCSTRESS_NO_BUILD:-}" != 1 ] && { [ ! -f "$jar" ] || [ "${GMP_JCSTRESS_REBUILD:-}" = 1 ]; }; then
  (cd "$root" && mvn -B -q -pl gmp-stress -am package -DskipTests)
fi
[ -f "$jar" ] || { echo "run-jcstress.sh: $jar missing" >&2; exit 2; }

# Tests with three actors need three CPUs: jcstress skips them on fewer (and says only
# "No scheduling is possible"), so count them out explicitly rather than by accident.
three_actor_tests="RingTwoStealersStress"
cpus="$(nproc)"

case "$mode" in
  quick) preset=(-m quick -iters 1 -time 100 -sc false -v) ;;
  long) preset=(-m default -iters 3 -time 1000 -v) ;;
  mutants) preset=(-m quick -iters 1 -time 100 -sc false -v) ;;
  *) echo "usage: run-jcstress.sh [quick|long|mutants] [jcstress args...]" >&2; exit 2 ;;
esac

cd "$here/target"

# One guarded jcstress run. $1 = log file, rest = jcstress args. Returns 0 (all passed),
# 1 (a test failed: a forbidden outcome or an error), 2 (nothing ran or jcstress broke).
run_guarded() {
  local log="$1"
  shift
  local rc=0
  if [ -n "${GMP_JCSTRESS_REUSE_LOG:-}" ] && [ -f "$log" ]; then
    rc="$GMP_JCSTRESS_REUSE_LOG" # re-check an existing log (for testing this script)
  else
    "$java" -jar "$jar" "${preset[@]}" "$@" >"$log" 2>&1 || rc=$?
  fi
  if grep -q "No matching tests" "$log" || grep -q "^FATAL" "$log"; then
    echo "  jcstress ran nothing: $(grep -m1 -E 'No matching tests|^FATAL' "$log")" >&2
    return 2
  fi
  local last
  last="$(grep -E '^\(Results: ' "$log" | tail -1 || true)"
  if [ -z "$last" ]; then
    echo "  jcstress printed no results line (rc=$rc)" >&2
    return 2
  fi
  # (Results: N planned; P passed, F failed, S soft errs, H hard errs)
  local planned passed failed soft hard
  read -r planned passed failed soft hard < <(echo "$last" |
    sed -E 's/.*Results: ([0-9]+) planned; ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) soft errs, ([0-9]+) hard errs.*/\1 \2 \3 \4 \5/')
  if [ "$planned" -eq 0 ] || [ $((passed + failed + soft + hard)) -eq 0 ]; then
    echo "  zero tests ran" >&2
    return 2
  fi
  if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$soft" -ne 0 ] || [ "$hard" -ne 0 ] ||
    [ "$passed" -ne "$planned" ] || grep -q "TEST FAILURES" "$log"; then
    return 1
  fi
  return 0
}

if [ "$mode" = mutants ]; then
  # test regex : mutation property. Each line must FAIL with its mutation on.
  mutants=(
    "RingOwnerVsStealerStress:grabNoCas"
    "TwoStealersStress:grabNoCas"
    "RingWrapStress:signedSlot"
    "StealHalfStress:stealHalfDown"
    "StealHalfStress:grabNoCas"
    "RunnextReplaceVsStealStress:plainRunnext"
    "PutSlowVsStealStress:putslowNoCas"
    "GlobalBatchStress:putslowNoLock"
    "SpinnerRecheckVsSubmitStress:noRecheck"
    "SpinnerRecheckVsSubmitStress:dropSpinningNoFence"
    "SpinnerRecheckVsSubmitStress:plainRunnext"
    "NeedspinningStress:noNeedspinning"
    "ExternalSubmitVsDropPStress:externalWakeIfIdle"
    "ShutdownVsExecuteStress:submitCheckUnlocked"
    "ExitsyscallVsRetakeStress:exitsyscallNoCas"
  )
  if [ "$cpus" -ge 3 ]; then
    mutants+=("RingTwoStealersStress:grabNoCas")
  fi
  status=0
  start=$SECONDS
  printf '%-32s %-22s %s\n' TEST MUTATION RESULT
  for entry in "${mutants[@]}"; do
    t="${entry%%:*}"
    m="${entry##*:}"
    log="mutant-$t-$m.log"
    r=0
    run_guarded "$log" -t "dev.gmp.$t\$" -jvmArgsPrepend "-Dgmp.mutate.$m=true" "$@" || r=$?
    case "$r" in
      1)
        # Forbidden samples in jcstress's "Results across all configurations" table.
        n="$(awk '/Results across all configurations/ {on = 1; next} /VM error stream|\] dev\.gmp\./ {on = 0}
          on && match($0, /[0-9,]+ +[<0-9.]+% +Forbidden/) {x = substr($0, RSTART); split(x, a, " "); gsub(",", "", a[1]); s += a[1]}
          END {print s + 0}' "$log")"
        res="caught ($n forbidden samples over all configs)"
        ;;
      0) res="NOT CAUGHT"; status=1 ;;
      *) res="NO RUN (see target/$log)"; status=1 ;;
    esac
    printf '%-32s %-22s %s\n' "$t" "$m" "$res"
  done
  echo "mutants: $((SECONDS - start)) s"
  exit "$status"
fi

log="jcstress-$mode.log"
start=$SECONDS
r=0
run_guarded "$log" "$@" || r=$?
elapsed=$((SECONDS - start))
grep -E '^\(Results: ' "$log" | tail -1 || true
# awk, not head: head would close the pipe early, and pipefail would turn SIGPIPE into exit 141.
awk '/^RUN RESULTS:/ {on = 1} on && !/^[[:space:]]*$/ && !/WARNING/ && n++ < 6' "$log"
grep -E '^\.+ \[(OK|FAILED|ERROR)\] ' "$log" | sort -u || true
if [ "$r" -eq 0 ] && [ $# -eq 0 ]; then
  # The whole suite: every test we ship must have run.
  expected="$(unzip -l "$jar" | grep -oE 'dev/gmp/[A-Za-z]+Stress\.class' | sort -u | wc -l)"
  if [ "$cpus" -lt 3 ]; then
    expected=$((expected - $(echo "$three_actor_tests" | wc -w)))
  fi
  ran="$(grep -oE '\[(OK|FAILED|ERROR)\] dev\.gmp\.[A-Za-z]+Stress' "$log" | awk '{print $2}' | sort -u | wc -l)"
  if [ "$ran" -lt "$expected" ]; then
    echo "run-jcstress.sh: only $ran of $expected tests ran" >&2
    r=2
  fi
fi
echo "jcstress $mode: $elapsed s, log gmp-stress/target/$log, exit $r"
exit "$r"
