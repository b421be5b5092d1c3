/* SPDX-License-Identifier: MIT */
/* A set of receive queues on the command line and in messages: "all", or "0,2,4-7". */
#ifndef UTIL_QUEUE_LIST_H
#define UTIL_QUEUE_LIST_H

#include <stddef.h>
#include <stdint.h>

/* Queues 0 to QUEUE_LIST_MAX - 1: a mask of 64 bits. */
#define QUEUE_LIST_MAX 64

/* Parse @arg into a mask (bit q = queue q; 0: all).  0, or -1 with why set. */
int queue_list_parse(const char *arg, uint64_t *mask, char *why, size_t n);
/* "0-3,6" for a mask; "all" for 0. */
void queue_list_format(uint64_t mask, char *buf, size_t len);

#endif /* UTIL_QUEUE_LIST_H */
