#!/bin/bash
# Sequence gaps and lost replies on the live path, for AF_XDP and kernel
# UDP, against a re-request server that answers each request with one
# packet, as real ones do (exsim's default).  Every published message must
# be decoded exactly once and in order (ticks published == ticks decoded),
# every gap filled, the session never stale, and the orders the
# backtester's on the recorded ticks (scripts/parity.sh: each strategy
# change traded at its tick, or listed as not traded with the reason, and
# made up at the next tick).  paper-run.sh tears its rig down on any exit.
#  1. the simulator's own faults: 3 % loss, 1 % duplication, 1 % reordering;
#  2. a burst of 50 lost packets;
#  3. the network's faults on the veth (3 % loss, 1 % duplication, 5 %
#     reordering, 200 us delay, which hit the replies and the re-request
#     answers too) and 1 % of the exchange's replies lost besides: the
#     gateway recovers the replies too, so positions and cash reconcile.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_gaps.XXXXXX)
trap 'rm -rf "$out"' EXIT
sub() { echo "10.$((150 + $$ % 40)).$(((${1} + $$) % 250)).0/24"; }
common=(--paths af_xdp,udp_spin --count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 --expect-gaps)

scripts/paper-run.sh --prefix "gs$$" --subnet "$(sub 11)" "${common[@]}" \
	--ex-extra "--drop-rate 0.03 --dup-rate 0.01 --reorder-rate 0.01 --fault-seed 7" \
	--out "$out/sim"

scripts/paper-run.sh --prefix "gb$$" --subnet "$(sub 17)" "${common[@]}" \
	--ex-extra "--drop-seqs 3000-3049" --out "$out/burst"

scripts/paper-run.sh --prefix "gn$$" --subnet "$(sub 23)" "${common[@]}" \
	--ex-extra "--reply-drop-rate 0.01 --fault-seed 3" \
	--netem "loss 3% duplicate 1% reorder 5% delay 200us" --out "$out/netem"
