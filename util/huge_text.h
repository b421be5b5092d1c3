/* SPDX-License-Identifier: MIT */
/*
 * The program's code on one 2 MB page.
 *
 * On 4 KB pages every page of code is an instruction-TLB entry of its own,
 * and a path that runs rarely (an order's send after a quiet spell, with
 * the feed's book lookups in between) finds its entries gone and pays a
 * page walk per page, nested under a hypervisor.  Reading the code as data
 * does not help: the instruction and data TLBs are separate.  On one 2 MB
 * page all the code is one entry, which the loop's every turn keeps.
 *
 * The program must be linked with its segments 2 MB aligned
 * (-Wl,-z,max-page-size=0x200000), so that its code owns its 2 MB ranges.
 * The code is copied into anonymous memory on a transparent huge page and
 * the copy moved over the original with mremap(): the same bytes at the
 * same addresses, so the call that switches returns into its own copy.
 * Profilers then see anonymous code (perf: run with the option that skips
 * this to get symbols).
 */
#ifndef UTIL_HUGE_TEXT_H
#define UTIL_HUGE_TEXT_H

#include <stddef.h>

struct huge_text {
	void *addr;		/* the code's 2 MB range, once moved */
	size_t size;
	size_t huge_bytes;	/* how much of it the kernel gave huge pages */
};

/*
 * Before mlockall() and before any thread starts.  0, or -errno with err
 * set: -ENOEXEC when the program is not linked 2 MB aligned; the code is
 * where it was then, on 4 KB pages, and runs as before.
 */
int huge_text_remap(struct huge_text *t, char *err, size_t errlen);

#endif /* UTIL_HUGE_TEXT_H */
