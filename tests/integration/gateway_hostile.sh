#!/bin/bash
# Hostile input mixed into a valid feed (every malformed class, random
# bytes, truncated frames, wrong UDP checksums, packets for other ports and
# addresses: exsim --hostile), for AF_XDP and kernel UDP: the gateway drops
# and counts them and keeps trading the valid stream exactly (ticks published
# == decoded, orders == the backtester's, positions reconciled).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_hostile.XXXXXX)
trap 'rm -rf "$out"' EXIT
scripts/paper-run.sh --prefix "hs$$" --subnet "10.$((150 + $$ % 40)).$((($$ + 37) % 250)).0/24" \
	--paths af_xdp,udp_spin --count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 \
	--ex-extra "--hostile 50 --fault-seed 3" --out "$out"
# The checksum and frame classes reach the AF_XDP socket: counted there.
bad=$(jq '.xdp.bad_checksum' "$out/af_xdp.gw.json")
sent=$(jq '.hostile.by_class.bad_checksum' "$out/af_xdp.ex.json")
echo "af_xdp: $bad of $sent bad-checksum packets dropped and counted"
[ "$bad" -eq "$sent" ]
