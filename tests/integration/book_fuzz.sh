#!/bin/bash
# The order-book fuzzer (libFuzzer, ASan+UBSan, the reference model and the
# slow self-check after every message) runs clean for FUZZ_SECONDS
# (default 15).  Seeds: short generated days (t2t-genday) as raw frames,
# and a shaped input; new inputs go to a scratch corpus; a crash leaves its
# input in build/fuzz/artifacts/ and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_book build/t2t-genday

test_book_fuzzer_runs_clean() {
	local w=$T_TMP s
	mkdir -p "$w/seeds"
	for s in 1 2 3; do
		build/t2t-genday --messages 150 --symbols 2 --seed $s --book-orders 1024 -q \
			-o "$w/day$s" || { fail "t2t-genday seed $s"; return 1; }
		{ printf '\000'; cat "$w/day$s"; } >"$w/seeds/raw$s"
	done
	head -c 2000 /dev/urandom >"$w/rand"
	{ printf '\001'; cat "$w/rand"; } >"$w/seeds/shaped"

	fuzz_run book_fuzz build/fuzz/fuzz_book -max_len=8192 -- "$w/seeds"
}

run_tests "$@"
