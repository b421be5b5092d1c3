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
# One rig for the file.
. "$(dirname "$0")/../lib.sh"
. scripts/gw_ready.sh
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest
taskset -pc 0 $$ >/dev/null

# spoof_ip: the rig gets a second exchange address to spoof from.
spoof_ip() {
	SPOOF_IP=${RIG_IP_EX%.*}.99
	ip netns exec "$RIG_NS_EX" ip addr replace "$SPOOF_IP/32" dev "$RIG_IF_EX"
}

# run PATH NAME EXSIM_ARGS...: gateway and exsim (4000 ticks at 4000/s,
# AAPL and MSFT); results in $T_TMP/NAME.*; the backtester's verdict in
# $T_TMP/NAME.parity.
run() {
	local path=$1 name=$2 mode gw_pid
	shift 2
	case $path in
	af_xdp) mode=(--mode xdp) ;;
	udp) mode=(--mode udp --udp-recv spin) ;;
	esac
	bg "$name.gw" nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" "${mode[@]}" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --symbol AAPL:12 --symbol MSFT:20 \
		--cpu 1 --exit-on-end --duration 60 --json "$T_TMP/$name.gw.json" \
		--orders-out "$T_TMP/$name.orders.csv"
	gw_pid=$(t_pid "$name.gw")
	gw_wait_ready "$T_TMP/$name.gw.err" "$gw_pid" || true
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT --count 4000 --rate 4000 \
		--cpu 0 -q --json "$T_TMP/$name.ex.json" --record "$T_TMP/$name.ticks.csv" "$@" \
		>"$T_TMP/$name.ex.txt" 2>&1
	gw_wait_exit "$gw_pid" 10 "gateway_session: $name"
	build/t2t-backtest --ticks "$T_TMP/$name.ticks.csv" --symbol AAPL:12 --symbol MSFT:20 \
		-o "$T_TMP/$name.bt.csv" 2>/dev/null
	scripts/parity.sh "$T_TMP/$name.bt.csv" "$T_TMP/$name.orders.csv" "$T_TMP/$name.gw.json" \
		>"$T_TMP/$name.parity" 2>&1 && echo ok >>"$T_TMP/$name.parity" || true
}
gw() { jq -r "$1" "$T_TMP/$2.gw.json"; }
ex() { jq -r "$1" "$T_TMP/$2.ex.json"; }


test_junk_before_the_session_is_not_adopted() {
	local p
	rig_up
	spoof_ip
	for p in af_xdp udp; do
		run "$p" "$p.junk" --junk-first 40
		check "$p: junk before the session: not adopted ($(gw .feed.other_session "$p.junk") dropped), session $(gw .session "$p.junk")" \
			[ "$(gw .session "$p.junk")" = EXSIM00001 -a "$(gw .feed.other_session "$p.junk")" -ge 20 ]
		check "$p: junk before the session: every tick decoded, orders the backtester's ($(head -1 "$T_TMP/$p.junk.parity"))" \
			bash -c "[ '$(gw .feed.ticks "$p.junk")' = '$(ex .ticks "$p.junk")' ] && [ \"\$(tail -1 '$T_TMP/$p.junk.parity')\" = ok ]"
	done
}

test_a_spoofed_opening_is_dropped_and_counted() {
	local p spoofed
	rig_up
	spoof_ip
	for p in af_xdp udp; do
		run "$p" "$p.spoof" --spoof-from "$SPOOF_IP"
		spoofed=$( [ "$p" = af_xdp ] && gw .xdp.spoofed "$p.spoof" || gw .feed.spoofed "$p.spoof")
		check "$p: spoofed opening from $SPOOF_IP dropped and counted ($spoofed), the real directory kept" \
			bash -c "[ '$(ex .attacks.spoofed "$p.spoof")' = 1 ] && [ '$spoofed' -ge 1 ] && [ '$(gw '.symbols[0].locate' "$p.spoof")' = 1 ]"
		check "$p: spoofed opening: every tick decoded, orders the backtester's" \
			bash -c "[ '$(gw .feed.ticks "$p.spoof")' = '$(ex .ticks "$p.spoof")' ] && [ \"\$(tail -1 '$T_TMP/$p.spoof.parity')\" = ok ]"
	done
}

test_an_old_end_of_session_is_counted_and_ignored() {
	local p
	rig_up
	spoof_ip
	for p in af_xdp udp; do
		run "$p" "$p.eos" --stale-end-at 1000
		check "$p: an old end of session is counted ($(gw .feed.stale_end "$p.eos")) and ignored" \
			[ "$(gw .feed.stale_end "$p.eos")" = 1 -a "$(gw .feed.end_of_session "$p.eos")" = true ]
		check "$p: ... the session went on: every tick decoded, summary says ok" \
			bash -c "[ '$(gw .feed.ticks "$p.eos")' = '$(ex .ticks "$p.eos")' ] && grep -q 'ok (ended, every message decoded)' '$T_TMP/$p.eos.gw.out'"
	done
}

test_a_heartbeat_a_million_ahead_makes_the_session_stale() {
	local p
	rig_up
	spoof_ip
	for p in af_xdp udp; do
		run "$p" "$p.far" --far-heartbeat-at 1000
		check "$p: a heartbeat a million ahead: session stale ($(gw .gaps.stale_why "$p.far"))" \
			[ "$(gw .gaps.stale "$p.far")" = true -a "$(gw .gaps.too_far "$p.far")" = 1 ]
		check "$p: ... said so on stderr and in the summary (not ok), no re-request sent" \
			bash -c "grep -q 'STALE' '$T_TMP/$p.far.gw.err' && grep -q 'session: .*STALE' '$T_TMP/$p.far.gw.out' && [ '$(gw .gaps.requests "$p.far")' = 0 ]"
		check "$p: ... no order after it went stale" \
			[ "$(gw .gaps.ticks_stale "$p.far")" -gt 1000 ]
	done
}

run_tests "$@"
