#!/bin/bash
# The proto decoder fuzzer (libFuzzer, ASan+UBSan) runs clean for
# FUZZ_SECONDS (default 15) on the checked-in seed corpus.  New inputs go
# to a scratch corpus; a crash leaves its input in build/fuzz/artifacts/
# and fails the test.
. "$(dirname "$0")/../lib.sh"
need build/fuzz/fuzz_proto_feed

test_proto_fuzzer_runs_clean() {
	fuzz_run proto_fuzz build/fuzz/fuzz_proto_feed -- tests/fuzz/corpus/feed
}

run_tests "$@"
