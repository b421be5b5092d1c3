/* SPDX-License-Identifier: MIT */
/*
 * Error codes shared by every decoder and encoder in proto/.
 *
 * Functions return a length (>= 0) or one of these negative values, so that a
 * caller can count each class of bad input by name.
 */
#ifndef PROTO_ERR_H
#define PROTO_ERR_H

#include <stddef.h>

enum proto_err {
	PROTO_OK		=  0,
	PROTO_E_SHORT		= -1,	/* input shorter than its fixed header */
	PROTO_E_LENGTH		= -2,	/* a length field disagrees with the bytes or the type */
	PROTO_E_PKT_TYPE	= -3,	/* SoupBin packet type not the one expected ('U'/'S') */
	PROTO_E_MSG_TYPE	= -4,	/* message type unknown or not allowed here */
	PROTO_E_NOSPACE		= -5,	/* destination buffer too small */
	PROTO_E_CHAR		= -6,	/* byte outside the field's alphabet (order token) */
	PROTO_E_ETHERTYPE	= -7,	/* frame is not IPv4 */
	PROTO_E_IP_HDR		= -8,	/* IPv4 version/IHL invalid */
	PROTO_E_FRAGMENT	= -9,	/* IPv4 fragment (MF set or offset != 0) */
	PROTO_E_NOT_UDP		= -10,	/* IPv4 protocol is not UDP */
	PROTO_E_CHECKSUM	= -11,	/* checksum verification failed */
	PROTO_E_RANGE		= -12,	/* value does not fit the field */
	PROTO_E_NOT_TCP		= -13,	/* IPv4 protocol is not TCP */
	PROTO_E_TCP_HDR		= -14,	/* TCP data offset or options invalid */
};

/* Short constant name for an error code ("short", "length", ...). */
const char *proto_strerror(int err);

/*
 * A file reader's error: "@path: " and the formatted rest into @err
 * (@len bytes; the rest cut to half of it, so the name always fits).
 * Returns -1, for "return proto_file_err(...)".
 */
int proto_file_err(char *err, size_t len, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* PROTO_ERR_H */
