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
. bench/profile_report.sh
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
		sched_report "$out/$r.sched.data" t2t-gateway "$secs"
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
