#!/bin/bash
# What paper fills cost the hot path: the same ITCH day replayed into the
# AF_XDP gateway trading live (the simulator fills its orders over
# SoupBinTCP) and with --paper (filled from its own books), alternating,
# three times each, on one rig of its own (torn down at exit).  The table
# gives the medians of the runs' in-gateway (hook->queued) and seen->queued
# p50 / p99 and the paper runs' excess; target: paper in-gateway p50 within
# 5 % of live.  Bounded: a generated day of 300,000 messages (20 s of
# market) at twice its pace per run.
#
#   bench/paper-bench.sh [--runs N] [--speed X] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/rig_names.sh

runs=3
speed=2
out=build/bench-paper
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--speed) speed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "paper-bench: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "paper-bench: needs root" >&2; exit 2; }

read -r prefix subnet < <(rig_names ppb)
cleanup() { ./netns/rig.sh --prefix "$prefix" --subnet "$subnet" down >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$out"
day=$out/day.gz
[ -s "$day" ] || build/t2t-exsim --gen-day "$day" --messages 300000 --day-seconds 20 --seed 5 \
	--symbols AAPL,MSFT,NVDA,IBM >/dev/null

for ((i = 1; i <= runs; i++)); do
	for p in af_xdp paper_xdp; do
		echo "paper-bench: run $i, $p" >&2
		scripts/paper-run.sh --keep-rig --prefix "$prefix" --subnet "$subnet" --paths "$p" \
			--day "$day" --speed "$speed" --gw-extra "--monitor off" \
			--out "$out/r$i" >"$out/r$i.$p.log" 2>&1 ||
			{ echo "paper-bench: run $i $p failed its checks: $out/r$i.$p.log" >&2; exit 1; }
	done
done

# median PATH JQ: over the runs, in us.
median() {
	for ((i = 1; i <= runs; i++)); do
		jq -r "$2 / 1000" "$out/r$i/$1.gw.json"
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
}

echo "paper-bench: $(date -u +%FT%TZ), $(nproc) CPUs, kernel $(uname -r); day of 300,000"
echo "messages at x$speed, medians of $runs runs each, us"
echo
echo "| run | in-gw p50 | in-gw p99 | seen->queued p50 | seen->queued p99 | orders |"
echo "|---|---:|---:|---:|---:|---:|"
for p in af_xdp paper_xdp; do
	echo "| $p | $(median $p '.latency_ns["hook->queued"].p50') | $(median $p '.latency_ns["hook->queued"].p99') |" \
		"$(median $p '.latency_ns["seen->queued"].p50') | $(median $p '.latency_ns["seen->queued"].p99') |" \
		"$(median $p '.orders.sent * 1000' | cut -d. -f1) |"
done
live=$(median af_xdp '.latency_ns["hook->queued"].p50')
paper=$(median paper_xdp '.latency_ns["hook->queued"].p50')
echo
awk -v l="$live" -v p="$paper" 'BEGIN {
	r = p / l
	printf "paper in-gateway p50 / live: %.3f (%.2f / %.2f us); target <= 1.05: %s\n", r, p, l,
	       r <= 1.05 ? "met" : "NOT met"
}'
