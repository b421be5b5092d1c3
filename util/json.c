// SPDX-License-Identifier: MIT
/* A string as JSON (json.h). */
#include <stdio.h>

#include "util/json.h"

void json_escape(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t len),
		 void *ctx)
{
	size_t i, run = 0;

	put(ctx, "\"", 1);
	for (i = 0; i < n && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[8];

		if (ch != '"' && ch != '\\' && ch >= 0x20) {
			run++;
			continue;
		}
		/* What came before as it is, then the escape. */
		if (run)
			put(ctx, s + i - run, run);
		run = 0;
		if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = (char)ch;
			put(ctx, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			put(ctx, esc, 6);
		}
	}
	if (run)
		put(ctx, s + i - run, run);
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t len)
{
	fwrite(p, 1, len, ctx);
}

void json_strn(FILE *f, const char *s, size_t n)
{
	json_escape(s, n, put_file, f);
}
