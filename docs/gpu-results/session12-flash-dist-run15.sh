#!/bin/bash
# Session 12 GPU batch 15 (issue 23): a candle-flash-attn subset (two hdim32 kernel files,
# `8.0 9.0`, CUTLASS 4.2, the crate's flags) with library_bench: cudaforge's pattern (nvcc -c per
# file, both files at once) on cores 0-1, and at the same time archbuild's client on cores 2-3
# with sccache-dist's two build servers of 6 cores (cores 4-15): cold, comment-only edit,
# second home, no-op. Ratios from this one run.
cd "$(dirname "$0")"
B=$PWD; xz -dc dist.tar.xz | tar xf -; chmod +x dist_bench sccache sccache-dist; xz -df library_bench.xz; chmod +x library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
L=$OUT/flash_dist15.log; : > $L
BW=$(command -v bwrap || true)
if [ -z "$BW" ]; then dpkg -x bubblewrap_*.deb /tmp/bw; BW=/tmp/bw/usr/bin/bwrap; fi
{ echo "bwrap: $BW $($BW --version)"; nproc; nvcc --version | tail -1; } 2>&1 | tee -a $L
export PATH=/usr/local/cuda/bin:$PATH
SRC=$B/../benches/inputs/bench_kernels.cu; WARM=$B/../examples/vector_add/kernels/vector_add.cu
ARCHS="7.5 8.0 8.6 8.9 9.0+PTX"
W=/tmp/distw; rm -rf $W; mkdir -p $W
cat > $W/scheduler.conf <<C
public_addr = "127.0.0.1:10600"
[client_auth]
type = "token"
token = "client"
[server_auth]
type = "token"
token = "server"
C
cat > $W/client.conf <<C
[dist]
scheduler_url = "http://127.0.0.1:10600"
toolchains = []
cache_dir = "$W/client-toolchains"
[dist.auth]
type = "token"
token = "client"
C
export SCCACHE_CONF=$W/client.conf SCCACHE_SERVER_PORT=4301 SCCACHE_IDLE_TIMEOUT=0
client() { ./sccache --stop-server >/dev/null 2>&1; export SCCACHE_DIR=$W/sc-$1; rm -rf $SCCACHE_DIR; taskset -c 2,3 ./sccache --start-server >/dev/null 2>&1; }
PIDS=()
start() { # N servers of C cores each, after cores 0-1
  local n=$1 c=$2; PIDS=()
  SCCACHE_NO_DAEMON=1 taskset -c 15 ./sccache-dist scheduler --config $W/scheduler.conf > $W/sched.log 2>&1 & PIDS+=($!)
  sleep 0.5
  for i in $(seq 0 $((n-1))); do
    lo=$((4+i*c)); hi=$((lo+c-1)); d=$W/s$n-$c-$i; mkdir -p $d/tc $d/build
    cat > $d/conf <<C
cache_dir = "$d/tc"
public_addr = "127.0.0.1:$((10501+i))"
scheduler_url = "http://127.0.0.1:10600"
[builder]
type = "overlay"
build_dir = "$d/build"
bwrap_path = "$BW"
[scheduler_auth]
type = "token"
token = "server"
C
    SCCACHE_NO_DAEMON=1 taskset -c $lo-$hi ./sccache-dist server --config $d/conf > $d/log 2>&1 & PIDS+=($!)
  done
  client warm-$n-$c
  for t in $(seq 100); do ./sccache --dist-status 2>/dev/null | grep -q "\"num_servers\":$n" && break; sleep 0.2; done
  ./sccache --dist-status | tee -a $L
}
stop() { ./sccache --stop-server >/dev/null 2>&1; kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; }
run() { ARCHBUILD_JOBS=2 taskset -c 2,3 ./dist_bench "$@" 2>&1 | tee -a $L; }
start 2 6
ARCHBUILD_COMPILER_LAUNCHER=$B/sccache run $WARM --archs "8.0 9.0" --label "warm-up" > /dev/null
client measured
cd fa/kernels
ARCHBUILD_COMPILER_LAUNCHER=$B/sccache timeout 520 taskset -c 2,3 $B/library_bench \
  flash_fwd_hdim32_fp16_sm80.cu flash_fwd_hdim32_bf16_sm80.cu --archs "8.0 9.0" \
  -I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 2 --nvcc-cpus 0,1 2>&1 | tee -a $L
echo "bench rc=${PIPESTATUS[0]}" | tee -a $L
cd $B
./sccache --show-stats --stats-format json | python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print("dist_compiles", sum(s["dist_compiles"].values()), "dist_errors", s["dist_errors"])' | tee -a $L
stop
