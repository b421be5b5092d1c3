#!/bin/bash
# exsim's order port as a SoupBinTCP 3.0 server over TCP, driven by the
# test client (build/tools/order_client) from the gateway namespace:
#  - logins: the account's password and the session checked (Login
#    Rejected 'A', 'S'), a named or blank session accepted, a second
#    account numbered on its own, a second login of an account taking its
#    session over, --refuse-login; the first reply's Timestamp is the
#    order's kernel arrival;
#  - Server Heartbeats when idle, a silent client closed by the timeout;
#  - sequenced messages kept: a login from any number gets exactly the
#    messages from there, once each; a login beyond gets the next new one,
#    one older than the store keeps the oldest kept;
#  - a duplicate Order Token is ignored (no reply, counted);
#  - faults: --drop-after N by FIN and by RST (the client sees which, after
#    exactly N messages), --drop-at LIST (the session dropped three times:
#    the client reconnects, resends its orders in doubt, and has every
#    message once, the resent ones ignored), --silent-after (no heartbeat,
#    nothing read, the connection open until the client's own rule gives
#    it up), --rcvbuf with --read-pause (the client's sends block: the
#    exchange advertised a zero window);
#  - End of Session after the feed's end, on the connection up and after a
#    later login's replay; orders after it get nothing;
#  - junk clients (random bytes, half a login, a Packet Length of 0, a
#    packet before the login, a bad length, more connections than slots)
#    are closed by class while a good client trades on, undisturbed.
#
# One rig for the file; a simulator of its own per test (20 trades at
# 100.0000, then it lingers for the orders); about 40 s.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/order_client ss nstat xxd

rig_up
for _ in $(seq 20); do echo 1000000; done >"$T_TMP/prices"
LAST=24		# S O, S S, R, S Q, then the 20 trades

listening() {
	ip netns exec "$RIG_NS_EX" ss -Hltn "sport = :$RIG_ORDER_PORT" | grep -q LISTEN
}

# sim NAME [exsim options]: the simulator, its JSON in $T_TMP/NAME.json;
# returns once the order port listens and the trades are out.
sim() {
	local name=$1
	shift
	bg "$name" ip netns exec "$RIG_NS_EX" timeout 120 build/t2t-exsim -q --source gbm \
		--feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port 0 --stamp mono --prices "$T_TMP/prices" --rate 1000 \
		--linger 60000 --json "$T_TMP/$name.json" "$@"
	wait_for 5 listening || { fail "$name: no order port: $(cat "$T_TMP/$name.err")"; return 1; }
	sleep 0.3	# the warm-up and the 20 trades
}

# stop NAME: SIGTERM; it must exit 0 with its summary written.
stop() {
	local rc
	kill -TERM "$(t_pid "$1")"
	wait "$(t_pid "$1")"
	rc=$?
	[ "$rc" -eq 0 ] && [ -s "$T_TMP/$1.json" ] ||
		fail "$1: exit $rc: $(tail -3 "$T_TMP/$1.err" | tr '\n' '|')"
}

# oc NAME [client options]: the client, a buy at 100.0100 (filled at
# 100.0000: Accepted, Executed) unless told otherwise; its output in
# $T_TMP/NAME, its exit status returned.
oc() {
	local name=$1
	shift
	ip netns exec "$RIG_NS_GW" build/tools/order_client --seq $LAST --price 1000100 "$@" \
		"$RIG_IP_EX" "$RIG_ORDER_PORT" >"$T_TMP/$name" 2>&1
}

# The sequence numbers of NAME's replies, in the order they came.
seqs() {
	sed -n 's/^[AECJ] token=.* seq=\([0-9]*\)$/\1/p' "$T_TMP/$1" | tr '\n' ' '
}

# has NAME REGEX WHAT
has() {
	if grep -qE "$2" "$T_TMP/$1"; then
		ok "$1: $3"
	else
		fail "$1: $3: no line matching '$2' in: $(tr '\n' '|' <"$T_TMP/$1")"
	fi
}

# okc NAME WHAT [client options]: the client must succeed.
okc() {
	local name=$1 what=$2
	shift 2
	oc "$name" "$@" && ok "$name: $what" || fail "$name: $what: exit $?: $(tr '\n' '|' <"$T_TMP/$name")"
}

test_logins_accepted_and_rejected() {
	local J=$T_TMP/login.json ts arrive
	sim login --login T2TG:secret --login ALT:pw2 --orders-log "$T_TMP/login.csv" || return 1
	okc good "login, a buy, its replies" --orders 1
	has good "^login accepted session=EXSIM00001 seq=1$" "Login Accepted: the session, seq 1"
	expect_eq "good: its replies, numbered" "$(seqs good)" "1 2 "
	okc named "the session named" --session EXSIM00001 --orders 0
	has named "^login accepted session=EXSIM00001 seq=3$" "next new message: 3"
	okc alt "a second account: a session of its own" --login ALT:pw2 --num 2
	expect_eq "alt: numbered from 1" "$(seqs alt)" "1 2 "
	okc badpw "a wrong password: Login Rejected A" --login T2TG:wrong --expect-reject A
	okc nobody "an unknown user: Login Rejected A" --login NOBODY:secret --expect-reject A
	okc nosess "an unknown session: Login Rejected S" --session OTHER --expect-reject S
	has nosess "^login rejected reason=S$" "the reason"
	okc crossed "ALT's name with T2TG's password: A" --login ALT:secret --expect-reject A
	stop login
	expect_eq "logins: requests, accepted, rejected" \
		"$(j "$J" '.soup.logins | "\(.requests) \(.accepted) \(.rejected)"')" "7 3 4"
	expect_eq "rejects: not authorized, no session, refused" \
		"$(j "$J" '.soup.logins.rejects | "\(.not_authorized) \(.no_session) \(.refused)"')" "3 1 0"
	expect_eq "closed: rejected, logout" "$(j "$J" '.soup.closed | "\(.rejected) \(.logout)"')" "4 3"
	expect_eq "sessions: messages of T2TG, ALT" \
		"$(j "$J" '[.soup.sessions[].messages] | join(" ")')" "2 2"
	# Rig convention: the first reply's Timestamp is the order's kernel arrival.
	ts=$(sed -n 's/^A token=.* ts=\([0-9]*\) seq=1$/\1/p' "$T_TMP/good")
	arrive=$(awk -F, 'NR == 2 { print $12 }' "$T_TMP/login.csv")
	expect_eq "the Accepted's Timestamp is the order's t_arrive (--stamp mono)" "$ts" "$arrive"
	expect_eq "a wire-to-wire figure for each order" "$(j "$J" .wire_to_wire_ns.count)" 2
	expect_eq "every read had a kernel stamp" "$(j "$J" .orders.no_kernel_ts)" 0

	# A second login of the account takes the session over: the first one is closed.
	sim takeover || return 1
	bg first ip netns exec "$RIG_NS_GW" build/tools/order_client --orders 0 --expect-close \
		--timeout-ms 5000 "$RIG_IP_EX" "$RIG_ORDER_PORT"
	wait_for 3 grep -q '^login accepted' "$T_TMP/first.out"
	okc second "a second login of T2TG" --orders 1 --seq $LAST --price 1000100
	# shellcheck disable=SC2154 # bg set it
	wait "$first_pid" && ok "first: closed when the second logged in" ||
		fail "first: exit $?: $(tr '\n' '|' <"$T_TMP/first.out")"
	has first.out "^lost by=fin conn=1$" "by FIN"
	stop takeover
	expect_eq "takeovers, closed by takeover" \
		"$(j "$T_TMP/takeover.json" '"\(.soup.logins.takeovers) \(.soup.closed.takeover)"')" "1 1"

	sim refuse --refuse-login || return 1
	okc refused "--refuse-login: even T2TG:secret gets A" --expect-reject A
	stop refuse
	expect_eq "--refuse-login counted" "$(j "$T_TMP/refuse.json" .soup.logins.rejects.refused)" 1
}

# Server Heartbeats after --soup-heartbeat of silence; a client that sends
# nothing for --soup-timeout is closed.
test_heartbeats_and_the_timeout() {
	local J=$T_TMP/hb.json
	sim hb --soup-heartbeat 200 --soup-timeout 1000 || return 1
	okc beating "a quiet client that heartbeats" --orders 0 --soup-heartbeat 300 --hold-ms 1500
	expect_ge "beating: Server Heartbeats in 1.5 s" "$(kv "$T_TMP/beating" hb_in)" 5
	expect_ge "beating: its own" "$(kv "$T_TMP/beating" hb_out)" 3
	okc mute "a client that never speaks after its login" --orders 0 --soup-heartbeat 600000 \
		--expect-close --timeout-ms 3000
	has mute "^lost by=fin conn=1$" "closed by the exchange"
	stop hb
	expect_eq "closed: timeout, logout" "$(j "$J" '"\(.soup.closed.timeout) \(.soup.closed.logout)"')" "1 1"
	expect_ge "heartbeats in" "$(j "$J" .soup.heartbeats_in)" 3
	expect_ge "heartbeats out" "$(j "$J" .soup.heartbeats_out)" 8
}

test_replay_from_any_number_and_duplicate_tokens() {
	local J=$T_TMP/replay.json
	sim replay || return 1
	okc first "three orders, six replies" --orders 3
	expect_eq "first: 1..6" "$(seqs first)" "1 2 3 4 5 6 "
	okc from3 "a login from 3" --orders 0 --from 3 --max-msgs 4 --hold-ms 300
	expect_eq "from 3: exactly 3..6, once each" "$(seqs from3)" "3 4 5 6 "
	has from3 "^login accepted session=EXSIM00001 seq=3$" "Login Accepted names 3"
	expect_eq "from 3: duplicates, skipped" "$(kv "$T_TMP/from3" dup_msgs) $(kv "$T_TMP/from3" skipped)" "0 0"
	okc from6 "a login from 6" --orders 0 --from 6 --max-msgs 1 --hold-ms 300
	expect_eq "from 6: only 6" "$(seqs from6)" "6 "
	okc from7 "a login from 7, the next new one" --orders 0 --from 7 --hold-ms 300
	expect_eq "from 7: nothing" "$(seqs from7)" ""
	okc beyond "a login from 100" --orders 0 --from 100 --hold-ms 200
	has beyond "^login accepted session=EXSIM00001 seq=7$" "beyond what exists: the next new one, 7"
	okc now "a login from 0 (from now on), one order" --orders 1 --num 9
	expect_eq "from 0: only its own" "$(seqs now)" "7 8 "

	okc dup "every order sent twice" --orders 3 --num 20 --dup --hold-ms 300
	expect_eq "dup: one reply pair per order, nothing for the copies" "$(seqs dup)" "9 10 11 12 13 14 "
	expect_eq "dup: nothing extra" "$(kv "$T_TMP/dup" extra)" 0
	okc again "an order already answered, resent on another connection" --orders 1 --num 20 \
		--expect-none --timeout-ms 500
	stop replay
	expect_eq "dup_tokens" "$(j "$J" .orders.dup_tokens)" 4
	expect_eq "orders received (the duplicates left out)" "$(j "$J" .orders.received)" 7
	expect_eq "replies made, replayed" "$(j "$J" '"\(.orders.replies) \(.soup.replayed)"')" "14 5"
}

# A store of 16 messages: a login from 1 after 20 starts at the oldest kept.
test_a_bounded_store() {
	local J=$T_TMP/keep.json
	sim keep --soup-keep 16 || return 1
	okc ten "ten orders, twenty messages" --orders 10
	okc old "a login from 1" --orders 0 --from 1 --max-msgs 16 --hold-ms 200
	has old "^login accepted session=EXSIM00001 seq=5$" "Login Accepted names the oldest kept, 5"
	expect_eq "old: 5..20" "$(seqs old)" "5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
	expect_eq "old: the 4 it asked for and lost" "$(kv "$T_TMP/old" skipped)" 4
	stop keep
	expect_eq "evicted, kept from, gone" \
		"$(j "$J" '.soup.sessions[0] | "\(.evicted) \(.kept_from) \(.gone)"')" "4 5 4"
}

# A session dropped after messages 3, 7 and 10: three orders at once each
# time, the connection dropped in their middle; the client reconnects,
# asks for what it lacks and resends the orders it has no outcome for.
test_drop_at_three_times_in_the_day() {
	local J=$T_TMP/dropat.json
	sim dropat --drop-at 3,7,10 || return 1
	okc day "8 orders, 3 drops, every message once" --orders 8 --gap-ms 40 --reconnect 5 --resend \
		--timeout-ms 10000
	expect_eq "day: 1..16, in order, once each" "$(seqs day)" \
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
	expect_eq "day: connections, lost by FIN" "$(kv "$T_TMP/day" connections) $(grep -c '^lost by=fin' "$T_TMP/day")" "4 3"
	expect_eq "day: orders over, nothing extra, no duplicate handed on" \
		"$(kv "$T_TMP/day" orders_over) $(kv "$T_TMP/day" extra) $(kv "$T_TMP/day" dup_msgs)" "8 0 0"
	stop dropat
	expect_eq "faults: fin, rst; closed by fault" \
		"$(j "$J" '"\(.soup.faults.fin) \(.soup.faults.rst) \(.soup.closed.fault)"')" "3 0 3"
	expect_eq "orders received once each" "$(j "$J" .orders.received)" 8
	# Orders 2 and 4 had their Accepted only: resent, and ignored.
	expect_ge "resent orders in doubt ignored (dup_tokens)" "$(j "$J" .orders.dup_tokens)" 2
}

test_drop_after_by_fin_and_by_rst() {
	local how
	for how in fin rst; do
		sim "drop_$how" --drop-after "4:$how" || return 1
		okc "$how" "dropped after 4 messages" --orders 3 --gap-ms 50 --expect-close --timeout-ms 3000
		expect_eq "$how: the messages before the drop" "$(seqs "$how")" "1 2 3 4 "
		has "$how" "^lost by=$how conn=1$" "the connection ended by $how"
		# Every connection, every 4 messages: 5 orders, 10 messages, 3 connections.
		okc "${how}_again" "reconnecting through every drop" --orders 5 --gap-ms 40 \
			--num 10 --reconnect 5 --resend --timeout-ms 8000
		expect_eq "${how}_again: 5..14 once each" "$(seqs "${how}_again")" \
			"5 6 7 8 9 10 11 12 13 14 "
		expect_eq "${how}_again: connections" "$(kv "$T_TMP/${how}_again" connections)" 3
		stop "drop_$how"
		expect_ge "$how: drops counted" "$(j "$T_TMP/drop_$how.json" ".soup.faults.$how")" 3
		expect_eq "$how: a reset only once all was acknowledged" \
			"$(j "$T_TMP/drop_$how.json" .soup.faults.rst_unacked)" 0
	done
}

# No heartbeat and nothing read after 2 messages: the client's own rule
# (1.5 s here) must find it, while the exchange keeps the connection open
# with the unread order in its receive queue.
test_silent_after() {
	local J=$T_TMP/silent.json q
	sim silent --silent-after 2 || return 1
	bg quiet ip netns exec "$RIG_NS_GW" build/tools/order_client --seq $LAST --price 1000100 \
		--orders 2 --gap-ms 100 --soup-timeout 1500 --soup-heartbeat 5000 --expect-close \
		--timeout-ms 5000 "$RIG_IP_EX" "$RIG_ORDER_PORT"
	sleep 0.8
	q=$(ip netns exec "$RIG_NS_EX" ss -Htn state established "sport = :$RIG_ORDER_PORT" | awk '{ print $1 }')
	expect_eq "while silent: the connection open, the second order unread (Recv-Q)" "$q" 52
	# shellcheck disable=SC2154 # bg set it
	wait "$quiet_pid" && ok "quiet: the client gave the connection up" ||
		fail "quiet: exit $?: $(tr '\n' '|' <"$T_TMP/quiet.out")"
	expect_eq "quiet: the messages before the silence" "$(seqs quiet.out)" "1 2 "
	has quiet.out "^lost by=silence conn=1$" "lost by the client's silence rule"
	expect_eq "quiet: no heartbeat came" "$(kv "$T_TMP/quiet.out" hb_in)" 0
	stop silent
	expect_eq "silent counted; the connection closed by the peer" \
		"$(j "$J" '"\(.soup.faults.silent) \(.soup.closed.peer)"')" "1 1"
	expect_eq "only the first order was read" "$(j "$J" .orders.received)" 1
}

# A 2 KB receive buffer read 52 bytes every 5 ms: the client's 400 orders
# (20 KB) outrun it, its socket (4 KB) fills, the window closes; all are
# answered in the end.
test_tiny_rcvbuf_blocks_the_client() {
	local J=$T_TMP/slow.json zw0 zw1 probes0 probes1 snap
	sim slow --rcvbuf 2048 --read-pause 5 || return 1
	zw0=$(ip netns exec "$RIG_NS_EX" nstat -asz TcpExtTCPToZeroWindowAdv | awk '/TCPToZero/ { print $2 }')
	probes0=$(ip netns exec "$RIG_NS_GW" nstat -asz TcpExtTCPWinProbe | awk '/WinProbe/ { print $2 }')
	bg flood ip netns exec "$RIG_NS_GW" build/tools/order_client --seq $LAST --price 1000100 \
		--orders 400 --sndbuf 4096 --timeout-ms 30000 "$RIG_IP_EX" "$RIG_ORDER_PORT"
	sleep 1
	snap=$(ip netns exec "$RIG_NS_EX" ss -Htmi state established "sport = :$RIG_ORDER_PORT")
	echo "$snap" >"$T_TMP/slow.ss"
	grep -qE 'skmem:\(r[0-9]+,rb[0-9]{4},' "$T_TMP/slow.ss" &&
		ok "ss -tmi: the exchange's receive buffer is a few KB: $(grep -oE 'skmem:\([^)]*\)' "$T_TMP/slow.ss")" ||
		fail "ss -tmi: $(tr '\n' ' ' <"$T_TMP/slow.ss")"
	# shellcheck disable=SC2154 # bg set it
	wait "$flood_pid" && ok "flood: all 400 orders answered" ||
		fail "flood: exit $?: $(tail -20 "$T_TMP/flood.out" | tr '\n' '|')"
	expect_ge "flood: its sends blocked" "$(kv "$T_TMP/flood.out" send_blocked)" 1
	zw1=$(ip netns exec "$RIG_NS_EX" nstat -asz TcpExtTCPToZeroWindowAdv | awk '/TCPToZero/ { print $2 }')
	probes1=$(ip netns exec "$RIG_NS_GW" nstat -asz TcpExtTCPWinProbe | awk '/WinProbe/ { print $2 }')
	expect_ge "the exchange advertised a zero window (TcpExtTCPToZeroWindowAdv)" "$((${zw1:-0} - ${zw0:-0}))" 1
	echo "note: zero window probes from the client: $((${probes1:-0} - ${probes0:-0}))"
	stop slow
	expect_eq "orders received" "$(j "$J" .orders.received)" 400
	expect_ge "read pauses" "$(j "$J" .soup.faults.read_pauses)" 400
}

# The feed ends 1.5 s after its trades: End of Session on the connection up
# (after its replies), and to a login that comes later (after its replay);
# an order after the end gets nothing.
test_end_of_session() {
	local J=$T_TMP/eos.json
	sim eos --linger 1500 --grace 200 --after-end 4000 || return 1
	okc up "a connection up when the session ends" --orders 1 --until-end --timeout-ms 4000
	expect_eq "up: its replies, then End of Session" "$(seqs up)" "1 2 "
	has up "^end of session seq=3$" "End of Session after message 2"
	okc later "a login after the end, from 1" --orders 0 --from 1 --until-end --timeout-ms 2000
	expect_eq "later: the replay" "$(seqs later)" "1 2 "
	has later "^end of session seq=3$" "then End of Session"
	okc late "an order after the end" --orders 1 --num 5 --expect-none --timeout-ms 500
	stop eos
	expect_eq "End of Session sent, ended" "$(j "$J" '"\(.soup.end_of_session) \(.soup.ended)"')" "3 true"
	expect_eq "the late order ignored" "$(j "$J" '"\(.orders.after_end) \(.orders.received)"')" "1 1"
}

# junk NAME WHAT HEX [client options]: bytes that get the connection closed.
junk() {
	local name=$1 what=$2 hex=$3
	shift 3
	oc "$name" --raw "$hex" --expect-close --timeout-ms 4000 "$@" &&
		ok "$name: $what: closed ($(kv "$T_TMP/$name" closed))" ||
		fail "$name: $what: exit $?: $(tr '\n' '|' <"$T_TMP/$name")"
}

test_junk_clients_never_disturb_a_good_one() {
	local J=$T_TMP/junk.json half
	# The junk that logs in uses an account of its own: a login of the good
	# client's would take its session over, as it should.
	sim junk --soup-timeout 2000 --login T2TG:secret --login JUNK:junk || return 1
	bg good ip netns exec "$RIG_NS_GW" build/tools/order_client --seq $LAST --price 1000100 \
		--orders 120 --gap-ms 40 --timeout-ms 20000 "$RIG_IP_EX" "$RIG_ORDER_PORT"
	half=$(printf '%-6s%-10s%10s%20s' T2TG secret '' 1 | head -c 20 | xxd -p)
	junk random "200 random bytes, no login" "$(head -c 200 /dev/urandom | xxd -p | tr -d '\n')" --no-login
	junk halflogin "half a Login Request, then nothing" "002f$(printf L | xxd -p)$half" --no-login
	junk zero "a Packet Length of 0 after a login" 0000 --login JUNK:junk
	junk before "a heartbeat before the login" 000152 --no-login
	junk badlen "a Client Heartbeat with a payload" 00025200 --login JUNK:junk
	junk second "a second Login Request" \
		"002f$(printf 'L%-6s%-10s%10s%20s' JUNK junk '' 0 | xxd -p | tr -d '\n')" --login JUNK:junk
	# More connections than the server's 64 slots, held open without a word
	# until the server's 2 s rule closes them.
	ip netns exec "$RIG_NS_GW" bash -c 'for i in $(seq 70); do exec {f}<>"/dev/tcp/$1/$2" || exit 1; done; sleep 3' \
		_ "$RIG_IP_EX" "$RIG_ORDER_PORT" && ok "70 idle connections opened" || fail "idle connections: $?"
	# shellcheck disable=SC2154 # bg set it
	wait "$good_pid" && ok "good: its 120 orders answered meanwhile" ||
		fail "good: exit $?: $(tail -20 "$T_TMP/good.out" | tr '\n' '|')"
	expect_eq "good: 1..240 once each, nothing extra, one connection" \
		"$(seqs good.out | wc -w) $(kv "$T_TMP/good.out" first_seq) $(kv "$T_TMP/good.out" last_seq) $(kv "$T_TMP/good.out" extra) $(kv "$T_TMP/good.out" connections)" \
		"240 1 240 0 1"
	stop junk
	jq -c .soup.closed "$J"
	expect_eq "closed: broken (length 0), before login, malformed (bad length, second login)" \
		"$(j "$J" '"\(.soup.closed.broken >= 1) \(.soup.closed.before_login >= 1) \(.soup.closed.malformed >= 2)"')" \
		"true true true"
	expect_ge "closed: timeout (half a login, the idle ones)" "$(j "$J" .soup.closed.timeout)" 50
	expect_ge "closed: no slot left" "$(j "$J" .soup.closed.full)" 1
	expect_eq "the orders are the good client's" "$(j "$J" '.orders.received')" 120
}

run_tests "$@"
