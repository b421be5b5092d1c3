#!/bin/bash
# The short soak: scripts/soak.sh for 10 s at 50,000 ticks/s (packed, noise
# 1) over AF_XDP against the gateway, on a rig of its own: zero loss,
# counters consistent on both sides, parity with the backtester, RSS flat
# after the warm-up, latency per 5 s window printed.  make soak runs the
# long one (60 s at 100,000 ticks/s).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for b in build/t2t-gateway build/exsim build/backtest; do
	[ -x "$b" ] || { echo "FAIL: $b not built (make build-all)"; exit 1; }
done
scripts/soak.sh --seconds 10 --rate 50000 --window 5 --warmup 4 \
	--prefix "ks$$" --subnet "10.219.$(($$ % 250)).0/24" --out "$out"
