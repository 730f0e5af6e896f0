#!/bin/bash
# batch 3 (after the CI run): main's final code; its IVF index (built by the bench) vs the exact index; numpy path;
# and the IVF index with the `fast` extra. ABBA.
cd /work/main
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="exact ivf kivf"; else order="kivf ivf exact"; fi
  for v in $order; do
    d=/tmp/bm/w22/100000-shape; [ $v = exact ] && d=/tmp/bm/100k
    pp=/tmp/nonumba:.; [ $v = kivf ] && pp=.
    echo "run $i $v load $(cut -d' ' -f1 /proc/loadavg) $(date +%T)"
    PYTHONPATH=$pp flock /work/bench.lock python docs/bench/scale-100k-round12/measure.py $d /tmp/q22/b3/$v-$i.json 0.25 > /tmp/q22/b3/$v-$i.log 2>&1
  done
done
echo done $(date +%T)
