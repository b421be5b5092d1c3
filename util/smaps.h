/* SPDX-License-Identifier: MIT */
/*
 * What the kernel says of one of our mappings (/proc/self/smaps): how much
 * of it got transparent huge pages.  smaps counts per kernel mapping, and
 * the kernel merges neighbouring anonymous mappings with the same flags,
 * so the mapping's own extent comes with the count.
 */
#ifndef UTIL_SMAPS_H
#define UTIL_SMAPS_H

#include <stddef.h>

/*
 * AnonHugePages of the kernel mapping that starts at @addr, in bytes, and
 * that mapping's size in *@vma_bytes unless NULL (left alone when none
 * starts there).
 * 0 when smaps cannot be read.
 */
size_t smaps_huge_bytes(const void *addr, size_t *vma_bytes);

#endif /* UTIL_SMAPS_H */
