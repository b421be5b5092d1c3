// SPDX-License-Identifier: MIT
/*
 * vethfault: network faults on a device's egress where the kernel has no
 * sch_netem (built without CONFIG_NET_SCH_NETEM): loads vethfault.bpf.c as a tc clsact egress filter.
 * netns/rig.sh netem uses it as its fallback; run it in the device's
 * namespace.
 *
 *   vethfault attach DEV [--loss P] [--duplicate P] [--delay P --slow-class M:N]
 *                        [--ifb-for VETH]
 *   vethfault stats DEV      seen, dropped, duplicated, delayed (key=value)
 *   vethfault detach DEV
 *
 * P are fractions 0..1.  --delay puts that fraction of the frames into the
 * HTB class M:N of the device's root qdisc, which the caller set up slow, so
 * that later frames overtake them.  --ifb-for: DEV is an ifb that a tc
 * mirred action feeds from VETH's ingress; duplicates are then sent into
 * VETH's ingress (see vethfault.bpf.c).  A lost frame is stolen
 * (TC_ACT_STOLEN): a sender's TCP believes it left and must retransmit it.
 * The filter stays after this program exits (the kernel holds it) until
 * detached or the device goes away.
 * Exit 0 ok, 1 failure, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_sched.h>

#include "netns/tools/vethfault.h"
#include "netns/tools/vethfault.skel.h"
#include "util/opt.h"

struct cfg {
	double loss, dup, delay;	/* fractions 0..1 */
	uint32_t slow;			/* the slow HTB class, TC_H_MAKE(M, N) */
	const char *ifb_for;		/* DEV is an ifb fed from this one's ingress */
};

static int slow_class(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;
	unsigned int maj, min;
	char tail;

	if (sscanf(a, "%x:%x%c", &maj, &min, &tail) != 2 || maj > 0xffff || min > 0xffff)
		return snprintf(why, n, "wants M:N, hex, as tc writes a class"), -1;
	c->slow = TC_H_MAKE(maj << 16, min);
	return 0;
}

static const struct opt opts[] = {
	OPT_SECTION("attach:"),
	OPT("loss", 0, OPT_DOUBLE, OFF(struct cfg, loss), "P", "drop this fraction",
	    .max = 1),
	OPT("duplicate", 0, OPT_DOUBLE, OFF(struct cfg, dup), "P",
	    "send this fraction twice", .max = 1),
	OPT("delay", 0, OPT_DOUBLE, OFF(struct cfg, delay), "P",
	    "put this fraction into the slow class (needs --slow-class)", .max = 1),
	OPT("slow-class", 0, OPT_CALL, 0, "M:N",
	    "the HTB class of the device's root qdisc the caller set up slow",
	    .call = slow_class),
	OPT("ifb-for", 0, OPT_STR, OFF(struct cfg, ifb_for), "VETH",
	    "DEV is an ifb fed from VETH's ingress (tc mirred): duplicates "
	    "go into VETH's ingress, where the ifb re-injects its frames",
	    .max = IF_NAMESIZE - 1),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "vethfault",
	.usage = "attach DEV [--loss P] [--duplicate P] [--delay P --slow-class M:N]\n"
		 "                 [--ifb-for VETH]\n"
		 "       vethfault stats DEV\n"
		 "       vethfault detach DEV",
	.about =
"Network faults on a device's egress where the kernel has no sch_netem: a tc\n"
"clsact egress BPF program (vethfault.bpf.c) drops, duplicates, and delays\n"
"into a slow HTB class (so that later frames overtake them) fractions P\n"
"(0..1) of the frames; a lost frame is stolen (the sender believes it left).\n"
"On an ifb fed from a veth's ingress (--ifb-for), faults hit what the veth\n"
"receives.  netns/rig.sh netem falls back to it; run it in the device's\n"
"namespace.  The filter stays after this program exits until detached or\n"
"the device goes away.  stats prints seen, dropped, duplicated and delayed\n"
"(key=value).\n",
	.more = "Exit status: 0 ok, 1 failure, 2 bad usage.\n",
	.opts = opts,
};

static uint32_t thr(double p)
{
	return p >= 1 ? UINT32_MAX : (uint32_t)ldexp(p, 32);
}

static int attach(int ifindex, int argc, char **argv)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tco, .handle = VF_TC_HANDLE,
			    .priority = VF_TC_PRIO);
	struct vethfault_bpf *skel;
	struct cfg c = { 0 };
	int err, dup_ifindex = ifindex;

	/* argv[0] is DEV: the options follow it. */
	err = opt_parse(&prog, &c, argc, argv, NULL);
	if (err)
		return err == 1 ? 0 : 2;
	if (c.delay > 0 && !c.slow)
		return opt_error(&prog, "--delay needs --slow-class M:N");
	if (c.ifb_for) {
		dup_ifindex = (int)if_nametoindex(c.ifb_for);
		if (!dup_ifindex) {
			fprintf(stderr, "vethfault: --ifb-for %s: no such device here\n", c.ifb_for);
			return 1;
		}
	}

	skel = vethfault_bpf__open();
	if (!skel) {
		fprintf(stderr, "vethfault: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->loss_thr = c.loss > 0 ? thr(c.loss) : 0;
	skel->rodata->dup_thr = c.dup > 0 ? thr(c.dup) : 0;
	skel->rodata->delay_thr = c.delay > 0 ? thr(c.delay) : 0;
	skel->rodata->dup_ifindex = (uint32_t)dup_ifindex;
	skel->rodata->dup_flags = c.ifb_for ? BPF_F_INGRESS : 0;
	skel->rodata->slow_class = c.slow;
	err = vethfault_bpf__load(skel);
	if (err) {
		fprintf(stderr, "vethfault: load: %s\n", strerror(-err));
		goto out;
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		fprintf(stderr, "vethfault: clsact on ifindex %d: %s\n", ifindex, strerror(-err));
		goto out;
	}
	tco.prog_fd = bpf_program__fd(skel->progs.vethfault);
	tco.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &tco);
	if (err)
		fprintf(stderr, "vethfault: attach: %s\n", strerror(-err));
out:
	vethfault_bpf__destroy(skel);	/* the attached filter keeps the program */
	return err ? 1 : 0;
}

static int stats(int ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tco, .handle = VF_TC_HANDLE,
			    .priority = VF_TC_PRIO);
	static const char *const names[VF_NR_COUNTERS] = {
		"seen", "dropped", "duplicated", "delayed",
	};
	uint32_t map_ids[16], i;
	struct bpf_prog_info pi = { 0 };
	__u32 len = sizeof(pi);
	int ncpu = libbpf_num_possible_cpus(), pfd, err;

	err = bpf_tc_query(&hook, &tco);
	if (err) {
		fprintf(stderr, "vethfault: no fault filter on ifindex %d: %s\n", ifindex,
			strerror(-err));
		return 1;
	}
	pfd = bpf_prog_get_fd_by_id(tco.prog_id);
	pi.nr_map_ids = 16;
	pi.map_ids = (uintptr_t)map_ids;
	if (pfd < 0 || bpf_obj_get_info_by_fd(pfd, &pi, &len)) {
		fprintf(stderr, "vethfault: program %u: %s\n", tco.prog_id, strerror(errno));
		return 1;
	}
	for (i = 0; i < pi.nr_map_ids && i < 16; i++) {
		struct bpf_map_info mi = { 0 };
		__u32 ml = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(map_ids[i]);
		uint32_t k;

		if (mfd < 0 || bpf_obj_get_info_by_fd(mfd, &mi, &ml) ||
		    strcmp(mi.name, "counters")) {
			if (mfd >= 0)
				close(mfd);
			continue;
		}
		for (k = 0; k < VF_NR_COUNTERS; k++) {
			uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;
			int c;

			if (bpf_map_lookup_elem(mfd, &k, v))
				continue;
			for (c = 0; c < ncpu; c++)
				sum += v[c];
			printf("%s=%" PRIu64 "\n", names[k], sum);
		}
		close(mfd);
		close(pfd);
		return 0;
	}
	close(pfd);
	fprintf(stderr, "vethfault: the filter's program has no counters map\n");
	return 1;
}

static int detach(int ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tco, .handle = VF_TC_HANDLE,
			    .priority = VF_TC_PRIO);
	int err = bpf_tc_detach(&hook, &tco);

	if (err && err != -ENOENT) {
		fprintf(stderr, "vethfault: detach: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		opt_usage(&prog, NULL, stdout);
		return 0;
	}
	if (argc < 3)
		return opt_error(&prog, "attach, stats or detach, and a device");
	ifindex = (int)if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "vethfault: %s: no such device here\n", argv[2]);
		return 1;
	}
	libbpf_set_print(NULL);
	if (!strcmp(argv[1], "attach"))
		return attach(ifindex, argc - 2, argv + 2);
	if (!strcmp(argv[1], "stats") && argc == 3)
		return stats(ifindex);
	if (!strcmp(argv[1], "detach") && argc == 3)
		return detach(ifindex);
	return opt_error(&prog, "attach, stats or detach, and a device: not '%s'", argv[1]);
}
