#!/bin/sh
# Run the order-book fuzzer (libFuzzer, ASan+UBSan, the reference model and
# the slow self-check after every message) for FUZZ_SECONDS (default 30).
# Seeds: short generated days (t2t-genday) as raw frames, and a shaped
# input; new inputs go to a scratch corpus; a crash leaves its input in
# build/fuzz/artifacts/ and fails the test.
set -eu
cd "$(dirname "$0")/../.."

secs=${FUZZ_SECONDS:-30}
bin=build/fuzz/fuzz_book
gen=build/t2t-genday
arts=build/fuzz/artifacts
[ -x "$bin" ] || { echo "book_fuzz: $bin not built" >&2; exit 1; }
[ -x "$gen" ] || { echo "book_fuzz: $gen not built" >&2; exit 1; }

work=$(mktemp -d /tmp/book_fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds" "$arts"

for s in 1 2 3; do
	"$gen" --messages 150 --symbols 2 --seed $s --book-orders 1024 -q -o "$work/day$s"
	{ printf '\000'; cat "$work/day$s"; } >"$work/seeds/raw$s"
done
head -c 2000 /dev/urandom >"$work/rand"
{ printf '\001'; cat "$work/rand"; } >"$work/seeds/shaped"

if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
	-print_final_stats=1 -artifact_prefix="$arts/" \
	"$work/corpus" "$work/seeds" >"$work/log" 2>&1; then
	tail -40 "$work/log"
	echo "book_fuzz: FAILED, crashing input in $arts/"
	exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
echo "book_fuzz: $runs executions in $secs s ran clean ($cov, $(ls "$work/corpus" | wc -l) new inputs)"
