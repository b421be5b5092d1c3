#!/bin/bash
# Pre-trade risk, tried against the live gateway on a rig of its own: for
# each limit, a run that wants to break it; the exchange simulator counts
# what arrived, and no order beyond the limit may have left the gateway.
# Then the kill switch, and an exchange that stops answering (orders time
# out, are reported and are not resent).
# One rig for the file.
. "$(dirname "$0")/../lib.sh"
. scripts/gw_ready.sh
need root build/t2t-gateway build/t2t-exsim
taskset -pc 0 $$ >/dev/null

# run NAME GATEWAY_ARGS...: gateway + exsim (3000 ticks at 3000/s, AAPL
# and MSFT, once the gateway logged in); results in $T_TMP/NAME.{gw,ex}.json.
# SYMS replaces the gateway's symbols, EX_EXTRA adds to the simulator's
# options, MIDRUN is run 0.6 s into the feed.
run() {
	local name=$1 ex_pid
	shift
	rig_up
	bg "$name.gw" nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		${SYMS:---symbol AAPL:8 --symbol MSFT:10} --cpu 1 --exit-on-end --duration 60 -q \
		--json "$T_TMP/$name.gw.json" "$@"
	gw_pid=$(t_pid "$name.gw")
	gw_wait_ready "$T_TMP/$name.gw.err" "$gw_pid"	# checked after the run
	bg "$name.ex" ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT \
		--count 3000 --rate 3000 --cpu 0 -q --json "$T_TMP/$name.ex.json" \
		--orders-log "$T_TMP/$name.ex.csv" --wait-login 5000 --grace 600 ${EX_EXTRA:-}
	ex_pid=$(t_pid "$name.ex")
	if [ -n "${MIDRUN:-}" ]; then
		sleep 0.6
		eval "$MIDRUN"
	fi
	wait "$ex_pid"
	wait "$gw_pid"
	if [ ! -s "$T_TMP/$name.gw.json" ]; then
		fail "$name: the gateway did not run: $(cat "$T_TMP/$name.gw.err")"
	fi
}
gw() { jq -r "$1" "$T_TMP/$2.gw.json"; }
ex() { jq -r "$1" "$T_TMP/$2.ex.json"; }

# base: the baseline run, once.
base() {
	[ -s "$T_TMP/base.gw.json" ] || run base
}

# Baseline: no limits hit, every order arrives.
test_without_limits_every_order_arrives() {
	local n
	rig_up
	base
	n=$(gw .orders.sent base)
	check "baseline: orders flow ($n), all arrive" \
		[ "$n" -gt 20 -a "$(ex .orders.received base)" -eq "$n" ]
}

# Max order size 150 shares, unit 100: entries (100) pass, reversals (200)
# never leave.
test_max_order_size_holds() {
	rig_up
	run maxorder --max-order 150
	check "max order: refusals counted" [ "$(gw .risk.max_order_size maxorder)" -gt 0 ]
	check "max order: nothing above 150 shares arrived" \
		[ "$(awk -F, 'NR > 1 && $0 !~ /^#/ {for (i = 1; i <= NF; i++) if (h[i] == "shares" && $i > 150) n++} NR == 1 {for (i = 1; i <= NF; i++) h[i] = $i} END {print n + 0}' "$T_TMP/maxorder.ex.csv")" -eq 0 ]
}

# Max position 150 shares with 200-share units: every order would break it.
test_max_position_holds() {
	rig_up
	SYMS="--symbol AAPL:8:200 --symbol MSFT:10:200" run maxpos --max-pos 150
	check "max position: refusals counted" [ "$(gw .risk.max_position maxpos)" -gt 0 ]
	check "max position: no order arrived, positions within 150" \
		[ "$(ex .orders.received maxpos)" -eq 0 -a "$(ex '[.positions[].position | fabs] | max' maxpos)" -le 150 ]
}

# Price collar 5 bp with limits 100 bp through the trade: all refused (the
# reference, the median of the last three prints, is never 95 bp off).
test_price_collar_holds() {
	rig_up
	run collar --collar-bp 5 --limit-bp 100
	check "collar: refusals counted, none arrived" \
		[ "$(gw .risk.price_collar collar)" -gt 0 -a "$(ex .orders.received collar)" -eq 0 ]
}

# 20 orders/s, burst 3, over a 1-second feed.
test_rate_limit_holds() {
	local arrived
	rig_up
	run rate --max-rate 20:3
	arrived=$(ex .orders.received rate)
	check "rate: refusals counted" [ "$(gw .risk.max_rate rate)" -gt 0 ]
	check "rate: at most 3 + 20/s x run time arrived ($arrived)" \
		[ "$arrived" -le "$(awk -v t="$(gw .elapsed_s rate)" 'BEGIN {print int(3 + 20 * t) + 1}')" ]
}

# An exchange that falls silent after its first reply (the first order's
# Accepted): it answers nothing more, reads nothing more, the connection
# stays up (the run is shorter than the 15 s rule).
test_max_open_orders_holds_against_a_silent_exchange() {
	rig_up
	EX_EXTRA="--silent-after 1" run silent --max-open 3 --order-timeout 60000
	check "max open: exactly 3 orders left, the rest refused" \
		[ "$(gw .orders.sent silent)" -eq 3 -a "$(gw .risk.max_open_orders silent)" -gt 0 ]
}

test_unanswered_orders_time_out_and_are_not_resent() {
	rig_up
	EX_EXTRA="--silent-after 1" run timeout --order-timeout 100
	check "no answer: every order timed out and was reported" \
		[ "$(gw .orders.timed_out timeout)" -eq "$(gw .orders.sent timeout)" -a "$(gw .orders.sent timeout)" -gt 0 ]
	check "no answer: nothing resent (the session never dropped; the exchange read the first order only)" \
		[ "$(gw .orders.resent timeout)" -eq 0 -a "$(ex .orders.received timeout)" -eq 1 ]
}

# Kill switch by file, half way through: orders stop at once.
test_kill_switch_by_file_stops_orders() {
	local n
	rig_up
	base
	n=$(gw .orders.sent base)
	MIDRUN="touch $T_TMP/KILL" run kill --kill-file "$T_TMP/KILL"
	check "kill switch: engaged and reported" \
		[ "$(gw .orders.kill_switch kill)" = true -a "$(gw .risk.kill_switch kill)" -gt 0 ]
	check "kill switch: every order that left arrived; fewer than without it" \
		[ "$(ex .orders.received kill)" -eq "$(gw .orders.sent kill)" -a "$(gw .orders.sent kill)" -lt "$n" ]
	check "kill switch: said so on stderr" grep -q "KILL SWITCH engaged" "$T_TMP/kill.gw.err"
}

test_kill_switch_by_sigusr1_stops_orders() {
	rig_up
	MIDRUN='kill -USR1 $gw_pid' run killsig
	check "kill switch by SIGUSR1: engaged, refusals counted, all that left arrived" \
		[ "$(gw .orders.kill_switch killsig)" = true -a "$(gw .risk.kill_switch killsig)" -gt 0 \
		  -a "$(ex .orders.received killsig)" -eq "$(gw .orders.sent killsig)" ]
}

# The exchange's refusals, named: the simulator rejects orders above 150
# shares ('Z', beyond its threshold): reversals of 200 shares are refused,
# and the summary and the JSON say how many and why.
test_exchange_rejects_are_named() {
	EX_EXTRA="--max-shares 150" run rej
	local gw=$T_TMP/rej.gw.json n
	n=$(j "$gw" .orders.rejected)
	check "rej: some orders rejected ($n)" test "$n" -gt 0
	expect_eq "rej: the JSON names the reason" \
		"$(j "$gw" '.rejects_by_reason.Z | "\(.count) \(.why)"')" \
		"$n shares beyond the safety threshold"
	check "rej: the summary names it" \
		grep -q "^rejected $n orders: $n shares beyond the safety threshold ('Z')" "$T_TMP/rej.gw.out"
}

run_tests "$@"
