/* SPDX-License-Identifier: MIT */
/*
 * Reading memory ahead of the hot path, so that it finds the lines in the
 * cache and their pages in the TLB: the idle turn's warming.  Plain loads
 * the compiler keeps, not prefetches, since a prefetch that misses the TLB
 * may be dropped, which is half the point.  Nothing is written.
 */
#ifndef UTIL_TOUCH_H
#define UTIL_TOUCH_H

#include <stddef.h>

static inline void touch_line(const void *p)
{
	(void)*(const volatile char *)p;
}

/* Every 64-byte line of [p, p + len), from the one holding p. */
static inline void touch_lines(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		touch_line((const char *)p + off);
}

#endif /* UTIL_TOUCH_H */
