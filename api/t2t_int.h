/* SPDX-License-Identifier: MIT */
/* What a libt2t handle holds (t2t_api.h), shared by the API's files. */
#ifndef API_T2T_INT_H
#define API_T2T_INT_H

#include <stdarg.h>
#include <stdbool.h>

#include "api/pool.h"
#include "api/t2t_api.h"
#include "book/book.h"
#include "strategy/hma_lanes.h"

#define T2T_ERR_LEN		512
#define T2T_DEF_LENGTHS		256
#define T2T_DEF_COMBOS		1024
#define T2T_DEF_SYMBOLS		64
/* closes converted or prints buffered per step of the lanes */
#define T2T_STEP		4096

/* One sweep thread's own: its lanes and the closes it converts. */
struct sweep_worker {
	struct hma_lanes lanes;
	uint32_t x[T2T_STEP];
};

/* One symbol of a research pass: its prints waiting for the lanes. */
struct rsym {
	char sym8[8];			/* space padded, as in the directory */
	int locate;			/* -1 until the directory names it */
	unsigned int first_group, ngroups;
	uint32_t nbuf;			/* prints waiting */
	uint64_t ticks, refused;
	uint32_t last;
	uint32_t *px;			/* T2T_STEP prices and their numbers */
	uint64_t *seq;
};

struct research {
	struct book book;
	struct hma_lanes *groups;	/* max_groups */
	uint32_t (*group_combo)[HMA_LANES];
	unsigned int max_groups, ngroups;
	struct rsym *sym;		/* max_symbols */
	unsigned int nsym;
	int16_t locate_sym[65536];	/* -1 or an index of sym */
	uint32_t *px;			/* max_symbols x T2T_STEP */
	uint64_t *seq;
	/* the pass under way */
	const struct t2t_combo *combos;
	struct t2t_order *orders;
	size_t orders_cap, orders_n;
	uint64_t prints;
};

struct t2t {
	struct t2t_options opt;
	enum hma_isa isa;
	struct pool pool;
	bool pool_open;
	struct sweep_worker *sw;	/* one per thread */
	struct research *rs;		/* NULL unless opened for days */
	char err[T2T_ERR_LEN];
};

/* Set the handle's message; returns @status. */
int t2t_fail(t2t *h, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A day file that could not be read through: T2T_EIO when it cannot be
 * opened, else T2T_EFORMAT (it opened, so its content is what failed).
 */
int t2t_day_error(t2t *h, const char *path, const char *err);

int research_open(t2t *h);
void research_close(t2t *h);

#endif /* API_T2T_INT_H */
