// SPDX-License-Identifier: MIT
/* machine.log (t2t-watch's samples and the run's markers): what else ran. */
#include <stdio.h>
#include <string.h>

#include "bench/report/report.h"

#define MAX_NAMES 8

/*
 * Another session used at least one clock tick (10 ms) of CPU time while
 * the run was on.  A burst shorter than a tick may go unseen; a process
 * that was merely runnable at a sample, with no tick to its name, is not
 * counted (shells waking up would otherwise mark every run).
 */
bool machine_disturbed(const struct machine_use *u)
{
	return u->busy > 0;
}

static void add_name(char names[][32], double *ms, unsigned int *n, const char *comm,
		     double v)
{
	for (unsigned int i = 0; i < *n; i++) {
		if (!strcmp(names[i], comm)) {
			ms[i] += v;
			return;
		}
	}
	if (*n == MAX_NAMES)
		return;
	snprintf(names[*n], 32, "%.31s", comm);
	ms[(*n)++] = v;
}

/*
 * A sample at time t covers what ran since the previous one: it counts for
 * a run when t falls in (begin, end + one interval], the interval read from
 * the log itself (the gap between the first two samples).
 */
int machine_use(const char *log, const char *name, struct machine_use *u)
{
	char line[512], what[16], comm[64], extra[16], names[MAX_NAMES][32];
	double ms[MAX_NAMES], t, v, begin = -1, end = -1, t1 = -1, interval = -1;
	unsigned int nnames = 0;
	bool busy = false;
	FILE *f = fopen(log, "r");
	int pid;

	memset(u, 0, sizeof(*u));
	if (!f)
		return -1;
	/* The run's markers, and the watcher's period. */
	while (fgets(line, sizeof(line), f)) {
		char arg[128];

		if (sscanf(line, "%lf %15s", &t, what) != 2)
			continue;
		if (!strcmp(what, "tick")) {
			if (t1 < 0)
				t1 = t;
			else if (interval < 0)
				interval = t - t1;
			continue;
		}
		if ((strcmp(what, "begin") && strcmp(what, "end")) ||
		    sscanf(line, "%*f %*s %127s", arg) != 1 || strcmp(arg, name))
			continue;
		if (!strcmp(what, "begin"))
			begin = t;
		else
			end = t;
	}
	if (begin < 0 || end < begin) {
		fclose(f);
		return -1;
	}
	if (interval <= 0)
		interval = 0.25;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lf %15s", &t, what) != 2 || t <= begin || t > end + interval)
			continue;
		if (!strcmp(what, "tick")) {
			u->samples++;
			u->busy += busy;
			busy = false;
			continue;
		}
		if (sscanf(line, "%*f %*s %d %63s %lf %15s", &pid, comm, &v, extra) != 4)
			continue;
		if (!strcmp(what, "other")) {
			u->other_ms += v;
			if (v > 0) {
				busy = true;
				add_name(names, ms, &nnames, comm, v);
			}
		} else if (!strcmp(what, "system")) {
			u->system_ms += v;
		} else if (!strcmp(what, "kernel") && !strcmp(extra, "cpu1")) {
			u->kernel_cpu1_ms += v;
		}
	}
	fclose(f);
	/* The busiest other commands, for the table's note. */
	for (unsigned int k = 0; k < 3 && k < nnames; k++) {
		size_t len = strlen(u->names);
		unsigned int best = 0;

		for (unsigned int i = 1; i < nnames; i++)
			if (ms[i] > ms[best])
				best = i;
		snprintf(u->names + len, sizeof(u->names) - len, "%s%s", len ? ", " : "",
			 names[best]);
		ms[best] = -1;
	}
	return 0;
}
