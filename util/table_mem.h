/* SPDX-License-Identifier: MIT */
/*
 * Memory the hot path walks at random (the book's tables, the AF_XDP UMEM):
 * one anonymous mapping, prefaulted at init so that no page fault ever
 * lands on the hot path.  2 MB pages when some are reserved
 * (vm.nr_hugepages): the order table is tens of MB of random accesses, and
 * with 4 KB pages nearly every lookup also misses the TLB.
 * Otherwise ordinary 4 KB pages, optionally with transparent huge pages
 * requested (madvise) before prefaulting; which one was obtained is kept so
 * callers can report it.
 */
#ifndef UTIL_TABLE_MEM_H
#define UTIL_TABLE_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define TABLE_MEM_HUGE_SIZE	(2u << 20)

enum table_mem_pages {
	TABLE_MEM_AUTO = 0,	/* hugetlb if reserved, else 4 KB */
	TABLE_MEM_SMALL,	/* 4 KB pages only */
	TABLE_MEM_THP,		/* hugetlb if reserved, else 4 KB + MADV_HUGEPAGE */
};

enum table_mem_kind {
	TABLE_MEM_KIND_HUGETLB,
	TABLE_MEM_KIND_4K,
	TABLE_MEM_KIND_4K_THP,
};

struct table_mem {
	void *addr;
	size_t size;
	enum table_mem_kind kind;
	size_t thp_bytes;	/* with TABLE_MEM_KIND_4K_THP: how much got huge pages */
	size_t vma_bytes;	/* the kernel's mapping holding it; larger when merged */
};

/* Map and prefault @size zeroed bytes.  Returns 0 or -errno. */
int table_mem_map(struct table_mem *m, size_t size, enum table_mem_pages pages);
void table_mem_unmap(struct table_mem *m);

/* "hugetlb 2 MB", "4 KB" or "4 KB + THP (N MB of M MB huge)". */
void table_mem_describe(const struct table_mem *m, char *buf, size_t len);

#endif /* UTIL_TABLE_MEM_H */
