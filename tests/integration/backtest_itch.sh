#!/bin/bash
# t2t-backtest --itch on generated days (t2t-genday): the tape, the final book,
# the stats, the strategy's orders (checked against --ticks on the same
# prints), tracking only named symbols, --symbols (the filtered session,
# against the rule written again in awk: tests/integration/itch_keep.awk),
# --dump, gzip == plain, and a clear error (exit 2, file name, byte offset)
# for every kind of bad day file.  And a real-shaped day (t2t-genday --shape
# real): replayed with nothing impossible, its --stats and --stats-json.
. "$(dirname "$0")/../lib.sh"
need build/t2t-backtest build/t2t-genday

BT=build/t2t-backtest
GEN=build/t2t-genday
N=200000

# day: $T_TMP/day.bin and day.gz, the same day, and its stats (made once).
day() {
	[ -s "$T_TMP/stats.json" ] && return 0
	$GEN --messages $N --symbols 6 --seed 5 -q -o "$T_TMP/day.bin" &&
		$GEN --messages $N --symbols 6 --seed 5 -q --gzip -o "$T_TMP/day.gz" ||
		{ fail "t2t-genday"; return 1; }
	$BT --itch "$T_TMP/day.gz" --stats >"$T_TMP/stats.json"
}

# st FILTER: from the day's stats.
st() {
	jq -r "$1" "$T_TMP/stats.json"
}

test_genday_is_deterministic_and_gzips() {
	day || return 1
	$GEN --messages $N --symbols 6 --seed 5 -q -o "$T_TMP/day2.bin"
	check "genday: same seed, same bytes" cmp -s "$T_TMP/day.bin" "$T_TMP/day2.bin"
	check "genday: --gzip writes gzip" [ "$(od -An -tx1 -N2 "$T_TMP/day.gz" | tr -d ' ')" = 1f8b ]
}

test_stats_count_every_message() {
	day || return 1
	check "stats: exit 0 and valid JSON" jq -e . "$T_TMP/stats.json" >/dev/null
	check "stats: every message counted" [ "$(st .messages)" -eq $N ]
	check "stats: per type adds up" [ "$(st '[.by_type[]] | add')" -eq $N ]
	check "stats: a generated day has nothing impossible" \
		[ "$(st '.dup_ref + .unknown_ref + .overfill + .book_full + .bad_side + .malformed')" -eq 0 ]
	check "stats: live <= peak, both > 0" [ "$(st '(.live_orders <= .peak_live_orders) and .live_orders > 0')" = true ]
	check "stats: rate and ns per message" [ "$(st '.messages_per_second > 0 and .ns_per_message > 0')" = true ]
	check "stats: gzip detected" [ "$(st .gzip)" = true ]
}

test_tape_has_one_row_per_print() {
	day || return 1
	$BT --itch "$T_TMP/day.gz" --tape >"$T_TMP/tape.csv"
	$BT --itch "$T_TMP/day.bin" --tape="$T_TMP/tape_plain.csv"
	check "tape: header" [ "$(head -1 "$T_TMP/tape.csv")" = "seq,locate,price,shares,kind" ]
	check "tape: one row per print" [ "$(($(wc -l <"$T_TMP/tape.csv") - 1))" -eq "$(st .prints)" ]
	check "tape: plain file == gzip file" cmp -s "$T_TMP/tape.csv" "$T_TMP/tape_plain.csv"
	check "tape: rows are numbers and a kind E C P Q" \
		[ "$(grep -cE '^[0-9]+,[0-9]+,[0-9]+,[0-9]+,[ECPQ]$' "$T_TMP/tape.csv")" -eq "$(st .prints)" ]
	check "tape: seq strictly increasing" \
		awk -F, 'NR > 2 && $1 <= prev { exit 1 } NR > 1 { prev = $1 }' "$T_TMP/tape.csv"
	# Every E prints (all refs live); every P prints; Q prints when shares > 0.
	check "tape: one E print per E message" [ "$(grep -c ',E$' "$T_TMP/tape.csv")" -eq "$(st .by_type.E)" ]
	check "tape: one P print per P message" [ "$(grep -c ',P$' "$T_TMP/tape.csv")" -eq "$(st .by_type.P)" ]
	check "tape: C prints are at most the C messages" \
		[ "$(grep -c ',C$' "$T_TMP/tape.csv")" -le "$(st .by_type.C)" ]
	check "tape: crosses at open and close, shares > 0" \
		awk -F, '$5 == "Q" { n++; if ($4 == 0) exit 1 } END { exit !(n > 0 && n <= 12) }' "$T_TMP/tape.csv"
}

test_book_is_ordered_and_holds_the_live_orders() {
	local total=0 n s
	day || return 1
	$BT --itch "$T_TMP/day.gz" --book AAPL >"$T_TMP/aapl.csv"
	check "book: header" [ "$(head -1 "$T_TMP/aapl.csv")" = "side,price,shares,orders" ]
	check "book: bids high to low, then asks low to high, not crossed" awk -F, '
		NR == 1 { next }
		$1 == "B" { if (seen_s || (nb && $2 >= pb)) exit 1; pb = $2; nb++; if (nb == 1) bb = $2 }
		$1 == "S" { if (ns && $2 <= ps) exit 1; if (!ns) ba = $2; ps = $2; ns++; seen_s = 1 }
		$1 != "B" && $1 != "S" { exit 1 }
		$3 <= 0 || $4 <= 0 { exit 1 }
		END { exit !(nb > 0 && ns > 0 && bb < ba) }' "$T_TMP/aapl.csv"
	for s in AAPL MSFT NVDA AMZN GOOG META; do
		$BT --itch "$T_TMP/day.bin" --book $s --book-out "$T_TMP/book_$s.csv" \
			--stats="$T_TMP/st_$s.json" || fail "book $s"
		n=$(awk -F, 'NR > 1 { n += $4 } END { print n + 0 }' "$T_TMP/book_$s.csv")
		total=$((total + n))
	done
	check "book: orders over every symbol's book == live orders" [ "$total" -eq "$(st .live_orders)" ]
	check "book: --book-out and --stats=FILE in one run" cmp -s "$T_TMP/book_AAPL.csv" "$T_TMP/aapl.csv"
}

test_orders_equal_the_ticks_replay_of_the_prints() {
	day || return 1
	$BT --itch "$T_TMP/day.gz" --tape >"$T_TMP/tape.csv"
	$BT --itch "$T_TMP/day.gz" --symbol AAPL:20 --symbol MSFT:32:50 -o "$T_TMP/orders.csv" \
		2>"$T_TMP/orders.err"
	check "orders: exit 0" [ $? -eq 0 ]
	check "orders: header" [ "$(head -1 "$T_TMP/orders.csv")" = "md_seq,symbol,side,shares" ]
	check "orders: some for AAPL" [ "$(grep -c ',AAPL,' "$T_TMP/orders.csv")" -gt 0 ]
	check "orders: some for MSFT" [ "$(grep -c ',MSFT,' "$T_TMP/orders.csv")" -gt 0 ]
	check "orders: MSFT in units of 50 (50 or 100)" \
		awk -F, '$2 == "MSFT" && $4 != 50 && $4 != 100 { exit 1 }' "$T_TMP/orders.csv"
	check "orders: summary per symbol on stderr" grep -q "AAPL .*L=20 .*orders [1-9]" "$T_TMP/orders.err"
	# AAPL is locate 1 and MSFT 2 in a generated day: the same prints as
	# recorded ticks must give the same orders through --ticks.
	awk -F, 'BEGIN { print "seq,symbol,locate,price,shares,send_ns"; s[1] = "AAPL"; s[2] = "MSFT" }
		NR > 1 && ($2 == 1 || $2 == 2) { print $1 "," s[$2] "," $2 "," $3 "," $4 ",0" }' \
		"$T_TMP/tape.csv" >"$T_TMP/ticks.csv"
	$BT --ticks "$T_TMP/ticks.csv" --symbol AAPL:20 --symbol MSFT:32:50 -o "$T_TMP/orders_ticks.csv" 2>/dev/null
	check "orders: == --ticks replay of the same prints" cmp -s "$T_TMP/orders.csv" "$T_TMP/orders_ticks.csv"
	$BT --itch "$T_TMP/day.gz" --track named --symbol AAPL:20 --symbol MSFT:32:50 \
		--stats="$T_TMP/named.json" -o "$T_TMP/orders_named.csv" 2>/dev/null
	check "orders: --track named gives the same orders" cmp -s "$T_TMP/orders.csv" "$T_TMP/orders_named.csv"
	check "track named: fewer live orders, types still all counted" \
		[ "$(jq -r "(.live_orders < $(st .live_orders)) and .messages == $N and .tracked == \"named\"" "$T_TMP/named.json")" = true ]
}

# The filtered session (proto/itch_filter.h).
test_symbols_keep_the_rule_and_renumber() {
	day || return 1
	$BT --itch "$T_TMP/day.gz" --dump="$T_TMP/all.dump" --tape="$T_TMP/tape_all.csv" --stats >"$T_TMP/st_all.json"
	check "dump: one line per message, numbered 1..N" \
		awk -F, -v n=$N '$1 != NR { exit 1 } END { exit NR != n }' "$T_TMP/all.dump"
	$BT --itch "$T_TMP/day.gz" --symbols MSFT,AMZN --dump="$T_TMP/filt.dump" --tape="$T_TMP/tape_filt.csv" \
		--stats >"$T_TMP/st_filt.json"
	awk -F, -v syms=MSFT,AMZN -f tests/integration/itch_keep.awk "$T_TMP/all.dump" >"$T_TMP/keep.csv"
	check "symbols: kept messages == the rule written again in awk, numbered 1.. without gap" \
		cmp -s "$T_TMP/filt.dump" <(cut -d, -f1,3 "$T_TMP/keep.csv")
	check "symbols: stats count what was kept" \
		[ "$(jq -r ".filter.kept == $(wc -l <"$T_TMP/filt.dump") and .messages == $N" "$T_TMP/st_filt.json")" = true ]
	# MSFT is locate 2 and AMZN 4: their prints, renumbered, are the whole tape.
	awk -F, 'NR == FNR { map[$2] = $1; next } FNR > 1 && ($2 == 2 || $2 == 4) {
		print map[$1] "," $2 "," $3 "," $4 "," $5 }' "$T_TMP/keep.csv" "$T_TMP/tape_all.csv" >"$T_TMP/tape_map.csv"
	check "symbols: tape == the chosen locates' prints of the whole day, renumbered" \
		cmp -s <(tail -n +2 "$T_TMP/tape_filt.csv") "$T_TMP/tape_map.csv"
	expect_exit 2 "--symbols ZZZ is not in the day's stock directory" \
		$BT --itch "$T_TMP/day.bin" --symbols MSFT,ZZZ --stats
	expect_exit 2 "--symbols 'msft': only A-Z" $BT --itch "$T_TMP/day.bin" --symbols msft --stats
}

test_a_full_order_table_drops_and_counts() {
	day || return 1
	$BT --itch "$T_TMP/day.bin" --book-orders 100 --stats >"$T_TMP/small.json"
	check "book-orders 100: book_full counted, live <= 100" \
		[ "$(jq -r '.book_full > 0 and .live_orders <= 100 and .peak_live_orders == 100' "$T_TMP/small.json")" = true ]
}

test_malformed_blocks_are_counted_not_fatal() {
	day || return 1
	cp "$T_TMP/day.bin" "$T_TMP/mal.bin"
	printf '\000\005AAAAA\000\000\000\024zzzzzzzzzzzzzzzzzzzz' >>"$T_TMP/mal.bin"
	$BT --itch "$T_TMP/mal.bin" --stats >"$T_TMP/mal.json"
	check "malformed: 3 blocks counted, under no type" \
		[ "$(jq -r "(.malformed == 3) and (.messages == $N + 3) and ([.by_type[]] | add) == $N" "$T_TMP/mal.json")" = true ]
}

test_bad_files_and_options_refused() {
	local size gsize
	day || return 1
	size=$(wc -c <"$T_TMP/day.bin")
	head -c $((size - 7)) "$T_TMP/day.bin" >"$T_TMP/cut.bin"
	expect_exit 2 "cut.bin: truncated: message $N at byte offset" $BT --itch "$T_TMP/cut.bin" --stats
	cp "$T_TMP/day.bin" "$T_TMP/past.bin"
	printf '\377\377DDDD' >>"$T_TMP/past.bin"
	expect_exit 2 "past.bin: truncated: message $((N + 1)) at byte offset $size has length 65535" \
		$BT --itch "$T_TMP/past.bin" --stats
	gsize=$(wc -c <"$T_TMP/day.gz")
	head -c $((gsize / 2)) "$T_TMP/day.gz" >"$T_TMP/cut.gz"
	expect_exit 2 "cut.gz: gzip stream cut short after uncompressed byte offset" \
		$BT --itch "$T_TMP/cut.gz" --tape
	cp "$T_TMP/day.gz" "$T_TMP/bad.gz"
	printf 'garbage!garbage!garbage!garbage!' |
		dd of="$T_TMP/bad.gz" bs=1 seek=$((gsize / 2)) conv=notrunc 2>/dev/null
	expect_exit 2 "bad.gz: corrupt gzip stream near uncompressed byte offset" \
		$BT --itch "$T_TMP/bad.gz" --stats
	expect_exit 2 "nope.gz: No such file" $BT --itch "$T_TMP/nope.gz" --stats
	expect_exit 2 "ZZZZ is not in the day's stock directory" $BT --itch "$T_TMP/day.bin" --symbol ZZZZ:20
	expect_exit 2 "--book QQQQ is not in" $BT --itch "$T_TMP/day.bin" --book QQQQ
	expect_exit 2 "only one of --tape" $BT --itch "$T_TMP/day.bin" --tape --stats
	expect_exit 2 "--itch needs" $BT --itch "$T_TMP/day.bin"
	expect_exit 2 "go with --itch" $BT --prices "$T_TMP/day.bin" --tape
	expect_exit 2 "--track is all or named" $BT --itch "$T_TMP/day.bin" --stats --track some
	expect_exit 2 "--book-orders wants" $BT --itch "$T_TMP/day.bin" --stats --book-orders 0
	expect_exit 2 "given twice" $BT --itch "$T_TMP/day.bin" --symbol AAPL:20 --symbol AAPL:30
	expect_exit 2 "messages must be" $GEN --messages 5 --symbols 3 -o "$T_TMP/x"
}

test_genday_real_replays_and_reports_its_shape() {
	local n=400000 d="$T_TMP/real.bin"
	$GEN --shape real --messages $n --seed 3 -q --stats --stats-json "$T_TMP/real.json" \
		-o "$d" >"$T_TMP/real.txt" || { fail "t2t-genday --shape real"; return 1; }
	$GEN --shape real --messages $n --seed 3 -q -o "$T_TMP/real2.bin"
	$GEN --shape real --messages $n --seed 4 -q -o "$T_TMP/real3.bin"
	check "real: same seed, same bytes (with or without --stats)" cmp -s "$d" "$T_TMP/real2.bin"
	check "real: another seed, other bytes" eval '! cmp -s "$d" "$T_TMP/real3.bin"'
	$BT --itch "$d" --stats >"$T_TMP/real_bt.json"
	check "real: every message replayed" [ "$(jq .messages "$T_TMP/real_bt.json")" -eq $n ]
	check "real: nothing impossible in the replay" [ "$(jq '.dup_ref + .unknown_ref +
		.overfill + .book_full + .bad_side + .malformed' "$T_TMP/real_bt.json")" -eq 0 ]
	check "real: the replay's peak is the generator's" [ "$(jq .peak_live_orders \
		"$T_TMP/real_bt.json")" -eq "$(jq .peak_live "$T_TMP/real.json")" ]
	check "real: --stats-json is JSON of the day" [ "$(jq '.messages == '$n' and .symbols == 11
		and .busiest == "AAPL" and (.live_over_peak | length) == 14' "$T_TMP/real.json")" = true ]
	for row in "messages by symbol rank" "busiest symbol's mix" "live orders" \
		"levels per side at the peak" "busiest millisecond" "cancels after their add" \
		"resting over an hour"; do
		check "real: --stats has \"$row\"" grep -q "^$row" "$T_TMP/real.txt"
	done
	expect_exit 2 "messages must be" $GEN --shape real --messages 1000 -o "$T_TMP/x"
	expect_exit 2 "needed" $GEN --shape real -o "$T_TMP/x"
}

test_help_documents_the_flags() {
	local f
	$BT --help >"$T_TMP/help"
	for f in --itch --tape --book --book-out --stats --book-orders --track --pages --symbols --dump; do
		check "--help documents $f" grep -q -- "$f" "$T_TMP/help"
	done
	$GEN --help >"$T_TMP/ghelp"
	for f in --messages --shape --stats --stats-json; do
		check "t2t-genday --help documents $f" grep -q -- "$f" "$T_TMP/ghelp"
	done
}

run_tests "$@"
