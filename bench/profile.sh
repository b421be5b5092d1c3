#!/bin/bash
# The profile behind the latency targets make bench-latency misses: where
# the hot CPU's time goes while the AF_XDP gateway trades GBM, and where
# the simulator's goes when it cannot keep 1 M ticks/s.  Three paper runs
# on a rig of its own (scripts/paper-run.sh, torn down at exit), perf
# recording SECONDS of each from half a second in:
#   own      own TCP orders at RATE (10,000/s) on CPU 1: sched_switch (who
#            takes the loop's CPU, how often, for how long: the p99 and
#            p99.9 tail) and cpu-clock samples: where the loop's time goes,
#            and the kernel's part of it, the TX kick's send (queued->sent);
#   ktcp     the same with kernel TCP orders (--order-stack kernel): the
#            kernel's TCP send and the polls of its socket;
#   feed     1,000,000 ticks/s with the default strategy: cpu-clock samples
#            on CPU 0, where the simulator publishes.
# The gateway runs with --no-huge-text so that perf can name its code.
# Each section prints perf's view cut to what decides it; the raw
# recordings stay in OUT for perf report.
#
#   bench/profile.sh [--seconds S] [--rate TPS] [--runs own,ktcp,feed] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

secs=15
rate=10000
runs=own,ktcp,feed
out=build/bench-profile
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "profile: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "profile: needs root (perf on every CPU, the rig)" >&2; exit 2; }
command -v perf >/dev/null || { echo "profile: perf is missing: apt-get install linux-perf" >&2; exit 2; }
case $secs in ''|*[!0-9]*|0) echo "profile: --seconds takes a whole number of seconds, 1 or more" >&2; exit 2 ;; esac
case $rate in ''|*[!0-9]*|0) echo "profile: --rate takes ticks per second, 1 or more" >&2; exit 2 ;; esac

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names profile)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
trap '"${rig[@]}" down >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM
mkdir -p "$out"
rm -f "$out"/*.data "$out"/*.txt

# run NAME RATE COUNT "PERF CMDS" [paper-run options]: one paper run on the
# AF_XDP path; the perf commands (a subshell, 0.5 s in) record for $secs.
run() {
	local name=$1 r=$2 count=$3 rec=$4
	shift 4
	echo "profile: $name: $count ticks at $r/s, perf for $secs s" >&2
	scripts/paper-run.sh --keep-rig --prefix "$prefix" --subnet "$subnet" --paths af_xdp \
		--rate "$r" --count "$count" --out "$out/$name" --midrun "( $rec )" "$@" \
		>"$out/$name.run.txt" 2>&1 ||
		echo "profile: $name: the paper run's checks failed ($out/$name.run.txt); its profile stands" >&2
}

# sched_report DATA: what ran on CPU 1 besides the gateway's loop.
sched_report() {
	perf script -i "$1" --ns -F time,trace 2>/dev/null | awk -v secs="$secs" '
	function field(k,   i) {
		for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
		return ""
	}
	{
		t = $1; sub(":", "", t); t *= 1e6	# us
		pc = field("prev_comm"); pp = field("prev_pid"); nc = field("next_comm"); np = field("next_pid")
		if (hot == "" && pc ~ /^t2t-gateway/) hot = pp
		if (last != "" && pp != hot) { ran[pc] += t - last; runs[pc]++ }
		if (pp == hot) { out_at = t; first = nc }
		if (np == hot && out_at != "") {
			g = t - out_at; n++; total += g; if (g > max) { max = g; maxby = first }
			if (g < 10) b1++; else if (g < 100) b2++; else if (g < 1000) b3++; else b4++
			by[first] += g
			out_at = ""
		}
		last = t
	}
	END {
		if (hot == "") { print "no switch of the gateway'"'"'s loop seen on CPU 1"; exit }
		printf "the loop (pid %s) lost CPU 1 %d times in %d s: %.2f ms in all (%.3f %% of the time), the longest %.0f us (%s)\n", hot, n, secs, total / 1000, total / secs / 1e4, max, maxby
		printf "each time away: < 10 us %d, 10-100 us %d, 100 us-1 ms %d, >= 1 ms %d\n\n", b1, b2, b3, b4
		print "| who ran instead | runs | ms on CPU 1 |"
		print "|---|---:|---:|"
		for (c in ran) printf "| %s | %d | %.3f |\n", c, runs[c], ran[c] / 1000 | "sort -t\"|\" -k4 -rn | head -12"
	}'
}

# kernel_report DATA COMM: COMM's samples in the kernel by how it got there
# (a syscall, an interrupt) and, within, the softirq it ran on the way out
# or the function it was in.  A VM has no PMU: cpu-clock fires only with
# interrupts on, so a flat profile puts most kernel time on pvm_irq_enable;
# the call chains still say whose it was.
kernel_report() {
	echo "$2 in the kernel, by entry (syscall or interrupt), then what ran under it:"
	echo
	echo "| entry | under it | samples | % of $2's samples |"
	echo "|---|---|---:|---:|"
	perf script -i "$1" --comm "$2" -F ip,sym,dso 2>/dev/null | awk '
	function flush(   k) {
		if (nf == 0) return
		all++
		if (kern) {
			k = entry " | " (soft != "" ? "softirq " soft : leaf)
			cnt[k]++
		}
		nf = 0; kern = 0; entry = "other"; soft = ""; leaf = ""; sys = 0
	}
	BEGIN { entry = "other" }
	/^$/ { flush(); next }
	{
		sym = $2; dso = $NF
		if (nf == 0) { kern = (dso == "([kernel.kallsyms])"); leaf = sym }
		nf++
		if (sym ~ /^__x64_sys_/) { entry = "syscall " substr(sym, 11) }
		# the way back from a syscall has no sys_ frame: the libc call names it
		else if (sym ~ /^entry_SYSCALL/) sys = 1
		else if (sys == 1 && dso != "([kernel.kallsyms])") { sys = 2; if (entry == "other") entry = "syscall " sym " (its return)" }
		else if (sym ~ /^asm_(sysvec|exc)_/ && entry == "other") entry = "interrupt " substr(sym, 5)
		if (sym == "net_rx_action" || sym == "run_timer_softirq" || sym == "rcu_core" ||
		    sym == "net_tx_action" || sym == "run_rebalance_domains")
			soft = sym
	}
	END {
		flush()
		for (k in cnt) printf "| %s | %d | %.2f |\n", k, cnt[k], 100 * cnt[k] / all | "sort -t\"|\" -k4 -rn | head -12"
	}'
	echo
}

# cpu_report DATA CPU COMM...: where CPU's samples went: by program and
# kernel or not, then the functions (self time) of COMM.
cpu_report() {
	local data=$1 cpu=$2 comm
	shift 2
	echo "samples on CPU $cpu by program and where (user or kernel):"
	echo '```'
	perf report -i "$data" --stdio --no-children --sort comm,dso -q -g none --percent-limit 0.5 2>/dev/null |
		sed '/^$/d' | head -15
	echo '```'
	for comm in "$@"; do
		echo "$comm, functions by self time (>= 1 %):"
		echo '```'
		perf report -i "$data" --stdio --no-children --comm "$comm" --sort sym -q -g none \
			--percent-limit 1 2>/dev/null | sed '/^$/d' | head -25
		echo '```'
		kernel_report "$data" "$comm"
	done
}

"${rig[@]}" up >"$out/rig.log"
echo "# Profile: $(date -u +%FT%TZ), $(nproc --all) CPUs, $(uname -r), at $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "Command: bench/profile.sh --seconds $secs --rate $rate --runs $runs"
echo
echo "perf's sampling interrupts the loop (10,000 a second on CPU 1): these runs'"
echo "latencies are not the benchmark's; make bench-latency measures those."
count=$((rate * (secs + 2)))
for r in ${runs//,/ }; do
	case $r in
	own|ktcp)
		extra=
		[ "$r" = ktcp ] && extra="--order-stack kernel"
		run "$r" "$rate" "$count" \
			"perf record -q -e sched:sched_switch -C 1 -o $out/$r.sched.data -- sleep $secs & \
			 perf record -q -F 10000 -g -C 1 -o $out/$r.cpu.data -- sleep $secs; wait" \
			--gw-extra "--no-huge-text${extra:+ $extra}"
		echo
		echo "## $r: $([ "$r" = own ] && echo "own TCP" || echo "kernel TCP") orders, $rate ticks/s: CPU 1"
		echo
		sched_report "$out/$r.sched.data"
		echo
		cpu_report "$out/$r.cpu.data" 1 t2t-gateway
		;;
	feed)
		# (no parity: the gateway's order log holds fewer orders than the
		# default strategy makes at this rate; every tick is still checked)
		run feed 1000000 $((1000000 * (secs + 1))) \
			"perf record -q -F 2000 -g -C 0 -o $out/feed.cpu.data -- sleep $secs" --no-parity
		echo
		echo "## feed: 1,000,000 ticks/s asked, default strategy: CPU 0"
		echo
		echo "offered: $(jq -r '"\(.ticks) ticks in \(.publish_s) s: \(.ticks / .publish_s | floor)/s"' \
			"$out/feed/af_xdp.ex.json" 2>/dev/null || echo '?')"
		echo
		cpu_report "$out/feed.cpu.data" 0 t2t-exsim
		;;
	*) echo "profile: unknown run '$r' (own, ktcp, feed)" >&2; exit 2 ;;
	esac
done
echo
echo "profile: recordings in $out/ (perf report -i $out/NAME.data)" >&2
