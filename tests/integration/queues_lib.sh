# The runs on a rig of several queues and their checks, shared by
# gateway_queues.sh (make test) and gateway_queues_matrix.sh (make
# queues-matrix).  Sourced after tests/lib.sh.

SYMS=(--symbol AAPL:8 --symbol MSFT:12)

# TCP resets the gateway namespace's kernel has sent (as nstat's TcpOutRsts).
out_rsts() {
	nsenter --net="$RIG_NETNS_GW" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++)
		if ($i == "OutRsts") c = i; h = 1 } else print $c }' /proc/net/snmp
}

# run NAME GATEWAY_OPTS -- EXSIM_OPTS: one run on the current rig, COUNT
# ticks (4,000 by default) at 4,000/s; the resets sent during it in
# $T_TMP/NAME.rsts.
run() {
	local name=$1 gw=() ex=() rsts
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do gw+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	ex=("$@")
	rsts=$(out_rsts)
	gw_start "$name" --feed-source "$RIG_IP_EX" "${SYMS[@]}" --feed-clock mono --exit-on-end \
		--grace 1 --duration 60 --orders-out "$T_TMP/$name.orders.csv" "${gw[@]}" || return 1
	ex_start "$name" --source gbm --stamp mono --symbols AAPL,MSFT --count "${COUNT:-4000}" \
		--rate 4000 --noise 0.3 --record "$T_TMP/$name.ticks.csv" "${ex[@]}"
	ex_wait "$name" || { fail "$name: exsim: $(tail -2 "$T_TMP/$name.ex.err")"; return 1; }
	gw_wait "$name" 20 || { fail "$name: gateway: $(tail -2 "$T_TMP/$name.gw.err")"; return 1; }
	echo $(($(out_rsts) - rsts)) >"$T_TMP/$name.rsts"
}

# What every run on several queues must show, as on one queue.
as_on_one_queue() {
	local name=$1 gw=$T_TMP/$1.gw.json ex=$T_TMP/$1.ex.json
	expect_eq "$name: every message decoded once, the session not stale" \
		"$(j "$gw" .feed.messages) $(j "$gw" .gaps.stale)" "$(j "$ex" .messages) false"
	expect_eq "$name: one login" "$(j "$gw" .order_session.logins)" 1
	expect_eq "$name: the gateway namespace's kernel sent no TCP reset" \
		"$(cat "$T_TMP/$name.rsts")" 0
	expect_eq "$name: nothing unserved, nothing dropped" \
		"$(j "$gw" '.xdp.unserved + ([.queue_table[].dropped] | add)')" 0
	build/t2t-backtest --ticks "$T_TMP/$name.ticks.csv" "${SYMS[@]}" -o "$T_TMP/$name.bt.csv" \
		2>/dev/null
	scripts/parity.sh "$T_TMP/$name.bt.csv" "$T_TMP/$name.orders.csv" "$gw" \
		>"$T_TMP/$name.parity" 2>&1
	expect_eq "$name: parity with the backtester ($(head -1 "$T_TMP/$name.parity"))" \
		"$(tail -1 "$T_TMP/$name.parity")" "parity: ok"
	check "$name: positions and cash reconciled" \
		diff <(jq -r '.symbols[] | "\(.symbol) \(.position) \(.cash)"' "$gw" | sort) \
		     <(jq -r '.positions[] | "\(.symbol) \(.position) \(.cash)"' "$ex" | sort)
	echo "note: $name: $(jq -c '[.queue_table[] | select(.received > 0) |
		"\(.line)\(.queue): feed \(.feed) retrans \(.retrans) orders \(.orders)"]' "$gw")"
}

# Every queue served; the exchange's flows all off queue 0 (XPS).
off_queue_0() {
	local gw=$T_TMP/$1.gw.json
	expect_eq "$1: $2 queues served" "$(j "$gw" '[.queue_table[] | select(.served)] | length')" "$2"
	expect_eq "$1: nothing landed on queue 0" "$(j "$gw" '.queue_table[0].received')" 0
	check "$1: the feed landed on another queue" \
		test "$(j "$gw" '[.queue_table[1:][].feed] | add')" -gt 0
}

