/* SPDX-License-Identifier: MIT */
/* zlib's message for a gzip file's error, for the readers that name the file themselves. */
#ifndef PROTO_GZ_ERR_H
#define PROTO_GZ_ERR_H

#include <errno.h>
#include <string.h>
#include <zlib.h>

/*
 * gzerror()'s text without the "@path: " zlib puts in front (the caller's
 * own message names the file), or strerror() for a system error; its
 * zlib code in *zerr.
 */
static inline const char *proto_gz_msg(gzFile gz, const char *path, int *zerr)
{
	const char *msg = gzerror(gz, zerr);
	size_t n = strlen(path);

	if (*zerr == Z_ERRNO)
		return strerror(errno);
	if (!strncmp(msg, path, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

#endif /* PROTO_GZ_ERR_H */
