#!/bin/bash
# The whole matrix behind gateway_queues.sh (make queues-matrix, not make
# test): 4 and 8 queues; every flow off queue 0 by XPS, or spread by hash
# with 1 % of the feed lost; the own TCP and the kernel's; generic and
# driver mode; one feed line and two.  Each run as on one queue: every
# message decoded once, one login, parity, reconciliation, no TCP reset.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest
. "$(dirname "$0")/queues_lib.sh"

# cell QUEUES SPREAD STACK MODE LINES
cell() {
	local nq=$1 spread=$2 stack=$3 mode=$4 lines=$5 name gw=() ex=() tag
	name=m$nq${spread:0:1}${stack:0:1}${mode:0:1}$lines
	# Rig tags are two characters: line B's rigs in capitals.
	tag=$nq${spread:0:1}
	[ "$lines" = 2 ] && tag=${tag^^}
	if [ "$lines" = 2 ]; then
		rig_up "$tag" --queues "$nq" --spread "$spread" --line-b "$(t_subnet "${tag}B")"
		gw=(--line-b "$RIG_IF_GW_B" --feed-b "$RIG_GROUP_B:$RIG_FEED_PORT"
		    --feed-source-b "$RIG_IP_EX_B")
		ex=(--line-b "$RIG_GROUP_B:$RIG_FEED_PORT" --b-drop-rate 0.01 --b-delay-us 30)
	else
		rig_up "$tag" --queues "$nq" --spread "$spread"
	fi
	[ "$spread" = hash ] && ex+=(--drop-rate 0.01)
	run "$name" --xdp-mode "$mode" --order-stack "$stack" "${gw[@]}" -- "${ex[@]}" || return 1
	as_on_one_queue "$name"
	[ "$spread" = cpu ] && off_queue_0 "$name" $((nq * lines))
	return 0
}

test_matrix() {
	local nq spread stack mode lines
	for nq in 4 8; do
		for spread in cpu hash; do
			for stack in own kernel; do
				for mode in generic drv; do
					for lines in 1 2; do
						cell "$nq" "$spread" "$stack" "$mode" "$lines"
					done
				done
			done
		done
	done
}

run_tests "$@"
