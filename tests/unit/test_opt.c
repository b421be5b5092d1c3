// SPDX-License-Identifier: MIT
/*
 * Command lines from a table (util/opt.h): each type lands in its field
 * within its bounds, a bad value is refused naming the flag, and --help is
 * generated from the table with the defaults read from the config.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/opt.h"

struct cfg {
	bool flag;
	const char *name;
	uint32_t n;
	uint64_t big;
	int cpu;
	uint32_t ring;
	double secs;
	uint64_t wait_ns;
	int mode;
	uint32_t ip;
	uint16_t port;
	uint32_t peer;
	uint16_t peer_port;
	const char *out;
	int calls;
	uint16_t low_port;
	struct part {
		int seen;
	} part;
};

static int count(void *cfg, const char *a, char *why, size_t n)
{
	if (!strcmp(a, "bad")) {
		snprintf(why, n, "refuses 'bad'");
		return -1;
	}
	((struct cfg *)cfg)->calls++;
	return 0;
}

/* A handler of one part of the config: it gets that part. */
static int part_call(void *part, const char *a, char *why, size_t n)
{
	(void)a;
	(void)why;
	(void)n;
	((struct part *)part)->seen++;
	return 0;
}

static const char *const modes[] = { "fast", "slow", NULL };

#define C(f) OFF(struct cfg, f)
static const struct opt opts[] = {
	OPT_SECTION("Things:"),
	OPT("flag", 'f', OPT_FLAG, C(flag), NULL, "a flag"),
	OPT("name", 0, OPT_STR, C(name), "NAME", "a name", .max = 4),
	OPT("n", 'n', OPT_U32, C(n), "N", "a number", .min = 1, .max = 10),
	OPT("big", 0, OPT_U64, C(big), "N", "a big one"),
	OPT("cpu", 0, OPT_INT, C(cpu), "N", "may be negative", .min = -1, .max = 3),
	OPT("ring", 0, OPT_POW2, C(ring), "N", "a power of two", .min = 64, .max = 4096),
	OPT("secs", 0, OPT_DOUBLE, C(secs), "S", "seconds", .max = 10),
	OPT("wait", 0, OPT_MS, C(wait_ns), "MS", "milliseconds", .min = 1),
	OPT("mode", 0, OPT_ENUM, C(mode), "fast|slow", "how", .choices = modes),
	OPT("ip", 0, OPT_IPV4, C(ip), "IP", "an address"),
	OPT("port", 0, OPT_PORT, C(port), "PORT", "a port"),
	OPT("peer", 0, OPT_IP_PORT, C(peer), "IP:PORT", "a peer", .off2 = C(peer_port)),
	OPT("call", 'c', OPT_CALL, 0, "X", "repeatable", .call = count, .def = "none"),
	OPT("part", 0, OPT_CALL, C(part), "X", "a part of the config", .call = part_call),
	OPT("low-port", 0, OPT_PORT, C(low_port), "PORT", "a port below 1000", .max = 999),
	OPT("out", 0, OPT_STR, C(out), "FILE", "optional argument", .implied = "-"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t", .usage = "[options]", .about = "A test.\n", .opts = opts,
};

static int run(struct cfg *c, ...)
{
	char *argv[48] = { "t" };
	int argc = 1;
	va_list ap;

	va_start(ap, c);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return opt_parse(&prog, c, argc, argv, NULL);
}

static void test_types_land_in_their_fields(void **state)
{
	struct cfg c = { .mode = 1 };

	(void)state;
	assert_int_equal(run(&c, "-f", "--name", "abcd", "-n", "7", "--big", "123456789012",
			     "--cpu", "-1", "--ring", "256", "--secs", "2.5", "--wait", "1.5",
			     "--mode", "fast", "--ip", "10.1.2.3", "--port", "80",
			     "--peer", "1.2.3.4:9", "-c", "a", "--call", "b", "--part", "x",
			     "--low-port", "999", NULL), 0);
	assert_true(c.flag);
	assert_string_equal(c.name, "abcd");
	assert_int_equal(c.n, 7);
	assert_int_equal(c.big, 123456789012ull);
	assert_int_equal(c.cpu, -1);
	assert_int_equal(c.ring, 256);
	assert_true(c.secs == 2.5);
	assert_int_equal(c.wait_ns, 1500000);
	assert_int_equal(c.mode, 0);
	assert_int_equal(c.ip, 0x0a010203);
	assert_int_equal(c.port, 80);
	assert_int_equal(c.peer, 0x01020304);
	assert_int_equal(c.peer_port, 9);
	assert_int_equal(c.calls, 2);
	assert_int_equal(c.part.seen, 1);
	assert_int_equal(c.low_port, 999);
}

static void test_bad_values_refused(void **state)
{
	struct cfg c = { 0 };

	(void)state;
	assert_int_equal(run(&c, "--name", "abcde", NULL), 2);	/* too long */
	assert_int_equal(run(&c, "-n", "0", NULL), 2);		/* below min */
	assert_int_equal(run(&c, "-n", "11", NULL), 2);		/* above max */
	assert_int_equal(run(&c, "-n", "7x", NULL), 2);
	assert_int_equal(run(&c, "-n", "-3", NULL), 2);
	assert_int_equal(run(&c, "--cpu", "4", NULL), 2);
	assert_int_equal(run(&c, "--ring", "100", NULL), 2);	/* not a power of two */
	assert_int_equal(run(&c, "--secs", "nan", NULL), 2);
	assert_int_equal(run(&c, "--wait", "0", NULL), 2);
	assert_int_equal(run(&c, "--mode", "medium", NULL), 2);
	assert_int_equal(run(&c, "--ip", "10.1.2", NULL), 2);
	assert_int_equal(run(&c, "--port", "65536", NULL), 2);
	assert_int_equal(run(&c, "--low-port", "1000", NULL), 2);	/* above .max */
	assert_int_equal(run(&c, "--peer", "1.2.3.4", NULL), 2);
	assert_int_equal(run(&c, "--call", "bad", NULL), 2);
	assert_int_equal(run(&c, "--nope", NULL), 2);
	assert_int_equal(run(&c, "-n", NULL), 2);		/* needs a value */
	assert_int_equal(run(&c, "stray", NULL), 2);
	assert_int_equal(c.n, 0);
}

static void test_optional_argument(void **state)
{
	struct cfg c = { 0 };

	(void)state;
	assert_int_equal(run(&c, "--out", NULL), 0);
	assert_string_equal(c.out, "-");		/* left out: implied */
	assert_int_equal(run(&c, "--out=f.txt", NULL), 0);
	assert_string_equal(c.out, "f.txt");
	assert_int_equal(run(&c, "--out", "f.txt", NULL), 2);	/* not its argument: stray */
	assert_string_equal(c.out, "-");
	assert_int_equal(run(&c, "--out=", NULL), 2);	/* OPT_STR: not empty */
}

static void test_help_from_table(void **state)
{
	struct cfg c = { .n = 5, .wait_ns = 20000000, .mode = 1, .port = 443 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	opt_usage(&prog, &c, f);
	fclose(f);
	assert_non_null(strstr(text, "Usage: t [options]"));
	assert_non_null(strstr(text, "Things:\n"));
	assert_non_null(strstr(text, "  -n, --n N"));
	assert_non_null(strstr(text, "a number (default 5)"));
	assert_non_null(strstr(text, "milliseconds (default 20)"));
	assert_non_null(strstr(text, "how (default slow)"));
	assert_non_null(strstr(text, "a port (default 443)"));
	assert_non_null(strstr(text, "repeatable (default none)"));
	assert_null(strstr(text, "a big one (default"));	/* 0: nothing shown */
	assert_non_null(strstr(text, "  --out[=FILE]"));
	assert_non_null(strstr(text, "-h, --help"));
	free(text);
}

/* --cpu: a CPU of this machine or -1, nothing else. */
static void test_cpu_option(void **state)
{
	struct { int cpu; } c = { 5 };
	static const struct opt o[] = {
		OPT("cpu", 0, OPT_CPU, 0, "N", "pin"),
		OPT_END,
	};
	static const struct opt_prog p = { .name = "t", .usage = "", .opts = o };
	char big[32];
	char *ok0[] = { "t", "--cpu", "0", NULL }, *off[] = { "t", "--cpu", "-1", NULL };
	char *neg[] = { "t", "--cpu", "-2", NULL }, *junk[] = { "t", "--cpu", "1x", NULL };
	char *huge[] = { "t", "--cpu", big, NULL };

	(void)state;
	snprintf(big, sizeof(big), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	assert_int_equal(opt_parse(&p, &c, 3, ok0, NULL), 0);
	assert_int_equal(c.cpu, 0);
	assert_int_equal(opt_parse(&p, &c, 3, off, NULL), 0);
	assert_int_equal(c.cpu, -1);
	assert_int_not_equal(opt_parse(&p, &c, 3, neg, NULL), 0);
	assert_int_not_equal(opt_parse(&p, &c, 3, junk, NULL), 0);
	assert_int_not_equal(opt_parse(&p, &c, 3, huge, NULL), 0);	/* one past the last */
	assert_int_equal(c.cpu, -1);
}

/* The MAC parser the gateway's --exchange-mac and the test tools share. */
static void test_mac_parser(void **state)
{
	uint8_t m[6] = { 0 };

	(void)state;
	assert_int_equal(opt_parse_mac("02:1a:ff:00:9b:7c", m), 0);
	assert_int_equal(m[0], 0x02);
	assert_int_equal(m[2], 0xff);
	assert_int_equal(m[5], 0x7c);
	assert_int_equal(opt_parse_mac("02:00:00:00:00", m), -1);	/* five bytes */
	assert_int_equal(opt_parse_mac("02:00:00:00:00:00:01", m), -1);
	assert_int_equal(opt_parse_mac("02:00:00:00:00:100", m), -1);	/* > ff */
	assert_int_equal(opt_parse_mac("02:00:00:00:00:0g", m), -1);	/* junk after */
	assert_int_equal(opt_parse_mac("", m), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_land_in_their_fields),
		cmocka_unit_test(test_bad_values_refused),
		cmocka_unit_test(test_optional_argument),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_mac_parser),
		cmocka_unit_test(test_cpu_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
