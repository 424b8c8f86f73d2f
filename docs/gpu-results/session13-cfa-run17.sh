#!/bin/bash
# Session 13 GPU batch 17 (issue 25): waits for run16's cold build, then links candle-flash-attn's tests with
# this host's cc (scripts/bundle_run.py link), runs them on the H100, lists the program's images with
# `cargo archbuild doctor`, then a comment-only edit of kernels/flash.h (every file includes it) and a
# second home (another ARCHBUILD_HOME and checkout, the same file:// remote).
cd "$(dirname "$0")"
L=$OUT/cfa17.log
W=${WAIT:-560}
for i in $(seq 1 $((W/5))); do
  [ -e /root/cold.done ] && break
  sleep 5
  [ $((i % 12)) -eq 0 ] && echo "t=$((i*5)) s: $(pgrep -c cicc) cicc, $(pgrep -c ptxas) ptxas, $(pgrep -c cc1plus) cc1plus" | tee -a $L
done
tail -c 3000 /root/cold.log | tee -a $L
[ -e /root/cold.done ] || { echo "cold build still running" | tee -a $L; exit 3; }
export PATH=/usr/local/cuda/bin:$PATH ARCHBUILD_REMOTE_CACHE=file:///root/cfa-remote
cd /root/cfa
ls -la out/libflashattention.a | tee -a $L
python3 run.py link 2>&1 | tail -20 | tee -a $L
ls -la flash_attn_tests | tee -a $L
timeout 300 python3 run.py test -- --test-threads=1 2>&1 | tee $OUT/cfa-tests.log | tail -40 | tee -a $L
echo "tests rc=${PIPESTATUS[0]}" | tee -a $L
xz -dc "$OLDPWD/cargo-archbuild.xz" > /root/cargo-archbuild && chmod +x /root/cargo-archbuild
/root/cargo-archbuild archbuild doctor ./flash_attn_tests 2>&1 | tail -30 | tee -a $L
sha256sum out/flashattention/*.fatbin | sha256sum | tee -a $L
echo "// a comment-only edit" >> crate/kernels/flash.h
s=$(date +%s.%N)
ARCHBUILD_HOME=/root/home1 python3 run.py build --archs 9.0 --jobs 16 2>&1 | grep -E "warning=archbuild|error" | tee -a $L
echo "edit: rc=${PIPESTATUS[0]} seconds=$(python3 -c "print(round($(date +%s.%N)-$s,2))")" | tee -a $L
sha256sum out/flashattention/*.fatbin | sha256sum | tee -a $L
rm -rf /root/cfa2 && mkdir /root/cfa2 && cp -a /root/cfa/crate /root/cfa/run.py /root/cfa/build-script-build /root/cfa/wheels /root/cfa2/
cd /root/cfa2
s=$(date +%s.%N)
ARCHBUILD_HOME=/root/home2 python3 run.py build --archs 9.0 --jobs 16 2>&1 | grep -E "warning=archbuild|error" | tee -a $L
echo "second home: rc=${PIPESTATUS[0]} seconds=$(python3 -c "print(round($(date +%s.%N)-$s,2))")" | tee -a $L
sha256sum out/flashattention/*.fatbin | sha256sum | tee -a $L
cmp /root/cfa/out/libflashattention.a out/libflashattention.a && echo "second home's archive == the first's" | tee -a $L
cp /root/cold.log $OUT/cfa-cold.log
