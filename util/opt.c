// SPDX-License-Identifier: MIT
/* Command lines from a table (opt.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/opt.h"

#define OPT_MAX		128	/* options in one table */
#define HELP_COL	25	/* where the help text starts */
#define VAL_LEN		64

static void *field(void *cfg, size_t off)
{
	return (char *)cfg + off;
}

static const void *cfield(const void *cfg, size_t off)
{
	return (const char *)cfg + off;
}

int opt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v < min || *v > max ? -1 : 0;
}

int opt_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

int opt_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	/* %c catches anything after the sixth byte; %x alone would not. */
	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		if (b[i] > 255)
			return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int opt_parse_ip_port(const char *s, uint32_t *ip, uint16_t *port)
{
	char buf[64], *colon;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strrchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	if (opt_parse_ipv4(buf, ip) || opt_parse_u64(colon + 1, 1, 65535, &v))
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) ? -1 : 0;
}

/* The numeric bounds of an option: the table's, or its type's. */
static void bounds(const struct opt *o, double *lo, double *hi)
{
	*lo = o->min;
	*hi = o->max;
	if (o->max)
		return;
	switch (o->type) {
	case OPT_U32:
	case OPT_POW2:
		*hi = UINT32_MAX;
		break;
	case OPT_INT:
		if (!o->min)
			*lo = INT32_MIN;
		*hi = INT32_MAX;
		break;
	case OPT_MS:
		*hi = 3600000;
		break;
	default:
		*hi = 1e300;
		break;
	}
}

/* The same for an unsigned integer, exactly. */
static uint64_t umax(const struct opt *o)
{
	if (o->max)
		return (uint64_t)o->max;
	return o->type == OPT_U64 ? UINT64_MAX : UINT32_MAX;
}

/* One option's argument into cfg; 0, or -1 with why. */
static int apply(const struct opt *o, void *cfg, const char *a, char *why, size_t n)
{
	double lo, hi, d;
	uint64_t v;
	int64_t iv;
	char *end;

	bounds(o, &lo, &hi);
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)field(cfg, o->off) = true;
		return 0;
	case OPT_STR:
		if (!a[0] || (o->max && strlen(a) > o->max)) {
			snprintf(why, n, "wants 1 to %.0f characters", o->max ? o->max : 4096);
			return -1;
		}
		*(const char **)field(cfg, o->off) = a;
		return 0;
	case OPT_U32:
	case OPT_U64:
	case OPT_POW2:
		if (opt_parse_u64(a, (uint64_t)lo, umax(o), &v) ||
		    (o->type == OPT_POW2 && (v & (v - 1)))) {
			snprintf(why, n, "wants %s%llu..%llu", o->type == OPT_POW2 ?
				 "a power of two, " : "", (unsigned long long)lo,
				 (unsigned long long)umax(o));
			return -1;
		}
		if (o->type == OPT_U64)
			*(uint64_t *)field(cfg, o->off) = v;
		else
			*(uint32_t *)field(cfg, o->off) = (uint32_t)v;
		return 0;
	case OPT_INT:
		errno = 0;
		iv = strtoll(a, &end, 10);
		if (errno || end == a || *end || iv < (int64_t)lo || iv > (int64_t)hi) {
			snprintf(why, n, "wants %.0f..%.0f", lo, hi);
			return -1;
		}
		*(int *)field(cfg, o->off) = (int)iv;
		return 0;
	case OPT_CPU: {
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		errno = 0;
		iv = strtoll(a, &end, 10);
		if (errno || end == a || *end || iv < -1 || iv >= ncpu) {
			snprintf(why, n, "is not a CPU here: this machine has CPUs 0..%ld "
				 "(or -1 not to pin)", ncpu - 1);
			return -1;
		}
		*(int *)field(cfg, o->off) = (int)iv;
		return 0;
	}
	case OPT_DOUBLE:
	case OPT_MS:
		if (parse_double(a, &d) || d < lo || d > hi) {
			snprintf(why, n, "wants %s%g..%g", o->type == OPT_MS ? "milliseconds, " : "",
				 lo, hi);
			return -1;
		}
		if (o->type == OPT_MS)
			*(uint64_t *)field(cfg, o->off) = (uint64_t)llround(d * 1e6);
		else
			*(double *)field(cfg, o->off) = d;
		return 0;
	case OPT_ENUM:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(a, o->choices[i])) {
				*(int *)field(cfg, o->off) = i;
				return 0;
			}
		snprintf(why, n, "is");
		for (int i = 0; o->choices[i]; i++)
			snprintf(why + strlen(why), n - strlen(why), "%s %s",
				 !i ? "" : o->choices[i + 1] ? "," : " or", o->choices[i]);
		return -1;
	case OPT_IPV4:
		if (opt_parse_ipv4(a, field(cfg, o->off))) {
			snprintf(why, n, "wants an IPv4 address");
			return -1;
		}
		return 0;
	case OPT_PORT:
		if (opt_parse_u64(a, 1, o->max ? (uint64_t)o->max : 65535, &v)) {
			snprintf(why, n, "wants a port, 1..%.0f", o->max ? o->max : 65535);
			return -1;
		}
		*(uint16_t *)field(cfg, o->off) = (uint16_t)v;
		return 0;
	case OPT_INADDR:
		if (inet_pton(AF_INET, a, field(cfg, o->off)) != 1) {
			snprintf(why, n, "wants an IPv4 address");
			return -1;
		}
		return 0;
	case OPT_NPORT:
		if (opt_parse_u64(a, o->min ? (uint64_t)o->min : 1, 65535, &v)) {
			snprintf(why, n, "wants a port, %.0f..65535", o->min ? o->min : 1);
			return -1;
		}
		*(uint16_t *)field(cfg, o->off) = htons((uint16_t)v);
		return 0;
	case OPT_IP_PORT:
		if (opt_parse_ip_port(a, field(cfg, o->off), field(cfg, o->off2))) {
			snprintf(why, n, "wants %s", o->arg ? o->arg : "IP:PORT");
			return -1;
		}
		return 0;
	case OPT_CALL:
		why[0] = '\0';
		if (o->call(field(cfg, o->off), a, why, n)) {
			if (!why[0])
				snprintf(why, n, "is not valid here");
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

static void hint(const struct opt_prog *p)
{
	fprintf(stderr, "Try '%s --help'.\n", p->name);
}

int opt_error(const struct opt_prog *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", p->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	hint(p);
	return 2;
}

int opt_parse(const struct opt_prog *p, void *cfg, int argc, char **argv,
	      int *first_arg)
{
	struct option lo[OPT_MAX + 2];
	char shorts[3 * OPT_MAX + 4] = ":h";
	int n = 0, c, idx;

	for (const struct opt *o = p->opts; o->type != OPT_END_ && n < OPT_MAX; o++) {
		if (o->type == OPT_SECTION_)
			continue;
		lo[n] = (struct option){ o->name, o->type == OPT_FLAG ? no_argument :
					 o->implied ? optional_argument : required_argument,
					 NULL, 256 + (int)(o - p->opts) };
		n++;
		if (o->short_name) {
			size_t k = strlen(shorts);

			shorts[k] = o->short_name;
			shorts[k + 1] = o->type == OPT_FLAG ? '\0' : ':';
			shorts[k + 2] = o->implied ? ':' : '\0';
			shorts[k + 3] = '\0';
		}
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ 0 };

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		const struct opt *o = NULL;
		const char *arg;
		char why[160];

		if (c == 'h') {
			opt_usage(p, cfg, stdout);
			return 1;
		}
		if (c == ':')
			return opt_error(p, "%s needs a value", argv[optind - 1]);
		if (c == '?')
			return opt_error(p, "unknown option '%s'", argv[optind - 1]);
		if (c >= 256)
			o = &p->opts[c - 256];
		else
			for (const struct opt *q = p->opts; q->type != OPT_END_; q++)
				if (q->short_name == c && q->type != OPT_SECTION_)
					o = q;
		if (!o)
			return opt_error(p, "unknown option '%s'", argv[optind - 1]);
		arg = optarg ? optarg : o->implied ? o->implied : "";
		if (apply(o, cfg, arg, why, sizeof(why)))
			return opt_error(p, "--%s %s: '%s'", o->name, why, arg);
	}
	if (first_arg)
		*first_arg = optind;
	else if (optind < argc)
		return opt_error(p, "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* The default of an option as --help shows it; "" for none. */
static void default_text(const struct opt *o, const void *cfg, char *buf, size_t n)
{
	const void *f = cfield(cfg, o->off);

	buf[0] = '\0';
	if (o->def) {
		snprintf(buf, n, "%s", o->def);
		return;
	}
	if (!cfg)
		return;
	switch (o->type) {
	case OPT_STR:
		if (*(const char *const *)f)
			snprintf(buf, n, "%s", *(const char *const *)f);
		break;
	case OPT_U32:
	case OPT_POW2:
		if (*(const uint32_t *)f)
			snprintf(buf, n, "%u", *(const uint32_t *)f);
		break;
	case OPT_U64:
		if (*(const uint64_t *)f)
			snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)f);
		break;
	case OPT_INT:
	case OPT_CPU:
		snprintf(buf, n, "%d", *(const int *)f);
		break;
	case OPT_DOUBLE:
		if (*(const double *)f)
			snprintf(buf, n, "%g", *(const double *)f);
		break;
	case OPT_MS:
		if (*(const uint64_t *)f)
			snprintf(buf, n, "%g", (double)*(const uint64_t *)f / 1e6);
		break;
	case OPT_ENUM:
		snprintf(buf, n, "%s", o->choices[*(const int *)f]);
		break;
	case OPT_PORT:
		if (*(const uint16_t *)f)
			snprintf(buf, n, "%u", *(const uint16_t *)f);
		break;
	case OPT_INADDR: {
		char a[16];

		if (((const struct in_addr *)f)->s_addr)
			snprintf(buf, n, "%s", inet_ntop(AF_INET, f, a, sizeof(a)));
		break;
	}
	case OPT_NPORT:
		snprintf(buf, n, "%u", ntohs(*(const uint16_t *)f));
		break;
	case OPT_IPV4:
	case OPT_IP_PORT: {
		uint32_t ip = *(const uint32_t *)f;

		if (!ip)
			break;
		snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
			 ip & 255);
		if (o->type == OPT_IP_PORT)
			snprintf(buf + strlen(buf), n - strlen(buf), ":%u",
				 *(const uint16_t *)cfield(cfg, o->off2));
		break;
	}
	default:
		break;
	}
}

/* Help text from @col on, wrapped at 79 columns, '\n' kept. */
static void wrapped(FILE *out, const char *text, int col)
{
	int at = col;

	while (*text) {
		const char *w = text;
		int len;

		if (*text == '\n') {
			fprintf(out, "\n%*s", col, "");
			at = col;
			text++;
			continue;
		}
		while (*w && *w != ' ' && *w != '\n')
			w++;
		len = (int)(w - text);
		if (at > col && at + 1 + len > 79) {
			fprintf(out, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', out);
			at++;
		}
		fwrite(text, 1, (size_t)len, out);
		at += len;
		text = w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

void opt_usage(const struct opt_prog *p, const void *cfg, FILE *out)
{
	fprintf(out, "Usage: %s %s\n\n%s\n", p->name, p->usage, p->about);
	for (const struct opt *o = p->opts; o->type != OPT_END_; o++) {
		char head[96], def[VAL_LEN], help[1024];
		int len;

		if (o->type == OPT_SECTION_) {
			fprintf(out, "%s\n", o->name);
			continue;
		}
		if (o->short_name)
			len = snprintf(head, sizeof(head), "  -%c, --%s", o->short_name, o->name);
		else
			len = snprintf(head, sizeof(head), "  --%s", o->name);
		if (o->arg)
			len += snprintf(head + len, sizeof(head) - (size_t)len,
					o->implied ? "[=%s]" : " %s", o->arg);
		default_text(o, cfg, def, sizeof(def));
		snprintf(help, sizeof(help), "%s%s%s%s", o->help, def[0] ? " (default " : "",
			 def, def[0] ? ")" : "");
		fputs(head, out);
		if (len + 1 > HELP_COL - 1)
			fprintf(out, "\n%*s", HELP_COL, "");
		else
			fprintf(out, "%*s", HELP_COL - len, "");
		wrapped(out, help, HELP_COL);
	}
	fprintf(out, "  -h, --help%*sthis text\n", HELP_COL - 12, "");
	if (p->more)
		fprintf(out, "\n%s", p->more);
}
