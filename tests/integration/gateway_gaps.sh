#!/bin/bash
# Sequence gaps and lost replies on the live path, for AF_XDP and kernel
# UDP, against a re-request server that answers each request with one
# packet, as real ones do (exsim's default).  Every published message must
# be decoded exactly once and in order (ticks published == ticks decoded),
# every gap filled, the session never stale, and the orders the
# backtester's on the recorded ticks (scripts/parity.sh: each strategy
# change traded at its tick, or listed as not traded with the reason, and
# made up at the next tick).  Each test is a paper-run.sh on a rig of its
# own.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

COMMON=(--paths af_xdp,udp_spin --count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 --expect-gaps)

# The simulator's own faults: 3 % loss, 1 % duplication, 1 % reordering.
test_the_simulators_faults_are_recovered() {
	check "paper-run: loss, duplication, reordering" rig_run s scripts/paper-run.sh "${COMMON[@]}" \
		--ex-extra "--drop-rate 0.03 --dup-rate 0.01 --reorder-rate 0.01 --fault-seed 7" \
		--out "$T_TMP/sim"
}

# A burst of 50 lost packets.
test_a_burst_of_50_lost_packets_is_recovered() {
	check "paper-run: packets 3000-3049 lost" rig_run b scripts/paper-run.sh "${COMMON[@]}" \
		--ex-extra "--drop-seqs 3000-3049" --out "$T_TMP/burst"
}

# The network's faults on the veth both ways (3 % loss, 1 % duplication,
# 5 % reordering, 200 us delay: the feed, the re-request answers and the
# order connection's segments alike) and the order connection reset after
# every 300 replies: the gateway recovers the feed, its own TCP recovers the
# segments, and the session's replay recovers the replies the reset lost,
# so positions and cash reconcile.
test_network_faults_and_a_reset_order_connection_are_recovered() {
	check "paper-run: netem both ways, the order connection reset every 300 replies" rig_run n \
		scripts/paper-run.sh "${COMMON[@]}" --ex-extra "--drop-after 300:rst" \
		--netem "loss 3% duplicate 1% reorder 5% delay 200us" --out "$T_TMP/netem"
}

run_tests "$@"
