// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/smaps.h"

size_t smaps_huge_bytes(const void *addr, size_t *vma_bytes)
{
	char line[256];
	size_t kb = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = lo == (unsigned long)(uintptr_t)addr;
			if (in && vma_bytes)
				*vma_bytes = hi - lo;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %zu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb << 10;
}
