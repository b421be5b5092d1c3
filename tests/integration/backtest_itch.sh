#!/bin/bash
# backtest --itch on generated days (t2t-genday): the tape, the final book,
# the stats, the strategy's orders (checked against --ticks on the same
# prints), tracking only named symbols, --symbols (the filtered session,
# against the rule written again in awk: tests/integration/itch_keep.awk),
# --dump, gzip == plain, and a clear error
# (exit 2, file name, byte offset) for every kind of bad day file.
set -u
cd "$(dirname "$0")/../.."
BT=./build/backtest
GEN=./build/t2t-genday
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() {	# check NAME COND...
	name=$1
	shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

# expect_err NAME WANT_STATUS WANT_TEXT CMD...
expect_err() {
	name=$1 want=$2 text=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -eq "$want" ] && grep -q -- "$text" "$tmp/err"; then
		echo "ok   $name"
	else
		echo "FAIL $name (status $st, stderr: $(cat "$tmp/err"))"
		fails=$((fails + 1))
	fi
}

N=200000
$GEN --messages $N --symbols 6 --seed 5 -q -o "$tmp/day.bin" || exit 1
$GEN --messages $N --symbols 6 --seed 5 -q --gzip -o "$tmp/day.gz" || exit 1
$GEN --messages $N --symbols 6 --seed 5 -q -o "$tmp/day2.bin"
check "genday: same seed, same bytes" cmp -s "$tmp/day.bin" "$tmp/day2.bin"
check "genday: --gzip writes gzip" [ "$(od -An -tx1 -N2 "$tmp/day.gz" | tr -d ' ')" = 1f8b ]

# --- stats ---
$BT --itch "$tmp/day.gz" --stats >"$tmp/stats.json"
check "stats: exit 0 and valid JSON" jq -e . "$tmp/stats.json" >/dev/null
j() { jq -r "$1" "$tmp/stats.json"; }
check "stats: every message counted" [ "$(j .messages)" -eq $N ]
check "stats: per type adds up" [ "$(j '[.by_type[]] | add')" -eq $N ]
check "stats: a generated day has nothing impossible" \
	[ "$(j '.dup_ref + .unknown_ref + .overfill + .book_full + .bad_side + .malformed')" -eq 0 ]
check "stats: live <= peak, both > 0" [ "$(j '(.live_orders <= .peak_live_orders) and .live_orders > 0')" = true ]
check "stats: rate and ns per message" [ "$(j '.messages_per_second > 0 and .ns_per_message > 0')" = true ]
check "stats: gzip detected" [ "$(j .gzip)" = true ]

# --- tape ---
$BT --itch "$tmp/day.gz" --tape >"$tmp/tape.csv"
$BT --itch "$tmp/day.bin" --tape="$tmp/tape_plain.csv"
check "tape: header" [ "$(head -1 "$tmp/tape.csv")" = "seq,locate,price,shares,kind" ]
check "tape: one row per print" [ "$(($(wc -l <"$tmp/tape.csv") - 1))" -eq "$(j .prints)" ]
check "tape: plain file == gzip file" cmp -s "$tmp/tape.csv" "$tmp/tape_plain.csv"
check "tape: rows are numbers and a kind E C P Q" \
	[ "$(grep -cE '^[0-9]+,[0-9]+,[0-9]+,[0-9]+,[ECPQ]$' "$tmp/tape.csv")" -eq "$(j .prints)" ]
check "tape: seq strictly increasing" \
	awk -F, 'NR > 2 && $1 <= prev { exit 1 } NR > 1 { prev = $1 }' "$tmp/tape.csv"
# Every E prints (all refs live); every P prints; Q prints when shares > 0.
check "tape: one E print per E message" [ "$(grep -c ',E$' "$tmp/tape.csv")" -eq "$(j .by_type.E)" ]
check "tape: one P print per P message" [ "$(grep -c ',P$' "$tmp/tape.csv")" -eq "$(j .by_type.P)" ]
check "tape: C prints are at most the C messages" \
	[ "$(grep -c ',C$' "$tmp/tape.csv")" -le "$(j .by_type.C)" ]
check "tape: crosses at open and close, shares > 0" \
	awk -F, '$5 == "Q" { n++; if ($4 == 0) exit 1 } END { exit !(n > 0 && n <= 12) }' "$tmp/tape.csv"

# --- book ---
$BT --itch "$tmp/day.gz" --book AAPL >"$tmp/aapl.csv"
check "book: header" [ "$(head -1 "$tmp/aapl.csv")" = "side,price,shares,orders" ]
check "book: bids high to low, then asks low to high, not crossed" awk -F, '
	NR == 1 { next }
	$1 == "B" { if (seen_s || (nb && $2 >= pb)) exit 1; pb = $2; nb++; if (nb == 1) bb = $2 }
	$1 == "S" { if (ns && $2 <= ps) exit 1; if (!ns) ba = $2; ps = $2; ns++; seen_s = 1 }
	$1 != "B" && $1 != "S" { exit 1 }
	$3 <= 0 || $4 <= 0 { exit 1 }
	END { exit !(nb > 0 && ns > 0 && bb < ba) }' "$tmp/aapl.csv"
total=0
for s in AAPL MSFT NVDA AMZN GOOG META; do
	$BT --itch "$tmp/day.bin" --book $s --book-out "$tmp/book_$s.csv" --stats="$tmp/st_$s.json" ||
		echo "FAIL book $s"
	n=$(awk -F, 'NR > 1 { n += $4 } END { print n + 0 }' "$tmp/book_$s.csv")
	total=$((total + n))
done
check "book: orders over every symbol's book == live orders" [ "$total" -eq "$(j .live_orders)" ]
check "book: --book-out and --stats=FILE in one run" cmp -s "$tmp/book_AAPL.csv" "$tmp/aapl.csv"

# --- strategy orders, against --ticks on the same prints ---
$BT --itch "$tmp/day.gz" --symbol AAPL:20 --symbol MSFT:32:50 -o "$tmp/orders.csv" 2>"$tmp/orders.err"
check "orders: exit 0" [ $? -eq 0 ]
check "orders: header" [ "$(head -1 "$tmp/orders.csv")" = "md_seq,symbol,side,shares" ]
check "orders: some for AAPL" [ "$(grep -c ',AAPL,' "$tmp/orders.csv")" -gt 0 ]
check "orders: some for MSFT" [ "$(grep -c ',MSFT,' "$tmp/orders.csv")" -gt 0 ]
check "orders: MSFT in units of 50 (50 or 100)" \
	awk -F, '$2 == "MSFT" && $4 != 50 && $4 != 100 { exit 1 }' "$tmp/orders.csv"
check "orders: summary per symbol on stderr" grep -q "AAPL .*L=20 .*orders [1-9]" "$tmp/orders.err"
# AAPL is locate 1 and MSFT 2 in a generated day: the same prints as
# recorded ticks must give the same orders through --ticks.
awk -F, 'BEGIN { print "seq,symbol,locate,price,shares,send_ns"; s[1] = "AAPL"; s[2] = "MSFT" }
	NR > 1 && ($2 == 1 || $2 == 2) { print $1 "," s[$2] "," $2 "," $3 "," $4 ",0" }' \
	"$tmp/tape.csv" >"$tmp/ticks.csv"
$BT --ticks "$tmp/ticks.csv" --symbol AAPL:20 --symbol MSFT:32:50 -o "$tmp/orders_ticks.csv" 2>/dev/null
check "orders: == --ticks replay of the same prints" cmp -s "$tmp/orders.csv" "$tmp/orders_ticks.csv"
$BT --itch "$tmp/day.gz" --track named --symbol AAPL:20 --symbol MSFT:32:50 \
	--stats="$tmp/named.json" -o "$tmp/orders_named.csv" 2>/dev/null
check "orders: --track named gives the same orders" cmp -s "$tmp/orders.csv" "$tmp/orders_named.csv"
check "track named: fewer live orders, types still all counted" \
	[ "$(jq -r "(.live_orders < $(j .live_orders)) and .messages == $N and .tracked == \"named\"" "$tmp/named.json")" = true ]

# --- --symbols: the filtered session (proto/itch_filter.h) ---
$BT --itch "$tmp/day.gz" --dump="$tmp/all.dump" --tape="$tmp/tape_all.csv" --stats >"$tmp/st_all.json"
check "dump: one line per message, numbered 1..N" \
	awk -F, -v n=$N '$1 != NR { exit 1 } END { exit NR != n }' "$tmp/all.dump"
$BT --itch "$tmp/day.gz" --symbols MSFT,AMZN --dump="$tmp/filt.dump" --tape="$tmp/tape_filt.csv" \
	--stats >"$tmp/st_filt.json"
awk -F, -v syms=MSFT,AMZN -f tests/integration/itch_keep.awk "$tmp/all.dump" >"$tmp/keep.csv"
check "symbols: kept messages == the rule written again in awk, numbered 1.. without gap" \
	cmp -s "$tmp/filt.dump" <(cut -d, -f1,3 "$tmp/keep.csv")
check "symbols: stats count what was kept" \
	[ "$(jq -r ".filter.kept == $(wc -l <"$tmp/filt.dump") and .messages == $N" "$tmp/st_filt.json")" = true ]
# MSFT is locate 2 and AMZN 4: their prints, renumbered, are the whole tape.
awk -F, 'NR == FNR { map[$2] = $1; next } FNR > 1 && ($2 == 2 || $2 == 4) {
	print map[$1] "," $2 "," $3 "," $4 "," $5 }' "$tmp/keep.csv" "$tmp/tape_all.csv" >"$tmp/tape_map.csv"
check "symbols: tape == the chosen locates' prints of the whole day, renumbered" \
	cmp -s <(tail -n +2 "$tmp/tape_filt.csv") "$tmp/tape_map.csv"
expect_err "symbols: not in the directory" 2 "--symbols ZZZ is not in the day's stock directory" \
	$BT --itch "$tmp/day.bin" --symbols MSFT,ZZZ --stats
expect_err "symbols: bad list" 2 "--symbols 'msft': only A-Z" $BT --itch "$tmp/day.bin" --symbols msft --stats

# --- a small table: adds dropped and counted, no crash ---
$BT --itch "$tmp/day.bin" --book-orders 100 --stats >"$tmp/small.json"
check "book-orders 100: book_full counted, live <= 100" \
	[ "$(jq -r '.book_full > 0 and .live_orders <= 100 and .peak_live_orders == 100' "$tmp/small.json")" = true ]

# --- malformed blocks are counted, not fatal ---
cp "$tmp/day.bin" "$tmp/mal.bin"
printf '\000\005AAAAA\000\000\000\024zzzzzzzzzzzzzzzzzzzz' >>"$tmp/mal.bin"
$BT --itch "$tmp/mal.bin" --stats >"$tmp/mal.json"
check "malformed: 3 blocks counted, under no type" \
	[ "$(jq -r "(.malformed == 3) and (.messages == $N + 3) and ([.by_type[]] | add) == $N" "$tmp/mal.json")" = true ]

# --- bad files ---
size=$(wc -c <"$tmp/day.bin")
head -c $((size - 7)) "$tmp/day.bin" >"$tmp/cut.bin"
expect_err "truncated plain file: name, message, offset" 2 \
	"cut.bin: truncated: message $N at byte offset" $BT --itch "$tmp/cut.bin" --stats
cp "$tmp/day.bin" "$tmp/past.bin"
printf '\377\377DDDD' >>"$tmp/past.bin"
expect_err "length prefix past the end" 2 \
	"past.bin: truncated: message $((N + 1)) at byte offset $size has length 65535" \
	$BT --itch "$tmp/past.bin" --stats
gsize=$(wc -c <"$tmp/day.gz")
head -c $((gsize / 2)) "$tmp/day.gz" >"$tmp/cut.gz"
expect_err "gzip cut short" 2 "cut.gz: gzip stream cut short after uncompressed byte offset" \
	$BT --itch "$tmp/cut.gz" --tape
cp "$tmp/day.gz" "$tmp/bad.gz"
printf 'garbage!garbage!garbage!garbage!' | dd of="$tmp/bad.gz" bs=1 seek=$((gsize / 2)) conv=notrunc 2>/dev/null
expect_err "corrupt gzip" 2 "bad.gz: corrupt gzip stream near uncompressed byte offset" \
	$BT --itch "$tmp/bad.gz" --stats
expect_err "missing file" 2 "nope.gz: No such file" $BT --itch "$tmp/nope.gz" --stats
expect_err "symbol not in the directory" 2 "ZZZZ is not in the day's stock directory" \
	$BT --itch "$tmp/day.bin" --symbol ZZZZ:20
expect_err "book symbol not in the directory" 2 "--book QQQQ is not in" \
	$BT --itch "$tmp/day.bin" --book QQQQ
expect_err "two outputs on stdout" 2 "only one of --tape" $BT --itch "$tmp/day.bin" --tape --stats
expect_err "no output asked for" 2 "--itch needs" $BT --itch "$tmp/day.bin"
expect_err "--tape without --itch" 2 "go with --itch" $BT --prices "$tmp/day.bin" --tape
expect_err "bad --track" 2 "--track is all or named" $BT --itch "$tmp/day.bin" --stats --track some
expect_err "bad --book-orders" 2 "--book-orders wants" $BT --itch "$tmp/day.bin" --stats --book-orders 0
expect_err "symbol given twice" 2 "given twice" $BT --itch "$tmp/day.bin" --symbol AAPL:20 --symbol AAPL:30

$BT --help >"$tmp/help"
for f in --itch --tape --book --book-out --stats --book-orders --track --pages --symbols --dump; do
	check "--help documents $f" grep -q -- "$f" "$tmp/help"
done
$GEN --help >"$tmp/ghelp"
check "t2t-genday --help" grep -q -- "--messages" "$tmp/ghelp"
expect_err "genday: too few messages" 2 "messages must be" $GEN --messages 5 --symbols 3 -o "$tmp/x"

echo "backtest_itch: $fails failure(s)"
[ "$fails" -eq 0 ]
