/* SPDX-License-Identifier: MIT */
/*
 * Command lines from a table.  A program describes each option once: its
 * name, its type, where in the program's config struct it lands, its
 * bounds and its help; parsing (getopt_long underneath), the checks, the
 * error messages and --help are generated from that one table, so that the
 * help and the defaults cannot drift apart: a default shown by --help is
 * read from the config struct after the program's defaults were applied.
 *
 *	static const struct opt opts[] = {
 *		OPT_SECTION("Path:"),
 *		{ "queue", 0, OPT_U32, OFF(struct cfg, queue), "Q",
 *		  "receive queue for the AF_XDP socket", .max = 63 },
 *		...
 *		OPT_END,
 *	};
 *
 * Errors name the program and the flag and end with "Try 'PROG --help'."
 */
#ifndef UTIL_OPT_H
#define UTIL_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_END_ = 0,
	OPT_SECTION_,	/* a heading in --help, not an option */
	OPT_FLAG,	/* bool, set when given */
	OPT_STR,	/* const char *, the argument itself; .max = longest (0: any) */
	OPT_U32,	/* uint32_t in [.min, .max] */
	OPT_U64,	/* uint64_t in [.min, .max] */
	OPT_INT,	/* int in [.min, .max] (negative allowed) */
	OPT_POW2,	/* uint32_t power of two in [.min, .max] */
	OPT_DOUBLE,	/* double in [.min, .max] */
	OPT_MS,		/* milliseconds in [.min, .max], stored as uint64_t ns */
	OPT_ENUM,	/* int: index of the argument in .choices (NULL-ended) */
	OPT_IPV4,	/* uint32_t, host order */
	OPT_PORT,	/* uint16_t, 1..65535 (.max: lower) */
	OPT_IP_PORT,	/* IP:PORT: uint32_t at .off, uint16_t at .off2 */
	OPT_INADDR,	/* struct in_addr (network order) */
	OPT_NPORT,	/* uint16_t in network order, [.min, 65535] (.min 0: 1) */
	OPT_CPU,	/* int: a CPU of this machine, or -1 (do not pin) */
	OPT_CALL,	/* .call(cfg + off, arg, why, whylen): 0 or -1 with why; .off
			   names a part of the config, 0 the whole */
};

struct opt {
	const char *name;	/* long name, without "--" */
	char short_name;	/* 0: none */
	enum opt_type type;
	size_t off;		/* field in the config struct */
	const char *arg;	/* its argument in --help ("N", "IP:PORT"), NULL: none */
	const char *help;	/* may hold '\n': the help goes on, indented */
	double min, max;	/* numeric bounds (0, 0: the type's own) */
	const char *const *choices;	/* OPT_ENUM */
	size_t off2;		/* OPT_IP_PORT: the port's field */
	int (*call)(void *cfg, const char *arg, char *why, size_t whylen);
	const char *def;	/* the default as --help shows it; NULL: from the
				   config (nothing when it is 0 or empty) */
	const char *implied;	/* non-NULL: the argument may be left out
				   (--name alone) and is then this; given, it
				   is --name=ARG ([=ARG] in --help) */
};

#define OFF(type, field)	offsetof(type, field)
/* A numeric constant as the string a .def wants. */
#define OPT_STR_OF(x)		OPT_STR_OF_(x)
#define OPT_STR_OF_(x)		#x
/* One option: the fields every option has, then any of the others by name. */
#define OPT(n, s, t, f, a, h, ...) \
	{ .name = (n), .short_name = (s), .type = (t), .off = (f), .arg = (a), \
	  .help = (h), __VA_ARGS__ }
#define OPT_SECTION(title)	{ .name = (title), .type = OPT_SECTION_ }
#define OPT_END			{ .type = OPT_END_ }

struct opt_prog {
	const char *name;	/* as run: "t2t-gateway" */
	const char *usage;	/* "[options]" */
	const char *about;	/* paragraphs before the options */
	const char *more;	/* after them, or NULL */
	const struct opt *opts;
};

/*
 * Parse argv into cfg (already holding the defaults).  Returns 0 to run
 * (*first_arg: index of the first non-option argument), 1 after --help was
 * printed, 2 after a usage error was printed on stderr.
 */
int opt_parse(const struct opt_prog *p, void *cfg, int argc, char **argv,
	      int *first_arg);

/* --help, from the table and the defaults in cfg. */
void opt_usage(const struct opt_prog *p, const void *cfg, FILE *out);

/* A usage error in the programs' own post-checks: message, then the hint. */
int opt_error(const struct opt_prog *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Shared argument parsers (0, or -1), for OPT_CALL handlers too. */
int opt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
int opt_parse_ipv4(const char *s, uint32_t *ip);
int opt_parse_ip_port(const char *s, uint32_t *ip, uint16_t *port);
/* aa:bb:cc:dd:ee:ff, nothing after it. */
int opt_parse_mac(const char *s, uint8_t mac[6]);

#endif /* UTIL_OPT_H */
