// SPDX-License-Identifier: MIT
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/huge_text.h"
#include "util/smaps.h"

#define HUGE_SZ ((uintptr_t)2 << 20)
#define SMALL_SZ ((uintptr_t)4096)

struct text_seg {
	uintptr_t start, end;	/* as mapped: 4 KB rounded */
	size_t align;
	bool found;
};

/* The main program comes first; its executable PT_LOAD is the code. */
static int find_text(struct dl_phdr_info *info, size_t size, void *data)
{
	struct text_seg *s = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		s->start = (info->dlpi_addr + ph->p_vaddr) & ~(SMALL_SZ - 1);
		s->end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + SMALL_SZ - 1) &
			 ~(SMALL_SZ - 1);
		s->align = ph->p_align;
		s->found = true;
		break;
	}
	return 1;
}

/*
 * Whether [start, end) holds nothing but the code's own mapping
 * [code_lo, code_hi): what mremap() replaces must be the code alone.
 */
static bool range_is_code_only(uintptr_t start, uintptr_t end, uintptr_t code_lo,
			       uintptr_t code_hi)
{
	char line[512];
	bool ok = true;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (ok && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) != 2)
			continue;
		if (hi <= start || lo >= end)
			continue;
		ok = lo >= code_lo && hi <= code_hi;
	}
	fclose(f);
	return ok;
}

int huge_text_remap(struct huge_text *t, char *err, size_t errlen)
{
	struct text_seg s = { 0 };
	uintptr_t start, end, copy;
	size_t len;
	void *raw;
	int ret;

	memset(t, 0, sizeof(*t));
	dl_iterate_phdr(find_text, &s);
	if (!s.found) {
		snprintf(err, errlen, "no executable segment found");
		return -ENOEXEC;
	}
	if (s.align < HUGE_SZ) {
		snprintf(err, errlen, "code not linked 2 MB aligned (p_align %zu)", s.align);
		return -ENOEXEC;
	}
	start = s.start & ~(HUGE_SZ - 1);
	end = (s.end + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	len = end - start;
	if (!range_is_code_only(start, end, s.start, s.end)) {
		snprintf(err, errlen, "the code's 2 MB range holds other mappings");
		return -ENOEXEC;
	}

	/*
	 * Mapped inaccessible first: under mlockall(MCL_FUTURE) an accessible
	 * mapping is populated with small pages the moment it exists.  One
	 * huge page more than needed, to align the copy.
	 */
	raw = mmap(NULL, len + HUGE_SZ, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "mmap of %zu bytes: %s", len + HUGE_SZ, strerror(errno));
		return ret;
	}
	copy = ((uintptr_t)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	if (madvise((void *)copy, len, MADV_HUGEPAGE) ||
	    mprotect((void *)copy, len, PROT_READ | PROT_WRITE) ||
	    madvise((void *)copy, len, MADV_POPULATE_WRITE)) {
		ret = -errno;
		snprintf(err, errlen, "huge pages for the code: %s", strerror(errno));
		goto out_unmap;
	}
	memcpy((void *)(copy + (s.start - start)), (const void *)s.start, s.end - s.start);
	if (mprotect((void *)copy, len, PROT_READ | PROT_EXEC)) {
		ret = -errno;
		snprintf(err, errlen, "mprotect of the code's copy: %s", strerror(errno));
		goto out_unmap;
	}
	/*
	 * The switch: the original's pages go, the copy's come, in one call.
	 * The rest of the 2 MB range beyond the code was unmapped (the next
	 * segment starts at the next 2 MB boundary), so nothing else moves.
	 */
	if (mremap((void *)copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)start) == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "mremap of the code: %s", strerror(errno));
		goto out_unmap;
	}
	/* The alignment slack: some before the copy, always some after. */
	if (copy > (uintptr_t)raw)
		munmap(raw, copy - (uintptr_t)raw);
	munmap((void *)(copy + len), (uintptr_t)raw + HUGE_SZ - copy);
	t->addr = (void *)start;
	t->size = len;
	t->huge_bytes = smaps_huge_bytes((const void *)start, NULL);
	return 0;

out_unmap:
	munmap(raw, len + HUGE_SZ);
	return ret;
}
