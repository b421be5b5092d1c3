#!/bin/bash
# Paper trading end to end on a rig of its own: for each path, start the
# gateway in the gateway namespace, run the exchange simulator in the
# exchange namespace for a fixed number of ticks, then check
#   - ticks published == ticks decoded by the gateway,
#   - parity: the gateway's orders == the backtester's on the recorded ticks
#     (count, side, shares, triggering sequence number),
#   - reconciliation: the gateway's position and cash per symbol == the
#     exchange simulator's,
#   - the order session: every reply the exchange sequenced was applied by
#     the gateway, once (across however many connections), and every order
#     the gateway sent reached the exchange once,
#   - the gateway namespace's kernel sent no TCP reset (nstat's TcpOutRsts:
#     a steered segment passed to the kernel by mistake is answered with one),
#   - the XDP program is detached after the gateway exits,
# and print a side-by-side summary of the paths.  The rig is torn down on
# exit, also on failure.  The paper paths (paper_xdp, paper_udp: the
# gateway with --paper, no order session; a --day only) check instead that
# its fills are t2t-backtest --itch --paper's on the same day, order for
# order.
#
#   scripts/paper-run.sh [options]
#     --prefix P        rig prefix (default: pap<pid>)      --subnet A.B.C
#     --rig-opts OPTS   more rig options (word-split), e.g. "--queues 4 --spread cpu"
#                       (netns/rig.sh --help)
#     --paths LIST      af_xdp,udp_spin,udp_block (default all three), and the
#                       paper paths paper_xdp, paper_udp (with --day)
#     --paper-latency NS  the paper paths' --paper-latency (default 0)
#     --count N         ticks per run (default 20000)     --rate TPS (default 10000)
#     --symbols LIST    SYM:LEN[:UNIT],... (default AAPL:20,MSFT:32,NVDA:48)
#     --xdp-mode M      generic (default) or drv
#     --max-per-packet N, --noise F   passed to the simulator
#     --out DIR         results (default build/paper)
#     --gw-extra OPTS   more gateway options (word-split)
#     --ex-extra OPTS   more exchange simulator options (word-split)
#     --netem ARGS      network faults on the rig's link (rig.sh netem), e.g.
#                       "loss 1% duplicate 1%"
#     --netem-dir D     both (default: feed, re-request answers and the order
#                       session's segments both ways), out (exchange -> gateway
#                       only) or in (gateway -> exchange only)
#     --expect-gaps     check that gaps happened (they must always all be
#                       filled, the session never stale)
#     --no-reconcile    skip the position check (replies may be lost)
#     --no-parity       skip the order check (the caller checks its own way)
#     --exact           parity must be exact: no order resized, restored or
#                       left untraded (scripts/parity.sh --exact)
#     --midrun CMD      run CMD (eval, $gw_pid is the gateway) 0.5 s into
#                       the feed, e.g. to stall the gateway
#     --capture         the gateway writes OUT/PATH.capture.gz (capture log,
#                       read with build/t2t-capture), rig and rate in its header
#     --keep-rig        leave the rig up at exit (a caller that runs several
#                       batches on one rig tears it down itself)
#     --day FILE        replay the ITCH day FILE (t2t-exsim --replay) instead of
#                       GBM prints; the gateway trades the tape through its
#                       books, parity is against t2t-backtest --itch FILE, and
#                       the feed's timestamps are the file's (time of day)
#     --speed X         the replay's pace (default 1; max = flat out)
#     --day-symbols L   replay only these symbols' session (exsim and
#                       t2t-backtest --symbols L), renumbered from 1
set -euo pipefail
# A command that ends the run under set -e names itself: a run never stops
# without a verdict and without saying why.
set -E
trap 'echo "paper-run: stopped at line $LINENO by: $BASH_COMMAND (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh
. scripts/rig_names.sh

read -r prefix subnet < <(rig_names paper)
paths=af_xdp,udp_spin,udp_block
count=20000
rate=10000
symbols=AAPL:20,MSFT:32,NVDA:48
xdp_mode=generic
out=build/paper
exsim_extra=()
gw_extra=()
rig_opts=()
netem=
netem_dir=both
expect_gaps=0
reconcile=1
parity=1
exact=
midrun=
capture=0
keep_rig=0
day=
speed=1
day_symbols=
paper_ns=0

die() { echo "paper-run: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift 2 ;;
	--subnet) subnet=$2; shift 2 ;;
	--rig-opts) rig_opts+=($2); shift 2 ;;
	--paths) paths=$2; shift 2 ;;
	--count) count=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--symbols) symbols=$2; shift 2 ;;
	--xdp-mode) xdp_mode=$2; shift 2 ;;
	--max-per-packet) exsim_extra+=(--max-per-packet "$2"); shift 2 ;;
	--noise) exsim_extra+=(--noise "$2"); shift 2 ;;
	--out) out=$2; shift 2 ;;
	--gw-extra) gw_extra+=($2); shift 2 ;;
	--ex-extra) exsim_extra+=($2); shift 2 ;;
	--netem) netem=$2; shift 2 ;;
	--netem-dir) netem_dir=$2; shift 2 ;;
	--expect-gaps) expect_gaps=1; shift ;;
	--no-reconcile) reconcile=0; shift ;;
	--no-parity) parity=0; shift ;;
	--exact) exact=1; shift ;;
	--midrun) midrun=$2; shift 2 ;;
	--capture) capture=1; shift ;;
	--keep-rig) keep_rig=1; shift ;;
	--day) day=$2; shift 2 ;;
	--speed) speed=$2; shift 2 ;;
	--day-symbols) day_symbols=$2; shift 2 ;;
	--paper-latency) paper_ns=$2; shift 2 ;;
	-h|--help) sed -n '2,48s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP): run as root"
for b in build/t2t-gateway build/t2t-exsim build/t2t-backtest; do
	[ -x "$b" ] || die "$b is missing: run make first"
done
[ -z "$day" ] || [ -r "$day" ] || die "--day $day: no such file"

rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet" "${rig_opts[@]}")
gw_pid=
cleanup() {
	# (under set -e a killed gateway's 143 from wait would end this trap
	# before the rig is down)
	if [ -n "$gw_pid" ]; then
		kill "$gw_pid" 2>/dev/null
		wait "$gw_pid" 2>/dev/null || true
	fi
	[ "$keep_rig" = 1 ] || "${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Everything but the gateway's hot loop (which pins itself to CPU 1) runs on
# CPU 0, so that the loop's core has nothing else of ours to run.
taskset -pc 0 $$ >/dev/null

mkdir -p "$out"
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"
if [ -n "$netem" ]; then
	# The rig emulates netem where the kernel has no sch_netem.
	"${rig[@]}" netem "$netem" --dir "$netem_dir" >>"$out/rig.log" ||
		die "netem '$netem' --dir $netem_dir refused"
fi

gw_symbols=()
ex_symbols=
bt_symbols=()
IFS=, read -ra specs <<<"$symbols"
for s in "${specs[@]}"; do
	gw_symbols+=(--symbol "$s")
	bt_symbols+=(--symbol "$s")
	ex_symbols+=${ex_symbols:+,}${s%%:*}
done

fails=0
check() {	# check PATH NAME CMD...
	local p=$1 name=$2
	shift 2
	if "$@"; then
		echo "  ok   $p: $name"
	else
		echo "  FAIL $p: $name"
		fails=$((fails + 1))
	fi
}

# book JSON ARRAY: position and cash per symbol of the report's ARRAY (the
# gateway's .symbols, the exchange's .positions), one "SYM POS CASH" line
# each, sorted; a symbol nobody traded (the day lists more than the gateway
# trades) is left out (none at all is a book too: grep's 1 must not end the
# run under set -e)
book() {
	jq -r "$2"'[] | "\(.symbol) \(.position) \(.cash)"' "$1" | { grep -v ' 0 0$' || true; } | sort
}

# The paper path's orders as t2t-backtest --paper's CSV: gw_paper_orders.
. scripts/paper_fills.sh

gap_check() {	# gap_check PATH BASE: every hole filled (some, with --expect-gaps), not stale
	local p=$1 base=$2 opened filled
	opened=$(jq .gaps.opened "$base.gw.json")
	filled=$(jq .gaps.filled "$base.gw.json")
	check "$p" "gaps: $opened opened, $filled filled, $(jq .gaps.requests "$base.gw.json") re-requests, session not stale" \
		[ "$opened" -ge "$expect_gaps" -a "$filled" -eq "$opened" -a "$(jq .gaps.stale "$base.gw.json")" = false ]
}

paper_checks() {	# paper_checks PATH BASE
	local p=$1 base=$2 n filled
	[ -s "$out/day.paper$paper_ns.csv" ] ||
		build/t2t-backtest --itch "$day" ${day_symbols:+--symbols "$day_symbols"} \
			"${bt_symbols[@]}" --track named --paper "$paper_ns" \
			-o "$out/day.paper$paper_ns.csv" 2>"$out/day.paper$paper_ns.err" ||
		die "t2t-backtest --paper: $(tail -2 "$out/day.paper$paper_ns.err")"
	gw_paper_orders "$base.orders.csv" >"$base.paper.csv"
	n=$(($(wc -l <"$out/day.paper$paper_ns.csv") - 1))
	filled=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$out/day.paper$paper_ns.csv")
	check "$p" "paper fills == t2t-backtest --itch --paper $paper_ns: $n orders, $filled shares filled, order for order" \
		cmp -s <(tail -n +2 "$out/day.paper$paper_ns.csv") "$base.paper.csv"
	check "$p" "paper: $(jq -r '"\(.paper.orders) orders decided (\(.paper.filled) whole, \(.paper.partial) in part, \(.paper.canceled) nothing), none waiting, no order session"' "$base.gw.json")" \
		[ "$(jq '.paper.orders' "$base.gw.json")" = "$n" -a "$(jq '.paper.waiting' "$base.gw.json")" = 0 \
		  -a "$(jq 'has("order_session")' "$base.gw.json")" = false ]
	gap_check "$p" "$base"
	check "$p" "no XDP program left on $RIG_IF_GW" \
		bash -c "! nsenter --net='$RIG_NETNS_GW' ip link show '$RIG_IF_GW' | grep -q xdp"
}

# TCP resets the gateway namespace's kernel has sent (/proc/net/snmp, as
# nstat's TcpOutRsts; /proc/net is the reader's namespace's).
out_rsts() {
	nsenter --net="$RIG_NETNS_GW" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "OutRsts") c = i; h = 1 } else print $c }' /proc/net/snmp
}

run_path() {
	local p=$1 mode rsts0
	local base=$out/$p
	local paper=0
	case $p in
	af_xdp) mode=(--mode xdp --xdp-mode "$xdp_mode") ;;
	udp_spin) mode=(--mode udp --udp-recv spin) ;;
	udp_block) mode=(--mode udp --udp-recv block) ;;
	paper_xdp) mode=(--mode xdp --xdp-mode "$xdp_mode" --paper --paper-latency "$paper_ns"); paper=1 ;;
	paper_udp) mode=(--mode udp --udp-recv spin --paper --paper-latency "$paper_ns"); paper=1 ;;
	*) die "unknown path '$p'" ;;
	esac
	[ "$paper" = 0 ] || [ -n "$day" ] || die "$p: paper fills need a book: give --day FILE"
	rm -f "$base".*
	local cap=()
	[ "$capture" = 1 ] && cap=(--capture "$base.capture.gz" --capture-note "rig=$prefix"
		--capture-note "rate=$rate" --capture-note "count=$count"
		--capture-note "exsim=${exsim_extra[*]:-}")
	# The hot loop pins itself to CPU 1; the simulator runs on CPU 0.
	local session=(--exchange "$RIG_IP_EX:$RIG_ORDER_PORT") wait_login=(--wait-login 5000)
	# A paper run logs in nowhere: the exchange starts once the gateway is up.
	[ "$paper" = 1 ] && session=(--rerequest "$RIG_IP_EX:$RIG_REREQUEST_PORT") wait_login=()
	rsts0=$(out_rsts)
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" "${mode[@]}" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		"${session[@]}" "${gw_symbols[@]}" "${feed_clock[@]}" \
		--cpu 1 --exit-on-end --duration 600 -q "${gw_extra[@]}" "${cap[@]}" \
		--json "$base.gw.json" --orders-out "$base.orders.csv" \
		>"$base.gw.txt" 2>"$base.gw.err" &
	gw_pid=$!
	if ! gw_wait_ready "$base.gw.err" "$gw_pid"; then
		cat "$base.gw.err" >&2
		die "$p: the gateway did not start"
	fi

	if [ -n "$day" ]; then
		# The day's own timestamps (time of day) go out as they are.
		ip netns exec "$RIG_NS_EX" build/t2t-exsim --replay "$day" --speed "$speed" "${wait_login[@]}" --grace 600 \
			${day_symbols:+--symbols "$day_symbols"} --feed "$RIG_GROUP" \
			--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --cpu 0 -q \
			"${exsim_extra[@]}" --json "$base.ex.json" --orders-log "$base.ex_orders.csv" \
			>"$base.ex.txt" 2>"$base.ex.err" &
	else
		# The simulator stamps this host's monotonic clock (and says so to
		# the gateway, --feed-clock mono): wire-to-wire is measured on the rig.
		ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --wait-login 5000 --grace 600 --feed "$RIG_GROUP" \
			--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
			--symbols "$ex_symbols" --count "$count" --rate "$rate" --stamp mono --cpu 0 -q \
			"${exsim_extra[@]}" --record "$base.ticks.csv" \
			--json "$base.ex.json" --orders-log "$base.ex_orders.csv" \
			>"$base.ex.txt" 2>"$base.ex.err" &
	fi
	local ex_pid=$!
	if [ -n "$midrun" ]; then
		sleep 0.5
		eval "$midrun"
	fi
	wait "$ex_pid" || die "$p: exsim failed: $(cat "$base.ex.err")"

	# The gateway stops by itself after the end of session (+ grace).
	gw_wait_exit "$gw_pid" 10 "paper-run: $p" || true
	gw_pid=

	local sent decoded
	if [ -n "$day" ]; then
		sent=$(jq '.messages' "$base.ex.json")
		decoded=$(jq '.feed.messages' "$base.gw.json")
		check "$p" "messages sent ($sent) == messages decoded ($decoded)" [ "$sent" = "$decoded" ]
		sent=$(jq '.prints' "$out/day.stats.json")
		decoded=$(jq '.feed.ticks' "$base.gw.json")
		check "$p" "prints of its symbols on the day's tape ($sent) == decoded by the gateway ($decoded)" \
			[ "$sent" = "$decoded" ]
		cp "$out/day.bt.csv" "$base.bt.csv"
		if [ "$paper" = 1 ]; then
			paper_checks "$p" "$base"
			return
		fi
	else
		sent=$(jq '.ticks' "$base.ex.json")
		decoded=$(jq '.feed.ticks' "$base.gw.json")
		check "$p" "ticks sent ($sent) == ticks decoded ($decoded)" [ "$sent" = "$decoded" ]
		build/t2t-backtest --ticks "$base.ticks.csv" "${bt_symbols[@]}" -o "$base.bt.csv" \
			2>"$base.bt.err"
	fi
	if [ "$parity" -eq 1 ]; then
		local verdict
		verdict=$(scripts/parity.sh ${exact:+--exact} "$base.bt.csv" "$base.orders.csv" \
			  "$base.gw.json" 2>&1) && ok=1 || ok=0
		# (its last line says ok or FAIL, as the check does)
		verdict=$(grep -v '^parity: ' <<<"$verdict" || true)
		check "$p" "parity: $verdict" [ "$ok" = 1 ]
		if [ "$ok" = 0 ]; then
			# What the gateway counted, for the log.
			jq -c '{orders, risk, gaps, feed}' "$base.gw.json" | sed 's/^/         /' || true
		fi
	fi
	if [ "$reconcile" -eq 1 ]; then
		book "$base.gw.json" .symbols >"$base.gw.book"
		book "$base.ex.json" .positions >"$base.ex.book"
		check "$p" "reconciled: gateway position and cash == exchange's for every symbol" \
			cmp -s "$base.gw.book" "$base.ex.book"
	fi
	local seq applied sent taken dups
	seq=$(jq '[.soup.sessions[].messages] | add' "$base.ex.json")
	applied=$(jq '.order_session.replies' "$base.gw.json")
	dups=$(jq '.order_session.dup_msgs' "$base.gw.json")
	check "$p" "session: $(jq -r '"\(.order_session.logins) login(s), \(.order_session.replayed) replies replayed, \(.orders.resent) orders resent"' "$base.gw.json"); the exchange sequenced $seq replies, the gateway applied $applied once ($dups duplicates ignored)" \
		[ "$seq" = "$applied" ]
	local lost dropped
	lost=$(jq '.order_session | .lost_reset + .lost_fin + .lost_silence + .lost_retrans + .lost_broken' "$base.gw.json")
	dropped=$(jq '.soup.faults | .fin + .rst + .silent' "$base.ex.json")
	check "$p" "session: $lost connection(s) lost, the exchange dropped $dropped on purpose" \
		[ "$lost" = "$dropped" ]
	sent=$(jq '.orders.sent - .orders.failed' "$base.gw.json")
	taken=$(jq '.orders.received - .orders.dup_tokens' "$base.ex.json")
	# An order in flight when the exchange dropped the connection for the
	# last time, with no login after it (the day over), never reached it:
	# it may only be one the gateway still holds open and in doubt.
	doubt=$(jq '[.orders.in_doubt - .orders.resent, .orders.open] | min' "$base.gw.json")
	check "$p" "orders: the gateway sent $sent, the exchange took $taken ($(jq '.orders.dup_tokens' "$base.ex.json") sent again and ignored; $((sent - taken)) in flight at a last drop, still open and in doubt, at most $doubt)" \
		[ "$sent" -ge "$taken" -a $((sent - taken)) -le "$doubt" ]
	gap_check "$p" "$base"
	local rsts=$(($(out_rsts) - rsts0))
	check "$p" "the gateway namespace's kernel sent $rsts TCP reset(s) (TcpOutRsts)" [ "$rsts" = 0 ]
	check "$p" "no XDP program left on $RIG_IF_GW" \
		bash -c "! nsenter --net='$RIG_NETNS_GW' ip link show '$RIG_IF_GW' | grep -q xdp"
}

feed_clock=(--feed-clock mono)
if [ -n "$day" ]; then
	feed_clock=()
	# The paper backtest is made once per run, by the first paper path: none
	# from an earlier run of this directory (another day, other options).
	rm -f "$out"/day.paper*.csv "$out"/day.paper*.err
	# What the gateway must match: the backtester on the same (filtered) day.
	build/t2t-backtest --itch "$day" ${day_symbols:+--symbols "$day_symbols"} "${bt_symbols[@]}" --track named \
		--stats="$out/day.stats.json" -o "$out/day.bt.csv" 2>"$out/day.bt.err" ||
		die "t2t-backtest --itch $day: $(tail -2 "$out/day.bt.err")"
	echo "paper-run: rig $prefix ($subnet), day $day${day_symbols:+ ($day_symbols)} at x$speed," \
		"symbols $symbols"
else
	echo "paper-run: rig $prefix ($subnet), $count ticks at $rate/s, symbols $symbols"
fi
IFS=, read -ra plist <<<"$paths"
for p in "${plist[@]}"; do
	run_path "$p"
done

scripts/paper-summary.sh "$out" "${plist[@]}"
echo "paper-run: $fails check(s) failed; results in $out/"
[ "$fails" -eq 0 ]
