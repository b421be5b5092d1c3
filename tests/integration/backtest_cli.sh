#!/bin/bash
# backtest's command line: price generation, sweeps with each kernel and
# their agreement, the replay of a tick recording, and a clear error (exit
# 2, the line number) for every kind of bad input.
. "$(dirname "$0")/../lib.sh"
need build/t2t-backtest

BT=build/t2t-backtest

# prices: the series the sweeps run on, $T_TMP/p.txt (made once).
prices() {
	[ -s "$T_TMP/p.txt" ] || $BT --gen 20000 --seed 7 -o "$T_TMP/p.txt"
}

test_gen_writes_a_deterministic_series() {
	prices
	check "gen writes N lines" [ "$(wc -l <"$T_TMP/p.txt")" -eq 20000 ]
	check "gen starts at 100.0000" [ "$(head -1 "$T_TMP/p.txt")" = 1000000 ]
	$BT --gen 20000 --seed 7 >"$T_TMP/p2.txt"
	check "gen is deterministic (stdout == -o)" cmp -s "$T_TMP/p.txt" "$T_TMP/p2.txt"
	$BT --gen 20000 --seed 8 >"$T_TMP/p3.txt"
	check "another seed, another series" eval '! cmp -s "$T_TMP/p.txt" "$T_TMP/p3.txt"'
}

test_sweep_prints_the_grid() {
	prices
	$BT --prices "$T_TMP/p.txt" -q >"$T_TMP/grid.csv"
	check "default grid: header + 80 rows" [ "$(wc -l <"$T_TMP/grid.csv")" -eq 81 ]
	check "csv header" [ "$(head -1 "$T_TMP/grid.csv")" = "length,trades,pnl_pct" ]
	check "first/last grid lengths 6 and 200" \
		[ "$(sed -n 2p "$T_TMP/grid.csv" | cut -d, -f1)$(tail -1 "$T_TMP/grid.csv" | cut -d, -f1)" = 6200 ]
	check "rows are length,int,float with 9 decimals" \
		[ "$(grep -cE '^[0-9]+,[0-9]+,-?[0-9]+\.[0-9]{9}$' "$T_TMP/grid.csv")" -eq 80 ]
}

test_batch_and_incremental_kernels_agree() {
	prices
	$BT --prices "$T_TMP/p.txt" --lengths 6,50,256 --kernel both -q >"$T_TMP/both.csv"
	check "kernel both agrees (exit 0)" [ $? -eq 0 ]
	$BT --prices "$T_TMP/p.txt" --lengths 6,50,256 --kernel batch -q >"$T_TMP/b.csv"
	$BT --prices "$T_TMP/p.txt" --lengths 6,50,256 --kernel incremental -q >"$T_TMP/i.csv"
	check "batch and incremental print the same rows" cmp -s "$T_TMP/b.csv" "$T_TMP/i.csv"
	check "both prints the same rows" cmp -s "$T_TMP/b.csv" "$T_TMP/both.csv"
	check "some trades happen" [ "$(awk -F, 'NR>1 {s += $2} END {print (s > 0)}' "$T_TMP/b.csv")" = 1 ]
}

test_bad_prices_and_options_refused() {
	prices
	printf '100\n200\nabc\n' >"$T_TMP/bad1"
	printf '100\n0\n' >"$T_TMP/bad2"
	printf '100\n4294967296\n' >"$T_TMP/bad3"
	: >"$T_TMP/empty"
	expect_exit 2 "bad1:3: not a number" $BT --prices "$T_TMP/bad1"
	expect_exit 2 "bad2:2: price out of range" $BT --prices "$T_TMP/bad2"
	expect_exit 2 "bad3:2: price out of range" $BT --prices "$T_TMP/bad3"
	expect_exit 2 "empty file" $BT --prices "$T_TMP/empty"
	expect_exit 2 "No such file" $BT --prices "$T_TMP/nope"
	expect_exit 2 "length 5 out of range" $BT --prices "$T_TMP/p.txt" --lengths 6,5
	expect_exit 2 "length 257 out of range" $BT --prices "$T_TMP/p.txt" --lengths 257
	expect_exit 2 "--lengths wants" $BT --prices "$T_TMP/p.txt" --lengths 6,,7
	expect_exit 2 "--kernel is batch" $BT --prices "$T_TMP/p.txt" --kernel fast
	expect_exit 2 "exactly one of" $BT
	expect_exit 2 "--gen wants" $BT --gen -3
	expect_exit 2 "Try 't2t-backtest --help'" $BT --frobnicate
}

# ramp: $T_TMP/ticks.csv, a recording.  AAA is a rising ramp (L=8 goes
# short at its 9th tick, hand-checked in test_hma_small), BBB is constant
# (no order), CCC is not traded.  Rows interleave symbols the way a feed does.
ramp() {
	local seq i
	{
		echo "seq,symbol,locate,price,shares,send_ns"
		seq=100
		for i in $(seq 0 39); do
			echo "$seq,AAA,1,$((1000 + i)),100,$((5000 + seq))"; seq=$((seq + 1))
			echo "$seq,BBB,2,777,100,$((5000 + seq))"; seq=$((seq + 1))
			echo "$seq,CCC,3,$((2000 - i)),100,$((5000 + seq))"; seq=$((seq + 2))
		done
	} >"$T_TMP/ticks.csv"
}

test_ticks_replay_trades_the_recording() {
	ramp
	$BT --ticks "$T_TMP/ticks.csv" --symbol AAA:8:50 --symbol BBB:8 -o "$T_TMP/orders.csv" \
		2>"$T_TMP/replay.err"
	printf 'md_seq,symbol,side,shares\n132,AAA,S,50\n' >"$T_TMP/want.csv"
	check "replay: one short entry at AAA's 9th tick, 50 shares" cmp -s "$T_TMP/orders.csv" "$T_TMP/want.csv"
	check "replay: summary per symbol on stderr" grep -q "BBB .*orders 0" "$T_TMP/replay.err"
}

test_bad_ticks_refused() {
	ramp
	printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,100,1,1\n1,AAA,1,100,1,2\n' >"$T_TMP/t_dup"
	printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,0,1,1\n' >"$T_TMP/t_zero"
	printf 'seq,price\n1,5\n' >"$T_TMP/t_hdr"
	printf 'seq,symbol,locate,price,shares,send_ns\n1,AAA,1,100\n' >"$T_TMP/t_short"
	expect_exit 2 "t_dup:3: sequence number 1" $BT --ticks "$T_TMP/t_dup" --symbol AAA:8
	expect_exit 2 "t_zero:2: price out of range" $BT --ticks "$T_TMP/t_zero" --symbol AAA:8
	expect_exit 2 "t_hdr:1: not a tick recording" $BT --ticks "$T_TMP/t_hdr" --symbol AAA:8
	expect_exit 2 "t_short:2: expected seq" $BT --ticks "$T_TMP/t_short" --symbol AAA:8
	expect_exit 2 "needs at least one --symbol" $BT --ticks "$T_TMP/ticks.csv"
	expect_exit 2 "HMA length 3 out of range" $BT --ticks "$T_TMP/ticks.csv" --symbol AAA:3
}

test_help_documents_the_flags() {
	# Captured, then searched: under pipefail "--help | grep -q" fails
	# whenever grep exits before the help is all written.
	$BT --help >"$T_TMP/help"
	check "--help documents the flags" grep -q -- "--kernel" "$T_TMP/help"
}

run_tests "$@"
