// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns/exsim/cpu_pick.h"

/* Is @comm a program whose hot loop spins on a CPU of its own? */
static bool spinner(const char *comm)
{
	return !strcmp(comm, "t2t-gateway") || !strcmp(comm, "t2t-floor");
}

/* The one CPU thread @tid of @pid may run on, or -1 (several, or unknown). */
static int pinned_to(const char *pid, const char *tid)
{
	char path[600], line[256];
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "Cpus_allowed_list:", 18))
			continue;
		cpu = (int)strtol(line + 18, &end, 10);
		/* "1\n" is one CPU; "0-1", "0,2" are not. */
		if (end == line + 18 || (*end != '\n' && *end != '\0'))
			cpu = -1;
		break;
	}
	fclose(f);
	return cpu;
}

/* The CPUs hot loops are pinned to, as a mask of the first 64. */
static uint64_t hot_cpus(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	uint64_t hot = 0;

	if (!proc)
		return 0;
	while ((p = readdir(proc))) {
		char path[600], comm[64] = "";
		struct dirent *t;
		FILE *f;
		DIR *tasks;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (!spinner(comm))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			int cpu;

			if (t->d_name[0] == '.')
				continue;
			cpu = pinned_to(p->d_name, t->d_name);
			if (cpu >= 0 && cpu < 64)
				hot |= 1ull << cpu;
		}
		closedir(tasks);
	}
	closedir(proc);
	return hot;
}

int cpu_pick(char *why, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t hot = hot_cpus();
	bool running = hot != 0;

	if (!running && EXSIM_GATEWAY_DEFAULT_CPU < n)
		hot = 1ull << EXSIM_GATEWAY_DEFAULT_CPU;
	for (long c = 0; c < n && c < 64; c++) {
		if (hot >> c & 1)
			continue;
		if (running)
			snprintf(why, len, "a hot loop spins on CPU %d", __builtin_ctzll(hot));
		else
			snprintf(why, len, "no gateway running yet; CPU %d is its default",
				 EXSIM_GATEWAY_DEFAULT_CPU);
		return (int)c;
	}
	snprintf(why, len, "every CPU has a hot loop");
	return -1;
}
