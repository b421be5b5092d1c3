#!/bin/bash
# End to end on a rig of its own, for each path (AF_XDP, kernel UDP spin and
# blocking): ticks sent == ticks decoded, the gateway's orders == the
# backtester's on the recorded ticks, positions and cash reconciled with the
# exchange simulator, no XDP program left behind.  paper-run.sh does the
# checks and tears the rig down on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_e2e.XXXXXX)
trap 'rm -rf "$out"' EXIT
# Several messages per packet and non-trade noise that must be skipped.
exec scripts/paper-run.sh --prefix "e2e$$" --subnet "10.$((150 + $$ % 40)).$(($$ % 250)).0/24" \
	--count 6000 --rate 5000 --noise 0.5 --symbols AAPL:12,MSFT:20:50,NVDA:48 --out "$out"
