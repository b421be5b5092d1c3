/* SPDX-License-Identifier: MIT */
/*
 * Reading the host's /proc and /sys under a root (--host-root DIR: a made-up
 * tree in the tests, "" for the machine itself).  Every reader returns
 * -errno rather than failing: a file that is not there (a container, an
 * older kernel, a VM without cpufreq) becomes an "unknown" finding.
 */
#ifndef HOST_READ_H
#define HOST_READ_H

#include <dirent.h>
#include <stddef.h>

#define HC_PATH 512

/* ROOT + the path that fmt makes ("/proc/irq/%d/smp_affinity_list"). */
int hc_path(const char *root, char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The whole of a small file (at most n - 1 bytes), NUL-ended, trailing
 * white space cut.  Its length, or -errno.
 */
int hc_read(const char *root, char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The file's one number (decimal, may be negative).  0, or -errno. */
int hc_read_long(const char *root, long *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

DIR *hc_opendir(const char *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A directory entry's name is a number (a PID, an IRQ): it, else -1. */
long hc_dirent_num(const struct dirent *d);

/*
 * The value of NAME= on a kernel command line: its text up to the next
 * space in val.  1 found with a value, 2 found bare (rcu_nocbs), 0 not there.
 */
int hc_cmdline_param(const char *cmdline, const char *name, char *val, size_t n);

/* The word in [brackets]: the choice a sysfs file such as THP's enabled has made. */
int hc_bracketed(const char *s, char *val, size_t n);

#endif /* HOST_READ_H */
