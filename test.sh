#!/usr/bin/env bash
# The test command (README): unit and contract tests of every module, Lincheck model checks,
# then a quick jcstress pass with false-green guards (every test must pass and produce each of
# its acceptable outcomes), the focused fence-mutation runs, and each test's mutant
# (run-jcstress.sh fences and mutants: a nested mvn -Pmutants builds the mutant jar). 9-17 min
# on 2 cores. Needs JAVA_HOME >= 21 (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -Pjcstress verify "$@"
