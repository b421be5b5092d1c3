#!/bin/sh
# Run the proto decoder fuzzer (libFuzzer, ASan+UBSan) for FUZZ_SECONDS
# (default 30) on the checked-in seed corpus and print how many executions
# ran clean.  New inputs go to a scratch corpus; a crash leaves its input in
# build/fuzz/artifacts/ and fails the test.
set -eu
cd "$(dirname "$0")/../.."

secs=${FUZZ_SECONDS:-30}
bin=build/fuzz/fuzz_proto_feed
seeds=tests/fuzz/corpus/feed
arts=build/fuzz/artifacts
[ -x "$bin" ] || { echo "proto_fuzz: $bin not built" >&2; exit 1; }

work=$(mktemp -d /tmp/proto_fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$arts"

if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$arts/" \
	"$work/corpus" "$seeds" >"$work/log" 2>&1; then
	tail -40 "$work/log"
	echo "proto_fuzz: FAILED, crashing input in $arts/"
	exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
echo "proto_fuzz: $runs executions in $secs s ran clean ($cov, $(ls "$work/corpus" | wc -l) new inputs)"
