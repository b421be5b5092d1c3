#!/bin/bash
# Who owns the feed session, on both paths, against an exchange whose
# network misbehaves before and during the session:
#  - junk first (random bytes, well-formed packets of another session)
#    must not become "the session": every real tick decoded, orders the
#    backtester's;
#  - a spoofed packet of the real session at sequence 1, from another
#    address, naming the directory falsely: with --feed-source it is dropped
#    and counted on the kernel-UDP path too (XDP drops it in the hook);
#  - an old end of session 100 messages behind is counted and ignored: the
#    session goes on to its real end, every message decoded, "ok";
#  - a heartbeat a million messages ahead makes the session stale with a
#    clear message, requests stop, the summary does not say ok.
set -euo pipefail
. "$(dirname "$0")/gw_lib.sh"
taskset -pc 0 $$ >/dev/null
gw_rig_up ss
spoof_ip=${RIG_IP_EX%.*}.99
ip netns exec "$RIG_NS_EX" ip addr add "$spoof_ip/32" dev "$RIG_IF_EX"

# run PATH NAME EXSIM_ARGS...: gateway and exsim (4000 ticks at 4000/s,
# AAPL and MSFT); results in $tmp/NAME.*; the backtester's verdict in
# $tmp/NAME.parity.
run() {
	local path=$1 name=$2 mode
	shift 2
	case $path in
	af_xdp) mode=(--mode xdp) ;;
	udp) mode=(--mode udp --udp-recv spin) ;;
	esac
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" "${mode[@]}" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --symbol AAPL:12 --symbol MSFT:20 \
		--cpu 1 --exit-on-end --duration 60 --json "$tmp/$name.gw.json" \
		--orders-out "$tmp/$name.orders.csv" >"$tmp/$name.gw.txt" 2>"$tmp/$name.gw.err" &
	gw_pid=$!
	gw_wait_ready "$tmp/$name.gw.err" "$gw_pid" || true
	ip netns exec "$RIG_NS_EX" build/exsim --source gbm --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT --count 4000 --rate 4000 \
		--cpu 0 -q --json "$tmp/$name.ex.json" --record "$tmp/$name.ticks.csv" "$@" \
		>"$tmp/$name.ex.txt" 2>&1
	gw_wait_exit "$gw_pid" 10 "gateway_session: $name" || true
	gw_pid=
	build/backtest --ticks "$tmp/$name.ticks.csv" --symbol AAPL:12 --symbol MSFT:20 \
		-o "$tmp/$name.bt.csv" 2>/dev/null
	scripts/parity.sh "$tmp/$name.bt.csv" "$tmp/$name.orders.csv" "$tmp/$name.gw.json" \
		>"$tmp/$name.parity" 2>&1 && echo ok >>"$tmp/$name.parity" || true
}
gw() { jq -r "$1" "$tmp/$2.gw.json"; }
ex() { jq -r "$1" "$tmp/$2.ex.json"; }
all_decoded() { [ "$(gw .feed.ticks "$1")" = "$(ex .ticks "$1")" ]; }
parity_ok() { [ "$(tail -1 "$tmp/$1.parity")" = ok ]; }

for p in af_xdp udp; do
	run "$p" "$p.junk" --junk-first 40
	check "$p: junk before the session: not adopted ($(gw .feed.other_session "$p.junk") dropped), session $(gw .session "$p.junk")" \
		[ "$(gw .session "$p.junk")" = EXSIM00001 -a "$(gw .feed.other_session "$p.junk")" -ge 20 ]
	check "$p: junk before the session: every tick decoded, orders the backtester's ($(head -1 "$tmp/$p.junk.parity"))" \
		bash -c "[ '$(gw .feed.ticks "$p.junk")' = '$(ex .ticks "$p.junk")' ] && [ \"\$(tail -1 '$tmp/$p.junk.parity')\" = ok ]"

	run "$p" "$p.spoof" --spoof-from "$spoof_ip"
	spoofed=$( [ "$p" = af_xdp ] && gw .xdp.spoofed "$p.spoof" || gw .feed.spoofed "$p.spoof")
	check "$p: spoofed opening from $spoof_ip dropped and counted ($spoofed), the real directory kept" \
		bash -c "[ '$(ex .attacks.spoofed "$p.spoof")' = 1 ] && [ '$spoofed' -ge 1 ] && [ '$(gw '.symbols[0].locate' "$p.spoof")' = 1 ]"
	check "$p: spoofed opening: every tick decoded, orders the backtester's" \
		bash -c "[ '$(gw .feed.ticks "$p.spoof")' = '$(ex .ticks "$p.spoof")' ] && [ \"\$(tail -1 '$tmp/$p.spoof.parity')\" = ok ]"

	run "$p" "$p.eos" --stale-end-at 1000
	check "$p: an old end of session is counted ($(gw .feed.stale_end "$p.eos")) and ignored" \
		[ "$(gw .feed.stale_end "$p.eos")" = 1 -a "$(gw .feed.end_of_session "$p.eos")" = true ]
	check "$p: ... the session went on: every tick decoded, summary says ok" \
		bash -c "[ '$(gw .feed.ticks "$p.eos")' = '$(ex .ticks "$p.eos")' ] && grep -q 'ok (ended, every message decoded)' '$tmp/$p.eos.gw.txt'"

	run "$p" "$p.far" --far-heartbeat-at 1000
	check "$p: a heartbeat a million ahead: session stale ($(gw .gaps.stale_why "$p.far"))" \
		[ "$(gw .gaps.stale "$p.far")" = true -a "$(gw .gaps.too_far "$p.far")" = 1 ]
	check "$p: ... said so on stderr and in the summary (not ok), no re-request sent" \
		bash -c "grep -q 'STALE' '$tmp/$p.far.gw.err' && grep -q 'session: .*STALE' '$tmp/$p.far.gw.txt' && [ '$(gw .gaps.requests "$p.far")' = 0 ]"
	check "$p: ... no order after it went stale" \
		[ "$(gw .gaps.ticks_stale "$p.far")" -gt 1000 ]
done
echo "gateway_session: $fails failure(s)"
[ "$fails" -eq 0 ]
