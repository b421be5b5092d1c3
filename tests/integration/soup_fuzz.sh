#!/bin/bash
# The SoupBinTCP stream fuzzer (libFuzzer, ASan+UBSan: the reassembler read
# whole and in chunks must agree, every payload decoder on every packet)
# runs clean for FUZZ_SECONDS (default 15) on the checked-in seed corpus
# (tests/fuzz/make_soup_seeds.sh).  New inputs go to a scratch corpus; a
# crash leaves its input in build/fuzz/artifacts/ and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_soup_stream

test_soup_fuzzer_runs_clean() {
	fuzz_run soup_fuzz build/fuzz/fuzz_soup_stream -- tests/fuzz/corpus/soup
}

run_tests "$@"
