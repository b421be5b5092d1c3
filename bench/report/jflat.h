/* SPDX-License-Identifier: MIT */
/*
 * JSON read flat: every scalar of a document as one "dotted.path" = value
 * pair ({"orders": {"received": 5}} gives "orders.received" = "5"; array
 * elements are numbered: "symbols.0.position").  Enough to read the
 * summaries our own programs write (exsim --json, t2t-gateway --json,
 * t2t-floor --json) without a library; not a general JSON toolkit (no
 * \u escapes beyond ASCII, depth 16).  A key or a value longer than its
 * limit is refused with an error, never cut.
 */
#ifndef BENCH_REPORT_JFLAT_H
#define BENCH_REPORT_JFLAT_H

#include <stdbool.h>
#include <stddef.h>

#define JFLAT_KEY_LEN	128
#define JFLAT_VAL_LEN	512

struct jflat_kv {
	char key[JFLAT_KEY_LEN];
	char val[JFLAT_VAL_LEN];
	bool is_str;		/* a JSON string (val unquoted); else number, bool or null */
};

struct jflat {
	struct jflat_kv *kv;
	size_t n, cap;
};

/* 0, or -1 with "where: what" in err (the document is then empty). */
int jflat_parse(struct jflat *j, const char *text, char *err, size_t errlen);
/* The file's document; -1 with err naming the file when unreadable or bad. */
int jflat_load(struct jflat *j, const char *path, char *err, size_t errlen);
void jflat_free(struct jflat *j);

/* The value at key, or NULL. */
const char *jflat_get(const struct jflat *j, const char *key);
/* A number at key, or def when absent, null or not a number. */
double jflat_num(const struct jflat *j, const char *key, double def);
/* Is there any key that starts with prefix (an object or array at it)? */
bool jflat_has(const struct jflat *j, const char *prefix);

#endif /* BENCH_REPORT_JFLAT_H */
