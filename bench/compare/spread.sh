#!/bin/bash
# How stable osu_bw's rows are: RUNS fresh jobs of tsmpi and of MPICH, alternating, each the
# whole table 1 B - 64 KiB; per size the median of each side, the spread of its runs (slowest
# to fastest, in % of the slowest) and the ratio of the medians. Needs the C benchmarks that
# compare.js builds (bench/compare/build).
#   bash bench/compare/spread.sh [RUNS] [BENCH] [SIZES]     (BENCH: bw (default) or mbw_mr; SIZES: MIN:MAX, default 1:65536)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
BENCH=${2:-bw}
SIZES=${3:-1:65536}
column=2
[ "$BENCH" = mbw_mr ] && column=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$RUNS"); do
  node dist/bin/tsmpiexec.js -n 2 node "dist/bench/osu/osu_$BENCH.js" -m "$SIZES" | grep -v '^#' | awk -v c=$column '{print $1, $c}' > "$tmp/tsmpi.$i"
  mpiexec.hydra -n 2 "bench/compare/build/osu_${BENCH}_c" -m "$SIZES" | grep -v '^#' | awk -v c=$column '{print $1, $c}' > "$tmp/mpich.$i"
done
python3 - "$tmp" "$RUNS" "$BENCH" <<'PY'
import statistics, sys
tmp, runs, bench = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(side):
    rows = {}
    for i in range(1, runs + 1):
        for line in open(f'{tmp}/{side}.{i}'):
            size, value = line.split()
            rows.setdefault(int(size), []).append(float(value))
    return rows
t, m = load('tsmpi'), load('mpich')
unit = 'MB/s' if bench == 'bw' else 'messages/s'
print(f'osu_{bench}, {runs} runs per side: median {unit}, spread = fastest / slowest - 1')
print('| Size (B) | tsmpi median | tsmpi spread | MPICH median | MPICH spread | ratio of medians |')
print('|---:|---:|---:|---:|---:|---:|')
for size in sorted(t):
    tm, mm = statistics.median(t[size]), statistics.median(m[size])
    ts, ms = max(t[size]) / min(t[size]) - 1, max(m[size]) / min(m[size]) - 1
    print(f'| {size} | {tm:.2f} | {ts*100:.0f} % | {mm:.2f} | {ms*100:.0f} % | {tm/mm:.2f} |')
PY
