#!/bin/bash
# Latency pictures from capture logs, with gnuplot:
#   OUT-percentiles.png  HdrHistogram-style percentile plot (latency against
#                        1/(1-percentile) on a log axis, so the tail shows) of
#                        wire to wire (send->ack) and in-gateway tick-to-trade
#                        (hook->queued), one line per capture
#   OUT-stages.png       p50 and p99 of every stage, one bar per capture
#
#   bench/plot-latency.sh [--title T] [--ref LABEL=US]... OUT CAPTURE...
#     CAPTURE  a capture log (t2t-gateway --capture), or several of one path
#              merged (t2t-capture merge); labelled with its path, or
#              LABEL=FILE to name it
#     --ref    a horizontal reference line on the wire-to-wire panel, e.g.
#              --ref 'sockperf p50=4.1'
# Needs build/t2t-capture and gnuplot (gnuplot-nox, scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "plot-latency: $*" >&2; exit 2; }
title="tick-to-trade latency"
refs=()
while [ $# -gt 0 ]; do
	case $1 in
	--title) title=$2; shift 2 ;;
	--ref) refs+=("$2"); shift 2 ;;
	-h|--help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || die "usage: plot-latency.sh [--title T] [--ref LABEL=US] OUT CAPTURE..."
out=$1
shift
command -v gnuplot >/dev/null || die "gnuplot is missing (scripts/deps.sh installs gnuplot-nox)"
tool=build/t2t-capture
[ -x $tool ] || die "$tool is missing: run make"

work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT

labels=()
i=0
for arg in "$@"; do
	file=$arg
	label=
	if [[ $arg == *=* && ! -e $arg ]]; then
		label=${arg%%=*}
		file=${arg#*=}
	fi
	[ -r "$file" ] || die "$file: cannot read"
	i=$((i + 1))
	$tool percentiles --stage 'send->ack' "$file" >"$work/w2w.$i"
	$tool percentiles --stage 'hook->queued' "$file" >"$work/gw.$i"
	$tool table --tsv "$file" >"$work/stages.$i"
	[ -n "$label" ] || label=$(sed -n '1s/.*, path \([^,]*\),.*/\1/p' "$work/w2w.$i")
	labels+=("$label")
done
n=$i

# The x axis runs to the largest 1/(1-p) any capture reaches.
xmax=$(awk '!/^#/ && $4 > m { m = $4 } END { print (m > 10 ? m * 1.5 : 100) }' "$work"/w2w.*)

plot_lines() {	# plot_lines PREFIX: the plot command for one panel
	local cmd="plot" sep=" "
	for i in $(seq "$n"); do
		# A capture without that stage (e.g. no replies) has no line.
		grep -q ', 0 values$' "$work/$1.$i" && continue
		cmd+="$sep'$work/$1.$i' using 4:1 with lines lw 2 title '${labels[$((i - 1))]}'"
		sep=", "
	done
	[ "$cmd" = plot ] && cmd="plot 1/0 notitle" && sep=", "
	if [ "$1" = w2w ]; then
		for r in "${refs[@]+"${refs[@]}"}"; do
			cmd+="$sep${r#*=} with lines dt 2 lw 1.5 title '${r%%=*}'"
		done
	fi
	echo "$cmd"
}

gnuplot <<EOF
set terminal pngcairo noenhanced size 1400,560 font "sans,10"
set output "$out-percentiles.png"
set multiplot layout 1,2 title "$title"
set logscale x
set logscale y
set xrange [1:$xmax]
set xtics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000, "99.9999%%" 1000000)
set xlabel "percentile"
set ylabel "latency (us)"
set grid xtics ytics mytics
set key top left
set title "wire to wire: exchange send -> exchange arrival of the order"
$(plot_lines w2w)
set title "in the gateway: XDP hook (kernel stamp) -> order on the TX ring (before sendto)"
$(plot_lines gw)
unset multiplot
EOF

# Stage bars: one row per stage, one column per capture.
stages="send->hook hook->seen seen->decided decided->queued queued->sent seen->queued hook->queued send->ack"
for col in p50 p99; do
	{
		printf 'stage'
		for l in "${labels[@]}"; do printf '\t%s' "$l"; done
		printf '\n'
		for s in $stages; do
			printf '%s' "$s"
			for i in $(seq "$n"); do
				awk -F'\t' -v s="$s" -v c="$col" '
					NR == 1 { for (k = 1; k <= NF; k++) if ($k == c) col = k; next }
					$1 == s { v = $col / 1000; printf "\t%.3f", (v > 0.001 ? v : 0.001) }
				' "$work/stages.$i"
			done
			printf '\n'
		done
	} >"$work/bars.$col"
done

gnuplot <<EOF
set terminal pngcairo noenhanced size 1400,560 font "sans,10"
set output "$out-stages.png"
set multiplot layout 1,2 title "$title: per stage"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set yrange [0.01:*]
set ylabel "latency (us, log)"
set grid ytics
set xtics rotate by 30 right
set key below horizontal
set title "p50"
plot for [c=2:$((n + 1))] "$work/bars.p50" using c:xtic(1) title columnheader(c)
set title "p99"
plot for [c=2:$((n + 1))] "$work/bars.p99" using c:xtic(1) title columnheader(c)
unset multiplot
EOF
echo "plot-latency: $out-percentiles.png $out-stages.png"
