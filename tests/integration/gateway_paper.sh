#!/bin/bash
# Paper trading (--paper, docs/paper.md) on the rig, on both paths, with no
# order session: the gateway fills its own orders from its own books, and
# its fills equal t2t-backtest --itch --paper's on the same day, order for
# order (scripts/paper-run.sh's paper paths do that check):
#   - the day at four times its pace, and flat out with 1 % of its packets
#     lost and re-requested, and with a latency of 50 us;
#   - with no re-request server (--rerequest off) a dropped packet makes the
#     books unsafe: no order after it, every change listed (reason book),
#     the summary says from where and why, the run goes on to the end;
#   - a simulator started after the gateway pins itself off the loop's CPU;
#   - the options that do not go with it are refused.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

SYMS=AAPL:12,MSFT:20,NVDA:48

day() {
	[ -s "$T_TMP/day.gz" ] || build/t2t-exsim --gen-day "$T_TMP/day.gz" --messages 150000 \
		--day-seconds 8 --seed 21 --symbols AAPL,MSFT,NVDA,IBM >/dev/null
}

test_paper_fills_equal_the_backtest_at_two_speeds() {
	day || { fail "gen-day"; return 1; }
	check "paper-run: x4" rig_run s scripts/paper-run.sh --paths paper_xdp,paper_udp \
		--day "$T_TMP/day.gz" --speed 4 --symbols "$SYMS" --out "$T_TMP/x4"
	check "paper-run: flat out, 1 % of the packets lost and re-requested, 50 us" rig_run l \
		scripts/paper-run.sh --paths paper_xdp,paper_udp --day "$T_TMP/day.gz" --speed max \
		--symbols "$SYMS" --ex-extra "--drop-rate 0.01" --expect-gaps --paper-latency 50000 \
		--out "$T_TMP/max"
	expect_ge "some orders filled in part" "$(j "$T_TMP/x4/paper_xdp.gw.json" .paper.partial)" 1
}

test_a_lost_packet_with_no_rerequest_makes_the_books_unsafe() {
	local p mode g from
	day || { fail "gen-day"; return 1; }
	rig_up u
	for p in xdp udp; do
		g=$T_TMP/unsafe_$p.gw.json
		gw_start "unsafe_$p" --mode "$p" --paper --rerequest off --symbol AAPL:12 \
			--symbol MSFT:20 --exit-on-end --orders-out "$T_TMP/unsafe_$p.csv" || return 1
		ex_start "unsafe_$p" --replay "$T_TMP/day.gz" --speed 4 --drop-seqs 60000-60000
		ex_wait "unsafe_$p"
		gw_wait "unsafe_$p" 20
		from=$(j "$g" .gaps.books_unsafe_from)
		check "$p: books unsafe from the packet lost (sequence $from)" \
			[ "$from" -gt 59000 -a "$from" -le 60000 ]
		check "$p: no order after it, changes listed untraded (book: $(j "$g" .orders.untraded_book))" \
			bash -c "[ $(j "$g" .orders.untraded_book) -gt 0 ] &&
				 awk -F, -v f=$from 'NR > 1 && \$15 != \"U\" && \$2 >= f { exit 1 }' \
				 '$T_TMP/unsafe_$p.csv'"
		expect_eq "$p: the run went on to the end, every message after the hole decoded" \
			"$(j "$g" '.feed.end_of_session') $(j "$g" '.feed.messages + .gaps.given_up_msgs')" \
			"true $(j "$T_TMP/unsafe_$p.ex.json" .messages)"
		check "$p: the summary says from where and why" \
			grep -q "^books unsafe from sequence $from: .* no re-request server" \
			"$T_TMP/unsafe_$p.gw.out"
	done
}

test_a_simulator_started_after_the_gateway_stays_off_its_cpu() {
	local line
	rig_up c
	gw_start cpu --paper --symbol AAPL:12 || return 1
	# The gateway's other threads are pinned to CPU 0, the one its loop
	# leaves on this 2-CPU machine: the loop is the thread on CPU 1.
	line=$(ip netns exec "$RIG_NS_EX" build/t2t-exsim --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --source gbm --symbols AAPL --count 100 \
		--rate 10000 2>&1 >/dev/null | head -1)
	expect_eq "the simulator's start line" "$line" \
		"t2t-exsim: on CPU 0, off the gateway's (a hot loop spins on CPU 1; --cpu N or any to choose)"
	kill -INT "$(t_pid cpu.gw)"
	gw_wait cpu 10
}

test_options_that_do_not_go_with_paper_are_refused() {
	expect_exit 2 "--paper fills orders from the books of the traded symbols: drop --books off" \
		build/t2t-gateway --paper --books off
	expect_exit 2 "--paper-latency is for --paper" build/t2t-gateway --paper-latency 100
	expect_exit 2 "--paper wants --symbol SYM:LEN" build/t2t-backtest --itch /dev/null --paper 0
	expect_exit 2 "--limit-bp goes with --paper" build/t2t-backtest --itch /dev/null \
		--symbol AAPL:12 --limit-bp 5
}

run_tests "$@"
