#!/bin/bash
# The order-book fuzzer (libFuzzer, ASan+UBSan, the reference model and the
# slow self-check after every message) runs clean for FUZZ_SECONDS
# (default 30).  Seeds: short generated days (t2t-genday) as raw frames,
# and a shaped input; new inputs go to a scratch corpus; a crash leaves its
# input in build/fuzz/artifacts/ and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_book build/t2t-genday

test_book_fuzzer_runs_clean() {
	local secs=${FUZZ_SECONDS:-30} arts=build/fuzz/artifacts w=$T_TMP s runs cov
	mkdir -p "$w/corpus" "$w/seeds" "$arts"
	for s in 1 2 3; do
		build/t2t-genday --messages 150 --symbols 2 --seed $s --book-orders 1024 -q \
			-o "$w/day$s" || { fail "t2t-genday seed $s"; return 1; }
		{ printf '\000'; cat "$w/day$s"; } >"$w/seeds/raw$s"
	done
	head -c 2000 /dev/urandom >"$w/rand"
	{ printf '\001'; cat "$w/rand"; } >"$w/seeds/shaped"

	if ! build/fuzz/fuzz_book -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix="$arts/" \
		"$w/corpus" "$w/seeds" >"$w/log" 2>&1; then
		tail -40 "$w/log"
		fail "book_fuzz: crashing input in $arts/"
		return 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log")
	cov=$(grep -o 'cov: [0-9]*' "$w/log" | tail -1)
	ok "$runs executions in $secs s ran clean ($cov, $(ls "$w/corpus" | wc -l) new inputs)"
}

run_tests "$@"
