#!/bin/bash
# Alternates main's and flip21's code (ABBA order), each run under the bench lock, numba hidden by the shim.
OUT=/work/wt/bench100k/docs/bench/scale-100k-round21
order=(main flip21 flip21 main main flip21 flip21 main main flip21 flip21 main)
declare -A tree=([main]=/tmp/bench_main [flip21]=/work/wt/bench100k)
start=${1:-0}  # first run number minus one (a second batch: 6)
declare -A n=([main]=$start [flip21]=$start)
for v in "${order[@]}"; do
  n[$v]=$((n[$v]+1))
  cd "${tree[$v]}"
  echo "$(date -u +%T) start $v run ${n[$v]} load $(cut -d' ' -f1-3 /proc/loadavg) commit $(git rev-parse --short HEAD)" >> $OUT/runs.log
  PYTHONPATH=/tmp/nonumba:. flock /work/bench.lock python docs/bench/scale-100k-round12/measure.py /tmp/bm/100k \
      $OUT/$v-s0.25-${n[$v]}.json 0.25 >> $OUT/runs.log 2>&1
  echo "$(date -u +%T) end $v run ${n[$v]} rc $? load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/runs.log
done
