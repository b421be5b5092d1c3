#!/bin/bash
# make demo: the main job with built-in defaults.  A generated ITCH day
# shaped like a real one (build/demo/day-real.bin.gz, made once by
# t2t-genday --shape real: 16 symbols of skewed activity, the day's U-shaped
# rate, crosses and microbursts laid out over a minute of market) is replayed by the exchange simulator on a rig of its
# own (torn down at the end) at the pace it happened (DEMO_SPEED=X for x
# times faster); the gateway trades three of its symbols on the tape its books make of
# it, over AF_XDP, then kernel UDP (busy spin, then blocking receive), with
# the simulator filling its orders; then once more with --paper: no order
# port, each order filled from the gateway's own books (docs/paper.md).
# While it runs, t2t-monitor serves the gateway's live state at
# http://127.0.0.1:9470/ (the dashboard; /metrics; /api/state) and t2t-top
# shows it in a terminal.  At the end: the side-by-side summary, parity of
# every order with t2t-backtest --itch on the same day, and the positions and
# cash reconciled with the exchange; for the paper run, its fills equal to
# t2t-backtest --itch --paper's, order for order.
#
#   DEMO_LISTEN=ADDR:PORT   the dashboard's address (default 127.0.0.1:9470)
#   DEMO_SPEED=X            replay x times faster than the day's pace (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/demo_day.sh

out=build/demo
day=$DEMO_DAY
listen=${DEMO_LISTEN:-127.0.0.1:9470}
speed=${DEMO_SPEED:-1}
name=demo$$
mkdir -p "$out"

demo_day "$out/genday.txt" || exit 2

mon_pid=
cleanup() {
	[ -n "$mon_pid" ] && kill "$mon_pid" 2>/dev/null
	rm -f "/dev/shm/t2t-$name"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build/t2t-monitor --name "$name" --listen "$listen" >"$out/monitor.txt" 2>&1 &
mon_pid=$!
sleep 0.3
if kill -0 "$mon_pid" 2>/dev/null; then
	echo "demo: live view: http://$listen/ in a browser (or: build/t2t-top --name $name)"
else
	echo "demo: note: no dashboard ($(tail -1 "$out/monitor.txt")); the run goes on"
	mon_pid=
fi

echo "demo: paper trading AAPL:20 MSFT:32 NVDA:48 (symbol:HMA length) on the day's tape," \
	"replayed at x$speed of its pace (a minute of market per path at x1): the three live" \
	"paths against the simulator's order port, then --paper (no order port, fills from" \
	"the gateway's own books)"
. scripts/rig_names.sh
read -r prefix subnet < <(rig_names demo)
scripts/paper-run.sh --prefix "$prefix" --subnet "$subnet" \
	--paths af_xdp,udp_spin,udp_block,paper_xdp \
	--day "$day" --speed "$speed" --symbols AAPL:20,MSFT:32,NVDA:48 --out "$out" \
	--gw-extra "--monitor $name"
