// SPDX-License-Identifier: MIT
/* libt2t's handle: open, close, errors (t2t_api.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/t2t_int.h"

static const char *const status_names[] = {
	"T2T_OK", "T2T_EINVAL", "T2T_ERANGE", "T2T_ENOMEM", "T2T_EIO", "T2T_EFORMAT",
	"T2T_ENOSYM", "T2T_ESPACE", "T2T_ELIMIT", "T2T_ENOTSUP",
};

int t2t_api_version(void)
{
	return T2T_API_VERSION;
}

const char *t2t_status_name(int status)
{
	if (status > 0 || -status >= (int)(sizeof(status_names) / sizeof(status_names[0])))
		return "T2T_UNKNOWN";
	return status_names[-status];
}

int t2t_fail(t2t *h, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	return status;
}

int t2t_day_error(t2t *h, const char *path, const char *err)
{
	FILE *f = fopen(path, "rb");

	if (!f)
		return t2t_fail(h, T2T_EIO, "%s", err);
	fclose(f);
	return t2t_fail(h, T2T_EFORMAT, "%s", err);
}

const char *t2t_error(const t2t *h)
{
	return h ? h->err : "no handle";
}

const char *t2t_isa(const t2t *h)
{
	return h ? hma_isa_names[h->isa] : "";
}

uint32_t t2t_threads(const t2t *h)
{
	return h ? h->opt.threads : 0;
}

/* The CPUs this process may run on (its affinity), at least 1. */
static unsigned int usable_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

int t2t_open(t2t **out, const struct t2t_options *opt, char *err, size_t errlen)
{
	struct t2t_options o = opt ? *opt : (struct t2t_options){ 0 };
	t2t *h;
	int ret;

	if (!out) {
		set_err(err, errlen, "t2t_open: no place for the handle");
		return T2T_EINVAL;
	}
	*out = NULL;
	if (o.isa >= HMA_ISA_NR) {
		set_err(err, errlen, "isa must be 0 (best), 1 (generic), 2 (avx2) or 3 (avx512)");
		return T2T_EINVAL;
	}
	if (!hma_isa_supported(o.isa)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "this CPU has no %s", hma_isa_names[o.isa]);
		set_err(err, errlen, msg);
		return T2T_ENOTSUP;
	}
	if (o.threads > 1024 || o.max_lengths > 65536 || o.max_combos > 65536 ||
	    o.max_symbols > 4096) {
		set_err(err, errlen, "threads at most 1024, max_lengths and max_combos at most "
			"65536, max_symbols at most 4096");
		return T2T_EINVAL;
	}
	o.threads = o.threads ? o.threads : usable_cpus();
	o.max_lengths = o.max_lengths ? o.max_lengths : T2T_DEF_LENGTHS;
	o.max_combos = o.max_combos ? o.max_combos : T2T_DEF_COMBOS;
	o.max_symbols = o.max_symbols ? o.max_symbols : T2T_DEF_SYMBOLS;

	h = calloc(1, sizeof(*h));
	if (!h)
		goto nomem;
	h->opt = o;
	h->isa = o.isa == HMA_ISA_AUTO ? hma_isa_best() : (enum hma_isa)o.isa;
	h->sw = aligned_alloc(64, o.threads * sizeof(*h->sw));
	if (!h->sw)
		goto nomem;
	memset(h->sw, 0, o.threads * sizeof(*h->sw));
	ret = pool_open(&h->pool, o.threads);
	if (ret) {
		char msg[128];

		snprintf(msg, sizeof(msg), "starting %u threads: %s", o.threads, strerror(-ret));
		set_err(err, errlen, msg);
		free(h->sw);
		free(h);
		return T2T_ENOMEM;
	}
	h->pool_open = true;
	if (o.days) {
		ret = research_open(h);
		if (ret) {
			set_err(err, errlen, h->err);
			t2t_close(h);
			return ret;
		}
	}
	*out = h;
	return T2T_OK;
nomem:
	if (h)
		free(h->sw);
	free(h);
	set_err(err, errlen, "out of memory");
	return T2T_ENOMEM;
}

void t2t_close(t2t *h)
{
	if (!h)
		return;
	if (h->pool_open)
		pool_close(&h->pool);
	research_close(h);
	free(h->sw);
	free(h);
}
