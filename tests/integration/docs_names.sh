#!/bin/bash
# The documents name what the tree has: every `function()` and every
# `path/file` in docs/architecture.md's tables and in each folder's
# README.md exists.  A function is defined in the tree's C, or declared by
# a system header (libc, libbpf, libxdp, the kernel's BPF helpers); a path
# is a file or folder from the top of the tree or from the README's own
# folder (a built test named without its .c is found by its source); what
# a build or a run writes (build/...) is not looked for.
# Paths that start nowhere in the tree (/proc/..., run outputs, addresses)
# are prose and left alone.  No root.
. "$(dirname "$0")/../lib.sh"

# The names of every function the tree defines, and every macro taking arguments.
defined_here() {
	git ls-files '*.c' '*.h' | xargs grep -hE '^[a-z_#].*\(' | grep -vE ';[[:space:]]*$' |
		grep -oE '[a-z_][a-z0-9_]*\(' | tr -d '(' | sort -u
}

# Is @name declared by a system header?
declared_there() {
	grep -rqsE "[ *]$1 ?\(" /usr/include/*.h /usr/include/bpf /usr/include/xdp /usr/include/linux \
		/usr/include/x86_64-linux-gnu/sys 2>/dev/null
}

# names FILE TABLES_ONLY: the function names and the paths a document gives.
names() {
	local text
	if [ "$2" = 1 ]; then text=$(grep '^|' "$1"); else text=$(cat "$1"); fi
	grep -oE '`[A-Za-z_][A-Za-z0-9_]*\(\)`' <<<"$text" | tr -d '`()' | sed 's/^/fn /'
	grep -oE '`[A-Za-z0-9_.-]+/[A-Za-z0-9_./*-]*`' <<<"$text" | tr -d '`' | sed 's/^/path /'
}

# Does the path @2 named in document @1 exist?
path_ok() {
	local doc=$1 p=${2%/} dir first
	dir=$(dirname "$doc")
	# What a build or a run writes is not in the tree.
	[[ $p == build/* ]] && return 0
	first=${p%%/*}
	# A glob ("netns/exsim/*.c"): its folder.
	[[ $p == *'*'* ]] && p=$(dirname "$p")
	for base in . "$dir"; do
		[ -e "$base/$p" ] || [ -e "$base/$p.c" ] && return 0
	done
	# Not from a folder of the tree: not a path of ours (prose, outputs).
	[ -d "$first" ] || [ -d "$dir/$first" ] || return 0
	return 1
}

test_the_documents_name_what_the_tree_has() {
	local docs=(docs/architecture.md */README.md */*/README.md) defined doc kind name bad=0
	local -A have
	for name in $(defined_here); do have[$name]=1; done
	for doc in "${docs[@]}"; do
		[ -f "$doc" ] || continue
		while read -r kind name; do
			if [ "$kind" = fn ]; then
				[ -n "${have[$name]+x}" ] || declared_there "$name" ||
					{ fail "$doc names $name(), defined nowhere"; bad=$((bad + 1)); }
			else
				path_ok "$doc" "$name" ||
					{ fail "$doc names $name, not in the tree"; bad=$((bad + 1)); }
			fi
		done < <(names "$doc" "$([ "$doc" = docs/architecture.md ] && echo 1 || echo 0)")
	done
	[ "$bad" = 0 ] && ok "every function and file named in ${#docs[@]} documents exists"
}

run_tests "$@"
