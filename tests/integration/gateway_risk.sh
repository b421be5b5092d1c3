#!/bin/bash
# Pre-trade risk, tried against the live gateway on a rig of its own: for
# each limit, a run that wants to break it; the exchange simulator counts
# what arrived, and no order beyond the limit may have left the gateway.
# Then the kill switch, and an exchange that does not answer (orders time
# out, are reported and are not resent).
set -euo pipefail
. "$(dirname "$0")/gw_lib.sh"
taskset -pc 0 $$ >/dev/null
gw_rig_up rk

# run NAME EXCHANGE_PORT GATEWAY_ARGS...: gateway + exsim (3000 ticks at
# 3000/s, AAPL and MSFT); results in $tmp/NAME.{gw,ex}.json
run() {
	local name=$1 xport=$2
	shift 2
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$xport" \
		${SYMS:---symbol AAPL:8 --symbol MSFT:10} --cpu 1 --exit-on-end --duration 60 -q \
		--json "$tmp/$name.gw.json" "$@" >"$tmp/$name.gw.txt" 2>"$tmp/$name.gw.err" &
	gw_pid=$!
	gw_wait_ready "$tmp/$name.gw.err" "$gw_pid" || true	# checked after the run
	ip netns exec "$RIG_NS_EX" build/exsim --source gbm --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT --count 3000 --rate 3000 \
		--cpu 0 -q --json "$tmp/$name.ex.json" --orders-log "$tmp/$name.ex.csv" \
		>"$tmp/$name.ex.txt" 2>&1 &
	local ex_pid=$!
	if [ -n "${MIDRUN:-}" ]; then
		sleep 0.6
		eval "$MIDRUN"
	fi
	wait "$ex_pid"
	wait "$gw_pid" || true
	gw_pid=
	if [ ! -s "$tmp/$name.gw.json" ]; then
		echo "FAIL $name: the gateway did not run: $(cat "$tmp/$name.gw.err")"
		fails=$((fails + 1))
	fi
}
gw() { jq -r "$1" "$tmp/$2.gw.json"; }
ex() { jq -r "$1" "$tmp/$2.ex.json"; }

# Baseline: no limits hit, every order arrives.
run base "$RIG_ORDER_PORT"
base_orders=$(gw .orders.sent base)
check "baseline: orders flow ($base_orders), all arrive" \
	[ "$base_orders" -gt 20 -a "$(ex .orders.received base)" -eq "$base_orders" ]

# Max order size 150 shares, unit 100: entries (100) pass, reversals (200) never leave.
run maxorder "$RIG_ORDER_PORT" --max-order 150
check "max order: refusals counted" [ "$(gw .risk.max_order_size maxorder)" -gt 0 ]
check "max order: nothing above 150 shares arrived" \
	[ "$(awk -F, 'NR > 1 && $0 !~ /^#/ {for (i = 1; i <= NF; i++) if (h[i] == "shares" && $i > 150) n++} NR == 1 {for (i = 1; i <= NF; i++) h[i] = $i} END {print n + 0}' "$tmp/maxorder.ex.csv")" -eq 0 ]

# Max position 150 shares with 200-share units: every order would break it.
SYMS="--symbol AAPL:8:200 --symbol MSFT:10:200" run maxpos "$RIG_ORDER_PORT" --max-pos 150
check "max position: refusals counted" [ "$(gw .risk.max_position maxpos)" -gt 0 ]
check "max position: no order arrived, positions within 150" \
	[ "$(ex .orders.received maxpos)" -eq 0 -a "$(ex '[.positions[].position | fabs] | max' maxpos)" -le 150 ]

# Price collar 5 bp with limits 100 bp through the trade: all refused (the
# reference, the median of the last three prints, is never 95 bp off).
run collar "$RIG_ORDER_PORT" --collar-bp 5 --limit-bp 100
check "collar: refusals counted, none arrived" \
	[ "$(gw .risk.price_collar collar)" -gt 0 -a "$(ex .orders.received collar)" -eq 0 ]

# 20 orders/s, burst 3, over a 1-second feed.
run rate "$RIG_ORDER_PORT" --max-rate 20:3
arrived=$(ex .orders.received rate)
check "rate: refusals counted" [ "$(gw .risk.max_rate rate)" -gt 0 ]
check "rate: at most 3 + 20/s x run time arrived ($arrived)" \
	[ "$arrived" -le "$(awk -v t="$(gw .elapsed_s rate)" 'BEGIN {print int(3 + 20 * t) + 1}')" ]

# An exchange that never answers: the orders go to a port nobody serves.
run silent 26499 --max-open 3 --order-timeout 60000
check "max open: exactly 3 orders left, the rest refused" \
	[ "$(gw .orders.sent silent)" -eq 3 -a "$(gw .risk.max_open_orders silent)" -gt 0 ]
run timeout 26499 --order-timeout 100
check "no answer: every order timed out and was reported" \
	[ "$(gw .orders.timed_out timeout)" -eq "$(gw .orders.sent timeout)" -a "$(gw .orders.sent timeout)" -gt 0 ]
check "no answer: nothing resent (exchange saw none on its real port)" \
	[ "$(ex .orders.received timeout)" -eq 0 ]

# Kill switch by file, half way through: orders stop at once.
MIDRUN="touch $tmp/KILL" run kill "$RIG_ORDER_PORT" --kill-file "$tmp/KILL"
check "kill switch: engaged and reported" \
	[ "$(gw .orders.kill_switch kill)" = true -a "$(gw .risk.kill_switch kill)" -gt 0 ]
check "kill switch: every order that left arrived; fewer than without it" \
	[ "$(ex .orders.received kill)" -eq "$(gw .orders.sent kill)" -a "$(gw .orders.sent kill)" -lt "$base_orders" ]
check "kill switch: said so on stderr" grep -q "KILL SWITCH engaged" "$tmp/kill.gw.err"

# The same by signal.
MIDRUN='kill -USR1 $gw_pid' run killsig "$RIG_ORDER_PORT"
check "kill switch by SIGUSR1: engaged, refusals counted, all that left arrived" \
	[ "$(gw .orders.kill_switch killsig)" = true -a "$(gw .risk.kill_switch killsig)" -gt 0 \
	  -a "$(ex .orders.received killsig)" -eq "$(gw .orders.sent killsig)" ]

echo "gateway_risk: $fails failure(s)"
[ "$fails" -eq 0 ]
