#!/bin/bash
# The first timed 8-byte ping-pong row of fresh jobs (2,000 warm-up round trips, 10,000 timed;
# the OMB port's own untimed pass off), five times: tsmpi as it is, tsmpi without its start-up
# measures (no Init warm-up, no V8 flags, no node flags: what a fresh job got before), tsmpi's
# warm figure (the 8-byte row after the benchmark's untimed pass over 0-64 B) and MPICH's first
# row; then a ping-pong timed as a program usually times it (bench/launch/first-row.js: the clock
# started after the untimed round trips, so V8 compiles the timed loop inside the timed part),
# its first row and, 100,000 round trips later, the same job's warm row; and the same two rows of
# one job for osu_latency's loop (first-row.js --omb: the clock read as OMB reads it), free of the
# VM's job-to-job speed levels that the first and warm rows of two fresh jobs carry.
# Needs the C benchmarks that compare.js builds (bench/compare/build).
#   bash bench/compare/first-row.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
EXEC="node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_latency.js"
row() { grep -v '^#' | awk -v s="$1" '$1 == s {print $2}'; }
for i in $(seq 1 "$RUNS"); do
  now=$(TSMPI_BENCH_JIT_WARMUP=0 $EXEC -m 8:8 -x 2000 -i 10000 | row 8)
  before=$(TSMPI_WARMUP=off TSMPI_V8_FLAGS=none TSMPI_NODE_FLAGS=none TSMPI_BENCH_JIT_WARMUP=0 $EXEC -m 8:8 -x 2000 -i 10000 | row 8)
  warm=$($EXEC -m 0:64 -x 2000 -i 10000 | row 8)
  mpich=$(mpiexec.hydra -n 2 bench/compare/build/osu_latency_c -m 8:8 -x 2000 -i 10000 | row 8)
  loop=$(node dist/bin/tsmpiexec.js -n 2 node dist/bench/launch/first-row.js | grep '^first-row ')
  read -r _ _ job_first _ job_warm <<< "$loop"
  omb=$(node dist/bin/tsmpiexec.js -n 2 node dist/bench/launch/first-row.js --omb | grep '^first-row-omb ')
  read -r _ _ omb_first _ omb_warm <<< "$omb"
  echo "run $i: tsmpi first $now | before $before | tsmpi warm (8 B row of 0:64, whole table warmed) $warm | MPICH first $mpich" \
    "| a program's loop: first $job_first, warm $job_warm | osu_latency's loop in one job: first $omb_first, warm $omb_warm"
done
