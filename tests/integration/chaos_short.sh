#!/bin/bash
# The chaos harness, short: three seeds of a day of 60,000 messages over two
# lossy lines (scripts/chaos.sh, whose checks are books equal by digest,
# every message and print decoded once, orders equal to t2t-backtest --itch).
# Seed 1 starts the gateway late; it runs again on the kernel-UDP path (the
# same A/B rule over two sockets).  make chaos SEEDS=N runs more.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

test_three_seeds_keep_books_and_orders_exact() {
	check "chaos seeds 1-3" scripts/chaos.sh --seeds 3 --messages 60000 --rate 30000 \
		--out "$T_TMP/chaos"
}

test_a_late_seed_on_the_kernel_udp_path() {
	check "chaos seed 1, kernel UDP" scripts/chaos.sh --seed 1 --messages 60000 --rate 30000 \
		--path udp --out "$T_TMP/chaos_udp"
}

run_tests "$@"
