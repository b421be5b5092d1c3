# The --symbols rule written again, independently of proto/itch_filter.c,
# for the tests to check it against: reads a day dumped as "seq,hex" (one
# message per line: t2t-backtest --itch --dump, fault_recv --dump) and prints
# "new_seq,old_seq,hex" for the messages the filtered session keeps:
# every S; the R of a chosen symbol; any other well-formed message whose
# locate a kept R named (a later R of another stock un-names it).
# Usage: awk -F, -v syms=AAPL,MSFT -f itch_keep.awk day.dump
function hexval(s,    i, v) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function stock(hex,    i, c, out) {	# 8 ASCII bytes at byte offset 11
	out = ""
	for (i = 0; i < 8; i++) {
		c = hexval(substr(hex, 23 + 2 * i, 2))
		if (c != 32)
			out = out sprintf("%c", c)
	}
	return out
}
BEGIN {
	n = split(syms, s, ",")
	for (i = 1; i <= n; i++)
		want[s[i]] = 1
	# ITCH 5.0 lengths by type
	split("S 12 R 39 H 25 Y 20 L 26 V 35 W 12 K 28 J 35 h 21 A 36 F 40 E 31 C 36 X 23 D 19 U 35 P 44 Q 40 B 19 I 50 N 20 O 48", t, " ")
	for (i = 1; i < 46; i += 2)
		len[t[i]] = t[i + 1]
}
{
	hex = $2
	type = sprintf("%c", hexval(substr(hex, 1, 2)))
	if (length(hex) == 0 || !(type in len) || length(hex) != 2 * len[type])
		next		# malformed: dropped
	loc = hexval(substr(hex, 3, 4))
	if (type == "R") {
		named[loc] = (stock(hex) in want)
		if (!named[loc])
			next
	} else if (type != "S" && !named[loc]) {
		next
	}
	print ++kept "," $1 "," hex
}
