#!/usr/bin/env bash
# Throughput of `stonegame client solve` over 1, 2 and 3 replicas on this
# machine, all on loopback (docs/benchmarks.md, "Client solve over replicas").
#
#   cargo build --release && bench/replicas.sh [RUNS]
#
# Two inputs (`stonegame gen`, family random): "large" rows (250 cases of up
# to 30,000 piles: the kernel's work; sent 4 cases a batch, 63 batches) and
# "small" rows (20,000 cases of up to 1,000 piles: per-case and transport
# overhead; the default 64 cases a batch). For each: the offline
# `stonegame solve`, then `client solve --server URL[,URL…]` over the first 1,
# 2 and 3 of three `stonegame serve` replicas (defaults: each has one worker
# and one I/O thread per core; metrics on a free port each), RUNS times each
# (default 3), the output checked against the offline one every time.
# Prints the median wall time, cases/s, and the CPU seconds used by the
# replicas and by the client (from /proc), so what limits the run shows:
# CPU time ≈ cores × wall time means the cores are the limit.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${STONEGAME:-target/release/stonegame}
runs=${1:-3}
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

ticks=$(getconf CLK_TCK)
# CPU seconds (user + system) a process has used so far.
cpu_of() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
now() { date +%s.%N; }

urls=()
for i in 1 2 3; do
  "$bin" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 2>"$dir/serve$i.log" &
  pids+=($!)
  for _ in $(seq 100); do
    grep -q '^listening on ' "$dir/serve$i.log" && break
    sleep 0.1
  done
  urls+=("http://$(sed -n 's/^listening on //p' "$dir/serve$i.log")")
done

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each"
printf '%-6s %-9s %8s %10s %14s %12s\n' input replicas "wall s" "cases/s" "replicas CPU s" "client CPU s"
for input in large small; do
  case $input in
    large)
      "$bin" gen --family random --cases 250 --max-n 30000 --max-a 3 --seed 13 >"$dir/$input"
      batch=4 ;;
    small)
      "$bin" gen --family random --cases 20000 --max-n 1000 --max-a 1000000 --seed 13 >"$dir/$input"
      batch=64 ;;
  esac
  cases=$(head -1 "$dir/$input")
  walls=()
  for _ in $(seq "$runs"); do
    t0=$(now)
    "$bin" solve "$dir/$input" >"$dir/offline"
    walls+=("$(echo "$(now) - $t0" | bc -l)")
  done
  wall=$(printf '%s\n' "${walls[@]}" | median)
  printf '%-6s %-9s %8.2f %10.0f %14s %12s\n' "$input" offline "$wall" "$(echo "$cases / $wall" | bc -l)" - -
  for k in 1 2 3; do
    server=$(IFS=,; echo "${urls[*]:0:$k}")
    walls=(); scpus=(); ccpus=()
    for _ in $(seq "$runs"); do
      before=0
      for p in "${pids[@]}"; do before=$(echo "$before + $(cpu_of "$p")" | bc -l); done
      t0=$(now)
      /usr/bin/time -f '%U %S' -o "$dir/time" "$bin" client solve --batch-size "$batch" --server "$server" "$dir/$input" >"$dir/remote"
      walls+=("$(echo "$(now) - $t0" | bc -l)")
      after=0
      for p in "${pids[@]}"; do after=$(echo "$after + $(cpu_of "$p")" | bc -l); done
      scpus+=("$(echo "$after - $before" | bc -l)")
      ccpus+=("$(awk '{ print $1 + $2 }' "$dir/time")")
      cmp -s "$dir/offline" "$dir/remote" || { echo "client solve over $server differs from solve" >&2; exit 1; }
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    printf '%-6s %-9s %8.2f %10.0f %14.2f %12.2f\n' "$input" "$k" "$wall" "$(echo "$cases / $wall" | bc -l)" \
      "$(printf '%s\n' "${scpus[@]}" | median)" "$(printf '%s\n' "${ccpus[@]}" | median)"
  done
done
