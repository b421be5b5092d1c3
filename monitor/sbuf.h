/* SPDX-License-Identifier: MIT */
/* A growing text buffer for the exporters' answers (off any hot path). */
#ifndef MONITOR_SBUF_H
#define MONITOR_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *p;	/* NUL terminated while not failed */
	size_t len;
	size_t cap;
	bool failed;	/* out of memory: the text is incomplete */
};

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s as a JSON string, quotes included. */
void sbuf_json_str(struct sbuf *b, const char *s);
void sbuf_free(struct sbuf *b);

#endif /* MONITOR_SBUF_H */
