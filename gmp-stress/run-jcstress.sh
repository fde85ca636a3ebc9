#!/usr/bin/env bash
# Runs gmp-stress's jcstress tests in bounded time, with guards against jcstress's false greens
# (docs/stress.md).
#
#   run-jcstress.sh [quick|long] [jcstress args...]   all tests (or -t REGEX), must all pass and
#                                                     each produce every ACCEPTABLE outcome (a
#                                                     test missing one reruns alone, up to
#                                                     $GMP_OUTCOME_TRIES runs in all, default 3)
#   run-jcstress.sh mutants [jcstress args...]        each test with its mutation: must FAIL
#                                                     (up to $GMP_MUTANT_TRIES quick runs each,
#                                                     default 3; GMP_MUTANTS_SKIP_FENCES=1 leaves
#                                                     the fence mutations to the fences mode)
#   run-jcstress.sh fences                            the two fence mutations, focused: both must
#                                                     be caught, and the same run unmutated pass
#
# quick: -m quick -iters 1 -time 100 -sc false (catches every mutation but the fence entries')
# long:  -m default -iters 3 -time 1000
# fences: the fence entries' tests, one C2 + ParallelGC configuration, -strideSize 1,
#         -time $GMP_FENCES_TIME ms (default 4000), once per fence mutation on the mutant jar
#         (up to $GMP_FENCES_TRIES runs, default 3, before "NOT CAUGHT") and once unmutated on
#         the production jar.
#
# Two jars. quick and long use the production one, target/jcstress.jar: gmp-core's Mutations
# are compile-time false there, so -Dgmp.mutate.* does nothing (refused: set
# GMP_JCSTRESS_VARIANT=mutants to run quick/long on the mutant jar). mutants and fences use
# target/mutants/jcstress.jar, built with mvn -Pmutants (its own build directory).
# Needs JAVA_HOME >= 21 (the java on PATH may be older). Builds a jar it needs if missing
# (GMP_JCSTRESS_REBUILD=1 forces it; GMP_JCSTRESS_NO_BUILD=1 never builds the production jar
# and builds the mutant jar only with GMP_JCSTRESS_BUILD_MUTANTS=1, which always rebuilds it:
# what the Maven jcstress profile passes). Maven is ${GMP_MVN:-mvn} with $GMP_MVN_ARGS (and
# -o if GMP_MVN_OFFLINE ends in "true").
# Runs inside gmp-stress/target, so jcstress's results/ and *.bin.gz never land in the
# repository.
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
prod_jar="$here/target/jcstress.jar"
mut_jar="$here/target/mutants/jcstress.jar"

case "$mode" in
  quick | long) variants="${GMP_JCSTRESS_VARIANT:-production}" ;;
  mutants) variants=mutants ;;
  fences) variants="mutants production" ;;
  *) echo "usage: run-jcstress.sh [quick|long|mutants|fences] [jcstress args...]" >&2; exit 2 ;;
esac

# Builds (if needed) and checks the jar of one variant: the production jar must not hold
# gmp-core's Mutations class (the jar plugin leaves it out; nothing references it), the mutant
# jar must hold the one that reads -Dgmp.mutate.*. Either way round, a run would test the
# wrong code: a mutant jar in quick passes tests it should not, a production jar in mutants
# reports every mutation "NOT CAUGHT".
prepare_jar() {
  local variant="$1" jar profile=() build=0
  if [ "$variant" = mutants ]; then
    jar="$mut_jar"
    profile=(-Pmutants)
    if [ "${GMP_JCSTRESS_BUILD_MUTANTS:-}" = 1 ]; then
      build=1
    elif [ "${GMP_JCSTRESS_NO_BUILD:-}" != 1 ] && { [ ! -f "$jar" ] || [ "${GMP_JCSTRESS_REBUILD:-}" = 1 ]; }; then
      build=1
    fi
  elif [ "$variant" = production ]; then
    jar="$prod_jar"
    if [ "${GMP_JCSTRESS_NO_BUILD:-}" != 1 ] && { [ ! -f "$jar" ] || [ "${GMP_JCSTRESS_REBUILD:-}" = 1 ]; }; then
      build=1
    fi
  else
    echo "run-jcstress.sh: GMP_JCSTRESS_VARIANT must be production or mutants" >&2
    exit 2
  fi
  if [ "$build" = 1 ]; then
    [[ "${GMP_MVN_OFFLINE:-}" == *true ]] && profile+=(-o)
    # shellcheck disable=SC2086 # GMP_MVN_ARGS is a list of arguments
    (cd "$root" && "${GMP_MVN:-mvn}" -B -q "${profile[@]}" -pl gmp-stress -am package -DskipTests ${GMP_MVN_ARGS:-})
  fi
  [ -f "$jar" ] || { echo "run-jcstress.sh: $jar missing" >&2; exit 2; }
  local entry
  entry="$(unzip -l "$jar" | grep -c 'dev/gmp/Mutations\.class$' || true)"
  if [ "$variant" = production ] && [ "$entry" -ne 0 ]; then
    echo "run-jcstress.sh: $jar holds dev/gmp/Mutations.class: not a production build (rebuild: GMP_JCSTRESS_REBUILD=1)" >&2
    exit 2
  fi
  if [ "$variant" = production ]; then
    # No class may use Mutations: javac inlines its constants, so a field or method reference
    # (a mutation-only helper called outside a constant-false branch) or a gmp.mutate string is
    # a deliberate bug shipped, and a NoClassDefFoundError waiting, since the jar leaves the
    # class out. The bare CONSTANT_Class entry javac records for inlined constants is allowed.
    local classes refs
    classes="$(unzip -Z1 "$jar" 'dev/gmp/*.class' | grep -v '_jcstress' | sed 's/\.class$//; s|/|.|g')"
    # shellcheck disable=SC2086 # one class name per word
    refs="$("$JAVA_HOME/bin/javap" -c -p -v -cp "$jar" $classes 2>&1 |
      grep -E 'dev/gmp/Mutations\.|// class dev/gmp/Mutations$|gmp\.mutate\.|^Error' || true)"
    if [ -n "$refs" ]; then
      echo "run-jcstress.sh: classes in $jar use dev.gmp.Mutations (javap -c -p -v):" >&2
      echo "$refs" | head -20 >&2
      exit 2
    fi
  fi
  # grep -c, not -q: -q would stop reading early and pipefail would see unzip's SIGPIPE
  if [ "$variant" = mutants ] && { [ "$entry" -ne 1 ] ||
    [ "$(unzip -p "$jar" dev/gmp/Mutations.class | grep -ac 'gmp\.mutate\.' || true)" -eq 0 ]; }; then
    echo "run-jcstress.sh: $jar has no Mutations class reading -Dgmp.mutate.*: not a mutants build (rebuild: GMP_JCSTRESS_REBUILD=1)" >&2
    exit 2
  fi
}
for v in $variants; do
  prepare_jar "$v"
done
jar="$prod_jar"
[ "$variants" = mutants ] && jar="$mut_jar"

if [ "$jar" = "$prod_jar" ] && [[ " $* " == *gmp.mutate.* ]]; then
  echo "run-jcstress.sh: -Dgmp.mutate.* does nothing in the production jar (the mutations are compile-time false)." >&2
  echo "  Run it on the mutant jar: GMP_JCSTRESS_VARIANT=mutants $0 $mode $*" >&2
  exit 2
fi

# Tests with three actors need three CPUs: jcstress skips them on fewer (and says only
# "No scheduling is possible"), so count them out explicitly rather than by accident.
three_actor_tests="RingTwoStealersStress"
cpus="$(nproc)"

quick_preset=(-m quick -iters 1 -time 100 -sc false -v)
case "$mode" in
  quick | mutants) preset=("${quick_preset[@]}") ;;
  long) preset=(-m default -iters 3 -time 1000 -v) ;;
esac

# The fence mutations (a missing StoreLoad on either side of the spinning protocol; a shrink's
# owner read a few instructions early) are caught only when both actors run their few
# instructions at the same moment: jcstress must re-synchronise
# them before every sample (-strideSize 1; with its default strides of 256 samples the spinner,
# whose drop-P step comes first, falls behind and the windows of tens of nanoseconds rarely meet).
# One configuration: C2 only, and ParallelGC, whose card mark has no StoreLoad of its own (G1's
# post-write barrier can fence a cross-region reference store such as runnext's). The flag of
# the mutation, if any, is appended to $fence_jvm. Measured in docs/stress.md. Entries are
# test:mutation; each test also runs once unmutated on the production jar.
fence_entries=(
  "SpinnerRecheckVsSubmitStress:dropSpinningNoFence"
  "SpinnerRecheckVsSubmitStress:plainRunnext"
  "TimerAddVsSleeperStress:timerSleeperNoFence"
  "AcquireInTransitVsShrinkStress:shrinkOwnerFirst"
)
fence_tests=(SpinnerRecheckVsSubmitStress TimerAddVsSleeperStress AcquireInTransitVsShrinkStress)
fences_preset=(-iters 1 -time "${GMP_FENCES_TIME:-4000}" -f 1 -sc false -v -strideSize 1 -strideCount 256)
fence_jvm="-XX:-TieredCompilation -XX:+UseParallelGC"

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

# Samples in jcstress's "Results across all configurations" table of a log: $2 = Forbidden, or
# "all" for every outcome.
samples() {
  local what="$2"
  [ "$what" = all ] && what='(Acceptable|Interesting|Forbidden)'
  awk -v w="$what" '/Results across all configurations/ {on = 1; next} /VM error stream|\] dev\.gmp\./ {on = 0}
    on && match($0, "[0-9,]+ +[<0-9.]+% +" w) {x = substr($0, RSTART); split(x, a, " "); gsub(",", "", a[1]); s += a[1]}
    END {print s + 0}' "$1"
}

# The declared outcomes a log's tests never produced, one "Test<TAB>kind<TAB>outcome" line each
# (kind: Acceptable, or Interesting for ACCEPTABLE_INTERESTING): the lines of jcstress's
# "Results across all configurations" tables with 0 samples. jcstress lists a declared outcome
# there only when no observed result matched it.
unseen() {
  awk '/^RUN RESULTS:/ {run = 1; next}
    run && /\] dev\.gmp\.[A-Za-z0-9_]+/ {t = $0; sub(/.*\] dev\.gmp\./, "", t); sub(/[^A-Za-z0-9_].*/, "", t); next}
    run && /Results across all configurations/ {on = 1; next}
    /VM error stream/ {on = 0}
    on && match($0, / 0 +0\.00% +(Acceptable|Interesting) /) {
      id = substr($0, 1, RSTART); gsub(/^ +| +$/, "", id)
      kind = ($0 ~ / 0 +0\.00% +Acceptable /) ? "Acceptable" : "Interesting"
      printf "%s\t%s\t%s\n", t, kind, id
    }' "$1"
}

# Every acceptable outcome of every test in a passed run must occur: a test whose race stopped
# happening (a setup that no longer reaches the code under test) still passes, with one outcome
# at 100% (docs/stress.md, "Two tests that had stopped racing"). A test missing one is run again
# alone, up to $GMP_OUTCOME_TRIES runs in all (default 3), since a quick run samples the race;
# the rarest acceptable outcomes here occur 4-137 and 5-16 times per quick run. An
# ACCEPTABLE_INTERESTING outcome may be rare by design: reported, not required. $1 = the run's
# log, rest = its jcstress arguments (a -t among them is replaced by the test's own). Returns 0,
# 1 (an outcome never seen) or run_guarded's 1/2 from a rerun.
check_outcomes() {
  local log="$1"
  shift
  local args=() skip=0 a
  for a in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    if [ "$a" = -t ]; then skip=1; continue; fi
    args+=("$a")
  done
  local missing t try rlog r again tries="${GMP_OUTCOME_TRIES:-3}" status=0
  unseen "$log" | awk -F'\t' '$2 == "Interesting" {printf "  never seen (ACCEPTABLE_INTERESTING, not required): %s: %s\n", $1, $3}'
  missing="$(unseen "$log" | awk -F'\t' '$2 == "Acceptable"')"
  for t in $(printf '%s\n' "$missing" | cut -f1 | sort -u); do
    try=1
    # grep -c, not -q: -q stops reading early, and pipefail would see printf's SIGPIPE
    while [ "$try" -lt "$tries" ] && [ "$(printf '%s\n' "$missing" | grep -c "^$t	" || true)" -gt 0 ]; do
      try=$((try + 1))
      rlog="outcomes-$t-$try.log"
      r=0
      run_guarded "$rlog" "${args[@]}" -t "dev.gmp.$t\$" || r=$?
      [ "$r" -eq 0 ] || { echo "  $t failed in its outcome rerun: see target/$rlog" >&2; return "$r"; }
      # still missing: what this rerun did not produce either
      again="$(unseen "$rlog" | awk -F'\t' '$2 == "Acceptable"')"
      missing="$(printf '%s\n' "$missing" | T="$t" AGAIN="$again" awk -F'\t' '
        BEGIN {t = ENVIRON["T"]; n = split(ENVIRON["AGAIN"], l, "\n"); for (i = 1; i <= n; i++) keep[l[i]] = 1}
        $1 != t || keep[$0]')"
    done
    printf '%s\n' "$missing" | awk -F'\t' -v t="$t" -v n="$try" '$1 == t && NF {
      printf "run-jcstress.sh: %s never produced its acceptable outcome \"%s\" in %d runs: has the test stopped racing? (docs/stress.md)\n", $1, $3, n
      bad = 1} END {exit bad}' >&2 || status=1
  done
  return "$status"
}

# Soft or hard errors in the last (Results: ...) line of a log: a crash is not a catch.
errors() {
  grep -E '^\(Results: ' "$1" | tail -1 |
    sed -E 's/.* ([0-9]+) soft errs, ([0-9]+) hard errs.*/\1 \2/' | awk '{print $1 + $2}'
}

# One fence mutation, focused: must be caught. $1 = test, $2 = mutation (empty: unmutated, must
# pass). Prints one line, returns 0 (as expected) or 1/2.
fence_run() {
  local fence_test="$1" m="$2" log r n total try tries="${GMP_FENCES_TRIES:-3}" t0=$SECONDS
  if [ -z "$m" ]; then
    jar="$prod_jar"
    log="fences-$fence_test-unmutated.log"
    r=0
    run_guarded "$log" -t "dev.gmp.$fence_test\$" -jvmArgs "$fence_jvm" || r=$?
    n="$(samples "$log" Forbidden)"
    total="$(samples "$log" all)"
    case "$r" in
      0) printf 'fences: %-30s %-20s pass (%s samples, production jar, %s s)\n' "$fence_test" unmutated "$total" $((SECONDS - t0)) ;;
      1) printf 'fences: %-30s %-20s FAILED (%s forbidden of %s samples, production jar: see target/%s)\n' "$fence_test" unmutated "$n" "$total" "$log" ;;
      *) printf 'fences: %-30s %-20s NO RUN (see target/%s)\n' "$fence_test" unmutated "$log" ;;
    esac
    [ "$r" -eq 0 ]
    return
  fi
  jar="$mut_jar"
  for ((try = 1; try <= tries; try++)); do
    log="fences-$fence_test-$m-$try.log"
    r=0
    run_guarded "$log" -t "dev.gmp.$fence_test\$" -jvmArgs "$fence_jvm -Dgmp.mutate.$m=true" || r=$?
    n="$(samples "$log" Forbidden)"
    total="$(samples "$log" all)"
    if [ "$r" -eq 1 ] && [ "$n" -gt 0 ] && [ "$(errors "$log")" -eq 0 ]; then
      printf 'fences: %-30s %-20s caught (%s forbidden of %s samples, try %s, %s s)\n' "$fence_test" "$m" "$n" "$total" "$try" $((SECONDS - t0))
      return 0
    fi
    if [ "$r" -ne 0 ]; then
      # failed without a forbidden sample (an error), or ran nothing: neither is a catch
      printf 'fences: %-30s %-20s NO RUN or ERROR, not a catch (see target/%s)\n' "$fence_test" "$m" "$log"
      return 2
    fi
    echo "  $m: 0 forbidden of $total samples on try $try" >&2
  done
  printf 'fences: %-30s %-20s NOT CAUGHT (0 forbidden in %s tries, %s s)\n' "$fence_test" "$m" "$tries" $((SECONDS - t0))
  return 1
}

if [ "$mode" = fences ]; then
  [ $# -eq 0 ] || { echo "run-jcstress.sh: fences takes no jcstress arguments" >&2; exit 2; }
  preset=("${fences_preset[@]}")
  status=0
  start=$SECONDS
  for entry in "${fence_entries[@]}" "${fence_tests[@]/%/:}"; do
    r=0
    fence_run "${entry%%:*}" "${entry##*:}" || r=$?
    [ "$r" -gt "$status" ] && status=$r
  done
  echo "jcstress fences: $((SECONDS - start)) s, logs gmp-stress/target/fences-*.log, exit $status"
  exit "$status"
fi

if [ "$mode" = mutants ]; then
  # test regex : mutation property. Each line must FAIL with its mutation on.
  mutants=(
    "RingOwnerVsStealerStress:grabNoCas"
    "TwoStealersStress:grabNoCas"
    "RingWrapStress:signedSlot"
    "StealHalfStress:stealHalfDown"
    "StealHalfStress:grabNoCas"
    "RunnextReplaceVsStealStress:plainRunnext"
    "RunnextReuseVsStealStress:nextSlotAfterCas"
    "RunnextTakeBackVsStealStress:takeBackNoCas"
    "RingTakeBackVsStealStress:popNewestUnbounded"
    "PopNewestVsStealStress:popNewestUnbounded"
    "PutSlowVsStealStress:putslowNoCas"
    "GlobalBatchStress:putslowNoLock"
    "SpinnerRecheckVsSubmitStress:noRecheck"
    "SpinnerRecheckVsSubmitStress:dropSpinningNoFence"
    "SpinnerRecheckVsSubmitStress:plainRunnext"
    "NeedspinningStress:noNeedspinning"
    "PidlegetSpinningStress:noPidlegetSpinning"
    "ExternalSubmitVsDropPStress:externalWakeIfIdle"
    "ShutdownVsExecuteStress:submitCheckUnlocked"
    "ExitsyscallVsRetakeStress:exitsyscallNoCas"
    "ExitsyscallVsTakeStress:exitsyscallNoCas"
    "RetakeVsTaskEndStress:retakeNoClaim"
    "AcquireInTransitVsShrinkStress:shrinkOwnerFirst"
    "MoveToVsLatePushStress:moveToUnbounded"
    "LateHandoffVsWakeStress:lateHandoffNoCas"
    "TimerAddVsSleeperStress:timerSleeperNoFence"
    "FutureRunOnceStress:futureRunNoCas"
    "DecoratedFutureRunOnceStress:futureRunNoCas"
    "FutureRunVsReturnStress:futureRunNoCas"
    "FutureEndVsWaiterStress:futureWakeEarly"
    "FutureEndInPlaceVsWaiterStress:futureWakeEarly"
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
    fence=0
    [[ " ${fence_entries[*]} " == *" $t:$m "* ]] && fence=1
    if [ "$fence" = 1 ] && [ "${GMP_MUTANTS_SKIP_FENCES:-}" = 1 ]; then
      printf '%-32s %-22s %s\n' "$t" "$m" "skipped (the fences mode's)"
      continue
    fi
    # A quick run samples a race: a mutant it misses once is run again, up to
    # $GMP_MUTANT_TRIES runs in all (default 3), before "NOT CAUGHT"; a test that has stopped
    # racing misses every time.
    try=0
    while :; do
      try=$((try + 1))
      r=0
      if [ "$fence" = 1 ]; then
        # quick misses these two: the focused run of the fences mode (extra args do not apply)
        preset=("${fences_preset[@]}")
        run_guarded "$log" -t "dev.gmp.$t\$" -jvmArgs "$fence_jvm -Dgmp.mutate.$m=true" || r=$?
        preset=("${quick_preset[@]}")
      else
        run_guarded "$log" -t "dev.gmp.$t\$" -jvmArgsPrepend "-Dgmp.mutate.$m=true" "$@" || r=$?
      fi
      [ "$r" = 0 ] && [ "$try" -lt "${GMP_MUTANT_TRIES:-3}" ] || break
    done
    case "$r" in
      1)
        res="caught ($(samples "$log" Forbidden) forbidden samples over all configs)"
        [ "$try" -gt 1 ] && res="$res, run $try"
        ;;
      0) res="NOT CAUGHT ($try runs)"; status=1 ;;
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
if [ "$r" -eq 0 ]; then
  check_outcomes "$log" "$@" || r=$?
fi
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
