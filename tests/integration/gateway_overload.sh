#!/bin/bash
# Overload and recovery on the AF_XDP path: the gateway is stopped
# (SIGSTOP) for 300 ms in the middle of a 20,000 ticks/s feed, one tick per
# packet, so its RX ring (2048) overflows.  The kernel's drops must show in
# the summary (XDP_STATISTICS), and when it runs again the gateway must
# recover by itself: the drops are sequence gaps, re-requested and filled,
# so every published tick is still decoded once, in order.  Ticks that come
# back later than --max-catchup are followed by the strategy but not traded:
# every order that did leave is one the backtester makes on the same tick,
# and the backtester's orders the gateway did not send are exactly the
# suppressed ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_overload.XXXXXX)
trap 'rm -rf "$out"' EXIT
scripts/paper-run.sh --prefix "ov$$" --subnet "10.$((150 + $$ % 40)).$((($$ + 91) % 250)).0/24" \
	--paths af_xdp --count 30000 --rate 20000 --max-per-packet 1 --symbols AAPL:12,MSFT:20 \
	--gw-extra "--hold 16384" --expect-gaps --no-parity --no-reconcile \
	--midrun 'kill -STOP $gw_pid; sleep 0.3; kill -CONT $gw_pid' --out "$out"
j=$out/af_xdp.gw.json
fails=0
check() {
	local name=$1
	shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
drops=$(jq '.xdp.rx_dropped + .xdp.rx_ring_full + .xdp.rx_fill_ring_empty' "$j")
check "kernel drops while stalled ($drops) reported in the summary and JSON" \
	bash -c "[ $drops -gt 0 ] && grep -q fill_ring_empty '$out/af_xdp.gw.txt'"
tail -n +2 "$out/af_xdp.bt.csv" | sort >"$out/bt"
tail -n +2 "$out/af_xdp.gw_orders.csv" | sort >"$out/gw"
check "every order sent is the backtester's (same tick, side, shares)" \
	[ -z "$(comm -13 "$out/bt" "$out/gw")" ]
missing=$(comm -23 "$out/bt" "$out/gw" | wc -l)
suppressed=$(jq '.orders_more.catchup_suppressed' "$j")
failed=$(jq '.orders.failed' "$j")
check "the backtester's orders not sent ($missing) == suppressed late ticks ($suppressed) + failed sends ($failed)" \
	[ "$missing" -eq $((suppressed + failed)) ]
check "no send failed" [ "$failed" -eq 0 ]
echo "gateway_overload: $fails failure(s)"
[ "$fails" -eq 0 ]
