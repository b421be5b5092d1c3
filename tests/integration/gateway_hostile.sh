#!/bin/bash
# Hostile input mixed into a valid feed (every malformed class, random
# bytes, truncated frames, wrong UDP checksums, packets for other ports and
# addresses: t2t-exsim --hostile), for AF_XDP and kernel UDP: the gateway drops
# and counts them and keeps trading the valid stream exactly (ticks
# published == decoded, orders == the backtester's, positions reconciled:
# scripts/paper-run.sh); the checksum and frame classes reach the AF_XDP
# socket and are counted there.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

test_hostile_input_is_dropped_counted_and_the_valid_stream_traded() {
	local bad sent
	check "paper-run: --hostile 50" rig_run "" scripts/paper-run.sh \
		--paths af_xdp,udp_spin --count 6000 --rate 4000 --symbols AAPL:12,MSFT:20 \
		--ex-extra "--hostile 50 --fault-seed 3" --out "$T_TMP"
	bad=$(jq '.xdp.bad_checksum' "$T_TMP/af_xdp.gw.json")
	sent=$(jq '.hostile.by_class.bad_checksum' "$T_TMP/af_xdp.ex.json")
	check "af_xdp: $bad of $sent bad-checksum packets dropped and counted" [ "$bad" -eq "$sent" ]
}

run_tests "$@"
