#!/bin/bash
# The harness itself (tests/lib.sh), on a small test script of its own run
# as a child: a failed check fails its test and the script, and the tests
# after it still run; a test that returns non-zero fails; whatever ends the
# script (a failure, exit inside a test, SIGTERM) its processes stop, its
# rig is taken down, its at_exit commands run and its files and monitor
# segments are removed; a test's processes stop when the test ends; run_tests
# NAME runs only that test, and an unknown name runs none and is an error;
# a rig is named by the one formula (scripts/rig_names.sh) and shared by the
# file's tests.
. "$(dirname "$0")/../lib.sh"
need root ./netns/rig.sh

# The child: each test prints what it made, for the checks here to look for.
# (<<- strips the tabs, which keep its tests out of this file's list.)
cat >"$T_TMP/child.sh" <<-EOF
	#!/bin/bash
	. "$PWD/tests/lib.sh"
	echo "tmp=\$T_TMP id=\$T_ID"
	made() {
		rig_up
		bg sleeper sleep 300
		: >"/dev/shm/t2t-\${T_ID}seg"
		at_exit "touch $T_TMP/at_exit.\$T_ID"
		echo "rig=\$RIG_PREFIX sleeper=\$sleeper_pid"
	}
	test_passes() {
		check "true is true" true
	}
	test_fails_a_check() {
		check "false is true" false
		echo "went on after the failed check"
	}
	test_returns_nonzero() {
		return 3
	}
	test_fails_with_things_made() {
		made
		fail "on purpose"
	}
	test_exits_inside() {
		made
		exit 0
	}
	test_waits() {
		made
		echo waiting
		# (bash runs a trap only between commands: short ones)
		while :; do sleep 0.1; done
	}
	test_starts_a_process() {
		bg short sleep 300
		echo "\$short_pid" >"\$T_TMP/short.pid"
	}
	test_the_process_is_gone() {
		check "the last test's process is gone" eval '! kill -0 "\$(cat "\$T_TMP/short.pid")" 2>/dev/null'
	}
	test_rig_names() {
		rig_up a
		echo "rig_a=\$RIG_PREFIX \$RIG_SUBNET want=\${T_ID}a \$(t_subnet a)"
		rig_up a
		echo "rigs=\${#T_RIGS[@]}"
	}
	run_tests "\$@"
	EOF
chmod +x "$T_TMP/child.sh"

# child NAME TESTS...: run the child; its output in $T_TMP/NAME.log, its
# exit status in $T_TMP/NAME.rc.
child() {
	local name=$1
	shift
	"$T_TMP/child.sh" "$@" >"$T_TMP/$name.log" 2>&1
	echo $? >"$T_TMP/$name.rc"
}
has() {		# has NAME LINE: the child's output has LINE (a regex)
	grep -qE -- "$2" "$T_TMP/$1.log"
}
rc() {
	cat "$T_TMP/$1.rc"
}
# field NAME KEY: KEY=VALUE from the child's output.
field() {
	sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$T_TMP/$1.log" | head -1
}

# everything_gone NAME: what the child's tests made is gone.
everything_gone() {
	local tmp id rig sleeper
	tmp=$(field "$1" tmp) id=$(field "$1" id) rig=$(field "$1" rig) sleeper=$(field "$1" sleeper)
	check "$1: its rig $rig is down" \
		bash -c "[ -n '$rig' ] && ! ip netns list | grep -qE '^$rig-' && ! ip -o link show | grep -q ': $rig-v'"
	check "$1: its background process $sleeper is gone" \
		bash -c "[ -n '$sleeper' ] && ! kill -0 '$sleeper' 2>/dev/null"
	check "$1: its T_TMP $tmp is gone" bash -c "[ -n '$tmp' ] && [ ! -e '$tmp' ]"
	check "$1: its monitor segments are gone" \
		bash -c "[ -n '$id' ] && ! ls /dev/shm/t2t-$id* >/dev/null 2>&1"
	check "$1: its at_exit command ran" test -e "$T_TMP/at_exit.$id"
}

test_a_failed_check_fails_its_test_and_the_script() {
	child fc test_passes test_fails_a_check test_returns_nonzero test_passes
	check "the script fails" test "$(rc fc)" -ne 0
	check "the test with the failed check fails" has fc '^FAIL test_fails_a_check$'
	check "the test goes on after a failed check" has fc '^went on after the failed check$'
	check "the tests after it run" test "$(grep -c '^ok test_passes$' "$T_TMP/fc.log")" -eq 2
	check "the closing line counts them" has fc '^child: 2 of 4 tests passed$'
}

test_a_test_returning_nonzero_fails() {
	child rn test_returns_nonzero
	check "the script fails" test "$(rc rn)" -ne 0
	check "the test fails" has rn '^FAIL test_returns_nonzero$'
}

test_cleanup_after_a_failure() {
	child cf test_fails_with_things_made
	check "the script fails" test "$(rc cf)" -ne 0
	everything_gone cf
}

test_cleanup_after_exit_inside_a_test() {
	child ce test_exits_inside test_passes
	check "exit 0 inside a test fails the script" test "$(rc ce)" -ne 0
	check "... and says which test" has ce '^FAIL test_exits_inside \(exited inside the test'
	check "... and runs no test after it" bash -c "! grep -q '^--- test_passes' '$T_TMP/ce.log'"
	everything_gone ce
}

test_cleanup_on_sigterm() {
	bg term "$T_TMP/child.sh" test_waits
	wait_for 20 grep -q '^waiting$' "$T_TMP/term.out" || { fail "the child never got to wait"; return 1; }
	kill -TERM "$term_pid"
	wait "$term_pid"
	echo $? >"$T_TMP/st.rc"
	cp "$T_TMP/term.out" "$T_TMP/st.log"
	check "SIGTERM: the script exits 130" test "$(rc st)" -eq 130
	everything_gone st
}

test_a_tests_processes_stop_when_it_ends() {
	child ps test_starts_a_process test_the_process_is_gone
	check "the script passes" test "$(rc ps)" -eq 0
}

test_run_tests_name_runs_only_that_test() {
	child only test_passes
	check "the script passes" test "$(rc only)" -eq 0
	check "one test ran" test "$(grep -c '^--- ' "$T_TMP/only.log")" -eq 1
	check "that one" has only '^ok test_passes$'
}

test_an_unknown_test_name_is_an_error() {
	child unknown test_passes test_nosuch
	check "exit 2" test "$(rc unknown)" -eq 2
	check "says which" has unknown '^FAIL: no test named test_nosuch$'
	check "runs no test" bash -c "! grep -q '^--- ' '$T_TMP/unknown.log'"
}

test_a_rig_is_named_by_the_formula_and_shared() {
	local got want
	child names test_rig_names
	check "the script passes" test "$(rc names)" -eq 0
	got=$(sed -n 's/^rig_a=\([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$T_TMP/names.log")
	want=$(sed -n 's/^rig_a=.* want=//p' "$T_TMP/names.log")
	expect_eq "rig_up a: prefix T_ID + a, subnet t_subnet a" "$got" "$want"
	expect_eq "rig_up a twice: one rig" "$(field names rigs)" 1
	check "... the prefix and subnet another script gets: NAME's first three, the PID" \
		bash -c ". scripts/rig_names.sh; rig_names paper | grep -qE '^pap'\$\$' 10\\.1[0-9][0-9]\\.[0-9]{1,3}\\.0/24$'"
}

run_tests "$@"
