#!/bin/bash
# Sequence gaps on the live path, for AF_XDP and kernel UDP: the exchange
# simulator drops, duplicates and reorders feed packets itself, then tc
# netem does it on the veth.  Every published message must be decoded
# exactly once and in order (ticks published == ticks decoded, orders ==
# the backtester's on the recorded ticks), every gap filled through the
# MoldUDP64 re-request server.  Late ticks are all traded here
# (--max-catchup 0), so the orders must be exactly the backtester's; the
# default policy (late ticks not traded) is tested in gateway_overload.sh.
# paper-run.sh tears its rig down on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_gaps.XXXXXX)
trap 'rm -rf "$out"' EXIT
sub() { echo "10.$((150 + $$ % 40)).$(((${1} + $$) % 250)).0/24"; }

scripts/paper-run.sh --prefix "gs$$" --subnet "$(sub 11)" --paths af_xdp,udp_spin \
	--count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 --expect-gaps \
	--gw-extra "--max-catchup 0" --ex-extra "--drop-rate 0.02 --dup-rate 0.01 --reorder-rate 0.01 --fault-seed 7" \
	--out "$out/sim"

# netem also hits the replies: positions are not compared, orders are.
scripts/paper-run.sh --prefix "gn$$" --subnet "$(sub 23)" --paths af_xdp,udp_spin \
	--count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 --expect-gaps --no-reconcile \
	--gw-extra "--max-catchup 0" \
	--netem "loss 1% duplicate 1% reorder 5% delay 200us" --out "$out/netem"
