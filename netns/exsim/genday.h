/* SPDX-License-Identifier: MIT */
/*
 * t2t-exsim --gen-day FILE: write a synthetic day with the generator the live
 * feed uses (book/daygen.h) and print what it holds.  Same bytes for the
 * same --messages, --symbols, --seed and --day-seconds; gzip (level 1)
 * when FILE ends in ".gz", plain otherwise.
 */
#ifndef NETNS_EXSIM_GENDAY_H
#define NETNS_EXSIM_GENDAY_H

#include <stdio.h>

#include "netns/exsim/exsim.h"

/* Returns the exit status: 0, or 1 (the file could not be written). */
int genday_run(const struct exsim_cfg *c, FILE *out);

#endif /* NETNS_EXSIM_GENDAY_H */
