#!/bin/bash
# The README's picture of the live dashboard (docs/dashboard.png), from a
# run of today's code: a rig of its own, the AF_XDP gateway trading the
# simulator's GBM feed for about 60 s, t2t-monitor serving its segment, and
# headless Chromium (tests/browser/dashboard.cjs) drawing the page after a
# while of polls.  The rig is torn down on exit, also on failure.
#
#   scripts/dashboard-shot.sh [-o PNG]     (default docs/dashboard.png; root)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh
. scripts/rig_names.sh

out=docs/dashboard.png
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "dashboard-shot: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "dashboard-shot: needs root (namespaces, XDP)" >&2; exit 2; }
for b in build/t2t-gateway build/t2t-exsim build/t2t-monitor; do
	[ -x "$b" ] || { echo "dashboard-shot: $b is missing: run make first" >&2; exit 2; }
done
command -v node >/dev/null && [ -x /usr/bin/chromium ] ||
	{ echo "dashboard-shot: node and chromium are needed (scripts/deps.sh)" >&2; exit 2; }
[ -e tests/browser/node_modules/playwright-core ] ||
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)

read -r prefix subnet < <(rig_names dash)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
tmp=$(mktemp -d /tmp/t2t-dashboard.XXXXXX)
name=dash$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
	"${rig[@]}" down >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null

"${rig[@]}" up >/dev/null
eval "$("${rig[@]}" env)"
nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" --feed "$RIG_GROUP:$RIG_FEED_PORT" \
	--feed-source "$RIG_IP_EX" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --feed-clock mono \
	--symbol AAPL:8 --symbol MSFT:12 --symbol NVDA:16 --monitor "$name" --cpu 1 -q \
	--exit-on-end --grace 3 --duration 120 >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
gw_wait_ready "$tmp/gw.err" "${pids[0]}" || { cat "$tmp/gw.err" >&2; exit 1; }
port=$((20000 + RANDOM % 20000))
build/t2t-monitor --name "$name" --listen "127.0.0.1:$port" >"$tmp/mon.out" 2>&1 &
pids+=($!)
ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --stamp mono --symbols AAPL,MSFT,NVDA \
	--count 180000 --rate 3000 --noise 1 --wait-login 5000 --feed "$RIG_GROUP" \
	--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --cpu 0 -q >"$tmp/ex.out" 2>&1 &
pids+=($!)
echo "dashboard-shot: rig $prefix, gateway trading 60 s of GBM, monitor on 127.0.0.1:$port"
sleep 8
DASH_POLLS=50 DASH_POLL_MS=400 node tests/browser/dashboard.cjs "http://127.0.0.1:$port/" \
	"$out" AAPL,MSFT,NVDA
echo "dashboard-shot: $out"
