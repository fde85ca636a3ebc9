#!/usr/bin/env bash
# The test command (README): unit and contract tests of every module, Lincheck model checks,
# then a quick jcstress pass with false-green guards, then the focused fence-mutation runs
# (run-jcstress.sh fences: a nested mvn -Pmutants builds the mutant jar). Needs JAVA_HOME >= 21
# (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -Pjcstress verify "$@"
