#!/bin/bash
# A transient overload must cost at most its own length, never the session.
# At 300,000 ticks/s (packed) the gateway is stopped (SIGSTOP: its core
# taken away) for 50 ms, then in a second run for 500 ms, which overflows
# its RX ring: the kernel's drops are reported (XDP_STATISTICS), and the
# gateway recovers by itself: the drops are holes, re-requested from the
# oldest, the held packets caught up; every published message is decoded
# exactly once, the session is never stale, the summary says how long the
# recovery took.  Ticks that came back later than --max-catchup are
# followed by the strategy but not traded, and listed; the next tick of
# each symbol puts its position back on the strategy's target
# (scripts/parity.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/gw_overload.XXXXXX)
trap 'rm -rf "$out"' EXIT
fails=0
check() {
	local name=$1
	shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

for ms in 50 500; do
	scripts/paper-run.sh --prefix "ov$ms$$" \
		--subnet "10.$((150 + $$ % 40)).$((($$ + 91 + ms) % 250)).0/24" \
		--paths af_xdp --count 900000 --rate 300000 --symbols AAPL:12,MSFT:20 \
		--ex-extra "--rerequest-rate 1000000 --rerequest-burst 100000" \
		--no-reconcile \
		--midrun "kill -STOP \$gw_pid; sleep 0.$(printf %03d $ms); kill -CONT \$gw_pid" \
		--out "$out/$ms" || fails=$((fails + 1))
	j=$out/$ms/af_xdp.gw.json
	rec=$(jq '.gaps.recovery_ns_max / 1e6 | floor' "$j")
	check "$ms ms stall: session never stale, recovered (longest recovery $rec ms)" \
		[ "$(jq '.gaps.stale' "$j")/$(jq '.gaps.recovering' "$j")" = false/false ]
	grep -q "longest recovery" "$out/$ms/af_xdp.gw.txt" ||
		check "$ms ms stall: the summary says how long recovery took" false
	if [ "$ms" = 500 ]; then
		drops=$(jq '.xdp.rx_dropped + .xdp.rx_ring_full + .xdp.rx_fill_ring_empty' "$j")
		check "500 ms stall: kernel drops ($drops) reported, and filled by re-requests ($(jq .gaps.requests "$j"))" \
			bash -c "[ $drops -gt 0 ] && [ $(jq .gaps.requests "$j") -gt 0 ] && grep -q rx_ring_full '$out/$ms/af_xdp.gw.txt'"
	fi
done
echo "gateway_overload: $fails failure(s)"
[ "$fails" -eq 0 ]
