// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/smaps.h"
#include "util/table_mem.h"

int table_mem_map(struct table_mem *m, size_t size, enum table_mem_pages pages)
{
	size_t hsize = (size + TABLE_MEM_HUGE_SIZE - 1) & ~(size_t)(TABLE_MEM_HUGE_SIZE - 1);
	void *a;

	memset(m, 0, sizeof(*m));
	if (pages != TABLE_MEM_SMALL) {
		a = mmap(NULL, hsize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (a != MAP_FAILED) {
			m->addr = a;
			m->size = hsize;
			m->kind = TABLE_MEM_KIND_HUGETLB;
			return 0;
		}
	}
	if (pages == TABLE_MEM_THP) {
		/*
		 * Ask before the first touch, then prefault: the kernel can only
		 * back what it faults with huge pages.  Mapped inaccessible first:
		 * under mlockall(MCL_FUTURE) an accessible mapping is populated
		 * with small pages the moment it exists.
		 */
		a = mmap(NULL, hsize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return -errno;
		if (madvise(a, hsize, MADV_HUGEPAGE) ||
		    mprotect(a, hsize, PROT_READ | PROT_WRITE) ||
		    madvise(a, hsize, MADV_POPULATE_WRITE)) {
			int err = -errno;

			munmap(a, hsize);
			return err;
		}
		m->addr = a;
		m->size = hsize;
		m->kind = TABLE_MEM_KIND_4K_THP;
		m->thp_bytes = smaps_huge_bytes(a, &m->vma_bytes);
		return 0;
	}
	a = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (a == MAP_FAILED)
		return -errno;
	m->addr = a;
	m->size = size;
	m->kind = TABLE_MEM_KIND_4K;
	return 0;
}

void table_mem_unmap(struct table_mem *m)
{
	if (m->addr)
		munmap(m->addr, m->size);
	m->addr = NULL;
}

void table_mem_describe(const struct table_mem *m, char *buf, size_t len)
{
	switch (m->kind) {
	case TABLE_MEM_KIND_HUGETLB:
		snprintf(buf, len, "hugetlb 2 MB");
		break;
	case TABLE_MEM_KIND_4K:
		snprintf(buf, len, "4 KB");
		break;
	case TABLE_MEM_KIND_4K_THP:
		if (m->vma_bytes > m->size)
			snprintf(buf, len, "4 KB + THP (%zu MB huge in a %zu MB "
				 "mapping the kernel merged with its neighbours)",
				 m->thp_bytes >> 20, m->vma_bytes >> 20);
		else
			snprintf(buf, len, "4 KB + THP (%zu MB of %zu MB huge)",
				 m->thp_bytes >> 20, m->size >> 20);
		break;
	}
}
