/* SPDX-License-Identifier: MIT */
/*
 * What ran on the hot CPU over a window: two snapshots of every thread's
 * run time and last CPU (/proc/PID/task/TID/stat, schedstat), of the hot
 * CPU's column of /proc/interrupts and of /proc/softirqs, and their
 * difference.
 *
 * A thread is taken to have run on the hot CPU when its run time grew and
 * the CPU it last ran on was the hot one at either snapshot.  That is exact
 * for the per-CPU kernel threads (bound there) and for anything that stayed
 * put; a thread that came and left between the two reads is missed.  Run
 * time is schedstat's nanoseconds where the kernel has it, else utime +
 * stime in clock ticks (10 ms: short runs do not show).
 */
#ifndef HOST_SAMPLE_H
#define HOST_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hc_task {
	int pid, tid;
	int cpu;		/* stat's processor: where it ran last */
	bool kthread;		/* PF_KTHREAD in stat's flags */
	uint64_t run_ns;	/* schedstat's run time, else (utime + stime) */
	uint64_t slices;	/* schedstat's count of runs; 0 without it */
	char comm[40];
};

/* One line of /proc/interrupts or /proc/softirqs: its count on the hot CPU. */
struct hc_count {
	char label[16];		/* "38", "LOC", "NET_RX" */
	char name[40];		/* a device IRQ's action ("virtio2-input.0"), else the description */
	uint64_t n;
};

struct hc_snap {
	struct hc_task *task;
	size_t n_task;
	int task_err;		/* 0, or -errno: /proc could not be listed */
	struct hc_count *irq;
	size_t n_irq;
	int irq_err;		/* -ENODEV: the hot CPU has no column (offline) */
	struct hc_count *soft;
	size_t n_soft;
	int soft_err;
};

/* Each part's failure is kept in its *_err; -ENOMEM is the only error returned. */
int hc_snap_take(const char *root, int cpu, struct hc_snap *s);
void hc_snap_free(struct hc_snap *s);

/* A thread that ran on the hot CPU in the window: how long, how many runs. */
struct hc_ran {
	struct hc_task t;	/* as the second snapshot saw it */
	uint64_t ns, slices;
};

struct hc_delta {
	struct hc_ran *ran;	/* by time, the longest first */
	size_t n_ran;
	struct hc_count *irq;	/* lines whose count grew, n = the growth */
	size_t n_irq;
	struct hc_count *soft;
	size_t n_soft;
};

/* Threads of exclude_pid (the gateway itself) are left out.  0 or -ENOMEM. */
int hc_delta_make(const struct hc_snap *a, const struct hc_snap *b, int cpu, int exclude_pid,
		  struct hc_delta *d);
void hc_delta_free(struct hc_delta *d);

/* The growth of one interrupt line, 0 when it did not grow or is not there. */
uint64_t hc_delta_irq(const struct hc_delta *d, const char *label);

#endif /* HOST_SAMPLE_H */
