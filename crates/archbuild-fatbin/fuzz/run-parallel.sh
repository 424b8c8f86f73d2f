#!/usr/bin/env bash
# Runs the four cargo-fuzz targets (ASan, release) at once: 4 jobs of 2.6 M executions each per
# target, sharing the target's corpus. Logs and any crashing input go to $OUT.
set -u
root=${FUZZ_DIR:-$(cd "$(dirname "$0")" && pwd)}  # holds bin/<target> and corpus/<target>
nproc; uname -a; head -1 /etc/os-release
mkdir -p "$OUT/artifacts"
for t in container cubin ptx host_elf; do
  mkdir -p "$OUT/$t"
  (cd "$OUT/$t" && timeout 540 "$root/bin/$t" "$root/corpus/$t" -max_len=65536 -runs=2600000 \
     -jobs=4 -workers=4 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
     -artifact_prefix="$OUT/artifacts/$t-" > "$OUT/$t/main.log" 2>&1; echo "exit $?" >> "$OUT/$t/main.log") &
done
wait
for t in container cubin ptx host_elf; do
  total=0
  for log in "$OUT/$t"/fuzz-*.log; do
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    done_line=$(grep -c '^Done' "$log")
    echo "$t $(basename "$log"): last #$n, done=$done_line, $(grep -E 'stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added' "$log" | tr '\n' ' ')"
    total=$((total + ${n:-0}))
  done
  echo "TOTAL $t $total executions; crashes: $(ls "$OUT/artifacts" | grep -c "^$t-")"
done
for t in container cubin ptx host_elf; do echo "corpus $t: $(ls "$root/corpus/$t" | wc -l) files"; done
