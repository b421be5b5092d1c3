/* SPDX-License-Identifier: MIT */
/*
 * Hints to the compiler, defined once for the whole tree.  likely() and
 * unlikely() mark the branches the hot path takes almost always and almost
 * never, so that the common case falls through and the rare one moves out
 * of its way.
 */
#ifndef UTIL_COMPILER_H
#define UTIL_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#endif /* UTIL_COMPILER_H */
