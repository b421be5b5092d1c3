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
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=build/t2t-capture
tmp=$(mktemp -d /tmp/capture_tool.XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

fails=0
ok() { echo "  ok   $*"; }
bad() { echo "  FAIL $*"; fails=$((fails + 1)); }
check() {	# check NAME CMD...
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

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
	$tool table --json "${@:1:$#-1}" | jq -r --arg s "$stage" \
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

echo "capture files"
gen "$tmp/a.gz" af_xdp 1 3000
gen "$tmp/b.gz" af_xdp 2 2000
gen "$tmp/c.gz" af_xdp 3 5000
gen "$tmp/u.gz" udp_spin 4 1000
check "zcat reads a generated file" bash -c "zcat '$tmp/a.gz' | head -1 | grep -qx '# t2t-capture v1'"

echo "table"
for f in a b c; do
	check "$f: send->ack exact count/min/max/mean, percentiles within 0.79 %" \
		agrees "$(oracle "$tmp/$f.gz.w2w")" "$(got "$tmp/$f.gz" 'send->ack')"
	check "$f: hook->queued likewise" \
		agrees "$(oracle "$tmp/$f.gz.gw")" "$(got "$tmp/$f.gz" 'hook->queued')"
done
cat "$tmp"/[abc].gz.w2w >"$tmp/all.w2w"
check "a+b+c read together: send->ack of all their orders" \
	agrees "$(oracle "$tmp/all.w2w")" "$(got "$tmp/a.gz" "$tmp/b.gz" "$tmp/c.gz" 'send->ack')"
check "text table names every stage" \
	bash -c "$tool table '$tmp/a.gz' | grep -c -E '^  (send->hook|hook->seen|seen->decided|decided->queued|queued->sent|seen->queued|hook->queued|hook->sent|send->ack) ' | grep -qx 9"
check "text table reports the clock read" \
	bash -c "$tool table '$tmp/a.gz' | grep -q 'about one clock read: p50 30 ns'"

echo "merge"
check "merge a b c" $tool merge "$tmp/m.gz" "$tmp/a.gz" "$tmp/b.gz" "$tmp/c.gz"
check "merged table == table of a b c together" \
	cmp -s <($tool table --json "$tmp/m.gz" | jq -S .latency_ns) \
	<($tool table --json "$tmp/a.gz" "$tmp/b.gz" "$tmp/c.gz" | jq -S .latency_ns)
check "zcat shows 10000 records in the merged file" \
	bash -c "[ \$(zcat '$tmp/m.gz' | grep -vc '^#') = 10001 ]"
check "merged header: path af_xdp, merged_files=3, rate kept" \
	bash -c "zcat '$tmp/m.gz' | grep -qx '# path=af_xdp' && zcat '$tmp/m.gz' | grep -qx '# merged_files=3' && zcat '$tmp/m.gz' | grep -qx '# rate=10000'"
check "merge of a merge counts runs" \
	bash -c "$tool merge '$tmp/m2.gz' '$tmp/m.gz' '$tmp/a.gz' >/dev/null && zcat '$tmp/m2.gz' | grep -qx '# merged_files=4'"
set +e
msg=$($tool merge "$tmp/x.gz" "$tmp/a.gz" "$tmp/u.gz" 2>&1)
rc=$?
set -e
check "mixing af_xdp and udp_spin refused (exit 1, no output file)" \
	bash -c "[ $rc = 1 ] && [ ! -e '$tmp/x.gz' ] && grep -q 'refusing to pool different paths' <<<'$msg'"
check "--force mixes them, path=mixed" \
	bash -c "$tool merge --force '$tmp/x.gz' '$tmp/a.gz' '$tmp/u.gz' >/dev/null && zcat '$tmp/x.gz' | grep -qx '# path=mixed'"
check "table refuses mixed paths too" bash -c "! $tool table '$tmp/a.gz' '$tmp/u.gz' 2>/dev/null"

echo "csv"
$tool csv "$tmp/a.gz" >"$tmp/a.csv"
check "one line per order plus the header" bash -c "[ \$(wc -l <'$tmp/a.csv') = 3001 ]"
check "hook_queued_ns column = t_queued - t_hook" \
	awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
		$c["hook_queued_ns"] != "" { n++; if ($c["hook_queued_ns"] != $c["t_queued"] - $c["t_hook"]) bad++ }
		END { exit bad > 0 || n < 2000 }' "$tmp/a.csv"
check "-o writes the file" bash -c "$tool csv -o '$tmp/a2.csv' '$tmp/a.gz' && cmp -s '$tmp/a.csv' '$tmp/a2.csv'"

echo "errors"
# expect RC PATTERN CMD...: exit status RC and stderr matching PATTERN
expect() {
	local rc=$1 pat=$2 out got
	shift 2
	set +e
	out=$("$@" 2>&1 >/dev/null)
	got=$?
	set -e
	if [ "$got" = "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
		ok "exit $rc, '$out'"
	else
		bad "$* -> exit $got, '$out' (wanted $rc, /$pat/)"
	fi
}
size=$(stat -c %s "$tmp/c.gz")
head -c $((size / 2)) "$tmp/c.gz" >"$tmp/cut.gz"
expect 1 "^t2t-capture: $tmp/cut.gz:[0-9]+: gzip: unexpected end of file" $tool table "$tmp/cut.gz"
head -c $((size - 4)) "$tmp/c.gz" >"$tmp/cut2.gz"
expect 1 "^t2t-capture: $tmp/cut2.gz:[0-9]+: gzip: " $tool table "$tmp/cut2.gz"
cp "$tmp/c.gz" "$tmp/dmg.gz"
printf '\377\377\377\377\377\377\377\377' | dd of="$tmp/dmg.gz" bs=1 seek=$((size / 3)) conv=notrunc status=none
# Damage is found where the reader meets it: zlib's error, or the garbage
# it inflated to before the CRC check.
expect 1 "^t2t-capture: $tmp/dmg.gz:[0-9]+: " $tool table "$tmp/dmg.gz"
zcat "$tmp/a.gz" | awk 'NR <= 100' | gzip >"$tmp/short.gz"
expect 1 "short.gz:101: no '# end records=N' trailer after 95 records \(file cut short\?\)" $tool table "$tmp/short.gz"
printf 'not a capture\n' | gzip >"$tmp/hdr.gz"
expect 1 "hdr.gz:1: not a t2t capture file" $tool table "$tmp/hdr.gz"
printf '# t2t-capture v9\n' | gzip >"$tmp/ver.gz"
expect 1 "ver.gz:1: capture format version 9" $tool csv "$tmp/ver.gz"
zcat "$tmp/a.gz" | sed '7s/,100,/,1x0,/' | gzip >"$tmp/rec.gz"
expect 1 "rec.gz:7: shares: not a number" $tool table "$tmp/rec.gz"
expect 1 "rec.gz:7: shares" $tool merge "$tmp/y.gz" "$tmp/a.gz" "$tmp/rec.gz"
check "a failed merge leaves no output" test ! -e "$tmp/y.gz"
expect 1 "nonexistent.gz: No such file or directory" $tool table "$tmp/nonexistent.gz"
expect 2 "a command is needed" $tool
expect 2 "unknown command 'plot'" $tool plot "$tmp/a.gz"
expect 2 "table: which file" $tool table
expect 2 "unknown stage 'a->b'" $tool percentiles --stage 'a->b' "$tmp/a.gz"
expect 2 "merge wants OUT" $tool merge "$tmp/z.gz"
check "--help exits 0" bash -c "$tool --help | grep -q '^Usage: t2t-capture'"

echo "percentiles"
$tool percentiles --stage 'send->ack' "$tmp/c.gz" >"$tmp/pct"
check "percentile distribution rises to the max at 1/(1-p) = count" \
	bash -c "awk '!/^#/ { if (\$1 < last) bad++; last = \$1; n = \$4; v = \$1 } END { exit bad || n < 1000 }' '$tmp/pct' && [ \"\$(tail -1 '$tmp/pct' | awk '{ print \$1 * 1000 }')\" = \"\$(oracle_max=\$(sort -n '$tmp/c.gz.w2w' | tail -1); echo \$oracle_max)\" ]"

echo "plots"
if command -v gnuplot >/dev/null; then
	bench/plot-latency.sh --ref 'ref=5' "$tmp/plot" "$tmp/a.gz" "udp=$tmp/u.gz" >/dev/null 2>"$tmp/plot.err" ||
		cat "$tmp/plot.err"
	for p in percentiles stages; do
		check "$p PNG written, non-empty, PNG signature" \
			bash -c "[ -s '$tmp/plot-$p.png' ] && [ \$(stat -c %s '$tmp/plot-$p.png') -gt 5000 ] && head -c 8 '$tmp/plot-$p.png' | od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"
	done
	check "gnuplot said nothing" test ! -s "$tmp/plot.err"
else
	echo "  skip plots: gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
fi

echo "capture_tool: $fails failure(s)"
[ "$fails" -eq 0 ]
