#!/bin/bash
# Session 13 GPU batch 16 (issue 25): candle-flash-attn 0.11.1 built by archbuild on the H100 host for `9.0`:
# the crate's build.rs (archbuild::Library, CUTLASS 4.2 from the bundle's nvidia-cutlass wheel) run there by
# scripts/bundle_run.py, in its own process session so that it runs on between calls; this call starts it
# and watches it for up to 9 minutes, run17.sh goes on.
cd "$(dirname "$0")"
L=$OUT/cfa16.log
{ date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version 2>/dev/null | tail -1;
  /usr/local/cuda/bin/nvcc --version | tail -1; gcc --version | head -1; nproc; free -g | head -2; } 2>&1 | tee $L
rm -rf /root/cfa && mkdir -p /root/cfa && tar xJf cfa-bundle.tar.xz -C /root/cfa && ls /root/cfa | tee -a $L
cat > /root/cold.sh <<'EOS'
export PATH=/usr/local/cuda/bin:$PATH ARCHBUILD_HOME=/root/home1 ARCHBUILD_REMOTE_CACHE=file:///root/cfa-remote
cd /root/cfa
s=$(date +%s.%N)
python3 run.py build --archs 9.0 --jobs 16 > /root/cold.log 2>&1
rc=$?
e=$(date +%s.%N)
echo "cold build rc=$rc seconds=$(python3 -c "print(round($e-$s,2))")" >> /root/cold.log
touch /root/cold.done
EOS
setsid nohup bash /root/cold.sh > /dev/null 2>&1 < /dev/null &
for i in $(seq 1 108); do
  [ -e /root/cold.done ] && break
  sleep 5
  [ $((i % 12)) -eq 0 ] && echo "t=$((i*5)) s: $(ls /root/home1/cache/ptx 2>/dev/null | wc -l) ptx entries, $(pgrep -c cicc) cicc, $(pgrep -c ptxas) ptxas, $(free -g | awk '/Mem/{print $3}') GiB used" | tee -a $L
done
tail -c 6000 /root/cold.log | tee -a $L
