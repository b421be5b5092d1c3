// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/read.h"

static int vpath(const char *root, char *buf, size_t n, const char *fmt, va_list ap)
{
	int len = snprintf(buf, n, "%s", root ? root : "");

	if (len < 0 || (size_t)len >= n)
		return -ENAMETOOLONG;
	if (vsnprintf(buf + len, n - (size_t)len, fmt, ap) >= (int)(n - (size_t)len))
		return -ENAMETOOLONG;
	return 0;
}

int hc_path(const char *root, char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, buf, n, fmt, ap);
	va_end(ap);
	return ret;
}

static int read_at(const char *path, char *buf, size_t n)
{
	size_t len = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs and procfs files may come in several reads */
	while (len + 1 < n) {
		ssize_t got = read(fd, buf + len, n - 1 - len);

		if (got < 0) {
			ret = -errno;
			goto out;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	ret = (int)len;
out:
	close(fd);
	return ret;
}

int hc_read(const char *root, char *buf, size_t n, const char *fmt, ...)
{
	char path[HC_PATH];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	return read_at(path, buf, n);
}

int hc_read_long(const char *root, long *v, const char *fmt, ...)
{
	char path[HC_PATH], buf[64], *end;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	ret = read_at(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return -EINVAL;
	return 0;
}

DIR *hc_opendir(const char *root, const char *fmt, ...)
{
	char path[HC_PATH];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return opendir(path);
}

long hc_dirent_num(const struct dirent *d)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)d->d_name[0]))
		return -1;
	v = strtol(d->d_name, &end, 10);
	return *end ? -1 : v;
}

int hc_cmdline_param(const char *cmdline, const char *name, char *val, size_t n)
{
	size_t len = strlen(name);
	const char *p = cmdline;
	int found = 0;

	if (n)
		val[0] = '\0';
	/* The last one given wins, as the kernel's parser has it. */
	while (*p) {
		size_t w;

		while (isspace((unsigned char)*p))
			p++;
		w = strcspn(p, " \t\n");
		/* "--" ends the kernel's own parameters: what follows is init's */
		if (w == 2 && !strncmp(p, "--", 2))
			break;
		if (w >= len && !strncmp(p, name, len) && (w == len || p[len] == '=')) {
			if (w == len) {
				found = 2;
				if (n)
					val[0] = '\0';
			} else {
				found = 1;
				snprintf(val, n, "%.*s", (int)(w - len - 1), p + len + 1);
			}
		}
		p += w;
	}
	return found;
}

int hc_bracketed(const char *s, char *val, size_t n)
{
	const char *open = strchr(s, '['), *close;

	if (!open || !(close = strchr(open, ']')))
		return -EINVAL;
	snprintf(val, n, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}
