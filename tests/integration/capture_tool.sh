#!/bin/bash
# t2t-capture on capture files made here with awk + gzip, straight from the
# documented format (latency/README.md), not by the library's writer:
#   - table: counts, min, max, mean exact and percentiles within the HDR
#     error of the exact nearest-rank values, against awk's own sums and sort;
#   - merge: the merged file's table == the table of the files read together,
#     zcat shows every record once; mixing paths refused unless --force;
#   - csv: one line per order, stage columns = the timestamps' differences;
#   - damaged gzip, cut-short files, bad headers and records: exit 1 and
#     FILE:LINE: what; bad usage: exit 2;
#   - the plot script makes two non-empty PNGs (gnuplot is a dependency;
#     skipped only when it is absent).
. "$(dirname "$0")/../lib.sh"
need build/t2t-capture

TOOL=build/t2t-capture

COLUMNS_LINE=order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,t_seen,t_decided,t_queued,t_sent,t_ack

# gen FILE PATH SEED N: N orders; also FILE.w2w and FILE.gw hold the
# send->ack and hook->queued values of the orders that have them.
gen() {
	awk -v seed="$3" -v n="$4" -v path="$2" -v cols="$COLUMNS_LINE" \
	    -v w2w="$1.w2w" -v gw="$1.gw" '
	function lat(lo, spread) { return lo + int(rand() * rand() * spread) }
	BEGIN {
		srand(seed)
		print "# t2t-capture v1"
		print "# path=" path
		print "# rate=10000"
		print "# clock_read_ns_p50=30"
		print cols
		t = 1000000000000 + seed * 1000000000
		for (i = 0; i < n; i++) {
			t += 100000
			send = t; hook = send + lat(3000, 40000); seen = hook + lat(500, 5000)
			dec = seen + lat(100, 2000); q = dec + lat(30, 500)
			sent = q + lat(4000, 30000); ack = q + lat(2000, 50000)
			outcome = "filled"; flags = "-"
			if (i % 17 == 0) ack = 0
			if (i % 41 == 0) outcome = "send_failed"
			if (i % 43 == 0) flags = "catchup"
			# %.0f: mawk prints %d no higher than 2^31
			printf "%d,%d,AAPL,B,100,1000000,%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", \
				i, 10 + i, outcome, flags, send, hook, seen, dec, q, sent, ack
			if (outcome == "send_failed" || flags == "catchup")
				continue
			print q - hook > gw
			if (ack)
				print ack - send > w2w
		}
		print "# end records=" n
	}' | gzip >"$1"
}

# oracle FILE STAGE: count min max mean p50 p99 p99.9 of the exact values
oracle() {
	sort -n "$1" | awk '
	{ v[NR] = $1; s += $1 }
	function rank(p,   r) { r = int(p * NR / 100); if (r < p * NR / 100) r++; return r < 1 ? 1 : r }
	END { printf "%d %d %d %.1f %d %d %d\n", NR, v[1], v[NR], s / NR, v[rank(50)], v[rank(99)], v[rank(99.9)] }'
}

# got FILE... STAGE: the same figures from t2t-capture table --json
got() {
	local stage=${*: -1}
	$TOOL table --json "${@:1:$#-1}" | jq -r --arg s "$stage" \
		'.latency_ns[$s] | "\(.count) \(.min) \(.max) \(.mean) \(.p50) \(.p99) \(.["p99.9"])"'
}

# Exact count, min, max, mean; percentiles >= exact and within 0.79 %.
agrees() {	# agrees "ORACLE" "GOT"
	read -r on omin omax omean o50 o99 o999 <<<"$1"
	read -r gn gmin gmax gmean g50 g99 g999 <<<"$2"
	[ "$on $omin $omax" = "$gn $gmin $gmax" ] || return 1
	awk -v a="$omean" -v b="$gmean" 'BEGIN { exit !(a - b < 0.051 && b - a < 0.051) }' || return 1
	for pair in "$o50 $g50" "$o99 $g99" "$o999 $g999"; do
		set -- $pair
		awk -v e="$1" -v g="$2" 'BEGIN { exit !(g >= e && g <= e * 1.0079 + 1) }' || return 1
	done
}

# files: the generated capture files a, b, c (af_xdp) and u (udp_spin),
# made once.
files() {
	[ -s "$T_TMP/u.gz" ] && return 0
	gen "$T_TMP/a.gz" af_xdp 1 3000
	gen "$T_TMP/b.gz" af_xdp 2 2000
	gen "$T_TMP/c.gz" af_xdp 3 5000
	gen "$T_TMP/u.gz" udp_spin 4 1000
}

test_zcat_reads_a_generated_file() {
	files
	check "zcat reads a generated file" bash -c "zcat '$T_TMP/a.gz' | head -1 | grep -qx '# t2t-capture v1'"
}

test_table_matches_the_exact_figures() {
	local f
	files
	for f in a b c; do
		check "$f: send->ack exact count/min/max/mean, percentiles within 0.79 %" \
			agrees "$(oracle "$T_TMP/$f.gz.w2w")" "$(got "$T_TMP/$f.gz" 'send->ack')"
		check "$f: hook->queued likewise" \
			agrees "$(oracle "$T_TMP/$f.gz.gw")" "$(got "$T_TMP/$f.gz" 'hook->queued')"
	done
	cat "$T_TMP"/[abc].gz.w2w >"$T_TMP/all.w2w"
	check "a+b+c read together: send->ack of all their orders" \
		agrees "$(oracle "$T_TMP/all.w2w")" "$(got "$T_TMP/a.gz" "$T_TMP/b.gz" "$T_TMP/c.gz" 'send->ack')"
	check "text table names every stage" \
		bash -c "$TOOL table '$T_TMP/a.gz' | grep -c -E '^  (send->hook|hook->seen|seen->decided|decided->queued|queued->sent|seen->queued|hook->queued|hook->sent|send->ack) ' | grep -qx 9"
	check "text table reports the clock read" \
		bash -c "$TOOL table '$T_TMP/a.gz' | grep -q 'about one clock read: p50 30 ns'"
}

test_merge_equals_reading_together() {
	local msg rc
	files
	check "merge a b c" $TOOL merge "$T_TMP/m.gz" "$T_TMP/a.gz" "$T_TMP/b.gz" "$T_TMP/c.gz"
	check "merged table == table of a b c together" \
		cmp -s <($TOOL table --json "$T_TMP/m.gz" | jq -S .latency_ns) \
		<($TOOL table --json "$T_TMP/a.gz" "$T_TMP/b.gz" "$T_TMP/c.gz" | jq -S .latency_ns)
	check "zcat shows 10000 records in the merged file" \
		bash -c "[ \$(zcat '$T_TMP/m.gz' | grep -vc '^#') = 10001 ]"
	check "merged header: path af_xdp, merged_files=3, rate kept" \
		bash -c "zcat '$T_TMP/m.gz' | grep -qx '# path=af_xdp' && zcat '$T_TMP/m.gz' | grep -qx '# merged_files=3' && zcat '$T_TMP/m.gz' | grep -qx '# rate=10000'"
	check "merge of a merge counts runs" \
		bash -c "$TOOL merge '$T_TMP/m2.gz' '$T_TMP/m.gz' '$T_TMP/a.gz' >/dev/null && zcat '$T_TMP/m2.gz' | grep -qx '# merged_files=4'"
	msg=$($TOOL merge "$T_TMP/x.gz" "$T_TMP/a.gz" "$T_TMP/u.gz" 2>&1)
	rc=$?
	check "mixing af_xdp and udp_spin refused (exit 1, no output file)" \
		bash -c "[ $rc = 1 ] && [ ! -e '$T_TMP/x.gz' ] && grep -q 'refusing to pool different paths' <<<'$msg'"
	check "--force mixes them, path=mixed" \
		bash -c "$TOOL merge --force '$T_TMP/x.gz' '$T_TMP/a.gz' '$T_TMP/u.gz' >/dev/null && zcat '$T_TMP/x.gz' | grep -qx '# path=mixed'"
	check "table refuses mixed paths too" bash -c "! $TOOL table '$T_TMP/a.gz' '$T_TMP/u.gz' 2>/dev/null"
}

test_csv_has_one_line_per_order_and_the_stages() {
	files
	$TOOL csv "$T_TMP/a.gz" >"$T_TMP/a.csv" || fail "t2t-capture csv exit $?"
	check "one line per order plus the header" bash -c "[ \$(wc -l <'$T_TMP/a.csv') = 3001 ]"
	check "hook_queued_ns column = t_queued - t_hook" \
		awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
			$c["hook_queued_ns"] != "" { n++; if ($c["hook_queued_ns"] != $c["t_queued"] - $c["t_hook"]) bad++ }
			END { exit bad > 0 || n < 2000 }' "$T_TMP/a.csv"
	check "-o writes the file" bash -c "$TOOL csv -o '$T_TMP/a2.csv' '$T_TMP/a.gz' && cmp -s '$T_TMP/a.csv' '$T_TMP/a2.csv'"
}

# expect RC PATTERN CMD...: exit status RC and stderr matching PATTERN (ERE)
expect() {
	local rc=$1 pat=$2 out got
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" = "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
		ok "exit $rc, '$out'"
	else
		fail "$* -> exit $got, '$out' (wanted $rc, /$pat/)"
	fi
}

test_damaged_files_and_bad_usage_refused() {
	local size
	files
	size=$(stat -c %s "$T_TMP/c.gz")
	head -c $((size / 2)) "$T_TMP/c.gz" >"$T_TMP/cut.gz"
	expect 1 "^t2t-capture: $T_TMP/cut.gz:[0-9]+: gzip: unexpected end of file" $TOOL table "$T_TMP/cut.gz"
	head -c $((size - 4)) "$T_TMP/c.gz" >"$T_TMP/cut2.gz"
	expect 1 "^t2t-capture: $T_TMP/cut2.gz:[0-9]+: gzip: " $TOOL table "$T_TMP/cut2.gz"
	cp "$T_TMP/c.gz" "$T_TMP/dmg.gz"
	printf '\377\377\377\377\377\377\377\377' | dd of="$T_TMP/dmg.gz" bs=1 seek=$((size / 3)) conv=notrunc status=none
	# Damage is found where the reader meets it: zlib's error, or the garbage
	# it inflated to before the CRC check.
	expect 1 "^t2t-capture: $T_TMP/dmg.gz:[0-9]+: " $TOOL table "$T_TMP/dmg.gz"
	zcat "$T_TMP/a.gz" | awk 'NR <= 100' | gzip >"$T_TMP/short.gz"
	expect 1 "short.gz:101: no '# end records=N' trailer after 95 records \(file cut short\?\)" $TOOL table "$T_TMP/short.gz"
	printf 'not a capture\n' | gzip >"$T_TMP/hdr.gz"
	expect 1 "hdr.gz:1: not a t2t capture file" $TOOL table "$T_TMP/hdr.gz"
	printf '# t2t-capture v9\n' | gzip >"$T_TMP/ver.gz"
	expect 1 "ver.gz:1: capture format version 9" $TOOL csv "$T_TMP/ver.gz"
	zcat "$T_TMP/a.gz" | sed '7s/,100,/,1x0,/' | gzip >"$T_TMP/rec.gz"
	expect 1 "rec.gz:7: shares: not a number" $TOOL table "$T_TMP/rec.gz"
	expect 1 "rec.gz:7: shares" $TOOL merge "$T_TMP/y.gz" "$T_TMP/a.gz" "$T_TMP/rec.gz"
	check "a failed merge leaves no output" test ! -e "$T_TMP/y.gz"
	expect 1 "nonexistent.gz: No such file or directory" $TOOL table "$T_TMP/nonexistent.gz"
	expect 2 "a command is needed" $TOOL
	expect 2 "unknown command 'plot'" $TOOL plot "$T_TMP/a.gz"
	expect 2 "table: which file" $TOOL table
	expect 2 "unknown stage 'a->b'" $TOOL percentiles --stage 'a->b' "$T_TMP/a.gz"
	expect 2 "merge wants OUT" $TOOL merge "$T_TMP/z.gz"
	check "--help exits 0" bash -c "$TOOL --help | grep -q '^Usage: t2t-capture'"
}

test_percentiles_rise_to_the_max() {
	files
	$TOOL percentiles --stage 'send->ack' "$T_TMP/c.gz" >"$T_TMP/pct" || fail "t2t-capture percentiles exit $?"
	check "percentile distribution rises to the max at 1/(1-p) = count" \
		bash -c "awk '!/^#/ { if (\$1 < last) bad++; last = \$1; n = \$4; v = \$1 } END { exit bad || n < 1000 }' '$T_TMP/pct' && [ \"\$(tail -1 '$T_TMP/pct' | awk '{ print \$1 * 1000 }')\" = \"\$(oracle_max=\$(sort -n '$T_TMP/c.gz.w2w' | tail -1); echo \$oracle_max)\" ]"
}

test_plot_script_makes_two_pngs() {
	local p
	files
	if ! command -v gnuplot >/dev/null; then
		echo "skip plots: gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
		return 0
	fi
	bench/plot-latency.sh --ref 'ref=5' "$T_TMP/plot" "$T_TMP/a.gz" "udp=$T_TMP/u.gz" >/dev/null 2>"$T_TMP/plot.err" ||
		cat "$T_TMP/plot.err"
	for p in percentiles stages; do
		check "$p PNG written, non-empty, PNG signature" \
			bash -c "[ -s '$T_TMP/plot-$p.png' ] && [ \$(stat -c %s '$T_TMP/plot-$p.png') -gt 5000 ] && head -c 8 '$T_TMP/plot-$p.png' | od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"
	done
	check "gnuplot said nothing" test ! -s "$T_TMP/plot.err"
}

run_tests "$@"
