#!/bin/sh
# backtest CLI: generation, sweeps with each kernel, agreement check, and a
# clear error (exit 2, line number) for every kind of bad input.
set -u
BT=./build/backtest
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

$BT --gen 20000 --seed 7 -o "$tmp/p.txt"
check "gen writes N lines" [ "$(wc -l <"$tmp/p.txt")" -eq 20000 ]
check "gen starts at 100.0000" [ "$(head -1 "$tmp/p.txt")" = 1000000 ]
$BT --gen 20000 --seed 7 >"$tmp/p2.txt"
check "gen is deterministic (stdout == -o)" cmp -s "$tmp/p.txt" "$tmp/p2.txt"
$BT --gen 20000 --seed 8 >"$tmp/p3.txt"
differ() { ! cmp -s "$1" "$2"; }
check "another seed, another series" differ "$tmp/p.txt" "$tmp/p3.txt"

$BT --prices "$tmp/p.txt" -q >"$tmp/grid.csv"
check "default grid: header + 80 rows" [ "$(wc -l <"$tmp/grid.csv")" -eq 81 ]
check "csv header" [ "$(head -1 "$tmp/grid.csv")" = "length,trades,pnl_pct" ]
check "first/last grid lengths 6 and 200" \
	[ "$(sed -n 2p "$tmp/grid.csv" | cut -d, -f1)$(tail -1 "$tmp/grid.csv" | cut -d, -f1)" = 6200 ]
check "rows are length,int,float with 9 decimals" \
	[ "$(grep -cE '^[0-9]+,[0-9]+,-?[0-9]+\.[0-9]{9}$' "$tmp/grid.csv")" -eq 80 ]

$BT --prices "$tmp/p.txt" --lengths 6,50,256 --kernel both -q >"$tmp/both.csv"
check "kernel both agrees (exit 0)" [ $? -eq 0 ]
$BT --prices "$tmp/p.txt" --lengths 6,50,256 --kernel batch -q >"$tmp/b.csv"
$BT --prices "$tmp/p.txt" --lengths 6,50,256 --kernel incremental -q >"$tmp/i.csv"
check "batch and incremental print the same rows" cmp -s "$tmp/b.csv" "$tmp/i.csv"
check "both prints the same rows" cmp -s "$tmp/b.csv" "$tmp/both.csv"
check "some trades happen" [ "$(awk -F, 'NR>1 {s += $2} END {print (s > 0)}' "$tmp/b.csv")" = 1 ]

printf '100\n200\nabc\n' >"$tmp/bad1"
printf '100\n0\n' >"$tmp/bad2"
printf '100\n4294967296\n' >"$tmp/bad3"
: >"$tmp/empty"
expect_err "non-numeric line named" 2 "bad1:3: not a number" $BT --prices "$tmp/bad1"
expect_err "zero price named" 2 "bad2:2: price out of range" $BT --prices "$tmp/bad2"
expect_err "2^32 named" 2 "bad3:2: price out of range" $BT --prices "$tmp/bad3"
expect_err "empty file" 2 "empty file" $BT --prices "$tmp/empty"
expect_err "missing file" 2 "No such file" $BT --prices "$tmp/nope"
expect_err "length 5 refused" 2 "length 5 out of range" $BT --prices "$tmp/p.txt" --lengths 6,5
expect_err "length 257 refused" 2 "length 257 out of range" $BT --prices "$tmp/p.txt" --lengths 257
expect_err "garbage lengths" 2 "--lengths wants" $BT --prices "$tmp/p.txt" --lengths 6,,7
expect_err "bad kernel" 2 "--kernel is batch" $BT --prices "$tmp/p.txt" --kernel fast
expect_err "neither mode" 2 "exactly one of" $BT
expect_err "bad count" 2 "--gen wants" $BT --gen -3
expect_err "unknown flag" 2 "Try 'backtest --help'" $BT --frobnicate
# --ticks: replay of a recording.  AAA is a rising ramp (L=8 goes short at
# its 9th tick, hand-checked in test_hma_small), BBB is constant (no order),
# CCC is not traded.  Rows interleave symbols the way a feed does.
{
	echo "seq,symbol,locate,price,shares,send_ns"
	seq=100
	for i in $(seq 0 39); do
		echo "$seq,AAA,1,$((1000 + i)),100,$((5000 + seq))"; seq=$((seq + 1))
		echo "$seq,BBB,2,777,100,$((5000 + seq))"; seq=$((seq + 1))
		echo "$seq,CCC,3,$((2000 - i)),100,$((5000 + seq))"; seq=$((seq + 2))
	done
} >"$tmp/ticks.csv"
$BT --ticks "$tmp/ticks.csv" --symbol AAA:8:50 --symbol BBB:8 -o "$tmp/orders.csv" 2>"$tmp/replay.err"
printf 'md_seq,symbol,side,shares\n132,AAA,S,50\n' >"$tmp/want.csv"
check "replay: one short entry at AAA's 9th tick, 50 shares" cmp -s "$tmp/orders.csv" "$tmp/want.csv"
check "replay: summary per symbol on stderr" grep -q "BBB .*orders 0" "$tmp/replay.err"
printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,100,1,1\n1,AAA,1,100,1,2\n' >"$tmp/t_dup"
printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,0,1,1\n' >"$tmp/t_zero"
printf 'seq,price\n1,5\n' >"$tmp/t_hdr"
printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,100\n' >"$tmp/t_short"
expect_err "ticks: repeated seq named" 2 "t_dup:3: sequence number 1" $BT --ticks "$tmp/t_dup" --symbol AAA:8
expect_err "ticks: zero price named" 2 "t_zero:2: price out of range" $BT --ticks "$tmp/t_zero" --symbol AAA:8
expect_err "ticks: wrong header" 2 "t_hdr:1: not a tick recording" $BT --ticks "$tmp/t_hdr" --symbol AAA:8
expect_err "ticks: short row" 2 "t_short:2: expected seq" $BT --ticks "$tmp/t_short" --symbol AAA:8
expect_err "ticks: needs a symbol" 2 "needs at least one --symbol" $BT --ticks "$tmp/ticks.csv"
expect_err "ticks: bad symbol length" 2 "HMA length 3 out of range" $BT --ticks "$tmp/ticks.csv" --symbol AAA:3

$BT --help | grep -q -- "--kernel"
check "--help documents the flags" [ $? -eq 0 ]

echo "backtest_cli: $fails failure(s)"
[ "$fails" -eq 0 ]
