#!/bin/bash
# ABBA: numpy exact / numpy ivf / numba ivf / numba exact, 6 rounds
cd /work/main
order1="exact ivf kivf kexact"; order2="kexact kivf ivf exact"
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order=$order1; else order=$order2; fi
  for v in $order; do
   d=/tmp/bm/100k; case $v in *ivf) d=/tmp/bm/100k-ivf;; esac
   pp=/tmp/nonumba:.; case $v in k*) pp=.;; esac
   echo "run $i $v load $(cut -d' ' -f1 /proc/loadavg) $(date +%T)"
   PYTHONPATH=$pp flock /work/bench.lock python docs/bench/scale-100k-round12/measure.py $d /tmp/q22/m/$v-$i.json 0.25 > /tmp/q22/m/$v-$i.log 2>&1
  done
done
echo done $(date +%T)
