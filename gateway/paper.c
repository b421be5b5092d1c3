// SPDX-License-Identifier: MIT
/* Paper orders waiting for their arrival time (paper.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/paper.h"

/* Written on the hot path: mapped and populated now. */
static void *table(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int paper_init(struct gw_paper *p, const struct paper_cfg *cfg, uint32_t cap)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if (!cfg->on)
		return 0;
	p->mask = cap - 1;
	p->no = table((size_t)cap * sizeof(*p->no));
	p->due = table((size_t)cap * sizeof(*p->due));
	if (!p->no || !p->due) {
		paper_destroy(p);
		return -ENOMEM;
	}
	return 0;
}

void paper_destroy(struct gw_paper *p)
{
	if (p->no)
		munmap(p->no, (size_t)(p->mask + 1) * sizeof(*p->no));
	if (p->due)
		munmap(p->due, (size_t)(p->mask + 1) * sizeof(*p->due));
	p->no = NULL;
	p->due = NULL;
}
