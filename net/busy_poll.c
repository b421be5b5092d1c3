// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/busy_poll.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL	69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET	70
#endif

static int set_int(int fd, int name, int v, const char *what, char *err, size_t errlen)
{
	if (!setsockopt(fd, SOL_SOCKET, name, &v, sizeof(v)))
		return 0;
	snprintf(err, errlen, "%s %d refused: %s%s", what, v, strerror(errno),
		 errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
	return -errno;
}

int busy_poll_set(int fd, const struct busy_poll_cfg *c, char *err, size_t errlen)
{
	int ret;

	if (!busy_poll_on(c))
		return 0;
	/* Prefer without a poll time would never poll: give it the kernel's usual 50. */
	ret = set_int(fd, SO_BUSY_POLL, c->usec ? (int)c->usec : 50, "SO_BUSY_POLL",
		      err, errlen);
	if (!ret && c->prefer)
		ret = set_int(fd, SO_PREFER_BUSY_POLL, 1, "SO_PREFER_BUSY_POLL", err, errlen);
	if (!ret && c->budget)
		ret = set_int(fd, SO_BUSY_POLL_BUDGET, (int)c->budget, "SO_BUSY_POLL_BUDGET",
			      err, errlen);
	return ret;
}

unsigned int busy_poll_napi_id(int fd)
{
	unsigned int id = 0;
	socklen_t len = sizeof(id);

	if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &id, &len))
		return 0;
	return id;
}
