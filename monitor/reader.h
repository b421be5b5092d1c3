/* SPDX-License-Identifier: MIT */
/*
 * Reading the monitor segment (layout.h) from another process: open it by
 * name (checking that its layout is the one this program knows), copy a
 * block consistently (seqlock.h), notice when the writer restarted.
 *
 * Readers map the file read-only and never write to it: any number of them
 * cost the writer nothing but the cache lines they share with it.
 */
#ifndef MONITOR_READER_H
#define MONITOR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "monitor/layout.h"
#include "monitor/writer.h"

/* Copies a read makes before it gives up on a writer that keeps moving. */
#define MON_TRIES 10000

struct mon_reader {
	const struct mon_segment *seg;
	struct mon_header hdr;	/* the immutable part, copied at open */
	int fd;			/* -1: attached in-process (mon_attach()) */
	dev_t dev;
	ino_t ino;
	char path[sizeof(MON_DIR) + sizeof(MON_PREFIX) + MON_NAME_MAX];
};

/*
 * Open /dev/shm/t2t-<name>.  0; -ENOENT when there is no such segment (yet);
 * -EPROTO when the file is not a segment of the layout this program knows
 * (another version, another histogram layout, wrong sizes): err says which.
 */
int mon_open(struct mon_reader *r, const char *name, char *err, size_t errlen);
void mon_close(struct mon_reader *r);

/* Read a writer's own mapping in the same process (the threaded tests). */
void mon_attach(struct mon_reader *r, const struct mon_segment *seg);

/*
 * The layout check mon_open() makes, on a header of @size bytes mapped
 * from a file of @file_size: 0 or -EPROTO with the reason in err.
 */
int mon_check_header(const struct mon_header *h, uint64_t file_size,
		     const char *path, char *err, size_t errlen);

/* The name no longer leads to this segment: the writer went away or restarted. */
bool mon_replaced(const struct mon_reader *r);
/* The writer's process is there and has not closed the segment. */
bool mon_writer_alive(const struct mon_reader *r);
/* The writer's last mon_tick() (CLOCK_MONOTONIC ns). */
uint64_t mon_heartbeat(const struct mon_reader *r);

/*
 * The one segment under /dev/shm when there is exactly one: 1 and its name.
 * 0 when there is none, -E2BIG when there are several, each with why set
 * for a person (no gateway running; the names to choose from).
 */
int mon_find_one(char *name, size_t len, char *why, size_t whylen);

/* Every counter (hdr.n_counters values) as last published; 0 or -EAGAIN. */
int mon_read_counters(const struct mon_reader *r, uint64_t *v, uint64_t *t_ns);
/* Instrument k; 0 or -EAGAIN. */
int mon_read_symbol(const struct mon_reader *r, unsigned int k, struct mon_sym *s);
/* A stage since start, into h (empty, or an older copy of the same stage). */
int mon_read_stage(const struct mon_reader *r, unsigned int stage, struct hdr_hist *h);

/*
 * The newest window copy at least @age_ns older than @now: every stage
 * into h[] (hdr_reset() first here), its time in *t_ns.  0, -ENOENT when
 * the writer has made none that old yet, -EAGAIN.
 */
int mon_read_window(const struct mon_reader *r, uint64_t now, uint64_t age_ns,
		    struct hdr_hist h[MON_STAGES], uint64_t *t_ns);

/*
 * Order events numbered @since and later, the newest @max of them, into
 * out[]; returns how many.  *next: the number to ask from next time
 * (events older than the ring are gone: *next - since - returned tells).
 */
unsigned int mon_read_events(const struct mon_reader *r, uint64_t since,
			     struct mon_event *out, unsigned int max, uint64_t *next);

#endif /* MONITOR_READER_H */
