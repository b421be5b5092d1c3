#!/bin/bash
# make bench-latency: tick-to-trade latency of the three paths on a rig of
# its own, against the reference peer on the same rig.
#
#   - clock read cost (clock_gettime back to back on the hot loop's CPU 1);
#   - for each repetition: AF_XDP, kernel UDP busy-spin, kernel UDP blocking
#     at a low rate and under load (packed MoldUDP64), each through
#     scripts/paper-run.sh (ticks sent == decoded, parity, reconciliation)
#     with the gateway writing a capture log; then sockperf ping-pong (UDP,
#     64 bytes; server in the gateway namespace on CPU 1, client in the
#     exchange namespace on CPU 0) in its default and --nonblocked modes;
#   - the sustained zero-loss rate through AF_XDP (1 M ticks/s and flat out);
#   - prints one markdown table (medians over repetitions), writes it and the
#     same figures as JSON, and draws the plots:
#       OUT/latency.md, OUT/latency.json, OUT/latency-{low,load}-{percentiles,stages}.png
#
#   bench/latency-bench.sh [--reps N] [--out DIR] [--quick]
#     [--low-rate R --low-count N] [--load-rate R --load-count N]
#     [--zl-rate R --zl-count N] [--sockperf-time S] [--report-only]
# Defaults: 3 reps, 10,000/s x 100,000 ticks, 300,000/s x 1,500,000,
# 1,000,000/s x 3,000,000, sockperf 5 s; OUT build/bench.  --quick: 1 rep,
# a tenth of the ticks (a smoke run, not figures to quote).  --report-only:
# no runs, the table, JSON and plots again from OUT/runs.
set -euo pipefail
cd "$(dirname "$0")/.."

reps=3
low_rate=10000 low_count=100000
load_rate=300000 load_count=1500000
zl_rate=1000000 zl_count=3000000
sp_time=5
out=build/bench
paths=af_xdp,udp_spin,udp_block
long_symbols=AAPL:256,MSFT:256,NVDA:256
report_only=0

die() { echo "latency-bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--low-rate) low_rate=$2; shift 2 ;;
	--low-count) low_count=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	--load-count) load_count=$2; shift 2 ;;
	--zl-rate) zl_rate=$2; shift 2 ;;
	--zl-count) zl_count=$2; shift 2 ;;
	--sockperf-time) sp_time=$2; shift 2 ;;
	--report-only) report_only=1; shift ;;
	--quick) reps=1; low_count=$((low_count / 10)); load_count=$((load_count / 10))
		zl_count=$((zl_count / 10)); sp_time=2; shift ;;
	-h|--help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP)"
for b in build/t2t-gateway build/t2t-exsim build/t2t-backtest build/t2t-capture; do
	[ -x "$b" ] || die "$b is missing: run make first"
done
for t in sockperf jq gnuplot; do
	command -v $t >/dev/null || die "$t is missing: scripts/deps.sh installs it"
done

read -r prefix subnet < <(. scripts/rig_names.sh && rig_names latency)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
sp_pid=
watch_pid=
cleanup() {
	# (a killed child's 143 from wait must not become our exit status)
	if [ -n "$sp_pid" ]; then kill "$sp_pid" 2>/dev/null; wait "$sp_pid" 2>/dev/null || true; fi
	if [ -n "$watch_pid" ]; then kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null || true; fi
	"${rig[@]}" down >/dev/null 2>&1 || true
}

# The VM is shared: every half second, note the runnable processes that are
# not ours (another session) and kernel threads that preempt a spinning
# loop (kdamond, kworker, ...), so a disturbed run shows in the report.
watch_machine() {	# watch_machine FILE
	local sid
	sid=$(ps -o sid= -p $$ | tr -d ' ')
	while :; do
		ps -eo sid=,stat=,psr=,comm= | awk -v sid="$sid" -v t="$(date +%s.%N)" '
			$2 ~ /^R/ && $1 != sid && $4 != "ps" && $4 != "awk" { printf "%.1f %s cpu%s %s\n", t, ($1 == 0 ? "kernel" : "other"), $3, $4 }'
		echo "$(date +%s.%N) tick"
		sleep 0.5
	done >>"$1"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# This script, the simulator and the sockperf client on CPU 0; the
# gateway's hot loop and the sockperf server on CPU 1.
taskset -pc 0 $$ >/dev/null

t_start=$(date +%s)
if [ "$report_only" = 0 ]; then
rm -rf "$out/runs"
mkdir -p "$out/runs"
"${rig[@]}" up >"$out/runs/rig.log"
eval "$("${rig[@]}" env)"
echo "latency-bench: rig $prefix ($subnet), $reps rep(s): ${low_rate}/s x $low_count," \
	"${load_rate}/s x $load_count, zero-loss ${zl_rate}/s x $zl_count, sockperf ${sp_time} s"

build/t2t-capture clock --cpu 1 --pairs 1000000 | tee "$out/runs/clock.txt"
watch_machine "$out/runs/machine.log" &
watch_pid=$!
fi

# One summary object per path and run, from the gateway's and the
# simulator's JSON and the capture log.
summarize() {	# summarize DIR LOAD RATE REP RC
	local dir=$1 load=$2 rate=$3 rep=$4 rc=$5 p
	IFS=, read -ra plist <<<"$paths"
	for p in "${plist[@]}"; do
		[ -s "$dir/$p.gw.json" ] && [ -s "$dir/$p.ex.json" ] || continue
		build/t2t-capture table --json "$dir/$p.capture.gz" >"$dir/$p.cap.json" || continue
		read -r busy samples <"$dir.machine"
		jq -n --arg path "$p" --arg load "$load" --argjson rate "$rate" \
			--argjson rep "$rep" --argjson rc "$rc" \
			--argjson busy "${busy:-0}" --argjson samples "${samples:-0}" \
			--slurpfile gw "$dir/$p.gw.json" --slurpfile ex "$dir/$p.ex.json" \
			--slurpfile cap "$dir/$p.cap.json" '
			$gw[0] as $g | $ex[0] as $e | $cap[0] as $c | {
				path: $path, load: $load, rate: $rate, rep: $rep, checks_ok: ($rc == 0),
				ticks_sent: $e.ticks, ticks_decoded: $g.feed.ticks,
				achieved_tps: $e.achieved_tps, max_ticks_per_packet: $e.max_ticks_per_packet,
				orders_sent: $g.orders.sent, orders_at_exchange: $e.orders.received,
				stages: $c.latency_ns,
				w2w_intended: $e.wire_to_wire_intended_ns,
				send_lag: $e.send_lag_ns,
				clock_read: $g.clock_read_ns,
				xdp: ($g.xdp // null),
				machine: {other_busy: $busy, samples: $samples}
			}' >"$dir/$p.summary.json"
	done
}

# What else ran during batch NAME: "other work in K of N samples (names)".
foreign() {	# foreign NAME [counts]: with "counts", just "BUSY SAMPLES"
	awk -v n="$1" -v counts="${2:-}" '
		$2 == "begin" && (n == "*" || $3 == n) { on = 1; next }
		$2 == "end" && (n == "*" || $3 == n) { on = 0 }
		!on { next }
		$2 == "tick" { samples++; if (busy) hit++; busy = 0; next }
		$2 == "other" { busy = 1; names[$4]++ }
		$2 == "kernel" && $4 ~ /^(kdamond|kworker|ksoftirqd|rcu)/ && $3 == "cpu1" { k[$4]++ }
		END {
			if (counts) { printf "%d %d\n", hit, samples; exit }
			printf "other sessions busy in %d of %d samples", hit, samples
			sep = " ("; for (x in names) { printf "%s%s", sep, x; sep = ", " } if (sep == ", ") printf ")"
			sep = "; on CPU 1: "; for (x in k) { printf "%s%s x%d", sep, x, k[x]; sep = ", " }
		}' "$out/runs/machine.log"
}

batch() {	# batch NAME LOAD RATE COUNT REP [paper-run options]
	local name=$1 load=$2 rate=$3 count=$4 rep=$5 dir rc=0
	shift 5
	dir=$out/runs/$name
	echo "$(date +%s.%N) begin $name" >>"$out/runs/machine.log"
	scripts/paper-run.sh --keep-rig --prefix "$prefix" --subnet "$subnet" --capture \
		--rate "$rate" --count "$count" --out "$dir" "$@" >"$dir.log" 2>&1 || rc=$?
	echo "$(date +%s.%N) end $name" >>"$out/runs/machine.log"
	echo "  $name: $(grep -cE '^  ok ' "$dir.log" || true) check(s) ok, exit $rc;" \
		"$(foreign "$name")"
	grep -E '^  FAIL ' "$dir.log" | sed 's/^/    /' || true
	foreign "$name" counts >"$dir.machine"
	summarize "$dir" "$load" "$rate" "$rep" "$rc"
	# The recorded ticks and order lists served the checks; keep the rest.
	rm -f "$dir"/*.ticks.csv "$dir"/*.bt.csv "$dir"/*.gw_orders.csv "$dir"/*.orders.csv \
		"$dir"/*.ex_orders.csv
}

sockperf_run() {	# sockperf_run MODE REP
	local mode=$1 rep=$2 nb=() f
	f=$out/runs/sockperf-$mode-rep$rep
	[ "$mode" = nonblocked ] && nb=(--nonblocked)
	echo "$(date +%s.%N) begin sockperf-$mode-$rep" >>"$out/runs/machine.log"
	nsenter --net="$RIG_NETNS_GW" taskset -c 1 sockperf server -i "$RIG_IP_GW" -p 11111 \
		"${nb[@]}" >"$f.server.log" 2>&1 &
	sp_pid=$!
	sleep 0.5
	ip netns exec "$RIG_NS_EX" taskset -c 0 sockperf ping-pong -i "$RIG_IP_GW" -p 11111 \
		-m 64 -t "$sp_time" --full-rtt "${nb[@]}" >"$f.txt" 2>&1 ||
		echo "  sockperf $mode: client failed (see $f.txt)"
	kill "$sp_pid" 2>/dev/null || true
	wait "$sp_pid" 2>/dev/null || true
	sp_pid=
	echo "$(date +%s.%N) end sockperf-$mode-$rep" >>"$out/runs/machine.log"
	# Round-trip percentiles in us (--full-rtt), escape codes removed.
	sed 's/\x1b\[[0-9;]*m//g' "$f.txt" | awk -v mode="$mode" -v rep="$rep" '
		/percentile 50.000 =/ { p50 = $NF }  /percentile 90.000 =/ { p90 = $NF }
		/percentile 99.000 =/ { p99 = $NF }  /percentile 99.900 =/ { p999 = $NF }
		/percentile 99.990 =/ { p9999 = $NF } /<MAX> observation/ { max = $NF }
		/<MIN> observation/ { min = $NF }     /avg-rtt=/ { sub(/.*avg-rtt=/, ""); avg = $1 }
		/Total [0-9]+ observations/ { for (i = 1; i <= NF; i++) if ($i == "Total") n = $(i + 1) }
		END {
			if (p50 == "") exit 1
			printf "{\"mode\": \"%s\", \"rep\": %d, \"count\": %d, \"min\": %s, \"mean\": %s, " \
				"\"p50\": %s, \"p90\": %s, \"p99\": %s, \"p99.9\": %s, \"p99.99\": %s, \"max\": %s}\n",
				mode, rep, n, min, avg, p50, p90, p99, p999, p9999, max
		}' >"$f.json" || { echo "  sockperf $mode: no figures in $f.txt"; rm -f "$f.json"; }
	[ -s "$f.json" ] && echo "  sockperf $mode rep $rep: RTT p50 $(jq .p50 "$f.json") us;" \
		"$(foreign "sockperf-$mode-$rep")"
	return 0
}

if [ "$report_only" = 0 ]; then
for rep in $(seq "$reps"); do
	echo "rep $rep/$reps"
	batch "low-rep$rep" low "$low_rate" "$low_count" "$rep"
	batch "load-rep$rep" load "$load_rate" "$load_count" "$rep"
	sockperf_run default "$rep"
	sockperf_run nonblocked "$rep"
done
echo "zero-loss"
batch zl-default zl_default "$zl_rate" "$zl_count" 1 --paths af_xdp
batch zl-long zl_long "$zl_rate" "$zl_count" 1 --paths af_xdp --symbols "$long_symbols"
batch zl-flat zl_flat 0 "$((zl_count * 5 / 3))" 1 --paths af_xdp --symbols "$long_symbols"

# Pool each path's capture logs per load, for the plots.
IFS=, read -ra plist <<<"$paths"
for load in low load; do
	for p in "${plist[@]}"; do
		build/t2t-capture merge "$out/runs/$load-$p.capture.gz" \
			"$out"/runs/$load-rep*/"$p".capture.gz >/dev/null
	done
done
fi
[ -s "$out/runs/clock.txt" ] || die "no runs in $out/runs"

# ---- figures ----
jq -s '.' "$out"/runs/*/*.summary.json >"$out/runs/summaries.json"
jq -s '.' "$out"/runs/sockperf-*.json >"$out/runs/sockperf.json" 2>/dev/null || echo '[]' >"$out/runs/sockperf.json"
clock_line=$(cat "$out/runs/clock.txt")
kernel=$(uname -r)
cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
hyper=$(lscpu | sed -n 's/^Hypervisor vendor: *//p' | head -1)
ncpu=$(nproc --all)

jq -n --slurpfile s "$out/runs/summaries.json" --slurpfile sp "$out/runs/sockperf.json" \
	--arg date "$(date -u -r "$out/runs/clock.txt" +%Y-%m-%dT%H:%M:%SZ)" --arg kernel "$kernel" \
	--arg cpu "$cpu_model" --arg hyp "${hyper:-none}" --argjson ncpu "$ncpu" \
	--arg clock "$clock_line" --argjson reps "$reps" \
	--argjson low_rate "$low_rate" --argjson low_count "$low_count" \
	--argjson load_rate "$load_rate" --argjson load_count "$load_count" \
	--argjson zl_rate "$zl_rate" --argjson zl_count "$zl_count" --argjson sp_time "$sp_time" '
def median: map(select(. != null)) | sort |
	if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def pcts: ["count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max"];
def med_hist(f): . as $runs | reduce pcts[] as $q ({}; .[$q] = ([$runs[] | f | .[$q]?] | median));
def ex_hist: if . == null then null else {count, min, mean, p50, p90, p99, "p99.9": .p99_9, "p99.99": .p99_99, max} end;
($s[0]) as $all | ($sp[0]) as $spr |
($clock | capture("min (?<min>[0-9]+) ns, mean (?<mean>[0-9.]+), p50 (?<p50>[0-9]+), p90 (?<p90>[0-9]+), p99 (?<p99>[0-9]+)") | map_values(tonumber)) as $clk |
{
	date: $date,
	machine: {cpus: $ncpu, cpu: $cpu, hypervisor: $hyp, kernel: $kernel},
	config: {reps: $reps, low: {rate: $low_rate, count: $low_count},
		load: {rate: $load_rate, count: $load_count},
		zero_loss: {rate: $zl_rate, count: $zl_count}, sockperf_s: $sp_time,
		pinning: "simulator, sockperf client, scripts: CPU 0; gateway hot loop, sockperf server: CPU 1"},
	clock_read_ns: $clk,
	runs: ($all | group_by([.load, .path]) | sort_by(
		(.[0].load as $l | ["low", "load", "zl_default", "zl_long", "zl_flat"] | index($l)),
		(.[0].path as $p | ["af_xdp", "udp_spin", "udp_block"] | index($p))) | map({
		load: .[0].load, path: .[0].path, rate: .[0].rate, reps: length,
		checks_ok: all(.checks_ok),
		ticks_sent: (map(.ticks_sent) | add), ticks_decoded: (map(.ticks_decoded) | add),
		ticks_lost: (map(.ticks_sent - .ticks_decoded) | add),
		achieved_tps: (map(.achieved_tps) | median),
		max_ticks_per_packet: (map(.max_ticks_per_packet) | max),
		orders_sent: (map(.orders_sent) | add),
		w2w_orders: (map(.stages["send->ack"].count) | add),
		orders_at_exchange: (map(.orders_at_exchange) | add),
		xdp_drops: (if .[0].xdp then map(.xdp.rx_dropped + .xdp.rx_ring_full + .xdp.rx_fill_ring_empty) | add else null end),
		xdp: (if .[0].xdp then map(.xdp) else null end),
		stages: (. as $r | [.[0].stages | keys_unsorted[]] | map({key: ., value: (. as $k | $r | med_hist(.stages[$k]))}) | from_entries),
		w2w_intended: med_hist(.w2w_intended | ex_hist),
		send_lag: med_hist(.send_lag | ex_hist),
		clock_read: med_hist(.clock_read),
		other_sessions_busy: {samples: (map(.machine.samples // 0) | add),
			busy: (map(.machine.other_busy // 0) | add)}
	})),
	sockperf: ($spr | group_by(.mode) | map({mode: .[0].mode, reps: length, unit: "us, round trip",
		rtt: med_hist(.)}))
} | . as $r |
def run(l; p): $r.runs[] | select(.load == l and .path == p);
def w2w(l; p; q): run(l; p).stages["send->ack"][q];
def gw(l; p; st; q): run(l; p).stages[st][q];
($r.sockperf | map(.rtt.p50 * 1000) | min) as $sp_best |
.targets = [
	{name: "AF_XDP hook->queued p50 (ns)", target: 700, measured: gw("low"; "af_xdp"; "hook->queued"; "p50")},
	{name: "AF_XDP hook->queued p99 (ns)", target: 1500, measured: gw("low"; "af_xdp"; "hook->queued"; "p99")},
	{name: "AF_XDP seen->queued p50 (ns)", target: 150, measured: gw("low"; "af_xdp"; "seen->queued"; "p50")},
	{name: "AF_XDP wire-to-wire p50 (ns)", target: 3500, measured: w2w("low"; "af_xdp"; "p50")},
	{name: "AF_XDP wire-to-wire p99.9 (ns)", target: 15000, measured: w2w("low"; "af_xdp"; "p99.9")},
	{name: "AF_XDP wire-to-wire p50 below the best sockperf UDP round trip p50 (ns)", target: $sp_best, measured: w2w("low"; "af_xdp"; "p50")},
	{name: "kernel UDP blocking wire-to-wire p50 / AF_XDP p50 (x)", target: 2, higher_is_better: true,
		measured: ((w2w("low"; "udp_block"; "p50") / w2w("low"; "af_xdp"; "p50")) * 100 | round / 100)},
	{name: "AF_XDP zero-loss rate, default strategy (ticks/s)", target: 1000000, higher_is_better: true, tolerance: 0.99,
		measured: (run("zl_default"; "af_xdp") | if .ticks_lost == 0 and .xdp_drops == 0 then .achieved_tps else 0 end),
		note: (run("zl_default"; "af_xdp") | "sent \(.ticks_sent), decoded \(.ticks_decoded), XDP drops \(.xdp_drops)")},
	{name: "AF_XDP zero-loss rate, HMA 256 (ticks/s)", target: 1000000, higher_is_better: true, tolerance: 0.99,
		measured: (run("zl_long"; "af_xdp") | if .ticks_lost == 0 and .xdp_drops == 0 then .achieved_tps else 0 end),
		note: (run("zl_long"; "af_xdp") | "sent \(.ticks_sent), decoded \(.ticks_decoded), XDP drops \(.xdp_drops)")},
	{name: "AF_XDP zero-loss, flat out, HMA 256 (ticks/s)", target: 1000000, higher_is_better: true,
		measured: (run("zl_flat"; "af_xdp") | if .ticks_lost == 0 and .xdp_drops == 0 then .achieved_tps else 0 end),
		note: (run("zl_flat"; "af_xdp") | "\(.achieved_tps | round)/s offered; sent \(.ticks_sent), decoded \(.ticks_decoded), XDP drops \(.xdp_drops)")}
] | .targets |= map(. + {met: (if .measured == null then false
	elif .higher_is_better then .measured >= .target * (.tolerance // 1)
	else .measured <= .target end)})
' >"$out/latency.json"

# ---- the table ----
us() { awk -v v="$1" 'BEGIN { if (v == "" || v == "null") print "-"; else printf "%.2f", v / 1000 }'; }
{
	echo "Latency in µs, medians over $(jq '[.runs[].reps] | max' "$out/latency.json") repetition(s) of each percentile; wire to wire ="
	echo "exchange send -> exchange kernel arrival of the order (send->ack); from intended ="
	echo "the same from the tick's scheduled send time (coordinated omission); in-gateway ="
	echo "XDP hook / kernel receive stamp -> order on the TX ring (hook->queued)."
	echo
	echo "| run | ticks/s | orders | w2w p50 | p90 | p99 | p99.9 | p99.99 | from intended p50 | p99.9 | in-gw p50 | p99 | p99.9 | seen->queued p50 | lost ticks |"
	echo "|-----|--------:|-------:|--------:|----:|----:|------:|-------:|------------------:|------:|----------:|----:|------:|-----------------:|-----------:|"
	jq -r '.runs[] | select(.load == "low" or .load == "load") |
		[.path, .rate, .stages["send->ack"].p50, .stages["send->ack"].p90,
		 .stages["send->ack"].p99, .stages["send->ack"]["p99.9"], .stages["send->ack"]["p99.99"],
		 .w2w_intended.p50, .w2w_intended["p99.9"], .stages["hook->queued"].p50,
		 .stages["hook->queued"].p99, .stages["hook->queued"]["p99.9"],
		 .stages["seen->queued"].p50, .ticks_lost, .orders_sent, .w2w_orders] | map(. // "null") | @tsv' "$out/latency.json" |
	while IFS=$'\t' read -r path rate p50 p90 p99 p999 p9999 i50 i999 g50 g99 g999 s50 lost sent n; do
		orders=$sent
		[ "$n" != "$sent" ] && orders="$sent ($n timed w2w)"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$path" "$rate" "$orders" "$(us "$p50")" "$(us "$p90")" "$(us "$p99")" "$(us "$p999")" \
			"$(us "$p9999")" "$(us "$i50")" "$(us "$i999")" "$(us "$g50")" "$(us "$g99")" \
			"$(us "$g999")" "$(us "$s50")" "$lost"
	done
	jq -r '.sockperf[] | [.mode, .rtt.count, .rtt.p50, .rtt.p90, .rtt.p99, .rtt["p99.9"], .rtt["p99.99"]] | map(. // "-") | @tsv' \
		"$out/latency.json" |
	while IFS=$'\t' read -r mode n p50 p90 p99 p999 p9999; do
		printf '| sockperf ping-pong %s (RTT) | - | %s | %s | %s | %s | %s | %s | - | - | - | - | - | - | - |\n' \
			"$mode" "$n" "$p50" "$p90" "$p99" "$p999" "$p9999"
	done
	echo
	read -r busy samples < <(foreign '*' counts)
	echo "While these ran, other sessions on the VM had a runnable process in $busy of $samples" \
		"half-second samples (runs/machine.log)$([ "$busy" = 0 ] || echo "; the gateway's CPU is not shielded from them, so those runs' tails are theirs too")."

	echo
	echo "Each repetition at the low rate (other sessions busy: half-second samples, taken during its three runs, that saw another session runnable):"
	echo
	echo "| rep | other sessions busy | $(echo "$paths" | sed 's/,/ w2w p50 \/ p99 | /g') w2w p50 / p99 | af_xdp in-gw p50 / p99 |"
	echo "|----:|----:|$(echo "$paths" | sed 's/[^,]*/---:/g; s/,/|/g')|---:|"
	for f in "$out"/runs/low-rep*.machine; do
		[ -e "$f" ] || continue
		r=${f##*/low-rep}
		r=${r%.machine}
		read -r busy samples <"$f"
		printf '| %s | %s of %s ' "$r" "$busy" "$samples"
		IFS=, read -ra plist <<<"$paths"
		for p in "${plist[@]}"; do
			jq -r '.stages["send->ack"] | "\(.p50) \(.p99)"' "$out/runs/low-rep$r/$p.summary.json" 2>/dev/null |
			{ read -r a b; printf '| %s / %s ' "$(us "$a")" "$(us "$b")"; }
		done
		jq -r '.stages["hook->queued"] | "\(.p50) \(.p99)"' "$out/runs/low-rep$r/af_xdp.summary.json" 2>/dev/null |
		{ read -r a b; printf '| %s / %s |\n' "$(us "$a")" "$(us "$b")"; }
	done
	echo
	echo "Per stage, p50 / p99 (µs), low rate:"
	echo
	echo "| stage | $(echo "$paths" | sed 's/,/ | /g') |"
	echo "|-------|$(echo "$paths" | sed 's/[^,]*/---:/g; s/,/|/g')|"
	for st in send-\>hook hook-\>seen seen-\>decided decided-\>queued queued-\>sent seen-\>queued hook-\>queued hook-\>sent send-\>ack; do
		printf '| %s ' "$st"
		IFS=, read -ra plist <<<"$paths"
		for p in "${plist[@]}"; do
			jq -r --arg p "$p" --arg st "$st" '.runs[] | select(.load == "low" and .path == $p) |
				.stages[$st] | "\(.p50) \(.p99)"' "$out/latency.json" |
			{ read -r a b; printf '| %s / %s ' "$(us "$a")" "$(us "$b")"; }
		done
		printf '|\n'
	done
	echo
	jq -r '"Each stage includes about one clock read: clock_gettime(CLOCK_MONOTONIC) back to back on CPU 1 costs p50 \(.clock_read_ns.p50) ns (min \(.clock_read_ns.min), p99 \(.clock_read_ns.p99)); nothing is subtracted."' "$out/latency.json"
	echo
	echo "Sustained rate through AF_XDP (one run each):"
	echo
	echo "| run | offered ticks/s | ticks sent | decoded | XDP drops (rx_dropped + ring full + fill ring empty) | orders sent | in-gw p50 / p99 (µs) |"
	echo "|-----|----------------:|-----------:|--------:|-----:|-----:|-----:|"
	jq -r '.runs[] | select(.load | startswith("zl_")) |
		[.load, (.achieved_tps | round), .ticks_sent, .ticks_decoded, .xdp_drops, .orders_sent,
		 .stages["hook->queued"].p50, .stages["hook->queued"].p99] | map(. // "null") | @tsv' "$out/latency.json" |
	while IFS=$'\t' read -r load tps sent dec drops ord g50 g99; do
		case $load in
		zl_default) load="1 M/s, default strategy" ;;
		zl_long) load="1 M/s, HMA 256 (fewer orders)" ;;
		zl_flat) load="flat out, HMA 256" ;;
		esac
		printf '| %s | %s | %s | %s | %s | %s | %s / %s |\n' "$load" "$tps" "$sent" "$dec" "$drops" \
			"$ord" "$(us "$g50")" "$(us "$g99")"
	done
	echo
	echo "Targets:"
	echo
	echo "| target | wanted | measured | met |"
	echo "|--------|-------:|---------:|-----|"
	jq -r '.targets[] | "| \(.name) | \(if .higher_is_better then ">= " else "<= " end)\(.target)\(if .tolerance then " (paced; 1 % slack)" else "" end) | \(.measured)\(if .note then " (\(.note))" else "" end) | \(if .met then "yes" else "**no**" end) |"' \
		"$out/latency.json"
	echo
	jq -r '"\(.date), \(.machine.cpus) vCPU \(.machine.hypervisor) VM, \(.machine.cpu), kernel \(.machine.kernel)"' "$out/latency.json"
} >"$out/latency.md"

# ---- plots ----
sp_ref=()
while IFS=$'\t' read -r mode p50; do
	sp_ref+=(--ref "sockperf $mode RTT p50=$p50")
done < <(jq -r '.sockperf[] | [.mode, .rtt.p50] | @tsv' "$out/latency.json")
for load in low load; do
	rate=$([ $load = low ] && echo "$low_rate" || echo "$load_rate")
	IFS=, read -ra plist <<<"$paths"
	caps=()
	for p in "${plist[@]}"; do caps+=("$out/runs/$load-$p.capture.gz"); done
	bench/plot-latency.sh --title "tick-to-trade at $rate ticks/s ($reps run(s) pooled per path)" \
		"${sp_ref[@]}" "$out/latency-$load" "${caps[@]}" >/dev/null
done

cat "$out/latency.md"
echo
echo "latency-bench: $(($(date +%s) - t_start)) s; table $out/latency.md, JSON $out/latency.json," \
	"plots $out/latency-{low,load}-{percentiles,stages}.png, runs in $out/runs/"
