#!/bin/bash
# The SoupBinTCP stream fuzzer (libFuzzer, ASan+UBSan: the reassembler read
# whole and in chunks must agree, every payload decoder on every packet)
# runs clean for FUZZ_SECONDS (default 30) on the checked-in seed corpus
# (tests/fuzz/make_soup_seeds.sh).  New inputs go to a scratch corpus; a
# crash leaves its input in build/fuzz/artifacts/ and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_soup_stream

test_soup_fuzzer_runs_clean() {
	local secs=${FUZZ_SECONDS:-30} arts=build/fuzz/artifacts w=$T_TMP runs cov
	mkdir -p "$w/corpus" "$arts"
	if ! build/fuzz/fuzz_soup_stream -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$arts/" \
		"$w/corpus" tests/fuzz/corpus/soup >"$w/log" 2>&1; then
		tail -40 "$w/log"
		fail "soup_fuzz: crashing input in $arts/"
		return 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log")
	cov=$(grep -o 'cov: [0-9]*' "$w/log" | tail -1)
	ok "$runs executions in $secs s ran clean ($cov, $(ls "$w/corpus" | wc -l) new inputs)"
}

run_tests "$@"
