# The demo's real-shaped day, in one place for make demo, make bench-engine
# and the day benchmarks (bench/day-stages.sh, bench/latency-bench.sh), so
# that they all run on the same bytes.  Sourced, not run:
#
#	. scripts/demo_day.sh
#	demo_day [STATS_FILE] || exit
#
# demo_day makes $DEMO_DAY with t2t-genday when it is missing (600,000
# messages, 16 symbols, 60 s of market, seed 7; about 5 s) and writes the
# generator's --stats report to STATS_FILE when one is given.
DEMO_DAY=build/demo/day-real.bin.gz

demo_day() {
	local out=${1:-/dev/null} stats=-q

	[ -s "$DEMO_DAY" ] && return 0
	[ -x build/t2t-genday ] || { echo "demo_day: build/t2t-genday is missing: run make first" >&2; return 1; }
	mkdir -p "$(dirname "$DEMO_DAY")"
	[ -n "${1:-}" ] && stats=--stats
	echo "generating the demo's real-shaped day (600,000 messages, 16 symbols, 60 s of market) into $DEMO_DAY" >&2
	build/t2t-genday --shape real --messages 600000 --duration 60 --seed 7 --gzip \
		-o "$DEMO_DAY" "$stats" >"$out" ||
		{ rm -f "$DEMO_DAY"; echo "demo_day: t2t-genday failed" >&2; return 1; }
}
