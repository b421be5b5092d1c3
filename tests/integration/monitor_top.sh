#!/bin/bash
# t2t-top against t2t-monwriter:
#   - --once shows the writer's values: with the writer stopped (SIGSTOP),
#     every symbol's position, PnL and last print and the feed's ticks are
#     what t2t-monitor's /api/state reads from the same segment;
#   - live, in a real terminal (tmux): the frame is drawn in place; when the
#     writer is killed the last values stay, marked WRITER GONE; when a new
#     writer (other symbols) publishes the name, t2t-top shows it;
#   - --once --wait waits for a segment that appears later; without a
#     segment --once exits 1 saying so.
. "$(dirname "$0")/../lib.sh"
need build/t2t-top build/t2t-monitor build/t2t-monwriter tmux curl

row() { awk -v s="$1" '$1 == s' "$T_TMP/once.out"; }
agrees() {	# SYMBOL: position, last and PnL as /api/state has them
	local pos last pnl
	pos=$(jq ".symbols[] | select(.symbol == \"$1\") | .position" "$T_TMP/state.json")
	last=$(jq -r ".symbols[] | select(.symbol == \"$1\") | .last" "$T_TMP/state.json" | awk '{ printf "%.4f", $1 }')
	pnl=$(jq -r ".symbols[] | select(.symbol == \"$1\") | .pnl" "$T_TMP/state.json" | awk '{ printf "%.4f", $1 }')
	row "$1" | awk -v pos="$pos" -v last="$last" -v pnl="$pnl" \
		'{ if ($2 + 0 != pos + 0 || $7 != last || $9 + 0 != pnl + 0) { print "     top: " $0; print "     json: " pos " " last " " pnl; exit 1 } }' &&
		[ -n "$(row "$1")" ]
}
# The terminal t2t-top draws in (a tmux server of the run's own).
sock="t2t-test-$$"
screen() { tmux -L "$sock" capture-pane -p -t top; }
shows() { screen | grep -q -- "$1"; }

test_once_without_a_segment_exits_1_saying_which() {
	build/t2t-top --once --name "$MON_NAME" >"$T_TMP/none.out" 2>"$T_TMP/none.err"
	check "no segment: --once exits 1" test $? -eq 1
	check "no segment: --once says which" grep -q "/dev/shm/t2t-$MON_NAME" "$T_TMP/none.err"
}

test_once_shows_the_values_api_state_reads() {
	local sym ticks
	writer_start --rate 2000 --seed 3
	monitor_start || return 1
	sleep 1.2
	kill -STOP "$writer_pid"
	build/t2t-top --once --name "$MON_NAME" >"$T_TMP/once.out"
	check "--once exits 0" test $? -eq 0
	get /api/state >"$T_TMP/state.json"
	kill -CONT "$writer_pid"

	for sym in AAPL MSFT NVDA; do
		check "--once: $sym position, last print and PnL as the segment has them" agrees "$sym"
	done
	ticks=$(jq .counters.feed.ticks "$T_TMP/state.json")
	check "--once: feed ticks $ticks" grep -qE "^feed +packets [0-9]+ messages [0-9]+ ticks $ticks " "$T_TMP/once.out"
	check "--once: the writer and its pid" grep -q "t2t-monwriter pid $writer_pid" "$T_TMP/once.out"
	check "--once: every stage's percentiles" test "$(grep -cE '^(send|hook|seen|decided|queued)->[a-z]+ +[1-9]' "$T_TMP/once.out")" -eq 9
	check "--once: no escapes" sh -c "! grep -q $'\033' $T_TMP/once.out"
	# A time in ns is shown in ms, and its label says no "_ns" then.
	check "--once: times shown in ms" grep -qE ' [a-z_]+ [0-9]+\.[0-9]{3}ms' "$T_TMP/once.out"
	check "--once: no label ends in _ns" sh -c "! grep -qE '_ns [0-9]' $T_TMP/once.out"
}

test_a_name_not_running_is_said() {
	build/t2t-top --once --name "${MON_NAME}x" --wait 0 >/dev/null 2>"$T_TMP/x.err"
	check "--once --name with no such gateway exits 1" test $? -eq 1
	check "it names the segment it looked for" grep -q "/dev/shm/t2t-${MON_NAME}x" "$T_TMP/x.err"
	check "it says what runs instead (or that none does)" \
		grep -qE "; (running: |no gateway is running)" "$T_TMP/x.err"
}

# Live, in a terminal: the frame in place, the writer gone, a new one.
test_live_frame_keeps_a_gone_writers_values_and_reattaches() {
	local old
	writer_start --rate 2000 --seed 3
	tmux -L "$sock" new-session -d -s top -x 132 -y 50 "build/t2t-top --name $MON_NAME --interval 200"
	at_exit tmux -L "$sock" kill-server
	check "live: the frame in the terminal" wait_for 10 shows "^NVDA .* [0-9]*\.[0-9]\{4\} "
	check "live: running" wait_for 10 shows "pid $writer_pid .* running"
	{ kill -9 "$writer_pid"; wait "$writer_pid"; } 2>/dev/null
	check "live: writer killed: WRITER GONE, last values kept" wait_for 10 shows "WRITER GONE"
	check "live: ... and the symbols still shown" shows "^AAPL "
	old=$writer_pid
	writer_start --rate 500 --symbols IBM,ORCL --seed 9
	check "live: reattached to the new writer" wait_for 10 shows "pid $writer_pid .* running"
	check "live: its symbols" wait_for 10 shows "^ORCL "
	check "live: the old ones gone" sh -c "! tmux -L $sock capture-pane -p -t top | grep -q '^AAPL '"
	screen >"$T_TMP/live.screen"
	tmux -L "$sock" kill-server
	check "live: a new writer" [ "$old" != "$writer_pid" ]
}

# The segment comes later.
test_once_wait_waits_for_the_segment() {
	writer_start --rate 500 --symbols IBM,ORCL --seed 9
	kill -TERM "$writer_pid"
	wait "$writer_pid"
	check "writer ended: its name removed" test ! -e "/dev/shm/t2t-$MON_NAME"
	bg top build/t2t-top --once --wait 8 --name "$MON_NAME"
	sleep 1
	writer_start --rate 500 --symbols XOM
	wait "$top_pid"
	check "--once --wait: exits 0 once the segment appears" test $? -eq 0
	check "--once --wait: shows the writer that appeared" grep -q "^XOM " "$T_TMP/top.out"
}

run_tests "$@"
