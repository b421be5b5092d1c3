// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "proto/proto_err.h"

const char *proto_strerror(int err)
{
	switch (err) {
	case PROTO_OK:		return "ok";
	case PROTO_E_SHORT:	return "short";
	case PROTO_E_LENGTH:	return "length";
	case PROTO_E_PKT_TYPE:	return "packet type";
	case PROTO_E_MSG_TYPE:	return "message type";
	case PROTO_E_NOSPACE:	return "no space";
	case PROTO_E_CHAR:	return "bad character";
	case PROTO_E_ETHERTYPE:	return "not IPv4";
	case PROTO_E_IP_HDR:	return "bad IPv4 header";
	case PROTO_E_FRAGMENT:	return "IPv4 fragment";
	case PROTO_E_NOT_UDP:	return "not UDP";
	case PROTO_E_CHECKSUM:	return "bad checksum";
	case PROTO_E_RANGE:	return "out of range";
	case PROTO_E_NOT_TCP:	return "not TCP";
	case PROTO_E_TCP_HDR:	return "bad TCP header";
	}
	return "unknown error";
}

int proto_file_err(char *err, size_t len, const char *path, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what) < len / 2 ? sizeof(what) : len / 2, fmt, ap);
	va_end(ap);
	snprintf(err, len, "%s: %s", path, what);
	return -1;
}
