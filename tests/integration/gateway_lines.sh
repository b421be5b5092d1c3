#!/bin/bash
# Two feed lines (A and B) into the gateway, each with its own faults: the
# first copy of each message is kept (in the XDP hook on the AF_XDP path,
# over two sockets on the kernel-UDP path) and the other dropped and
# counted, so the gateway decodes one stream: every message exactly once,
# orders equal to the backtester's on the published ticks, positions
# reconciled with the exchange.  A hole one line has and the other fills
# is not re-requested (the gateway waits --line-wait for the other line);
# with no wait it is.  A dead line A costs nothing while B runs, and a
# slow one leaves the lead to B.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

SYMS=(--symbol AAPL:8 --symbol MSFT:12)

# run NAME MODE GATEWAY_OPTS -- EXSIM_OPTS: one paper run over both lines;
# with LATE=S the gateway starts S seconds after the exchange; COUNT ticks
# (12,000: 3 s at 4,000/s).
run() {
	local name=$1 mode=$2 gw=() ex=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do gw+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	ex=("$@")
	gw+=(--mode "$mode" --line-b "$RIG_IF_GW_B" --feed-b "$RIG_GROUP_B:$RIG_FEED_PORT"
	     --feed-source "$RIG_IP_EX" --feed-source-b "$RIG_IP_EX_B" "${SYMS[@]}"
	     --feed-clock mono --exit-on-end --grace 1 --duration 60
	     --orders-out "$T_TMP/$name.orders.csv")
	if [ -z "${LATE:-}" ]; then
		gw_start "$name" "${gw[@]}" || return 1
	fi
	ex_start "$name" --source gbm --stamp mono --symbols AAPL,MSFT --count "${COUNT:-12000}" \
		--rate 4000 --noise 0.5 --line-b "$RIG_GROUP_B:$RIG_FEED_PORT" \
		--record "$T_TMP/$name.ticks.csv" "${ex[@]}"
	if [ -n "${LATE:-}" ]; then
		sleep "$LATE"
		gw_start "$name" "${gw[@]}" || return 1
	fi
	ex_wait "$name" || { fail "$name: exsim: $(tail -2 "$T_TMP/$name.ex.err")"; return 1; }
	gw_wait "$name" 20 || { fail "$name: gateway: $(tail -2 "$T_TMP/$name.gw.err")"; return 1; }
}

# The checks every run must pass: one stream, parity, reconciliation.
one_stream() {
	local name=$1 gw=$T_TMP/$1.gw.json ex=$T_TMP/$1.ex.json
	expect_eq "$name: every message decoded once" \
		"$(j "$gw" .feed.messages) $(j "$gw" .gaps.stale)" "$(j "$ex" .messages) false"
	build/t2t-backtest --ticks "$T_TMP/$name.ticks.csv" "${SYMS[@]}" -o "$T_TMP/$name.bt.csv" \
		2>/dev/null
	check "$name: parity with the backtester" \
		scripts/parity.sh "$T_TMP/$name.bt.csv" "$T_TMP/$name.orders.csv" "$gw"
	check "$name: positions and cash reconciled" \
		diff <(jq -r '.symbols[] | "\(.symbol) \(.position) \(.cash)"' "$gw" | sort) \
		     <(jq -r '.positions[] | "\(.symbol) \(.position) \(.cash)"' "$ex" | sort)
}

test_xdp_keeps_the_first_copy() {
	rig_up "" --line-b "$(t_subnet b)"
	run x xdp -- --drop-rate 0.03 --drop-burst 4 --b-drop-rate 0.03 --b-delay-us 30 \
		--b-jitter-us 20 --b-dup-rate 0.01 --b-reorder-rate 0.01
	one_stream x
	local gw=$T_TMP/x.gw.json
	check "x: both lines delivered first copies (B where A lost them)" \
		test "$(j "$gw" .lines.a_taken)" -gt 0 -a "$(j "$gw" .lines.b_taken)" -gt 0
	# B runs 30 us behind: its copies of what A delivered die in the hook.
	check "x: line B's second copies were dropped in the hook" \
		test "$(j "$gw" .lines.b_dup_dropped)" -gt "$(j "$gw" .lines.b_taken)"
	check "x: the decoder saw few duplicates (the hook took the rest)" \
		test "$(j "$gw" .feed.duplicates)" -lt "$(j "$gw" '.lines.a_dup_dropped + .lines.b_dup_dropped')"
}

test_udp_keeps_the_first_copy() {
	rig_up "" --line-b "$(t_subnet b)"
	run u udp -- --drop-rate 0.03 --b-drop-rate 0.03 --b-delay-us 30
	one_stream u
	check "u: duplicates dropped per line in user space" \
		test "$(j "$T_TMP/u.gw.json" '.lines.a_dup_dropped + .lines.b_dup_dropped')" -gt 0
}

test_other_line_fills_before_any_rerequest() {
	rig_up "" --line-b "$(t_subnet b)"
	# Line A loses 5% of its packets; B none, but 1 ms late: A's next
	# packet shows each hole before B's copy arrives.
	run w xdp --line-wait 50 -- --drop-rate 0.05 --b-delay-us 1000
	one_stream w
	check "w: holes seen, filled by line B, nothing re-requested" \
		test "$(j "$T_TMP/w.gw.json" .gaps.opened)" -gt 10 -a "$(j "$T_TMP/w.gw.json" .gaps.requests)" -eq 0
	run n xdp --line-wait 0 -- --drop-rate 0.05 --b-delay-us 1000
	one_stream n
	check "n: without the wait the same holes are re-requested" \
		test "$(j "$T_TMP/n.gw.json" .gaps.requests)" -gt 0
}

test_dead_line_a_costs_nothing() {
	rig_up "" --line-b "$(t_subnet b)"
	run d xdp -- --drop-rate 1 --b-delay-us 10
	one_stream d
	# Line A still carries the session's opening (faults hit tick packets).
	check "d: every tick from line B, nothing re-requested" \
		test "$(j "$T_TMP/d.gw.json" .lines.a_taken)" -le 8 -a \
		     "$(j "$T_TMP/d.gw.json" .gaps.requests)" -eq 0 -a \
		     "$(j "$T_TMP/d.gw.json" .lines.b_taken)" -gt 1000
}

# Line A's path slower than B's (exsim --delay-us): B's copies come first
# and are the ones kept; A's, late, are dropped as duplicates.
test_a_slow_line_a_lets_b_lead() {
	local gw ex
	rig_up "" --line-b "$(t_subnet b)"
	run slowa xdp -- --delay-us 300 --jitter-us 50 || return
	one_stream slowa
	gw=$T_TMP/slowa.gw.json ex=$T_TMP/slowa.ex.json
	check "slowa: B's copies led ($(j "$gw" .lines.b_taken) taken from B, $(j "$gw" .lines.a_taken) from A)" \
		test "$(j "$gw" .lines.b_taken)" -gt "$(( $(j "$gw" .lines.a_taken) * 10 ))"
	expect_eq "slowa: every packet of line A left its delay queue, none failed" \
		"$(j "$ex" .line_a_delay.packets) $(j "$ex" .line_a_delay.send_errors)" \
		"$(j "$ex" .packets) 0"
}

# A new user's order of things: the exchange first, the gateway 2 s later,
# both lines losing packets, on both paths.  The gateway re-requests everything from 1 (the
# directory first) while it holds the live lines, catches up, then trades:
# 4 s of live feed after its start leave room for a slow start-up.
test_late_join_catches_up_then_trades() {
	local m gw
	rig_up "" --line-b "$(t_subnet b)"
	for m in xdp udp; do
		COUNT=24000 LATE=2 run "late_$m" "$m" -- --drop-rate 0.01 --b-drop-rate 0.01 --b-delay-us 50 ||
			continue
		one_stream "late_$m"
		gw=$T_TMP/late_$m.gw.json
		check "late_$m: caught up from sequence 1 ($(j "$gw" .gaps.catchup_msgs) messages in $(j "$gw" '.gaps.catchup_ns / 1e6') ms)" \
			test "$(j "$gw" .gaps.catchup_msgs)" -gt 1000
		check "late_$m: the summary says how long the catch-up took" \
			grep -q "^joined late: caught up" "$T_TMP/late_$m.gw.out"
		check "late_$m: it traded once live" test "$(j "$gw" .orders.sent)" -gt 100
		check "late_$m: the catch-up's ticks were followed, not traded" \
			test "$(j "$gw" .orders.untraded_late)" -gt 0
	done
}

# Later still: the gateway starts after the day's last data packet, while
# the exchange lingers and only heartbeats come (which then start the
# session): it still catches the whole day up and ends with every message.
test_late_join_after_the_last_data_packet() {
	rig_up "" --line-b "$(t_subnet b)"
	LATE=4 run after xdp -- --linger 8000
	one_stream after
	check "after: the whole day caught up from heartbeats alone" \
		test "$(j "$T_TMP/after.gw.json" .gaps.catchup_msgs)" -ge 18000
}

run_tests "$@"
