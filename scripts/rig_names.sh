# The names of a rig (netns/rig.sh --prefix and --subnet), in one place for
# the tests (tests/lib.sh) and for the scripts that make a rig of their own
# (paper-run, soak, demo, the benchmarks).  Sourced, not run:
#
#	. scripts/rig_names.sh
#	read -r prefix subnet < <(rig_names paper)
#
# rig_names NAME [TAG] prints "PREFIX SUBNET" for the rig TAG of this run
# of NAME.  PREFIX is the first three letters or digits of NAME, the PID and
# TAG: unique per run, and short, because rig.sh allows 11 characters (an
# interface name has 15 at most and it adds "-vgw"), so TAG is one or two
# characters.  SUBNET is 10.X.Y.0/24, X (100..199) from NAME and TAG, Y
# from the PID and them, so that two runs, or two rigs of one run, rarely
# share one, and never the default rig's 10.201.0.0/24.  $$ is the caller's
# PID also inside the $(...) or <(...) that calls it.
rig_names() {
	local salt
	salt=$(printf '%s' "$1${2:-}" | cksum | cut -d' ' -f1)
	printf '%.3s%s%s 10.%d.%d.0/24\n' "${1//[^A-Za-z0-9]/}" "$$" "${2:-}" \
		$((100 + salt % 100)) $((($$ + salt / 100) % 250))
}

# The rigs this run makes are its own (netns/rig.sh --owner): one left
# behind by a run that was killed is taken down by the next rig.sh up.
# Kept from a caller that set it: a script run by a test is the test's.
RIG_OWNER=${RIG_OWNER:-$$}
export RIG_OWNER
