#!/bin/bash
# make bench-latency, the run: tick-to-trade latency of the gateway's three
# paths, of the rig's floor (the bare responders of bench/floor/) and of
# sockperf, all on one rig of its own, in one run; then the report
# (build/t2t-latency-report) and the plots.
#
#   - clock read cost on the hot CPU (t2t-capture clock);
#   - each repetition, interleaved: at the low rate the gateway (AF_XDP,
#     AF_XDP with its orders on kernel TCP, kernel UDP spin, kernel UDP
#     blocking, through scripts/paper-run.sh: ticks sent == decoded, parity,
#     reconciliation, capture log) and the floor (AF_XDP, kernel UDP spin:
#     every tick answered with a valid order); sockperf ping-pong in its
#     default and --nonblocked modes; the gateway under load (packed
#     MoldUDP64); every knob variant (KNOBS below), each paired with the
#     default runs of its repetition;
#   - the day workload, each repetition: the AF_XDP gateway trading a
#     real-shaped day replayed at its own pace (t2t-exsim --replay; the
#     demo's day by default) and the floor on the same replay answering the
#     prints the strategy trades (t2t-backtest's orders on that day, so both
#     send the same orders), each back to back with its responder's GBM run
#     of the same repetition (the report's day / GBM pairs them);
#   - the sustained zero-loss rate through AF_XDP (1 M ticks/s, the same
#     with HMA 256 on one queue and on queue 5 of 8 served, and flat out);
#   - t2t-watch samples the machine all along; a run another session
#     disturbed is run again (up to --attempts in all), and the report takes
#     each run's first quiet attempt, marking runs that had none.
#
# Everything lands in OUT/runs (manifest.tsv, machine.log, env.txt,
# clock.txt, each attempt's files); the report writes OUT/latency.md and
# OUT/latency.json, the plots OUT/latency-{low,load}-{percentiles,stages}.png.
#
#   bench/latency-bench.sh [--reps N] [--out DIR] [--attempts N] [--budget S]
#     [--quick] [--no-knobs] [--low-rate R --low-count N]
#     [--load-rate R --load-count N] [--zl-rate R --zl-count N]
#     [--sockperf-time S] [--day FILE] [--day-speed X] [--no-day] [--report-only]
# Defaults: 3 reps, 3 attempts, 10,000/s x 20,000 ticks (every low-rate
# run, knobs too), 300,000/s x 600,000, zero loss 1,000,000/s x 3,000,000,
# sockperf 3 s, the day: build/demo/day-real.bin.gz (made as make demo makes
# it when missing) at x1; a disturbed run is repeated only while the runs still to
# come fit in --budget seconds (570) at the pace so far, so a busy machine
# cannot stretch the run past it;
# OUT build/bench.  --quick: 1 rep, a tenth of the ticks, 1 attempt (a
# smoke run, not figures to quote).  --report-only: the report and plots
# again from OUT/runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh
. scripts/demo_day.sh

reps=3
attempts=3
budget=570
low_rate=10000 low_count=20000
load_rate=300000 load_count=600000
zl_rate=1000000 zl_count=3000000
sp_time=3
out=build/bench
knobs=1
long_symbols=AAPL:256,MSFT:256,NVDA:256
report_only=0
day=$DEMO_DAY
day_speed=1
day_on=1

die() { echo "latency-bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--attempts) attempts=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	--low-rate) low_rate=$2; shift 2 ;;
	--low-count) low_count=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	--load-count) load_count=$2; shift 2 ;;
	--zl-rate) zl_rate=$2; shift 2 ;;
	--zl-count) zl_count=$2; shift 2 ;;
	--sockperf-time) sp_time=$2; shift 2 ;;
	--no-knobs) knobs=0; shift ;;
	--day) day=$2; shift 2 ;;
	--day-speed) day_speed=$2; shift 2 ;;
	--no-day) day_on=0; shift ;;
	--report-only) report_only=1; shift ;;
	--quick) reps=1; attempts=1; low_count=$((low_count / 10))
		load_count=$((load_count / 10)); zl_count=$((zl_count / 10)); sp_time=2; shift ;;
	-h|--help) sed -n '2,42s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP)"
for b in build/t2t-gateway build/t2t-floor build/t2t-exsim build/t2t-backtest build/t2t-capture \
	 build/t2t-watch build/t2t-latency-report; do
	[ -x "$b" ] || die "$b is missing: run make first"
done
for t in sockperf gnuplot; do
	command -v $t >/dev/null || die "$t is missing: scripts/deps.sh installs it"
done
runs=$out/runs

# The XDP mode the gateway and the floor attach in unless told (their
# --help says), and the other one: the xdp_mode knob runs the other.
mode_dflt=$(build/t2t-gateway --help 2>&1 | tr -s ' \n' ' ' |
	grep -o -- '--xdp-mode generic|drv [^(]*([^)]*) (default [a-z]*)' | sed 's/.*(default //; s/)$//')
case $mode_dflt in
generic) mode_other=drv ;;
drv) mode_other=generic ;;
*) die "cannot read the gateway's default --xdp-mode from its --help" ;;
esac
# Where the exchange (CPU 0) sends to land on the gateway's receive queue
# 5: veth hands transmit queue k to the peer's receive queue k in driver
# mode, k - 1 in generic mode (docs/platform.md).
q5_tx=$([ "$mode_dflt" = drv ] && echo 5 || echo 6)
Q8_RIG="--queues 8 --spread cpu --xps 0:$q5_tx,1:$q5_tx"

# The knobs, each run as a variant against the default runs of the same
# repetition: KNOB|RESPONDER|VARIANT|DEFAULT|RIG TUNING|OPTIONS.  Rig
# tunings (the gateway veth, inside the rig's namespace only): gro (GRO on),
# defer (GRO on, napi_defer_hard_irqs 2, gro_flush_timeout 200 us: what
# preferred busy polling wants), rps (receive packet steering to CPU 1),
# q8 (8 queues at both ends, all served, the feed on queue 5).  Busy
# polling on AF_XDP needs a NAPI: driver mode, named in its options.
KNOBS=(
	"xdp_mode|floor_xdp|$mode_other|$mode_dflt|-|--xdp-mode $mode_other"
	"xdp_mode|af_xdp|$mode_other|$mode_dflt|-|--xdp-mode $mode_other"
	"queues|af_xdp|8 queues served, the feed on queue 5|1 queue|q8|"
	"need_wakeup|af_xdp|off|on|-|--no-need-wakeup"
	"busy_poll|af_xdp|drv, 20 us, budget 64|$mode_dflt, off|-|--xdp-mode drv --busy-poll 20 --busy-poll-budget 64"
	"busy_poll|af_xdp|drv, prefer, 20 us, budget 64, deferred IRQs|$mode_dflt, off|defer|--xdp-mode drv --busy-poll 20 --busy-poll-budget 64 --prefer-busy-poll"
	"busy_poll|floor_xdp|drv, prefer, 20 us, budget 64, deferred IRQs|$mode_dflt, off|defer|--xdp-mode drv --busy-poll 20 --busy-poll-budget 64 --prefer-busy-poll"
	"rps|floor_xdp|RPS to CPU 1|no RPS|rps|"
	"spin_frame|floor_xdp|on|off|-|--spin-frame"
	"answer_every|floor_xdp|one tick in 13|every tick|-|--answer-every 13"
	"batch|floor_xdp|1|64|-|--batch 1"
	"ring|floor_xdp|256|4096|-|--ring 256"
	"ring|af_xdp|256|4096|-|--ring 256"
	"warm_every|af_xdp|16|64|-|--warm-every 16"
	"warm_every|af_xdp|1024|64|-|--warm-every 1024"
	"warm_every|af_xdp|no warming|64|-|--no-warm"
	"tcp_ack_delay|af_xdp|5 ms|0.2 ms|-|--tcp-ack-delay 5"
	"busy_poll|floor_udp|GRO, prefer, 20 us, budget 64, deferred IRQs|off|defer|--busy-poll 20 --busy-poll-budget 64 --prefer-busy-poll"
	"busy_poll|floor_udp|GRO, 20 us|off|gro|--busy-poll 20"
	"gro|floor_udp|on|off|gro|"
	"rps|floor_udp|RPS to CPU 1|no RPS|rps|"
	"busy_poll|udp_spin|GRO, prefer, 20 us, budget 64, deferred IRQs|off|defer|--busy-poll 20 --busy-poll-budget 64 --prefer-busy-poll"
	"busy_poll|udp_block|GRO, 50 us|off|gro|--busy-poll 50"
)

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names latency)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
rig_extra=()
bg_pid=
watch_pid=
cleanup() {
	local p
	# (a killed child's 143 from wait must not become our exit status)
	for p in $bg_pid $watch_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null || true
	done
	"${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# This script, the simulator, the sockperf client and the watcher on CPU 0;
# the hot loops and the sockperf server on CPU 1.
taskset -pc 0 $$ >/dev/null

mark() {	# mark begin|end NAME: a line in the machine log
	echo "$(date +%s.%N) $1 $2" >>"$runs/machine.log"
}

# ---- the runs: each FN DIR ARGS... leaves DIR/FILE.* and returns its checks ----

run_gw() {	# run_gw DIR PATH RATE COUNT [paper-run options]
	local dir=$1 p=$2 rate=$3 count=$4
	shift 4
	scripts/paper-run.sh --keep-rig --prefix "$prefix" --subnet "$subnet" --capture \
		--rig-opts "${rig_extra[*]}" --xdp-mode "$mode_dflt" \
		--paths "$p" --rate "$rate" --count "$count" --out "$dir" "$@" >"$dir/run.log" 2>&1
}

run_floor() {	# run_floor DIR MODE RATE COUNT [t2t-floor options]
	local dir=$1 mode=$2 rate=$3 count=$4 rc=0
	local base=$dir/floor
	shift 4
	[ "$mode" = xdp ] && set -- --xdp-mode "$mode_dflt" "$@"
	nsenter --net="$RIG_NETNS_GW" build/t2t-floor --mode "$mode" -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --cpu 1 --exit-on-end --duration 300 \
		--capture "$base.capture.gz" --json "$base.floor.json" "$@" 2>"$base.err" &
	bg_pid=$!
	if ! gw_wait_ready "$base.err" "$bg_pid"; then
		cat "$base.err" >&2
		return 1
	fi
	# One tick per packet: the floor answers each packet's first trade print.
	# A second of grace: a floor held up at the end still has its last
	# answers counted (the check wants every one).
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --wait-login 5000 --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--symbols AAPL,MSFT,NVDA --count "$count" --rate "$rate" --max-per-packet 1 \
		--grace 1000 \
		--stamp mono --cpu 0 -q --json "$base.ex.json" >"$base.ex.txt" 2>&1 || rc=1
	gw_wait_exit "$bg_pid" 10 "latency-bench: floor" || rc=1
	bg_pid=
	build/t2t-latency-report check-floor "$base" >"$dir/run.log" 2>&1 || rc=1
	return $rc
}

run_floor_day() {	# run_floor_day DIR MODE: the floor on the day's replay
	local dir=$1 mode=$2 rc=0
	local base=$dir/floor xm=()
	[ "$mode" = xdp ] && xm=(--xdp-mode "$mode_dflt")
	nsenter --net="$RIG_NETNS_GW" build/t2t-floor --mode "$mode" -i "$RIG_IF_GW" "${xm[@]}" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --cpu 1 --exit-on-end --duration 600 \
		--answer-seqs "$runs/day.bt.csv" \
		--capture "$base.capture.gz" --json "$base.floor.json" 2>"$base.err" &
	bg_pid=$!
	if ! gw_wait_ready "$base.err" "$bg_pid"; then
		cat "$base.err" >&2
		return 1
	fi
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --replay "$day" --speed "$day_speed" \
		--wait-login 5000 --grace 1000 --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--cpu 0 -q --json "$base.ex.json" >"$base.ex.txt" 2>&1 || rc=1
	gw_wait_exit "$bg_pid" 10 "latency-bench: floor" || rc=1
	bg_pid=
	build/t2t-latency-report check-floor "$base" >"$dir/run.log" 2>&1 || rc=1
	return $rc
}

run_sockperf() {	# run_sockperf DIR default|nonblocked
	local dir=$1 nb=() rc=0
	[ "$2" = nonblocked ] && nb=(--nonblocked)
	nsenter --net="$RIG_NETNS_GW" taskset -c 1 sockperf server -i "$RIG_IP_GW" -p 11111 \
		"${nb[@]}" >"$dir/server.log" 2>&1 &
	bg_pid=$!
	sleep 0.5
	ip netns exec "$RIG_NS_EX" taskset -c 0 sockperf ping-pong -i "$RIG_IP_GW" -p 11111 \
		-m 64 -t "$sp_time" --full-rtt "${nb[@]}" >"$dir/sockperf.txt" 2>&1 || rc=1
	kill "$bg_pid" 2>/dev/null || true
	wait "$bg_pid" 2>/dev/null || true
	bg_pid=
	return $rc
}

# tune gro|defer|rps|q8|-: the gateway veth's receive side for one
# variant; "-" puts the rig's defaults back.
gw_sys() { ip netns exec "$RIG_NS_GW" sh -c "echo $2 > /sys/class/net/$RIG_IF_GW/$1"; }
tune() {
	local gro=off defer=0 flush=0 rps=0
	case $1 in
	gro) gro=on ;;
	defer) gro=on defer=2 flush=200000 ;;
	rps) rps=2 ;;
	q8) read -ra rig_extra <<<"$Q8_RIG" ;;
	-) [ ${#rig_extra[@]} -eq 0 ] || { rig_extra=(); "${rig[@]}" up >>"$runs/rig.log"; } ;;
	esac
	[ ${#rig_extra[@]} -eq 0 ] || "${rig[@]}" "${rig_extra[@]}" up >>"$runs/rig.log"
	ip netns exec "$RIG_NS_GW" ethtool -K "$RIG_IF_GW" gro "$gro" >/dev/null
	gw_sys napi_defer_hard_irqs "$defer"
	gw_sys gro_flush_timeout "$flush"
	gw_sys queues/rx-0/rps_cpus "$rps"
}

# The time budget: runs planned, done, and attempts made so far.
planned=0 done_runs=0 tries=0
# Does one more attempt, and then every run still to come, fit in the budget?
may_repeat() {
	local spent=$(($(date +%s) - t_start))
	[ "$tries" -gt 0 ] &&
		[ $((spent + spent * (planned - done_runs + 1) / tries)) -le "$budget" ]
}

# attempt NAME KIND RESP LOAD RATE COUNT REP KNOB VARIANT FILE FN ARGS...:
# FN DIR ARGS..., again while another session disturbed it (up to
# $attempts in all, within the budget); every attempt goes in the manifest.
attempt() {
	local name=$1 kind=$2 resp=$3 load=$4 rate=$5 count=$6 rep=$7 knob=$8 variant=$9
	local file=${10} fn=${11} a rc dir seen
	shift 11
	for a in $(seq "$attempts"); do
		dir=$runs/$name.a$a
		rm -rf "$dir"
		mkdir -p "$dir"
		mark begin "$name#$a"
		tries=$((tries + 1))
		rc=0
		"$fn" "$dir" "$@" || rc=$?
		mark end "$name#$a"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$resp" \
			"$load" "$rate" "$count" "$rep" "$knob" "$variant" "$a" "$rc" \
			"$name.a$a/$file" >>"$runs/manifest.tsv"
		# The recorded ticks and order lists served the checks; keep the rest.
		rm -f "$dir"/*.ticks.csv "$dir"/*.bt.csv "$dir"/*.orders.csv "$dir"/*.ex_orders.csv
		[ "$rc" = 0 ] || echo "  $name: checks FAILED (exit $rc; $dir/run.log)"
		# The watcher's next sample covers the run's last moments.
		sleep 0.3
		if seen=$(build/t2t-latency-report disturbed "$runs/machine.log" "$name#$a"); then
			echo "  $name: $seen"
			break
		fi
		echo "  $name attempt $a disturbed: $seen"
		if [ "$a" -lt "$attempts" ] && ! may_repeat; then
			echo "  $name: not repeated (the runs to come would not fit in ${budget} s)"
			break
		fi
	done
	done_runs=$((done_runs + 1))
}

headline_rep() {	# headline_rep REP
	local r=$1 p
	# The day's ratios pair each day run with the GBM run beside it
	# (t2t-latency-report's day_pairs): the gateway's GBM, its day, the
	# floor's day, the floor's GBM, back to back.
	attempt "low-af_xdp_ktcp-r$r" gw af_xdp_ktcp low "$low_rate" "$low_count" \
		"$r" - - af_xdp run_gw af_xdp "$low_rate" "$low_count" \
		--gw-extra "--order-stack kernel"
	attempt "low-af_xdp-r$r" gw af_xdp low "$low_rate" "$low_count" "$r" - - af_xdp \
		run_gw af_xdp "$low_rate" "$low_count"
	if [ "$day_on" = 1 ]; then
		attempt "day-af_xdp-r$r" gw af_xdp day 0 "$day_msgs" "$r" - - af_xdp \
			run_gw af_xdp 0 0 --day "$day" --speed "$day_speed"
		attempt "day-floor_xdp-r$r" floor floor_xdp day 0 "$day_msgs" "$r" - - floor \
			run_floor_day xdp
	fi
	attempt "low-floor_xdp-r$r" floor floor_xdp low "$low_rate" "$low_count" \
		"$r" - - floor run_floor xdp "$low_rate" "$low_count"
	for p in udp_spin udp_block; do
		attempt "low-$p-r$r" gw "$p" low "$low_rate" "$low_count" "$r" - - "$p" \
			run_gw "$p" "$low_rate" "$low_count"
	done
	attempt "low-floor_udp-r$r" floor floor_udp low "$low_rate" "$low_count" \
		"$r" - - floor run_floor udp "$low_rate" "$low_count"
	for p in default nonblocked; do
		attempt "sockperf-$p-r$r" sockperf "sockperf_$p" low 0 0 "$r" - - sockperf \
			run_sockperf "$p"
	done
	for p in af_xdp udp_spin udp_block; do
		attempt "load-$p-r$r" gw "$p" load "$load_rate" "$load_count" "$r" - - "$p" \
			run_gw "$p" "$load_rate" "$load_count"
	done
}

# A knob's variant pairs with its responder's headline run of the same
# repetition (same rate and count): that run is the default.
knob_rep() {	# knob_rep REP
	local r=$1 i knob resp variant dflt tuning opts name p
	for i in "${!KNOBS[@]}"; do
		IFS='|' read -r knob resp variant dflt tuning opts <<<"${KNOBS[$i]}"
		name=knob$i-$knob-$resp-r$r
		[ "$tuning" = - ] || tune "$tuning"
		case $resp in
		floor_xdp|floor_udp)
			# shellcheck disable=SC2086 # the options are words
			attempt "$name" floor "$resp" low "$low_rate" "$low_count" "$r" "$knob" \
				"$variant|$dflt" floor run_floor "${resp#floor_}" "$low_rate" \
				"$low_count" $opts ;;
		*)
			# (the gateway takes the last of an option given twice)
			attempt "$name" gw "$resp" low "$low_rate" "$low_count" "$r" "$knob" \
				"$variant|$dflt" "$resp" run_gw "$resp" "$low_rate" "$low_count" \
				--gw-extra "$opts" ;;
		esac
		[ "$tuning" = - ] || tune -
	done
}

t_start=$(date +%s)
if [ "$report_only" = 0 ] && [ "$day_on" = 1 ]; then
	if [ ! -s "$day" ]; then
		[ "$day" = "$DEMO_DAY" ] || die "--day $day: no such file"
		demo_day || exit 2
	fi
fi
if [ "$report_only" = 0 ]; then
	rm -rf "$runs"
	mkdir -p "$runs"
	printf 'name\tkind\tresp\tload\trate\tcount\trep\tknob\tvariant\tattempt\tstatus\tprefix\n' \
		>"$runs/manifest.tsv"
	day_msgs=0
	if [ "$day_on" = 1 ]; then
		# What the strategy trades on the day: the floor answers these prints.
		build/t2t-backtest --itch "$day" --symbol AAPL:20 --symbol MSFT:32 --symbol NVDA:48 \
			--track named --stats="$runs/day.stats.json" -o "$runs/day.bt.csv" \
			2>"$runs/day.bt.err" || die "t2t-backtest --itch $day: $(tail -2 "$runs/day.bt.err")"
		day_msgs=$(jq '.messages' "$runs/day.stats.json")
	fi
	"${rig[@]}" up >"$runs/rig.log"
	eval "$("${rig[@]}" env)"
	{
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "kernel=$(uname -r)"
		echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
		echo "hypervisor=$(lscpu | sed -n 's/^Hypervisor vendor: *//p' | head -1)"
		echo "cpus=$(nproc --all)"
		echo "reps=$reps"
		echo "attempts=$attempts"
		echo "low_rate=$low_rate"
		echo "low_count=$low_count"
		echo "load_rate=$load_rate"
		echo "load_count=$load_count"
		echo "zl_rate=$zl_rate"
		echo "zl_count=$zl_count"
		echo "sockperf_s=$sp_time"
		[ "$day_on" = 0 ] || echo "day=$day x$day_speed, $day_msgs messages, $(($(wc -l <"$runs/day.bt.csv") - 1)) orders"
		echo "pinning=simulator, sockperf client, scripts, watcher: CPU 0; hot loops, sockperf server: CPU 1"
		echo "xdp_mode=$mode_dflt (the default; the xdp_mode knob runs $mode_other)"
		echo "q8_rig=$Q8_RIG"
	} >"$runs/env.txt"
	echo "latency-bench: rig $prefix ($subnet), $reps rep(s) of ${low_rate}/s x $low_count," \
		"${load_rate}/s x $load_count, $((knobs * ${#KNOBS[@]})) knob variant(s); zero loss ${zl_rate}/s x" \
		"$zl_count; sockperf ${sp_time} s; up to $attempts attempt(s) per run"
	build/t2t-capture clock --cpu 1 --pairs 1000000 | tee "$runs/clock.txt"
	build/t2t-watch --sid "$(ps -o sid= -p $$ | tr -d ' ')" --interval 250 \
		--out "$runs/machine.log" &
	watch_pid=$!

	# Each repetition: 4 gateway runs and 2 floors at the low rate, 2 sockperf,
	# 3 gateway runs under load, the day (gateway and floor), the knobs; then
	# the 3 zero-loss runs.
	planned=$((reps * (11 + 2 * day_on + knobs * ${#KNOBS[@]}) + 4))
	for rep in $(seq "$reps"); do
		echo "rep $rep/$reps"
		headline_rep "$rep"
		[ "$knobs" = 1 ] && knob_rep "$rep"
	done
	echo "zero loss"
	attempt zl-default gw af_xdp zl_default "$zl_rate" "$zl_count" 1 - - af_xdp \
		run_gw af_xdp "$zl_rate" "$zl_count"
	tune q8
	# HMA 256, as zl-long: with the default strategy the simulator's fills
	# cap what it can offer below 1 M/s, and the queue would go untested.
	attempt zl-q8 gw af_xdp zl_q8 "$zl_rate" "$zl_count" 1 - - af_xdp \
		run_gw af_xdp "$zl_rate" "$zl_count" --symbols "$long_symbols"
	tune -
	attempt zl-long gw af_xdp zl_long "$zl_rate" "$zl_count" 1 - - af_xdp \
		run_gw af_xdp "$zl_rate" "$zl_count" --symbols "$long_symbols"
	attempt zl-flat gw af_xdp zl_flat 0 "$((zl_count * 5 / 3))" 1 - - af_xdp \
		run_gw af_xdp 0 "$((zl_count * 5 / 3))" --symbols "$long_symbols"
fi
[ -s "$runs/manifest.tsv" ] || die "no runs in $runs"

# ---- the report, then the plots ----
build/t2t-latency-report report --md "$out/latency.md" --json "$out/latency.json" "$runs"
sp_ref=()
if sp=$(awk '/percentile 50.000 =/ { v = $NF } END { if (v != "") print v }' \
	"$runs"/sockperf-nonblocked-r1.a*/sockperf.txt 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g') &&
   [ -n "$sp" ]; then
	sp_ref=(--ref "sockperf --nonblocked RTT p50=$sp")
fi
for load in low load; do
	caps=()
	while IFS=$'\t' read -r l resp files; do
		[ "$l" = "$load" ] || continue
		# shellcheck disable=SC2086 # the files are tab-separated words
		build/t2t-capture merge "$runs/$load-$resp.capture.gz" $files >/dev/null
		caps+=("$resp=$runs/$load-$resp.capture.gz")
	done < <(build/t2t-latency-report plots "$runs")
	[ ${#caps[@]} -gt 0 ] || continue
	rate=$([ $load = low ] && echo "$low_rate" || echo "$load_rate")
	bench/plot-latency.sh --title "tick-to-trade at $rate ticks/s ($reps run(s) pooled each)" \
		"${sp_ref[@]+"${sp_ref[@]}"}" "$out/latency-$load" "${caps[@]}" >/dev/null
done

cat "$out/latency.md"
echo
echo "latency-bench: $(($(date +%s) - t_start)) s; table $out/latency.md, JSON $out/latency.json," \
	"plots $out/latency-{low,load}-{percentiles,stages}.png, runs in $runs/"
