// SPDX-License-Identifier: MIT
/*
 * The rig's clock conversions (util/clock.h, util/rx_stamp.h): the realtime
 * offset agrees with a plain pair of reads; a kernel receive stamp comes
 * out on the monotonic clock, and a message without one gives 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/clock.h"
#include "util/rx_stamp.h"

static void test_realtime_offset_matches_the_clocks(void **state)
{
	int64_t off = realtime_offset(), plain = (int64_t)real_ns() - (int64_t)mono_ns();

	(void)state;
	/* Within a millisecond: the reads are microseconds apart. */
	assert_true(off - plain < 1000000 && plain - off < 1000000);
}

static void test_a_kernel_stamp_on_the_monotonic_clock(void **state)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;
	struct timespec ts = { .tv_sec = 1000, .tv_nsec = 500 };
	struct msghdr m = { .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	(void)state;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPNS;
	c->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(c), &ts, sizeof(ts));
	assert_int_equal(rx_stamp_mono(&m, 400 * 1000000000ll), 600 * 1000000000ull + 500);
	/* Another control message only: no stamp. */
	c->cmsg_type = SCM_RIGHTS;
	assert_int_equal(rx_stamp_mono(&m, 0), 0);
	m.msg_controllen = 0;
	assert_int_equal(rx_stamp_mono(&m, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realtime_offset_matches_the_clocks),
		cmocka_unit_test(test_a_kernel_stamp_on_the_monotonic_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
