#!/bin/bash
# Session 12 GPU batch 12 (issue 23): cold bench_kernels.cu for `7.5 8.0 8.6 8.9 9.0+PTX`, the
# client pinned to cores 0-1, alone and with sccache-dist build servers on their own cores
# (2 x 6 cores, then 1, 2 and 4 servers of 3 cores), archbuild's cache off, sccache's cache
# fresh for every measured build (a warm-up build first ships the toolchains). Ratios of this
# one run at the end.
cd "$(dirname "$0")"
B=$PWD; xz -dc dist.tar.xz | tar xf -; chmod +x dist_bench sccache sccache-dist
L=$OUT/dist_bench12.log; : > $L
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
client() { ./sccache --stop-server >/dev/null 2>&1; export SCCACHE_DIR=$W/sc-$1; rm -rf $SCCACHE_DIR; taskset -c 0,1 ./sccache --start-server >/dev/null 2>&1; }
PIDS=()
start() { # N servers of C cores each, after cores 0-1
  local n=$1 c=$2; PIDS=()
  SCCACHE_NO_DAEMON=1 taskset -c 15 ./sccache-dist scheduler --config $W/scheduler.conf > $W/sched.log 2>&1 & PIDS+=($!)
  sleep 0.5
  for i in $(seq 0 $((n-1))); do
    lo=$((2+i*c)); hi=$((lo+c-1)); d=$W/s$n-$c-$i; mkdir -p $d/tc $d/build
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
run() { ARCHBUILD_JOBS=2 taskset -c 0,1 ./dist_bench "$@" 2>&1 | tee -a $L; }
unset ARCHBUILD_COMPILER_LAUNCHER
run $SRC --archs "$ARCHS" --label "alone, 2 cores"
for cfg in "2 6" "1 3" "2 3" "4 3"; do
  set -- $cfg
  start $1 $2
  ARCHBUILD_COMPILER_LAUNCHER=$B/sccache run $WARM --archs "$ARCHS" --label "warm-up $1x$2" > /dev/null
  client measured-$1-$2
  ARCHBUILD_COMPILER_LAUNCHER=$B/sccache run $SRC --archs "$ARCHS" --label "$1 servers x $2 cores"
  ./sccache --show-stats --stats-format json | python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print("  dist_compiles", sum(s["dist_compiles"].values()), "dist_errors", s["dist_errors"])' | tee -a $L
  stop
done
echo "== ratios (this run)" | tee -a $L
awk -F'[: ]+' '/ s \(/ { for (i=1;i<=NF;i++) if ($(i+1)=="s") { t=$i; break } ; name=$0; sub(/:.*/,"",name); if (name=="alone, 2 cores") base=t; else if (base) printf "%-22s %6.2f s  %.3fx\n", name, t, t/base }' $L | tee -a $OUT/ratios.txt
cat $OUT/ratios.txt >> $L
