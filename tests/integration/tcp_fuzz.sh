#!/bin/bash
# The own TCP's fuzzer (libFuzzer, ASan+UBSan: tests/fuzz/fuzz_tcp_input.c,
# random segments against a live connection, SND.UNA <= SND.NXT, the
# windows, the held segments, the stream delivered in order and once, every
# frame within the MTU and true to the stream, checked after each step)
# runs clean for FUZZ_SECONDS (default 15) on the checked-in seeds.  New
# inputs go to a scratch corpus; a crash leaves its input in
# build/fuzz/artifacts/ and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_tcp_input

test_tcp_fuzzer_runs_clean() {
	fuzz_run tcp_fuzz build/fuzz/fuzz_tcp_input -max_len=4096 -- tests/fuzz/corpus/tcp
}

run_tests "$@"
