#!/bin/bash
# batch 2: main's code on its exact index vs ivf22's code on the index the bench built with it (numpy path), ABBA
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="main ivf22"; else order="ivf22 main"; fi
  for v in $order; do
    if [ $v = main ]; then cd /work/main; d=/tmp/bm/100k; else cd /work/wt/ivf22; d=/tmp/bm/w22/100000-shape; fi
    echo "run $i $v load $(cut -d' ' -f1 /proc/loadavg) $(date +%T)"
    PYTHONPATH=/tmp/nonumba:. flock /work/bench.lock python docs/bench/scale-100k-round12/measure.py $d /tmp/q22/b2/$v-$i.json 0.25 > /tmp/q22/b2/$v-$i.log 2>&1
  done
done
echo done $(date +%T)
