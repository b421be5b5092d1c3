#!/bin/bash
# Writes the seed corpus of tests/fuzz/fuzz_soup_stream.c (checked in as
# tests/fuzz/corpus/soup/) from the byte layouts of docs/wire.md, not from
# the encoders under test:  tests/fuzz/make_soup_seeds.sh DIR
set -eu
dir=${1:?usage: $0 DIR}
mkdir -p "$dir"

byte() { printf "\\x$(printf %02x "$1")"; }
be16() { byte $(($1 >> 8)); byte $(($1 & 255)); }
# The fuzzer's prefix: prefix MAX SIZE...: the count of sizes, max, the sizes.
prefix() { local max=$1; shift; byte $#; be16 "$max"; for s; do byte "$s"; done; }
# A logical packet: pkt TYPE PAYLOAD (ASCII; the length counts the type).
pkt() { be16 $((${#2} + 1)); printf '%s%s' "$1" "$2"; }

login=$(printf '%-6s%-10s%10s%20s' T2TG secret '' 1)
accepted=$(printf '%10s%20s' SESS1 1)
enter=$(printf 'O%-14s%-34s' TOKEN012345678 B)		# 49 bytes
reply=$(printf 'A%-65s' x)				# 66 bytes
exec_=$(printf 'E%-39s' x)				# 40 bytes

# The client's side, cut 1, 2, 5, 1, 2, 5 ...
{ prefix 0 1 2 5; pkt L "$login"; pkt U "$enter"; pkt R ''; pkt O ''; } >"$dir/client"
# The server's, in chunks of 0 and 384 bytes (0x83: 3 x 128).
{ prefix 0 0 131; pkt A "$accepted"; pkt S "$reply"; pkt S "$exec_"; pkt H ''; pkt Z ''; } \
	>"$dir/server"
# Rejected twice, whole.
{ prefix 0; pkt J A; pkt J S; } >"$dir/rejected"
# Debug text, a type of no contract, then half a login request, a byte at a time.
{ prefix 0 1; pkt + hello; pkt Q xyz; pkt H ''; pkt L "$login" | head -c 10; } \
	>"$dir/tail"
# A Packet Length of 0 breaks the stream: the R after it never comes out.
{ prefix 0 3; pkt H ''; be16 0; pkt R ''; } >"$dir/zero_length"
# With max 16: 16 is read, 17 breaks the stream.
{ prefix 16 7; pkt S "$(printf '%15s' x)"; pkt S "$(printf '%16s' y)"; } >"$dir/above_max"
