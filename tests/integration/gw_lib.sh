# Shared by the gateway's rig tests (sourced, not run): a rig of the test's
# own, named from a prefix and the PID, torn down on exit whatever happens
# (with the gateway, if one is still running), and the check helper.
#
#   . tests/integration/gw_lib.sh; gw_rig_up pt
#
# gives rig (the rig.sh command), tmp (a scratch directory), the RIG_*
# variables of rig.sh env, gw_pid (set it to a started gateway), fails and
# check NAME CMD....

cd "$(dirname "$0")/../.." || exit 1
. scripts/gw_ready.sh
tmp=$(mktemp -d /tmp/gw_test.XXXXXX)
gw_pid=
fails=0
rig=()

gw_cleanup() {
	[ -n "$gw_pid" ] && kill -9 "$gw_pid" 2>/dev/null
	[ ${#rig[@]} -gt 0 ] && "${rig[@]}" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap gw_cleanup EXIT

# gw_rig_up PREFIX: prefix PREFIX<pid>, a /24 derived from the pid and prefix.
gw_rig_up() {
	local salt
	salt=$(printf '%s' "$1" | cksum | cut -d' ' -f1)
	rig=(./netns/rig.sh --prefix "$1$$" \
	     --subnet "10.$((150 + $$ % 40)).$((($$ + salt) % 250)).0/24")
	"${rig[@]}" up >/dev/null
	eval "$("${rig[@]}" env)"
}

check() {
	local name=$1
	shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
