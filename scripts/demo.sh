#!/bin/sh
# make demo: the main job with built-in defaults.
# Until the gateway lands, this runs the strategy sweep on the spec's
# reference workload (150,000 GBM ticks, seed 42, 80 lengths) with both
# kernels, checking that they agree.
set -eu
out=${DEMO_OUT:-build/demo}
mkdir -p "$out"
echo "demo: the gateway is not built yet; running the strategy sweep on the reference workload"
./build/backtest --gen 150000 --seed 42 -o "$out/prices.txt"
./build/backtest --prices "$out/prices.txt" --kernel both -o "$out/sweep.csv"
echo "demo: batch and incremental kernels agree on all 80 lengths"
echo "demo: best 5 lengths by PnL (length,trades,pnl_pct):"
tail -n +2 "$out/sweep.csv" | sort -t, -k3 -g -r | head -5
echo "demo: full table in $out/sweep.csv"
