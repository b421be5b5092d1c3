/* SPDX-License-Identifier: MIT */
/*
 * Sequence counters for one writer and any number of readers that never
 * hold the writer back (the segment's readers may be in other processes).
 *
 * Writer: seq_write_begin() makes the counter odd, the values are stored
 * with mon_st(), seq_write_end() makes it even.  Reader: seq_read_begin()
 * (an even value, or try again), the values loaded with mon_ld(),
 * seq_read_retry() says whether the counter moved meanwhile.
 *
 * Why release stores and acquire loads on the values rather than fences
 * (Boehm, "Can seqlocks get along with programming language memory
 * models?", 2012): a reader that loads any value of section k+1
 * synchronises with that store, so it also sees the odd counter stored
 * before it and its closing re-read cannot return the old even value.
 * On x86-64 each of these is one plain mov and only orders the compiler:
 * the writer pays one store per value and nothing else.  Every shared
 * access being atomic is also what lets ThreadSanitizer check the protocol
 * (it cannot reason about fences).  The values are aligned 8-byte words:
 * a load never sees half of a store.
 */
#ifndef MONITOR_SEQLOCK_H
#define MONITOR_SEQLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* One store of a shared value (a plain mov on x86-64). */
#define mon_st(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* One load of a shared value by a reader. */
#define mon_ld(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* The writer reading back what only it writes. */
#define mon_own(p)	__atomic_load_n((p), __ATOMIC_RELAXED)

static inline void seq_write_begin(uint32_t *seq)
{
	__atomic_store_n(seq, mon_own(seq) + 1, __ATOMIC_RELAXED);
}

static inline void seq_write_end(uint32_t *seq)
{
	__atomic_store_n(seq, mon_own(seq) + 1, __ATOMIC_RELEASE);
}

/* The counter to compare against after the copy; odd: the writer is in. */
static inline uint32_t seq_read_begin(const uint32_t *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

/* True when the copy just made may mix two states: make it again. */
static inline bool seq_read_retry(const uint32_t *seq, uint32_t start)
{
	/* Ordered after the copy's acquire loads. */
	return (start & 1) || __atomic_load_n(seq, __ATOMIC_RELAXED) != start;
}

#endif /* MONITOR_SEQLOCK_H */
