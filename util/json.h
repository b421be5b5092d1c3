/* SPDX-License-Identifier: MIT */
/*
 * A string as JSON on a stdio stream, for the summaries and reports the
 * programs write by hand (t2t-backtest --stats, t2t-capture --json,
 * t2t-exsim --json): quotes and backslashes escaped, control characters as
 * \u00XX, every other byte as it is (the inputs are ASCII or UTF-8 already).
 */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The one escaping rule: at most @n bytes of @s (fewer if a NUL comes
 * first), between quotes, handed to @put piece by piece.  The writers
 * below, and any buffer of a program's own, go through it.
 */
void json_escape(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t len),
		 void *ctx);

/* At most @n bytes of @s, fewer if a NUL comes first, between quotes. */
void json_strn(FILE *f, const char *s, size_t n);

static inline void json_str(FILE *f, const char *s)
{
	json_strn(f, s, SIZE_MAX);
}

#endif /* UTIL_JSON_H */
