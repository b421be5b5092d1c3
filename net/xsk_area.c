// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/xsk_area.h"

int xsk_area_open(struct xsk_area *a, unsigned int frames, unsigned int frame_size,
		  unsigned int ring_size, char *err, size_t errlen)
{
	struct xsk_umem_config ucfg = {
		.fill_size = ring_size,
		.comp_size = ring_size,
		.frame_size = frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	size_t size = (size_t)frames * frame_size;
	int ret;

	memset(a, 0, sizeof(*a));
	a->frame_size = frame_size;
	a->frames = frames;
	/*
	 * 2 MB pages when some are reserved, else 4 KB pages with THP asked for
	 * (populated now either way): the loop walks thousands of frames, and
	 * on 4 KB pages each is a TLB entry of its own.
	 */
	ret = table_mem_map(&a->mem, size, TABLE_MEM_THP);
	if (ret) {
		snprintf(err, errlen, "UMEM allocation of %zu bytes failed: %s", size,
			 strerror(-ret));
		return ret;
	}
	a->base = a->mem.addr;
	a->size = a->mem.size;
	a->hugepages = a->mem.kind == TABLE_MEM_KIND_HUGETLB;
	ret = xsk_umem__create(&a->umem, a->base, a->size, &a->fq, &a->cq, &ucfg);
	if (ret) {
		snprintf(err, errlen, "UMEM registration failed: %s", strerror(-ret));
		table_mem_unmap(&a->mem);
		memset(a, 0, sizeof(*a));
		return ret;
	}
	return 0;
}

void xsk_area_close(struct xsk_area *a)
{
	if (a->umem)
		xsk_umem__delete(a->umem);
	if (a->base)
		table_mem_unmap(&a->mem);
	memset(a, 0, sizeof(*a));
}
