#!/bin/bash
# The chaos harness, short: three seeds of a day of 60,000 messages over two
# lossy lines (scripts/chaos.sh, whose checks are books equal by digest,
# every message and print decoded once, orders equal to t2t-backtest --itch).
# Seed 1 starts the gateway late; make chaos SEEDS=N runs more.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

test_three_seeds_keep_books_and_orders_exact() {
	check "chaos seeds 1-3" scripts/chaos.sh --seeds 3 --messages 60000 --rate 30000 \
		--out "$T_TMP/chaos"
}

run_tests "$@"
