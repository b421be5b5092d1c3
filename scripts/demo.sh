#!/bin/sh
# make demo: the main job with built-in defaults.  On a rig of its own
# (torn down at the end), the exchange simulator publishes a MoldUDP64/ITCH
# feed of three symbols and the gateway paper-trades it, first over AF_XDP,
# then over kernel UDP (busy spin, then blocking receive); then the side by
# side summary, the parity check against the backtester and the
# reconciliation with the exchange.
set -eu
cd "$(dirname "$0")/.."
echo "demo: paper trading AAPL:20 MSFT:32 NVDA:48 (symbol:HMA length), 30000 ticks at 10000/s per path"
exec scripts/paper-run.sh --prefix "demo$$" --subnet "10.203.$(($$ % 250)).0/24" \
	--count 30000 --rate 10000 --symbols AAPL:20,MSFT:32,NVDA:48 --out build/demo
