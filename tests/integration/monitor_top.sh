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
set -uo pipefail
. "$(dirname "$0")/monitor_lib.sh"
mon_setup mtop
command -v tmux >/dev/null || { echo "FAIL tmux missing (scripts/deps.sh installs it)"; exit 1; }

build/t2t-top --once --name "$name" >"$tmp/none.out" 2>"$tmp/none.err"
check "no segment: --once exits 1" test $? -eq 1
check "no segment: --once says which" grep -q "/dev/shm/t2t-$name" "$tmp/none.err"

writer_start --rate 2000 --seed 3
monitor_start || exit 1
sleep 1.2
kill -STOP "$writer_pid"
build/t2t-top --once --name "$name" >"$tmp/once.out"
check "--once exits 0" test $? -eq 0
get /api/state >"$tmp/state.json"
kill -CONT "$writer_pid"

row() { awk -v s="$1" '$1 == s' "$tmp/once.out"; }
agrees() {	# SYMBOL: position, last and PnL as /api/state has them
	local pos last pnl
	pos=$(jq ".symbols[] | select(.symbol == \"$1\") | .position" "$tmp/state.json")
	last=$(jq -r ".symbols[] | select(.symbol == \"$1\") | .last" "$tmp/state.json" | awk '{ printf "%.4f", $1 }')
	pnl=$(jq -r ".symbols[] | select(.symbol == \"$1\") | .pnl" "$tmp/state.json" | awk '{ printf "%.4f", $1 }')
	row "$1" | awk -v pos="$pos" -v last="$last" -v pnl="$pnl" \
		'{ if ($2 + 0 != pos + 0 || $7 != last || $9 + 0 != pnl + 0) { print "     top: " $0; print "     json: " pos " " last " " pnl; exit 1 } }' &&
		[ -n "$(row "$1")" ]
}
for sym in AAPL MSFT NVDA; do
	check "--once: $sym position, last print and PnL as the segment has them" agrees "$sym"
done
ticks=$(jq .counters.feed.ticks "$tmp/state.json")
check "--once: feed ticks $ticks" grep -qE "^feed +packets [0-9]+ messages [0-9]+ ticks $ticks " "$tmp/once.out"
check "--once: the writer and its pid" grep -q "t2t-monwriter pid $writer_pid" "$tmp/once.out"
check "--once: every stage's percentiles" test "$(grep -cE '^(send|hook|seen|decided|queued)->[a-z]+ +[1-9]' "$tmp/once.out")" -eq 9
check "--once: no escapes" sh -c "! grep -q $'\033' $tmp/once.out"

# Live, in a terminal.
sock="t2t-test-$$"
tmux -L "$sock" new-session -d -s top -x 132 -y 50 "build/t2t-top --name $name --interval 200"
pids+=("$(tmux -L "$sock" display -p -t top '#{pane_pid}')")
trap 'tmux -L "$sock" kill-server 2>/dev/null; mon_cleanup' EXIT
screen() { tmux -L "$sock" capture-pane -p -t top; }
shows() { screen | grep -q -- "$1"; }
check "live: the frame in the terminal" wait_for shows "^NVDA .* [0-9]*\.[0-9]\{4\} "
check "live: running" wait_for shows "pid $writer_pid .* running"
{ kill -9 "$writer_pid"; wait "$writer_pid"; } 2>/dev/null
check "live: writer killed: WRITER GONE, last values kept" wait_for shows "WRITER GONE"
check "live: ... and the symbols still shown" shows "^AAPL "
old=$writer_pid
writer_start --rate 500 --symbols IBM,ORCL --seed 9
check "live: reattached to the new writer" wait_for shows "pid $writer_pid .* running"
check "live: its symbols" wait_for shows "^ORCL "
check "live: the old ones gone" sh -c "! tmux -L $sock capture-pane -p -t top | grep -q '^AAPL '"
screen >"$tmp/live.screen"
tmux -L "$sock" kill-server
[ "$old" != "$writer_pid" ]

# --once --wait: the segment comes later.
kill -TERM "$writer_pid"
wait "$writer_pid"
check "writer ended: its name removed" test ! -e "/dev/shm/t2t-$name"
build/t2t-top --once --wait 8 --name "$name" >"$tmp/wait.out" 2>&1 &
top_pid=$!
sleep 1
writer_start --rate 500 --symbols XOM
wait "$top_pid"
check "--once --wait: exits 0 once the segment appears" test $? -eq 0
check "--once --wait: shows the writer that appeared" grep -q "^XOM " "$tmp/wait.out"

echo "monitor_top: $fails failed"
[ "$fails" -eq 0 ]
