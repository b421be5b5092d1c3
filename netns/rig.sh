#!/bin/bash
# The rig: an exchange namespace and a gateway namespace joined by one veth
# pair, configured the way the gateway needs it.
#
#   netns/rig.sh [options] up|down|status|env|netem SPEC
#
#   --prefix P     names: namespaces P-ex, P-gw; veth P-vex (exchange side),
#                  P-vgw (gateway side).  Env RIG_PREFIX.  Default t2t.
#                  At most 11 characters of [A-Za-z0-9_] (veth names <= 15).
#   --subnet S     a /24, "10.201.0.0/24" or "10.201.0"; the exchange gets .1,
#                  the gateway .2.  Env RIG_SUBNET.  Default 10.201.0.0/24.
#   --group G      feed multicast group.  Env RIG_GROUP.  Default 239.1.1.1.
#   --line-b S     a second feed line: another veth pair, P-vxb (exchange
#                  side) and P-vgb (gateway side), on the /24 S (.1 and .2),
#                  carrying the B group.  Env RIG_LINE_B.  Default: none.
#   --group-b G    the B line's group.  Env RIG_GROUP_B.  Default 239.1.1.2.
#   --queues N     N receive and N transmit queues at both ends of each veth
#                  pair (1 to 64; default 1, veth's own default).  Env
#                  RIG_QUEUES.  veth delivers a frame on the peer's receive
#                  queue of the sender's transmit queue, so the exchange's
#                  choice of transmit queue plays the part of a NIC's RSS.
#   --spread S     how the exchange spreads its flows over them: hash (the
#                  kernel's flow hash per flow: no XPS; the default) or cpu
#                  (XPS: each CPU's sends leave on one queue, --xps).  Env
#                  RIG_SPREAD.
#   --xps MAP      with --spread cpu: CPU:QUEUE,... (e.g. 0:5,1:6).  Default:
#                  CPU c on queue N-1-(c mod N), which keeps every flow off
#                  queue 0 when N > 2 and the machine has N-1 CPUs or fewer.
#                  Env RIG_XPS.
#   --line a|b     which line's exchange side netem acts on (default a).
#   --dir D        which way netem hurts that line: both (default), out
#                  (exchange -> gateway) or in (gateway -> exchange).
#
# Two rigs with different prefixes never touch each other (each lives in its
# own namespaces); give them different subnets too so that captures and logs
# cannot be confused.
#
# up      create or complete the rig; safe to repeat.  With --owner PID
#         (env RIG_OWNER: the tests and scripts set it, scripts/rig_names.sh)
#         the owner is recorded in /run/t2t-rigs/P, and every up first
#         takes down the recorded rigs whose owner is gone (killed before
#         its cleanup trap could run: SIGKILL, a machine that went away).
#         A rig made by hand has no owner and is never taken down so.
# down    remove whatever of the rig exists (also after a half-failed up),
#         and its owner's record; safe to repeat.
# status  show it (netem included); exit 0 when complete, 1 when partial,
#         2 when absent.
# env     print shell assignments for scripts: eval "$(netns/rig.sh env)".
# netem SPEC  network faults on the line, both on the exchange side, each
#         way through an ifb of its own: out on its veth's egress,
#         redirected through P-oex (line B P-oxb; line A: feed, order
#         replies, re-request answers; line B: its feed), in on its veth's
#         ingress, through P-iex (P-ixb): the gateway's AF_XDP TX passes no
#         qdisc and no tc hook of its own veth.  The ifb sends each frame on
#         afresh: a duplicate made by tc on the veth itself would reach the
#         gateway marked as redirected, and generic XDP passes such frames
#         to the kernel unseen.  SPEC as for tc netem, e.g.
#         "loss 2% duplicate 1% reorder 20% delay 1ms", or "off".  Each call
#         replaces the line's faults; "off" and down remove them, ifb
#         included.  Without sch_netem in the kernel: loss/duplicate by a tc
#         BPF program (build/tools/vethfault; a loss is lost on the wire, the
#         sender's TCP must resend it), reorder P% by sending P% of the
#         frames through a slow HTB class (a 100-byte frame takes DELAY)
#         where they queue while later frames overtake them.
set -euo pipefail

PROG=${0##*/}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

# The comment block at the top of this file.
usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
	exit 2
}

prefix=${RIG_PREFIX:-t2t}
subnet=${RIG_SUBNET:-10.201.0.0/24}
group=${RIG_GROUP:-239.1.1.1}
subnet_b=${RIG_LINE_B:-}
group_b=${RIG_GROUP_B:-239.1.1.2}
queues=${RIG_QUEUES:-1}
spread=${RIG_SPREAD:-hash}
xps=${RIG_XPS:-}
line=a
dir=both
cmd=
netem_spec=
owner=${RIG_OWNER:-}
OWNERS=/run/t2t-rigs

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
	--owner) [ $# -ge 2 ] || usage; owner=$2; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--subnet) [ $# -ge 2 ] || usage; subnet=$2; shift 2 ;;
	--subnet=*) subnet=${1#*=}; shift ;;
	--group) [ $# -ge 2 ] || usage; group=$2; shift 2 ;;
	--group=*) group=${1#*=}; shift ;;
	--line-b) [ $# -ge 2 ] || usage; subnet_b=$2; shift 2 ;;
	--group-b) [ $# -ge 2 ] || usage; group_b=$2; shift 2 ;;
	--queues) [ $# -ge 2 ] || usage; queues=$2; shift 2 ;;
	--queues=*) queues=${1#*=}; shift ;;
	--spread) [ $# -ge 2 ] || usage; spread=$2; shift 2 ;;
	--spread=*) spread=${1#*=}; shift ;;
	--xps) [ $# -ge 2 ] || usage; xps=$2; shift 2 ;;
	--line) [ $# -ge 2 ] || usage; line=$2; shift 2 ;;
	--dir) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
	--dir=*) dir=${1#*=}; shift ;;
	-h|--help) usage ;;
	up|down|status|env) [ -z "$cmd" ] || usage; cmd=$1; shift ;;
	netem) [ -z "$cmd" ] || usage; [ $# -ge 2 ] || usage; cmd=$1; netem_spec=$2; shift 2 ;;
	*) echo "$PROG: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$cmd" ] || usage

# ---- names and addresses, all derived from prefix, subnet and group ----

[[ "$prefix" =~ ^[A-Za-z0-9_]{1,11}$ ]] ||
	die "prefix '$prefix': use 1-11 characters of [A-Za-z0-9_] (interface names are limited to 15)"

octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
if [[ "$subnet" =~ ^($octet\.$octet\.$octet)(\.0/24)?$ ]]; then
	base=${BASH_REMATCH[1]}
else
	die "subnet '$subnet': give a /24 as A.B.C.0/24 or A.B.C"
fi
if [[ "$group" =~ ^$octet\.$octet\.$octet\.$octet$ ]] &&
   [ "${BASH_REMATCH[1]}" -ge 224 ] && [ "${BASH_REMATCH[1]}" -le 239 ]; then
	IFS=. read -r _ g2 g3 g4 <<<"$group"
else
	die "group '$group': not an IPv4 multicast address (224.0.0.0/4)"
fi
IFS=. read -r _ s2 s3 <<<"$base"
base_b=
if [ -n "$subnet_b" ]; then
	[[ "$subnet_b" =~ ^($octet\.$octet\.$octet)(\.0/24)?$ ]] ||
		die "--line-b '$subnet_b': give a /24 as A.B.C.0/24 or A.B.C"
	base_b=${BASH_REMATCH[1]}
	[ "$base_b" != "$base" ] || die "--line-b: line B needs a /24 of its own, not $base.0/24"
	[[ "$group_b" =~ ^$octet\.$octet\.$octet\.$octet$ ]] &&
		[ "${BASH_REMATCH[1]}" -ge 224 ] && [ "${BASH_REMATCH[1]}" -le 239 ] ||
		die "--group-b '$group_b': not an IPv4 multicast address"
	[ "$group_b" != "$group" ] || die "--group-b: line B needs a group of its own"
fi
case "$line" in a|b) ;; *) die "--line is a or b" ;; esac
[[ "$queues" =~ ^[0-9]+$ ]] && [ "$queues" -ge 1 ] && [ "$queues" -le 64 ] ||
	die "--queues '$queues': give 1 to 64"
case "$spread" in hash|cpu) ;; *) die "--spread is hash or cpu" ;; esac
[ -z "$xps" ] || [ "$spread" = cpu ] || die "--xps goes with --spread cpu"
[ -z "$xps" ] || [[ "$xps" =~ ^[0-9]+:[0-9]+(,[0-9]+:[0-9]+)*$ ]] ||
	die "--xps '$xps': give CPU:QUEUE,... such as 0:5,1:6"
case "$dir" in both|in|out) ;; *) die "--dir is both, in or out" ;; esac

ns_ex=$prefix-ex
ns_gw=$prefix-gw
if_ex=$prefix-vex
if_gw=$prefix-vgw
if_ex_b=$prefix-vxb
if_gw_b=$prefix-vgb
# The ifbs that carry each line's incoming frames through netem "in".
ifb_ex=$prefix-iex
ifb_ex_b=$prefix-ixb
ifb_out=$prefix-oex
ifb_out_b=$prefix-oxb
ip_ex=$base.1
ip_gw=$base.2
ip_ex_b=$base_b.1
ip_gw_b=$base_b.2
plen=24
# Locally administered (02:...), fixed, and distinct per subnet, so a capture
# shows which rig a frame came from; the gateway writes these into frames it
# builds itself, so they must not change under it.
mac_ex=$(printf '02:74:32:%02x:%02x:01' "$s2" "$s3")
mac_gw=$(printf '02:74:32:%02x:%02x:02' "$s2" "$s3")
if [ -n "$base_b" ]; then
	IFS=. read -r _ b2 b3 <<<"$base_b"
	mac_ex_b=$(printf '02:74:42:%02x:%02x:01' "$b2" "$b3")
	mac_gw_b=$(printf '02:74:42:%02x:%02x:02' "$b2" "$b3")
fi
# RFC 1112 mapping of the group to an Ethernet multicast address.
group_mac=$(printf '01:00:5e:%02x:%02x:%02x' $((g2 & 127)) "$g3" "$g4")
# Conventions for the applications (nothing in the kernel depends on them).
feed_port=${RIG_FEED_PORT:-26400}
order_port=${RIG_ORDER_PORT:-26401}
rereq_port=${RIG_REREQUEST_PORT:-26403}

# ---- helpers ----

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		die "must run as root: '$cmd' creates and inspects network namespaces"
}

need_tools() {
	local t
	for t in ip ethtool; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' not found: run scripts/deps.sh (as root) to install iproute2 and ethtool"
	done
}

ns_exists() {
	[ -e "/var/run/netns/$1" ]
}

# link_in NS IF: the interface exists in that namespace.
link_in() {
	ip -n "$1" link show dev "$2" >/dev/null 2>&1
}

run() {
	"$@" || die "failed: $*"
}

# nsrun NS CMD...: run a command inside a namespace.
nsrun() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# ---- up ----

# One end of the veth, in its namespace, configured: the steps are all
# "set to this value" operations, so repeating them is harmless.
setup_end() {
	local ns=$1 dev=$2 mac=$3 ip=$4 peer_ip=$5 peer_mac=$6 grp=$7 a

	run ip -n "$ns" link set dev lo up

	# Fixed MACs: the AF_XDP gateway writes Ethernet headers itself.
	run ip -n "$ns" link set dev "$dev" address "$mac"

	# No IPv6 on the veth: otherwise router solicitations, MLD reports and
	# DAD probes cross the pair and land in the XDP program.
	if nsrun "$ns" test -w "/proc/sys/net/ipv6/conf/$dev/disable_ipv6"; then
		run nsrun "$ns" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$dev/disable_ipv6"
	fi

	# Offloads off, so that what crosses the pair is a valid frame as it
	# stands: an XDP program (the gateway's, and generic mode alike) sees
	# the skb as the sender's kernel built it, and the gateway's own TCP
	# takes it as it is.  tx: else veth passes partial UDP/TCP checksums
	# (AF_XDP sees them as they are, a kernel socket drops them; see
	# docs/platform.md).  tso: else veth passes TCP super-segments larger
	# than the MTU; tx off drops most of TSO but, on 6.18, leaves
	# tx-tcp-accecn-segmentation on.  gro (veth's default, made explicit):
	# else a receiving end in NAPI mode (XDP attached) may merge segments
	# before its tc ingress (netem "in") and stack.  Not gso: the kernel
	# cuts a TCP skb into segments in software before the veth whatever
	# that flag says; gso_max_segs below is what makes skbs single ones.
	run nsrun "$ns" ethtool -K "$dev" tx off tso off gro off >/dev/null

	# The queues in use (one, veth's default, unless --queues): the
	# gateway opens an AF_XDP socket on each (--queues all).
	run nsrun "$ns" ethtool -L "$dev" rx "$queues" tx "$queues"

	# Exactly our address: drop any other IPv4 address (a rig re-upped
	# with another subnet), then set ours.
	for a in $(ip -n "$ns" -4 -o addr show dev "$dev" | awk '{print $4}'); do
		[ "$a" = "$ip/$plen" ] || run ip -n "$ns" addr del "$a" dev "$dev"
	done
	run ip -n "$ns" addr replace "$ip/$plen" dev "$dev"
	run ip -n "$ns" link set dev "$dev" up

	# Static neighbour: no ARP request/reply on the hot path, and the
	# first tick is not delayed by resolution.
	run ip -n "$ns" neigh replace "$peer_ip" lladdr "$peer_mac" dev "$dev" nud permanent

	# The feed group leaves (exchange) or is joined (gateway) via the
	# veth; there is no default route in a fresh namespace, so without
	# this a send to the group fails with ENETUNREACH and a join on
	# INADDR_ANY fails with ENODEV.
	run ip -n "$ns" route replace "$grp/32" dev "$dev" src "$ip"
}

# exchange_end DEV: what only the exchange end needs.  Its TCP builds skbs
# of many segments (GSO, whatever the device's gso flag) and the kernel cuts
# them only after the tc egress hook, so netem "out" would drop, duplicate
# or delay 20-odd segments at a time (measured: 58 skbs for 1393 segments);
# one segment per skb makes its faults per segment, as on a wire.  Then the
# spread of its flows over the queues (XPS).
exchange_end() {
	run ip -n "$ns_ex" link set dev "$1" gso_max_segs 1
	spread_flows "$1"
}

# The CPUs (a hex mask) whose sends leave on transmit queue $2, out of $1
# queues, by --xps or its default.
xps_mask() {
	local n=$1 k=$2 ncpu c q m=0 pair
	ncpu=$(nproc --all)
	if [ -n "$xps" ]; then
		for pair in ${xps//,/ }; do
			c=${pair%%:*}
			q=${pair##*:}
			[ "$q" -lt "$n" ] || die "--xps $pair: queue $q, but the rig has $n"
			[ "$c" -lt "$ncpu" ] || die "--xps $pair: CPU $c, but the machine has $ncpu"
			[ "$q" -ne "$k" ] || m=$((m | 1 << c))
		done
	else
		for ((c = 0; c < ncpu; c++)); do
			q=$((n - 1 - c % n))
			[ "$q" -ne "$k" ] || m=$((m | 1 << c))
		done
	fi
	printf '%x' "$m"
}

# spread_flows DEV: XPS on the exchange's veth.  hash clears it: each flow
# then leaves on the queue its hash picks (a TCP connection's may change
# after a retransmission timeout, as the kernel rehashes it); cpu sets it.
spread_flows() {
	local dev=$1 k mask
	# One queue: nothing to spread (and a single-queue device has no XPS).
	[ "$queues" -gt 1 ] || return 0
	for ((k = 0; k < queues; k++)); do
		mask=0
		[ "$spread" = hash ] || mask=$(xps_mask "$queues" "$k")
		nsrun "$ns_ex" sh -c "echo $mask > /sys/class/net/$dev/queues/tx-$k/xps_cpus" ||
			die "cannot set XPS on $dev tx-$k (a kernel without CONFIG_XPS?)"
	done
}

# The most queues the pair was made with (ethtool's pre-set maximum), or 0.
max_queues() {
	ip netns exec "$1" ethtool -l "$2" 2>/dev/null |
		awk '/^Pre-set/ {pre = 1} pre && /^RX:/ {print $2; exit}' || echo 0
}

# make_pair EX_DEV GW_DEV: the veth pair, made anew unless both ends are
# where they belong.
make_pair() {
	if ! link_in "$ns_ex" "$1" || ! link_in "$ns_gw" "$2" ||
	   [ "$(max_queues "$ns_ex" "$1")" -lt "$queues" ]; then
		# A half-made pair (one end missing or in the wrong place), or
		# one with fewer queues than asked, cannot be completed: remove
		# what exists and make it anew.
		remove_pair "$1" "$2"
		# Both ends created directly inside their namespaces, never in
		# the caller's: nothing appears outside the rig, even briefly.
		run ip -n "$ns_ex" link add "$1" numtxqueues "$queues" numrxqueues "$queues" \
			type veth peer name "$2" netns "$ns_gw" \
			numtxqueues "$queues" numrxqueues "$queues"
	fi
}

# A process's start time (clock ticks since boot): with its PID, it names the
# process even after the PID is reused.  Empty when there is no such process.
start_of() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	# shellcheck disable=SC2086 # fields
	set -- $stat
	echo "${20}"
}

# Record who owns this rig, so that a later up can tell it was left behind.
own() {
	local t
	t=$(start_of "$owner")
	[ -n "$t" ] || die "--owner $owner: no such process"
	mkdir -p "$OWNERS"
	echo "$owner $t" >"$OWNERS/$prefix"
}

# Take down the recorded rigs whose owner no longer runs.
reap() {
	local f pid t p
	[ -d "$OWNERS" ] || return 0
	for f in "$OWNERS"/*; do
		[ -f "$f" ] || continue
		p=${f##*/}
		[ "$p" = "$prefix" ] && continue
		read -r pid t <"$f" 2>/dev/null || continue
		[ -n "$pid" ] && [ "$(start_of "$pid")" = "$t" ] && continue
		echo "$PROG: rig $p was left behind by process $pid, which is gone: taking it down" >&2
		"$0" --prefix "$p" down >/dev/null || true
	done
}

do_up() {
	need_root
	need_tools

	reap
	[ -z "$owner" ] || own
	ns_exists "$ns_ex" || run ip netns add "$ns_ex"
	ns_exists "$ns_gw" || run ip netns add "$ns_gw"

	make_pair "$if_ex" "$if_gw"
	setup_end "$ns_ex" "$if_ex" "$mac_ex" "$ip_ex" "$ip_gw" "$mac_gw" "$group"
	exchange_end "$if_ex"
	setup_end "$ns_gw" "$if_gw" "$mac_gw" "$ip_gw" "$ip_ex" "$mac_ex" "$group"
	if [ -n "$base_b" ]; then
		make_pair "$if_ex_b" "$if_gw_b"
		setup_end "$ns_ex" "$if_ex_b" "$mac_ex_b" "$ip_ex_b" "$ip_gw_b" "$mac_gw_b" "$group_b"
		exchange_end "$if_ex_b"
		setup_end "$ns_gw" "$if_gw_b" "$mac_gw_b" "$ip_gw_b" "$ip_ex_b" "$mac_ex_b" "$group_b"
	else
		remove_pair "$if_ex_b" "$if_gw_b"
	fi

	echo "rig $prefix up: $ns_ex/$if_ex $ip_ex $mac_ex <-> $ns_gw/$if_gw $ip_gw $mac_gw, feed group $group"
	echo "  $queues receive and transmit queue(s) at both ends; the exchange spreads its flows by ${spread/cpu/CPU (XPS${xps:+ $xps})}"
	echo "  static neighbours both ways (no ARP), tx checksum, TSO and GRO off both ends, one segment per skb"
	echo "  on the exchange end (gso_max_segs 1), IPv6 off on the veth,"
	[ -z "$base_b" ] ||
		echo "  line B: $ns_ex/$if_ex_b $ip_ex_b <-> $ns_gw/$if_gw_b $ip_gw_b, feed group $group_b"
	echo "  route $group/32 via the veth in both namespaces, lo up; scripts: eval \"\$($0 --prefix $prefix --subnet $base.0/24 --group $group${base_b:+ --line-b $base_b.0/24} env)\""
}

# ---- down ----

# Remove a veth pair wherever its ends are: deleting one end deletes both.
# The namespaces alone would not do: a process still inside keeps its
# namespace, and the veth with it, alive.
remove_pair() {
	local ns dev
	for ns in "$ns_ex" "$ns_gw"; do
		ns_exists "$ns" || continue
		for dev in "$@"; do
			if link_in "$ns" "$dev"; then
				ip -n "$ns" link del dev "$dev" 2>/dev/null || true
			fi
		done
	done
}

# Both lines' pairs and ifbs, whether or not this call named line B.
remove_links() {
	remove_pair "$if_ex" "$if_gw"
	remove_pair "$if_ex_b" "$if_gw_b"
	remove_pair "$ifb_ex" "$ifb_ex_b"
	remove_pair "$ifb_out" "$ifb_out_b"
}

do_down() {
	local ns pids left=0
	need_root
	command -v ip >/dev/null 2>&1 ||
		die "'ip' not found: run scripts/deps.sh (as root) to install iproute2"

	remove_links
	for ns in "$ns_ex" "$ns_gw"; do
		ns_exists "$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		if [ -n "$pids" ]; then
			echo "$PROG: warning: processes still in $ns: $pids(the namespace lives on until they exit)" >&2
		fi
		ip netns del "$ns" 2>/dev/null || true
		if ns_exists "$ns"; then
			echo "$PROG: could not remove namespace $ns" >&2
			left=1
		fi
	done
	[ "$left" -eq 0 ] || exit 1
	rm -f "$OWNERS/$prefix"
	echo "rig $prefix down"
}

# ---- status ----

# One line per end: state, MAC, address, offloads, XDP; on the exchange end
# (IFB given) its netem too.
show_end() {
	local ns=$1 dev=$2 peer_ip=$3 group=${4:-$group} ifb=${5:-} ifbo=${6:-} line addr offl csum tso gro
	local segs nq xinfo xdp prog neigh route

	if ! ns_exists "$ns"; then
		echo "  $ns: absent"
		return 1
	fi
	if ! link_in "$ns" "$dev"; then
		echo "  $ns: present, $dev absent"
		return 1
	fi
	line=$(ip -n "$ns" -br link show dev "$dev")
	addr=$(ip -n "$ns" -4 -o addr show dev "$dev" | awk '{printf "%s ", $4}')
	offl=$(nsrun "$ns" ethtool -k "$dev" 2>/dev/null || true)
	csum=$(awk -F': ' '$1 == "tx-checksumming" {print $2}' <<<"$offl")
	tso=$(awk -F': ' '$1 == "tcp-segmentation-offload" {print $2}' <<<"$offl")
	gro=$(awk -F': ' '$1 == "generic-receive-offload" {print $2}' <<<"$offl")
	segs=$(ip -n "$ns" -d link show dev "$dev" | grep -oE 'gso_max_segs [0-9]+' | cut -d' ' -f2 || true)
	nq=$(nsrun "$ns" ethtool -l "$dev" 2>/dev/null |
		awk '/^Current/ {cur = 1} cur && /^(RX|TX):/ {printf "%s%s", sep, $2; sep = "/"}')
	xinfo=
	[ "$ns" != "$ns_ex" ] || xinfo=$(xps_of "$dev" "${nq%/*}")
	# ip names the attach mode on the first line ("xdp" = driver mode,
	# "xdpgeneric" = SKB mode) and the program as "prog/xdp id N".
	xdp=$(ip -n "$ns" -o link show dev "$dev" |
		grep -oE ' xdp(generic|offload|multi)? ' | tr -d ' ' || true)
	prog=$(ip -n "$ns" -d link show dev "$dev" |
		grep -oE 'prog/xdp[a-z]* id [0-9]+( name [^ ]+)?' | sed 's|^prog/xdp[a-z]*|prog|' | tr '\n' ' ' || true)
	case "$xdp" in
	xdp) xdp="driver mode, $prog" ;;
	xdpgeneric) xdp="generic (SKB) mode, $prog" ;;
	?*) xdp="$xdp, $prog" ;;
	esac
	neigh=$(ip -n "$ns" neigh show "$peer_ip" dev "$dev")
	route=$(ip -n "$ns" route show "$group/32" dev "$dev")
	echo "  $ns: $line"
	echo "      addr ${addr:-none}| queues rx/tx ${nq:-?}$xinfo"
	echo "      tx-checksumming ${csum:-?} | tso ${tso:-?} | gro ${gro:-?} | gso_max_segs ${segs:-?}"
	echo "      xdp ${xdp:-none}"
	echo "      neighbour ${neigh:-none}"
	echo "      route ${route:-$group absent}"
	[ -z "$ifb" ] || show_netem "$dev" "$ifb" "$ifbo"

	[ -n "$addr" ] && [ "$csum" = off ] && [ "$tso" = off ] && [ "$gro" = off ] &&
		{ [ "$ns" != "$ns_ex" ] || [ "$segs" = 1 ]; } && [ "${nq%/*}" = "${nq#*/}" ] &&
		[[ "$neigh" == *PERMANENT* ]] && [ -n "$route" ] &&
		[[ "$line" == *UP* ]]
}

# xps_of DEV N: ", XPS tx-K cpus MASK ..." for the queues that have one set.
xps_of() {
	local k m out=
	for ((k = 0; k < ${2:-0}; k++)); do
		m=$(nsrun "$ns_ex" cat "/sys/class/net/$1/queues/tx-$k/xps_cpus" 2>/dev/null) || continue
		m=${m//,/}
		[ -z "${m//0/}" ] || out+=" tx-$k:$m"
	done
	[ -z "$out" ] && echo ", flows by hash" || echo ", XPS$out"
}

# show_netem DEV IFB IFB_OUT: which faults the exchange veth DEV has, each way.
show_netem() {
	local dev=$1 ifb=$2 ifbo=$3 out in
	if link_in "$ns_ex" "$ifbo"; then
		if nsrun "$ns_ex" tc filter show dev "$dev" egress | grep -q "to device $ifbo)"; then
			out="$(faults_on "$ifbo") (egress via $ifbo)"
		else
			out="$ifbo left without its redirect (netem off removes it)"
		fi
	elif [ -n "$(nsrun "$ns_ex" tc filter show dev "$dev" egress)" ]; then
		out="a filter on the egress but no $ifbo (netem off removes it)"
	fi
	if link_in "$ns_ex" "$ifb"; then
		if nsrun "$ns_ex" tc filter show dev "$dev" ingress | grep -q "to device $ifb)"; then
			in="$(faults_on "$ifb") (ingress via $ifb)"
		else
			in="$ifb left without its redirect (netem off removes it)"
		fi
	elif [ -n "$(nsrun "$ns_ex" tc filter show dev "$dev" ingress)" ]; then
		in="a filter on the ingress but no $ifb (netem off removes it)"
	else
		in=off
	fi
	echo "      netem out ${out:-off} | in $in"
}

# faults_on DEV: what of netem's is on DEV's egress, or nothing.
faults_on() {
	local q what=
	q=$(nsrun "$ns_ex" tc qdisc show dev "$1")
	grep -q '^qdisc netem' <<<"$q" && what="netem qdisc,"
	[ -z "$(nsrun "$ns_ex" tc filter show dev "$1" egress)" ] || what+=" tc bpf,"
	grep -q '^qdisc htb' <<<"$q" && what+=" htb,"
	what=${what# }
	echo "${what%,}"
}

do_status() {
	local ok=0 ex_ok=1 gw_ok=1
	need_root
	need_tools

	echo "rig $prefix (subnet $base.0/24, group $group)"
	show_end "$ns_ex" "$if_ex" "$ip_gw" "$group" "$ifb_ex" "$ifb_out" || ex_ok=0
	show_end "$ns_gw" "$if_gw" "$ip_ex" || gw_ok=0
	if [ -n "$base_b" ]; then
		echo " line B (subnet $base_b.0/24, group $group_b)"
		show_end "$ns_ex" "$if_ex_b" "$ip_gw_b" "$group_b" "$ifb_ex_b" "$ifb_out_b" || ex_ok=0
		show_end "$ns_gw" "$if_gw_b" "$ip_ex_b" "$group_b" || gw_ok=0
	fi
	if [ "$ex_ok" -eq 1 ] && [ "$gw_ok" -eq 1 ]; then
		echo "  complete"
		return 0
	fi
	if ! ns_exists "$ns_ex" && ! ns_exists "$ns_gw"; then
		echo "  absent"
		ok=2
	else
		echo "  incomplete: run '$PROG up' to complete it or '$PROG down' to remove it"
		ok=1
	fi
	return "$ok"
}

# ---- env ----

ifindex_of() {
	# Empty when the rig is down (or when not root).
	ip -n "$1" -o link show dev "$2" 2>/dev/null | awk -F: 'NR == 1 {print $1}' || true
}

do_env() {
	cat <<EOF
RIG_PREFIX=$prefix
RIG_SUBNET=$base.0/24
RIG_NS_EX=$ns_ex
RIG_NS_GW=$ns_gw
RIG_NETNS_EX=/var/run/netns/$ns_ex
RIG_NETNS_GW=/var/run/netns/$ns_gw
RIG_IF_EX=$if_ex
RIG_IF_GW=$if_gw
RIG_IFB_EX=$ifb_ex
RIG_IFB_OUT=$ifb_out
RIG_IFINDEX_EX=$(ifindex_of "$ns_ex" "$if_ex")
RIG_IFINDEX_GW=$(ifindex_of "$ns_gw" "$if_gw")
RIG_IP_EX=$ip_ex
RIG_IP_GW=$ip_gw
RIG_PREFIXLEN=$plen
RIG_MAC_EX=$mac_ex
RIG_MAC_GW=$mac_gw
RIG_GROUP=$group
RIG_GROUP_MAC=$group_mac
RIG_QUEUES=$queues
RIG_FEED_PORT=$feed_port
RIG_ORDER_PORT=$order_port
RIG_REREQUEST_PORT=$rereq_port
EOF
	[ -n "$base_b" ] || return 0
	cat <<EOF
RIG_LINE_B=$base_b.0/24
RIG_IF_EX_B=$if_ex_b
RIG_IF_GW_B=$if_gw_b
RIG_IFB_EX_B=$ifb_ex_b
RIG_IFB_OUT_B=$ifb_out_b
RIG_IFINDEX_GW_B=$(ifindex_of "$ns_gw" "$if_gw_b")
RIG_IP_EX_B=$ip_ex_b
RIG_IP_GW_B=$ip_gw_b
RIG_MAC_EX_B=$mac_ex_b
RIG_MAC_GW_B=$mac_gw_b
RIG_GROUP_B=$group_b
EOF
}

# ---- netem ----

# percent "2%" or "2" -> fraction "0.020000"
frac_of() {
	local v=${1%\%}
	[[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "netem: '$1' is not a percentage"
	awk -v v="$v" 'BEGIN { if (v > 100) exit 1; printf "%.6f", v / 100 }' ||
		die "netem: '$1' is over 100%"
}

# "1ms", "500us", "0.5ms", "1s" -> microseconds
usec_of() {
	[[ "$1" =~ ^([0-9]+(\.[0-9]+)?)(s|ms|us)$ ]] || die "netem: delay '$1': give e.g. 1ms or 500us"
	awk -v v="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" \
		'BEGIN { m = u == "s" ? 1e6 : u == "ms" ? 1e3 : 1; printf "%d", v * m }'
}

# Everything netem put on the line, both ways: the qdiscs and filters of
# the exchange veth (clsact holds the two redirects) and the ifbs with
# their own.
netem_off() {
	local d
	nsrun "$ns_ex" tc qdisc del dev "$nif" root 2>/dev/null || true
	nsrun "$ns_ex" tc qdisc del dev "$nif" clsact 2>/dev/null || true
	for d in "$nifb" "$nifbo"; do
		if link_in "$ns_ex" "$d"; then
			ip -n "$ns_ex" link del dev "$d" 2>/dev/null || true
		fi
	done
}

# Without sch_netem: tc BPF for loss and duplication, a slow HTB class for
# reordering by delay.  netem_fallback DEV [VETHFAULT OPTIONS]: on DEV's
# egress; what it did in $how.
netem_fallback() {
	local dev=$1 loss=0 dup=0 reorder=0 delay_us=0 w tool rate ignored="" args=()
	local -a words
	shift
	args=("$@")
	read -ra words <<<"$netem_spec"
	set -- "${words[@]}"
	while [ $# -gt 0 ]; do
		w=$1
		[ $# -ge 2 ] || die "netem: '$w' needs a value"
		case "$w" in
		loss) loss=$(frac_of "$2") ;;
		duplicate) dup=$(frac_of "$2") ;;
		reorder) reorder=$(frac_of "$2") ;;
		delay) delay_us=$(usec_of "$2") ;;
		*) die "netem: '$w' is not emulated here (no sch_netem in this kernel): loss, duplicate, reorder, delay" ;;
		esac
		shift 2
		# netem's correlation and jitter values: accepted, not emulated
		while [ $# -gt 0 ] && [[ "$1" =~ ^[0-9.]+(%|s|ms|us)?$ ]]; do
			ignored+=" $w:$1"
			shift
		done
	done
	tool=$(cd "$(dirname "$0")/.." && pwd)/build/tools/vethfault
	[ -x "$tool" ] || die "netem: the kernel has no sch_netem and $tool is not built (make)"
	if awk -v r="$reorder" 'BEGIN { exit !(r > 0) }'; then
		[ "$delay_us" -gt 0 ] || die "netem: reorder needs a delay (e.g. 'reorder 20% delay 1ms')"
		# bits per second so that a 100-byte frame takes delay_us
		rate=$(awk -v d="$delay_us" 'BEGIN { printf "%d", 800 * 1e6 / d }')
		run nsrun "$ns_ex" tc qdisc replace dev "$dev" root handle 1: htb default 10
		run nsrun "$ns_ex" tc class add dev "$dev" parent 1: classid 1:10 htb rate 10gbit quantum 60000
		run nsrun "$ns_ex" tc class add dev "$dev" parent 1: classid 1:20 htb \
			rate "${rate}bit" ceil "${rate}bit" burst 1 cburst 1
		args+=(--delay "$reorder" --slow-class 1:20)
	fi
	run nsrun "$ns_ex" "$tool" attach "$dev" --loss "$loss" --duplicate "$dup" "${args[@]}"
	emulated=" (emulated, no sch_netem here: tc bpf + htb)"
	how="loss $loss duplicate $dup reorder $reorder delay ${delay_us}us${ignored:+ (ignored:$ignored)}"
}

# netem_on DEV [VETHFAULT OPTIONS]: the faults on DEV's egress, tc netem
# where the kernel has it; what was done in $how.
netem_on() {
	local dev=$1 err
	# shellcheck disable=SC2086 # the spec is tc's words
	if err=$(nsrun "$ns_ex" tc qdisc replace dev "$dev" root netem $netem_spec 2>&1); then
		how="netem $netem_spec"
		return
	fi
	case "$err" in
	*"qdisc kind is unknown"*) netem_fallback "$@" ;;
	*"reordering not possible"*)
		die "netem: reorder needs a delay (netem reorders by holding the other frames back): e.g. '$netem_spec delay 200us'" ;;
	*) die "netem: tc: $err" ;;
	esac
}

# make_ifb IFB: an ifb in the exchange namespace, quiet (no IPv6 of its
# own: the ifb drops what it sends itself), with a veth's queue length for
# the HTB classes (ifb's default is 32).
make_ifb() {
	run ip -n "$ns_ex" link add "$1" type ifb
	if nsrun "$ns_ex" test -w "/proc/sys/net/ipv6/conf/$1/disable_ipv6"; then
		run nsrun "$ns_ex" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$1/disable_ipv6"
	fi
	run ip -n "$ns_ex" link set dev "$1" txqueuelen 1000 up
}

# redirect DIR IFB: every frame of the exchange veth's DIR (ingress or
# egress) to IFB's egress (tc mirred, from its clsact; u32 matching
# everything, as this kernel has no cls_matchall).  The ifb hands each
# one back where it was going, skipping the redirect this time.
redirect() {
	run nsrun "$ns_ex" tc qdisc replace dev "$nif" clsact
	run nsrun "$ns_ex" tc filter add dev "$nif" "$1" protocol all prio 1 u32 \
		match u32 0 0 action mirred egress redirect dev "$2"
}

# The exchange -> gateway faults, on their ifb's egress; duplicates go round
# the ifb again and leave as frames of their own.
netem_out() {
	make_ifb "$nifbo"
	netem_on "$nifbo"
	redirect egress "$nifbo"
}

# The gateway -> exchange faults, on their ifb's egress; duplicates go into
# the veth's ingress (--ifb-for).
netem_in() {
	make_ifb "$nifb"
	netem_on "$nifb" --ifb-for "$nif"
	redirect ingress "$nifb"
}

do_netem() {
	local how emulated="" out=off in=off
	need_root
	command -v tc >/dev/null 2>&1 || die "'tc' not found: run scripts/deps.sh (iproute2)"
	link_in "$ns_ex" "$nif" || die "netem: the rig $prefix is not up"
	netem_off
	if [ "$netem_spec" = off ]; then
		echo "rig $prefix netem off on $nif (both ways)"
		return
	fi
	[ -n "$netem_spec" ] || usage
	# All or nothing: a failure half way removes what was done.
	trap netem_off EXIT
	if [ "$dir" != in ]; then
		netem_out
		out=$how
	fi
	if [ "$dir" != out ]; then
		netem_in
		in=$how
	fi
	trap - EXIT
	echo "rig $prefix netem on $nif$emulated: out (exchange -> gateway, $nif egress via $nifbo):" \
		"$out; in (gateway -> exchange, $nif ingress via $nifb): $in"
}

# The devices netem acts on: the exchange side of the chosen line, and its
# ifb.
nif=$if_ex
nifb=$ifb_ex
nifbo=$ifb_out
if [ "$line" = b ]; then
	[ -n "$base_b" ] || die "--line b: the rig has no line B (--line-b SUBNET)"
	nif=$if_ex_b
	nifb=$ifb_ex_b
	nifbo=$ifb_out_b
fi

case "$cmd" in
up) do_up ;;
down) do_down ;;
status) do_status ;;
env) do_env ;;
netem) do_netem ;;
esac
