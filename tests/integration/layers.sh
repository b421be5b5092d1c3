#!/bin/bash
# The layers of docs/architecture.md §1 hold in the code: every #include of
# a library's file names a header of its own folder or of a folder at a
# lower level, read from the level diagram there (a library named libX is
# the folder whose table row builds libX; "(dir/)" names it directly).  The
# engine's files (gateway/build.mk's ENGINE_LIB_SRCS and their headers) are
# libengine's, the rest of gateway/ its programs; a library's tools/ and
# bench/ subfolders hold programs, above every library.  Programs may
# include any library.  No root.
. "$(dirname "$0")/../lib.sh"

declare -A LEVEL

# The level of each library folder, from the document's diagram.
read_levels() {
	local doc=docs/architecture.md line lvl tok folder
	while IFS= read -r line; do
		[[ $line =~ ^\ ([0-9])\ +(.*)$ ]] || continue
		lvl=${BASH_REMATCH[1]}
		for tok in ${BASH_REMATCH[2]}; do
			folder=
			if [[ $tok =~ ^\((.+)/\)$ ]]; then
				folder=${BASH_REMATCH[1]}
			elif [[ $tok =~ ^(lib[a-z0-9]+)$ ]]; then
				folder=$(sed -n "s/^| \`\([a-z]*\)\/\` | \`${tok}\.a\`.*/\1/p" "$doc" | head -1)
			fi
			[ -n "$folder" ] && [ -z "${LEVEL[$folder]+x}" ] && LEVEL[$folder]=$lvl
		done
	done < <(sed -n '/^## 1\. Layers/,/^## 2\./p' "$doc" | sed -n '/^```/,/^```/p')
	# The gateway's folder holds libengine; the rest of it is programs.
	[ -n "${LEVEL[gateway]+x}" ] && { LEVEL[engine]=${LEVEL[gateway]}; unset 'LEVEL[gateway]'; }
}

# The engine's files: its sources in the build and their headers.
ENGINE=
read_engine() {
	local src
	for src in $(make -s --no-print-directory print-ENGINE_LIB_SRCS); do
		ENGINE+=" $src ${src%.c}.h"
	done
	ENGINE+=" $(echo gateway/engine_hot.h)"
}

folder_of() {
	local f=$1
	if [[ " $ENGINE " == *" $f "* ]]; then
		echo engine
	elif [[ $f =~ ^[a-z_]+/(tools|bench)/ ]]; then
		echo program
	else
		echo "${f%%/*}"
	fi
}

test_the_levels_come_from_the_document() {
	read_levels
	for f in util proto book strategy net engine; do
		[ -n "${LEVEL[$f]+x}" ] || fail "docs/architecture.md's diagram gives no level to $f/"
	done
	ok "levels: $(for k in "${!LEVEL[@]}"; do echo -n "$k=${LEVEL[$k]} "; done)"
}

test_no_library_includes_a_folder_above_it() {
	local f from to inc bad=0
	read_levels
	read_engine
	[ -n "$ENGINE" ] || { fail "no ENGINE_LIB_SRCS in the build"; return 1; }
	while IFS= read -r f; do
		from=$(folder_of "$f")
		[ -n "${LEVEL[$from]+x}" ] || continue
		while IFS= read -r inc; do
			to=$(folder_of "$inc")
			[ "$to" = "$from" ] && continue
			if [ -z "${LEVEL[$to]+x}" ]; then
				fail "$f ($from) includes $inc, a program's"
				bad=$((bad + 1))
			elif [ "${LEVEL[$to]}" -ge "${LEVEL[$from]}" ]; then
				fail "$f ($from, level ${LEVEL[$from]}) includes $inc ($to, level ${LEVEL[$to]})"
				bad=$((bad + 1))
			fi
		done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
	done < <(git ls-files '*.c' '*.h')
	[ "$bad" = 0 ] && ok "every library's includes are of its own folder or below"
}

run_tests "$@"
