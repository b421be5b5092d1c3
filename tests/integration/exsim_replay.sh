#!/bin/bash
# t2t-exsim --gen-day and --replay, received by a kernel receiver in the gateway
# namespace (fault_recv --dump, --arrivals):
#  - generation: the same bytes for the same seed (another seed: others),
#    gzip when the name ends in .gz, the summary, the real day's mix within
#    a few percent (A 44 %, D 43 %, U 7.4 %, E 2.2 %, X 1.3 %, P 0.36 %,
#    C 0.04 %);
#  - a whole day replayed flat out (gzip and plain) arrives message for
#    message as the file holds it: sequence numbers 1..n, every byte (the
#    timestamps included), no gap, in packets of at most 1472 bytes packed
#    with many messages, each block a whole message of its type's length;
#  - --symbols: exactly the system events, the chosen symbols' directory
#    entries and their messages (the rule written again in awk), numbered
#    1..n without a gap, and t2t-backtest --itch --symbols numbers the same
#    (its dump is the replay's; every print of its tape is an E/C/P/Q of
#    the replay at that number);
#  - pacing: a 2-second day at --speed 1 and a 20-second day at --speed 10,
#    each message's arrival against start + (ts[n] - ts[1]) / speed;
#  - --replay-until: the day's first messages up to a time of day, as the
#    file holds them, then an end of session;
#  - re-requests with --window 20000: recent messages answered with the
#    file's bytes, an older one refused as expired;
#  - a truncated file, a gzip file cut short and garbage in a gzip stream
#    stop the replay with exit 1 and an error naming the file and the byte
#    offset, after an end of session for what was sent (the receiver ends
#    clean, without a gap, with the file's messages before the damage);
#  - usage errors.
#
# One rig for the file.  Bounded: days of at most 300,000 messages; the
# paced runs take about 2 s each.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv build/tools/rerequest_client build/t2t-backtest

KEEP=tests/integration/itch_keep.awk

gen() {
	build/t2t-exsim --gen-day "$@" >"$T_TMP/gen.out" 2>&1 || fail "gen-day $*: $(cat "$T_TMP/gen.out")"
}
# day: the day the tests replay, $T_TMP/day.bin and day.gz, its dump
# (day.dump, one message a line) and stats; N its messages (made once).
day() {
	if [ ! -s "$T_TMP/stats.json" ]; then
		gen "$T_TMP/day.bin" --messages 300000 --symbols 8 --seed 11
		gen "$T_TMP/day.gz" --messages 300000 --symbols 8 --seed 11
		cp "$T_TMP/gen.out" "$T_TMP/day.gen.out"
		build/t2t-backtest --itch "$T_TMP/day.gz" --stats="$T_TMP/stats.json" --dump="$T_TMP/day.dump" ||
			{ fail "t2t-backtest --itch on the generated day"; return 1; }
	fi
	N=$(jq -r .messages "$T_TMP/stats.json")
}

# replay NAME [exsim options]: fault_recv NAME (dump and arrivals) and the
# simulator; exsim's exit status in $T_TMP/NAME.rc, stderr in NAME.err.
replay() {
	local name=$1
	shift
	start_fault_recv "$name" --dump "$T_TMP/$name.dump" --arrivals "$T_TMP/$name.arr" \
		--timeout-ms 5000 || return 1
	ip netns exec "$RIG_NS_EX" timeout 90 build/t2t-exsim -q --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --linger 100 --grace 100 \
		--json "$T_TMP/$name.json" "$@" >"$T_TMP/$name.sim" 2>"$T_TMP/$name.err"
	echo $? >"$T_TMP/$name.rc"
	wait_recv "$name"
}

# received_ok NAME MESSAGES: a clean session of MESSAGES messages.
received_ok() {
	local r=$T_TMP/$1.out
	[ "$(kv "$r" result)" = ok ] && [ "$(kv "$r" next_seq)" -eq $(($2 + 1)) ] &&
		[ "$(kv "$r" missing)" = 0 ] && [ "$(kv "$r" gap_events)" = 0 ] &&
		[ "$(kv "$r" malformed)" = 0 ] && [ "$(kv "$r" end_of_session)" -ge 1 ] &&
		ok "$1: the receiver got messages 1..$2, no gap, no malformed packet, end of session" ||
		fail "$1: receiver: $(summary "$1")"
}

test_gen_day_is_deterministic_gzips_and_has_the_days_mix() {
	local t want tol got
	day || return 1
	grep -q "300000 messages" "$T_TMP/day.gen.out" && grep -q "by type .*A [0-9]" "$T_TMP/day.gen.out" &&
		grep -q "8 symbols" "$T_TMP/day.gen.out" && ok "gen-day: summary (messages, types, symbols, time)" ||
		fail "gen-day summary: $(cat "$T_TMP/day.gen.out")"
	gen "$T_TMP/day2.bin" --messages 300000 --symbols 8 --seed 11
	gen "$T_TMP/day3.bin" --messages 300000 --symbols 8 --seed 12
	cmp -s "$T_TMP/day.bin" "$T_TMP/day2.bin" && ok "gen-day: same seed, same bytes" ||
		fail "gen-day: same seed, different bytes"
	cmp -s "$T_TMP/day.bin" "$T_TMP/day3.bin" && fail "gen-day: another seed, the same bytes" ||
		ok "gen-day: another seed, other bytes"
	[ "$(od -An -tx1 -N2 "$T_TMP/day.gz" | tr -d ' ')" = 1f8b ] && zcat "$T_TMP/day.gz" | cmp -s - "$T_TMP/day.bin" &&
		ok "gen-day: FILE.gz is gzip of the same day" || fail "gen-day: .gz is not the same day gzipped"

	# type target relative-tolerance (%): as the generator's unit test.
	while read -r t want tol; do
		got=$(jq -r ".by_type.$t / .messages * 100" "$T_TMP/stats.json")
		awk -v g="$got" -v w="$want" -v tol="$tol" 'BEGIN { d = (g - w) / w * 100; if (d < 0) d = -d; exit !(d <= tol) }' &&
			ok "mix: $t $got % (target $want %, within $tol % of it)" ||
			fail "mix: $t $got %, target $want % (tolerance $tol % of it)"
	done <<-'EOF'
	A 44 3
	D 43 3
	U 7.4 3
	E 2.2 5
	X 1.3 5
	P 0.36 10
	C 0.04 25
	EOF
}

# A whole day flat out, gzip and plain.
test_a_day_replayed_flat_out_arrives_as_the_file_holds_it() {
	local f name md mc dp
	day || return 1
	rig_up
	for f in day.gz day.bin; do
		name=max_${f%%.*}_${f##*.}
		replay "$name" --replay "$T_TMP/$f" --speed max
		expect_eq "$name: exit status" "$(cat "$T_TMP/$name.rc")" 0
		received_ok "$name" "$N"
		cmp -s "$T_TMP/$name.dump" "$T_TMP/day.dump" &&
			ok "$name: every message as the file holds it (numbers, bytes, timestamps)" ||
			fail "$name: received messages differ from the file: $(diff "$T_TMP/$name.dump" "$T_TMP/day.dump" | head -2 | tr '\n' ' ')"
		expect_eq "$name: messages published" "$(j "$T_TMP/$name.json" .messages)" "$N"
		md=$(kv "$T_TMP/$name.out" max_datagram)
		mc=$(kv "$T_TMP/$name.out" max_count)
		dp=$(kv "$T_TMP/$name.out" data_packets)
		[ "$md" -le 1472 ] && [ "$mc" -ge 30 ] && [ $((N / dp)) -ge 20 ] &&
			ok "$name: packed: $dp packets, up to $mc messages and $md bytes in one" ||
			fail "$name: packing: $dp packets, up to $mc messages, $md bytes"
	done
	jq -e '.source == "replay" and .replay.error == null and .replay.published == '"$N"' and
		.book.impossible == 0 and .book.live > 0' "$T_TMP/max_day_gz.json" >/dev/null &&
		ok "max_day_gz: JSON: replay, no error, the book of what was published has nothing impossible" ||
		fail "max_day_gz: JSON $(jq -c '{source, replay, book}' "$T_TMP/max_day_gz.json")"
}

# ts_of DUMP N: message N's ITCH timestamp (ns) in a dump (number,hex bytes)
ts_of() {
	local h
	h=$(sed -n "${2}p" "$1" | cut -d, -f2)
	printf '%d' "0x${h:10:12}"
}

test_replay_until_cuts_the_day_with_an_end_of_session() {
	local t n
	day || return 1
	rig_up
	# the second of the day's middle message
	t=$(($(ts_of "$T_TMP/day.dump" $((N / 2))) / 1000000000))
	replay until --replay "$T_TMP/day.gz" --speed max --replay-until "$t"
	expect_eq "until: exit status" "$(cat "$T_TMP/until.rc")" 0
	n=$(j "$T_TMP/until.json" .replay.published)
	check "until: a slice, not the day ($n of $N messages)" [ "$n" -gt 1000 -a "$n" -lt "$N" ]
	received_ok until "$n"
	check "until: the file's first messages as they are" \
		cmp -s "$T_TMP/until.dump" <(head -n "$n" "$T_TMP/day.dump")
	check "until: the last one sent stamped at or before $t s, the next one after" \
		[ "$(ts_of "$T_TMP/day.dump" "$n")" -le $((t * 1000000000)) -a \
		  "$(ts_of "$T_TMP/day.dump" $((n + 1)))" -gt $((t * 1000000000)) ]
	expect_eq "until: JSON says where it was cut" \
		"$(j "$T_TMP/until.json" '"\(.replay.until_s) \(.replay.cut)"')" "$t true"
	expect_exit 2 "--replay-until goes with --replay" build/t2t-exsim --replay-until 36000
}

test_symbols_replays_the_filtered_session() {
	local K
	day || return 1
	rig_up
	replay sym --replay "$T_TMP/day.gz" --speed max --symbols MSFT,AMD,TSLA
	expect_eq "sym: exit status" "$(cat "$T_TMP/sym.rc")" 0
	awk -F, -v syms=MSFT,AMD,TSLA -f "$KEEP" "$T_TMP/day.dump" | cut -d, -f1,3 >"$T_TMP/sym.want"
	K=$(wc -l <"$T_TMP/sym.want")
	received_ok sym "$K"
	cmp -s "$T_TMP/sym.dump" "$T_TMP/sym.want" &&
		ok "sym: exactly the system events, the 3 symbols' directory entries and messages, numbered 1..$K" ||
		fail "sym: received differs from the rule: $(diff "$T_TMP/sym.dump" "$T_TMP/sym.want" | head -2 | tr '\n' ' ')"
	expect_eq "sym: directory entries (R) received" \
		"$(cut -d, -f2 "$T_TMP/sym.dump" | grep -c '^52')" 3
	expect_eq "sym: system events (S) received" \
		"$(cut -d, -f2 "$T_TMP/sym.dump" | grep -c '^53')" "$(cut -d, -f2 "$T_TMP/day.dump" | grep -c '^53')"
	build/t2t-backtest --itch "$T_TMP/day.gz" --symbols MSFT,AMD,TSLA --dump="$T_TMP/sym.bt" --tape="$T_TMP/sym.tape" ||
		fail "t2t-backtest --itch --symbols"
	cmp -s "$T_TMP/sym.bt" "$T_TMP/sym.dump" &&
		ok "sym: t2t-backtest --itch --symbols numbers every message as the replay did" ||
		fail "sym: t2t-backtest --symbols differs from the replay"
	awk -F, 'NR == FNR { t[$1] = substr($2, 1, 2); next }
		FNR > 1 { k = t[$1]; if (k != "45" && k != "43" && k != "50" && k != "51") bad++; n++ }
		END { exit !(n > 0 && !bad) }' "$T_TMP/sym.dump" "$T_TMP/sym.tape" &&
		ok "sym: each of backtest's $(($(wc -l <"$T_TMP/sym.tape") - 1)) prints is an E/C/P/Q of the replay at its number" ||
		fail "sym: backtest's tape does not point at the replay's prints"
}

# pace NAME DAY_SECONDS SPEED: a short day at SPEED; every message's arrival
# against the schedule.  The offset of message n, arrival - (ts[n] - ts[1]) /
# SPEED, is the same for all messages when the pace is kept: its spread
# around the median is the pacing error (the receiver's own wake-ups and
# this shared VM's stalls included: the median must be on time, the p90
# within a few VM stalls, nothing lost for long).
pace() {
	local name=$1 secs=$2 speed=$3 stats med span
	gen "$T_TMP/$name.bin" --messages 20000 --symbols 4 --seed 13 --day-seconds "$secs"
	replay "$name" --replay "$T_TMP/$name.bin" --speed "$speed"
	expect_eq "$name: exit status" "$(cat "$T_TMP/$name.rc")" 0
	received_ok "$name" 20000
	awk -F, -v sp="$speed" 'NR == 1 { t0 = $3 } { printf "%.6f\n", ($2 - ($3 - t0) / sp) / 1e6 }' \
		"$T_TMP/$name.arr" | sort -g >"$T_TMP/$name.off"
	med=$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' "$T_TMP/$name.off")
	stats=$(awk -v m="$med" '{ d = $1 - m; printf "%.6f\n", d < 0 ? -d : d }' "$T_TMP/$name.off" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.3f %.3f %.3f %.3f", v[int(NR * 0.5)],
			v[int(NR * 0.9)], v[int(NR * 0.99)], v[NR] }')
	set -- $stats
	awk -v p50="$1" -v p90="$2" -v mx="$4" 'BEGIN { exit !(p50 < 2 && p90 < 25 && mx < 500) }' &&
		ok "$name: arrivals vs start + (ts - ts1) / $speed, off by p50 $1, p90 $2, p99 $3, max $4 ms" ||
		fail "$name: arrivals off schedule by p50 $1, p90 $2, p99 $3, max $4 ms"
	span=$(awk -F, 'NR == 1 { t0 = $3 } { t = $3 } END { print (t - t0) / 1e9 }' "$T_TMP/$name.arr")
	awk -v p="$(j "$T_TMP/$name.json" .publish_s)" -v s="$span" -v sp="$speed" \
		'BEGIN { w = s / sp; exit !(p > w - 0.02 && p < w * 1.03 + 0.05) }' &&
		ok "$name: published over $(j "$T_TMP/$name.json" .publish_s) s for a day of $span s at x$speed" ||
		fail "$name: published over $(j "$T_TMP/$name.json" .publish_s) s for a day of $span s at x$speed"
	expect_eq "$name: paced one by one (every message had a due time)" \
		"$(j "$T_TMP/$name.json" .send_lag_ns.count)" 20000
}

test_a_day_is_paced_at_speed_1_and_10() {
	rig_up
	pace speed1 2 1
	pace speed10 20 10
}

# Re-requests over a window.
test_rerequests_answered_within_the_window_only() {
	local RQ
	day || return 1
	rig_up
	RQ="$RIG_IP_EX $RIG_REREQUEST_PORT"
	start_fault_recv rq --dump "$T_TMP/rq.dump" --timeout-ms 8000 || return 1
	bg ex ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --replay "$T_TMP/day.gz" --speed max \
		--window 20000 --linger 4000 --grace 100 --json "$T_TMP/rq.json"
	# Flat out the day takes well under a second; ask during the linger.
	for _ in $(seq 60); do
		[ -s "$T_TMP/rq.out" ] && break
		sleep 0.1
	done
	sleep 2
	rr --expect 5 $RQ $((N - 9)) 5 >"$T_TMP/rq.recent" 2>"$T_TMP/rq.err" &&
		cmp -s "$T_TMP/rq.recent" <(sed -n "$((N - 9)),$((N - 5))p" "$T_TMP/day.dump") &&
		ok "window: messages $((N - 9))..$((N - 5)) answered with the file's bytes" ||
		fail "window: recent messages: $(cat "$T_TMP/rq.err")"
	rr --expect-none $RQ 100 10 >"$T_TMP/rq.old" 2>&1 &&
		ok "window: message 100 (older than 20000 back) not answered" ||
		fail "window: an expired message was answered: $(cat "$T_TMP/rq.old")"
	wait "$ex_pid"
	wait_recv rq
	expect_eq "window: refused as expired" "$(j "$T_TMP/rq.json" .rerequest.refusals.expired)" 1
	expect_eq "window: the store's window" "$(j "$T_TMP/rq.json" .store.window)" 20000
}

# A damaged file stops the replay after an end of session.
test_a_truncated_file_stops_the_replay_naming_the_offset() {
	local size err bad off
	day || return 1
	rig_up
	size=$(stat -c %s "$T_TMP/day.bin")
	head -c $((size / 2 + 3)) "$T_TMP/day.bin" >"$T_TMP/cut.bin"
	replay cut --replay "$T_TMP/cut.bin" --speed max
	expect_eq "cut: exit status" "$(cat "$T_TMP/cut.rc")" 1
	err=$(grep -o "cut.bin: truncated: message [0-9]* at byte offset [0-9]*" "$T_TMP/cut.err")
	[ -n "$err" ] && ok "cut: '$err'" || fail "cut: no error naming the file and offset: $(cat "$T_TMP/cut.err")"
	bad=$(echo "$err" | sed 's/.*message \([0-9]*\) .*/\1/')
	off=$(echo "$err" | sed 's/.*offset //')
	# The offset is that of the message's frame: the frames before it add up to it.
	expect_eq "cut: the offset is message $bad's frame" \
		"$(head -n $((bad - 1)) "$T_TMP/day.dump" | awk -F, '{ n += 2 + length($2) / 2 } END { print n + 0 }')" "$off"
	received_ok cut $((bad - 1))
	cmp -s "$T_TMP/cut.dump" <(head -n $((bad - 1)) "$T_TMP/day.dump") &&
		ok "cut: the receiver has messages 1..$((bad - 1)) of the file, then the end of session" ||
		fail "cut: received messages are not the file's first $((bad - 1))"
}

test_a_gzip_file_cut_short_stops_the_replay() {
	local gsize err bad
	day || return 1
	rig_up
	gsize=$(stat -c %s "$T_TMP/day.gz")
	head -c $((gsize / 2)) "$T_TMP/day.gz" >"$T_TMP/cut.gz"
	replay cutgz --replay "$T_TMP/cut.gz" --speed max
	expect_eq "cut gzip: exit status" "$(cat "$T_TMP/cutgz.rc")" 1
	err=$(grep -o "cut.gz: gzip stream cut short after uncompressed byte offset [0-9]* (in message [0-9]*)" \
		"$T_TMP/cutgz.err")
	[ -n "$err" ] && ok "cut gzip: '$err'" || fail "cut gzip: $(cat "$T_TMP/cutgz.err")"
	bad=$(echo "$err" | sed 's/.*in message \([0-9]*\).*/\1/')
	received_ok cutgz $((bad - 1))
	cmp -s "$T_TMP/cutgz.dump" <(head -n $((bad - 1)) "$T_TMP/day.dump") &&
		ok "cut gzip: messages 1..$((bad - 1)) as in the file, then the end of session" ||
		fail "cut gzip: received messages are not the file's first $((bad - 1))"
}

test_garbage_in_a_gzip_stream_stops_the_replay() {
	local gsize err got
	day || return 1
	rig_up
	gsize=$(stat -c %s "$T_TMP/day.gz")
	# Garbage inside the deflate stream: zlib may find it at once, or inflate
	# it into wrong bytes that show as a frame no packet can carry (gzip's CRC
	# comes only at the end: what was inflated before is published).  Either
	# way the replay stops, named, after an end of session.
	cp "$T_TMP/day.gz" "$T_TMP/bad.gz"
	printf 'garbage!garbage!garbage!garbage!' |
		dd of="$T_TMP/bad.gz" bs=1 seek=$((gsize / 2)) conv=notrunc 2>/dev/null
	replay badgz --replay "$T_TMP/bad.gz" --speed max
	expect_eq "bad gzip: exit status" "$(cat "$T_TMP/badgz.rc")" 1
	err=$(grep -oE "bad.gz: (corrupt gzip stream near uncompressed byte offset [0-9]*|message [0-9]* at byte offset [0-9]* is [0-9]* bytes long|truncated: message [0-9]* at uncompressed byte offset [0-9]*)" "$T_TMP/badgz.err")
	[ -n "$err" ] && ok "bad gzip: '$err'" || fail "bad gzip: $(cat "$T_TMP/badgz.err")"
	got=$(($(kv "$T_TMP/badgz.out" next_seq) - 1))
	received_ok badgz "$got"
	[ "$got" -gt $((N / 4)) ] && [ "$got" -lt "$N" ] &&
		cmp -s <(head -n $((N / 4)) "$T_TMP/badgz.dump") <(head -n $((N / 4)) "$T_TMP/day.dump") &&
		ok "bad gzip: $got messages, the first quarter of the day as in the file, then the end of session" ||
		fail "bad gzip: $got messages received, not starting as the file"
}

test_usage_errors_refused() {
	local rc
	day || return 1
	rig_up
	expect_exit 2 "--rate does not go with --replay" build/t2t-exsim --replay "$T_TMP/day.bin" --rate 100
	expect_exit 2 "--speed wants a factor" build/t2t-exsim --replay "$T_TMP/day.bin" --speed 0
	expect_exit 2 "--window goes with --replay" build/t2t-exsim --window 5000
	expect_exit 2 "a count goes with the day source" build/t2t-exsim --source gbm --symbols 5
	expect_exit 2 "--gen-day needs --messages" build/t2t-exsim --gen-day "$T_TMP/x.bin"
	expect_exit 2 "--hostile goes with --source gbm" build/t2t-exsim --hostile 1
	expect_exit 1 "messages must be" build/t2t-exsim --gen-day "$T_TMP/x.bin" --messages 10 --symbols 5
	ip netns exec "$RIG_NS_EX" build/t2t-exsim -q --feed "$RIG_GROUP" --replay "$T_TMP/nope.gz" \
		>"$T_TMP/u.out" 2>"$T_TMP/u.err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "nope.gz: No such file" "$T_TMP/u.err" && ok "missing file: exit 1, named" ||
		fail "missing file: exit $rc: $(cat "$T_TMP/u.err")"
	replay nosym --replay "$T_TMP/day.gz" --speed max --symbols MSFT,ZZZZ
	expect_eq "a symbol not in the day: exit status" "$(cat "$T_TMP/nosym.rc")" 1
	grep -q "symbols ZZZZ is not in the day's stock directory" "$T_TMP/nosym.err" &&
		ok "a symbol not in the day: named, after the session" || fail "nosym: $(cat "$T_TMP/nosym.err")"
}

run_tests "$@"
