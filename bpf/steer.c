// SPDX-License-Identifier: MIT
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "bpf/steer_loader.h"
#include "bpf/steer.skel.h"

const char *const steer_counter_names[STEER_NR_COUNTERS] = {
	[STEER_SEEN] = "seen",
	[STEER_STEERED] = "steered",
	[STEER_PASSED] = "passed",
	[STEER_SHORT] = "short",
	[STEER_SPOOFED] = "spoofed",
	[STEER_NO_META] = "no_meta",
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

uint32_t xdp_attached_id(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.prog_id;
}

static void prog_name(uint32_t id, char *name, size_t len)
{
	struct bpf_prog_info info = { 0 };
	uint32_t ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	snprintf(name, len, "?");
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
		snprintf(name, len, "%s", info.name);
	close(fd);
}

/* A program already there: ours from a killed run is replaced. */
static int clear_leftover(int ifindex, const char *ifname, bool replace_foreign,
			  char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	char name[BPF_OBJ_NAME_LEN + 1];

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return 0;
	prog_name(q.prog_id, name, sizeof(name));
	if (strcmp(name, "steer") && !replace_foreign) {
		snprintf(err, errlen,
			 "%s already has XDP program '%s' (id %u) attached; detach it "
			 "(ip link set dev %s xdp off) or pass --replace-xdp",
			 ifname, name, q.prog_id, ifname);
		return -EBUSY;
	}
	fprintf(stderr, "t2t-gateway: replacing XDP program '%s' (id %u) left attached on %s%s\n",
		name, q.prog_id, ifname,
		strcmp(name, "steer") ? "" : " by an earlier run that did not exit cleanly");
	/* Either mode may hold it; attaching in the other would fail with EBUSY. */
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
	if (xdp_attached_id(ifindex)) {
		snprintf(err, errlen, "cannot detach the XDP program on %s", ifname);
		return -EBUSY;
	}
	return 0;
}

int xdp_steer_open(struct xdp_steer *s, const char *ifname, bool generic,
		   bool replace_foreign, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	libbpf_set_print(libbpf_quiet);
	s->ifindex = (int)if_nametoindex(ifname);
	if (!s->ifindex) {
		snprintf(err, errlen, "no interface '%s' here (wrong name, or run in the "
			 "gateway's namespace: netns/rig.sh)", ifname);
		return -ENODEV;
	}
	s->xdp_flags = generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;

	s->skel = steer_bpf__open_and_load();
	if (!s->skel) {
		ret = -errno;
		snprintf(err, errlen, "loading the XDP program failed: %s%s", strerror(errno),
			 errno == EPERM ? " (run as root, or with CAP_BPF and CAP_NET_ADMIN)" : "");
		return ret ? ret : -EINVAL;
	}
	ret = clear_leftover(s->ifindex, ifname, replace_foreign, err, errlen);
	if (ret)
		goto fail;
	ret = bpf_xdp_attach(s->ifindex, bpf_program__fd(s->skel->progs.steer),
			     s->xdp_flags, NULL);
	if (ret) {
		snprintf(err, errlen, "attaching XDP in %s mode to %s refused: %s%s",
			 generic ? "generic" : "driver", ifname, strerror(-ret),
			 generic ? "" : " (try --xdp-mode generic)");
		goto fail;
	}
	s->attached = true;
	return 0;
fail:
	steer_bpf__destroy(s->skel);
	s->skel = NULL;
	return ret;
}

int xdp_steer_add_flow(struct xdp_steer *s, uint32_t daddr, uint16_t dport,
		       enum steer_flow_kind kind, uint32_t saddr)
{
	struct steer_flow_key k = { .daddr = daddr, .dport = dport };
	struct steer_flow_val v = { .kind = kind, .saddr = saddr };

	return bpf_map__update_elem(s->skel->maps.flows, &k, sizeof(k), &v,
				    sizeof(v), BPF_ANY);
}

int xdp_steer_xskmap_fd(const struct xdp_steer *s)
{
	return bpf_map__fd(s->skel->maps.xsks);
}

int xdp_steer_counters(const struct xdp_steer *s, uint64_t out[STEER_NR_COUNTERS])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[256];

	if (ncpu <= 0 || ncpu > 256)
		return -EINVAL;
	for (uint32_t i = 0; i < STEER_NR_COUNTERS; i++) {
		out[i] = 0;
		if (bpf_map__lookup_elem(s->skel->maps.counters, &i, sizeof(i), vals,
					 sizeof(vals[0]) * ncpu, 0))
			return -errno;
		for (int c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
	return 0;
}

void xdp_steer_close(struct xdp_steer *s)
{
	if (s->attached) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, o,
			    .old_prog_fd = bpf_program__fd(s->skel->progs.steer));

		/* Only detach what is still ours. */
		bpf_xdp_detach(s->ifindex, s->xdp_flags | XDP_FLAGS_REPLACE, &o);
		s->attached = false;
	}
	if (s->skel)
		steer_bpf__destroy(s->skel);
	s->skel = NULL;
}
