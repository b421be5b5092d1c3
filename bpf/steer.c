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
#include <netinet/in.h>

#include "bpf/steer_loader.h"
#include "bpf/steer.skel.h"

#define STEER_NAME_(id, s) [id] = s,
const char *const steer_counter_names[STEER_NR_COUNTERS] = { STEER_COUNTER_NAMES(STEER_NAME_) };
const char *const steer_line_counter_names[STEER_LINE_NR] = {
	STEER_LINE_COUNTER_NAMES(STEER_NAME_)
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

/* Attach the loaded program to @ifname as interface @slot. */
static int attach(struct xdp_steer *s, unsigned int slot, const char *ifname,
		  bool replace_foreign, char *err, size_t errlen)
{
	bool generic = s->xdp_flags & XDP_FLAGS_SKB_MODE;
	uint32_t ifindex = if_nametoindex(ifname);
	int ret;

	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' here (wrong name, or run in the "
			 "gateway's namespace: netns/rig.sh)", ifname);
		return -ENODEV;
	}
	ret = clear_leftover((int)ifindex, ifname, replace_foreign, err, errlen);
	if (ret)
		return ret;
	ret = bpf_map__update_elem(s->skel->maps.ifslots, &ifindex, sizeof(ifindex), &slot,
				   sizeof(slot), BPF_ANY);
	if (ret) {
		snprintf(err, errlen, "interface slot of %s: %s", ifname, strerror(-ret));
		return ret;
	}
	ret = bpf_xdp_attach((int)ifindex, bpf_program__fd(s->skel->progs.steer),
			     s->xdp_flags, NULL);
	if (ret) {
		snprintf(err, errlen, "attaching XDP in %s mode to %s refused: %s%s",
			 generic ? "generic" : "driver", ifname, strerror(-ret),
			 generic ? "" : " (try --xdp-mode generic)");
		return ret;
	}
	s->ifindex[slot] = (int)ifindex;
	s->attached[slot] = true;
	return 0;
}

int xdp_steer_open(struct xdp_steer *s, const char *ifname, bool generic,
		   bool replace_foreign, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	libbpf_set_print(libbpf_quiet);
	if (!if_nametoindex(ifname)) {
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
	s->arb = &s->skel->bss->arb;
	ret = attach(s, 0, ifname, replace_foreign, err, errlen);
	if (ret) {
		steer_bpf__destroy(s->skel);
		s->skel = NULL;
		s->arb = NULL;
	}
	return ret;
}

int xdp_steer_add_if(struct xdp_steer *s, const char *ifname, bool replace_foreign,
		     char *err, size_t errlen)
{
	return attach(s, 1, ifname, replace_foreign, err, errlen);
}

/* The fragments between these hosts, of this protocol, are dropped. */
static int add_frag(struct xdp_steer *s, uint32_t saddr, uint32_t daddr, uint8_t proto)
{
	struct steer_frag_key k = { .saddr = saddr, .daddr = daddr, .proto = proto };
	uint32_t v = 1;

	return bpf_map__update_elem(s->skel->maps.frag_flows, &k, sizeof(k), &v, sizeof(v),
				    BPF_ANY);
}

int xdp_steer_add_flow(struct xdp_steer *s, uint32_t daddr, uint16_t dport,
		       enum steer_flow_kind kind, uint32_t saddr, uint32_t line)
{
	struct steer_flow_key k = { .daddr = daddr, .dport = dport };
	struct steer_flow_val v = { .kind = kind, .saddr = saddr, .line = line };
	int ret;

	ret = bpf_map__update_elem(s->skel->maps.flows, &k, sizeof(k), &v, sizeof(v), BPF_ANY);
	return ret ? ret : add_frag(s, saddr, daddr, IPPROTO_UDP);
}

int xdp_steer_add_tcp(struct xdp_steer *s, uint32_t saddr, uint16_t sport, uint32_t daddr,
		      uint16_t dport)
{
	struct steer_tcp_key k = { .saddr = saddr, .daddr = daddr, .sport = sport, .dport = dport };
	struct steer_tcp_val v = { .ifindex = (uint32_t)s->ifindex[0] };
	int ret;

	ret = bpf_map__update_elem(s->skel->maps.tcp_flows, &k, sizeof(k), &v, sizeof(v),
				   BPF_ANY);
	/* Kept when the connection goes: the next one has the same hosts. */
	return ret ? ret : add_frag(s, saddr, daddr, IPPROTO_TCP);
}

int xdp_steer_del_tcp(struct xdp_steer *s, uint32_t saddr, uint16_t sport, uint32_t daddr,
		      uint16_t dport)
{
	struct steer_tcp_key k = { .saddr = saddr, .daddr = daddr, .sport = sport, .dport = dport };

	if (bpf_map__delete_elem(s->skel->maps.tcp_flows, &k, sizeof(k), 0) && errno != ENOENT)
		return -errno;
	return 0;
}

void xdp_steer_arm(struct xdp_steer *s, const uint8_t session[STEER_SESSION_LEN],
		   uint64_t next)
{
	struct steer_arb *a = s->arb;

	if (!a)
		return;
	/* Disarmed while it changes, so the hook never pairs a session with
	 * another's number. */
	__atomic_store_n(&a->armed, 0, __ATOMIC_SEQ_CST);
	memcpy(a->session, session, STEER_SESSION_LEN);
	__atomic_store_n(&a->next, next, __ATOMIC_SEQ_CST);
	__atomic_store_n(&a->armed, 1, __ATOMIC_SEQ_CST);
}

int xdp_steer_xskmap_fd(const struct xdp_steer *s)
{
	return bpf_map__fd(s->skel->maps.xsks);
}

/* Sum of per-CPU values of @map's keys 0..n-1 into out[]. */
static int percpu_sums(struct bpf_map *map, uint64_t *out, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[256];

	if (ncpu <= 0 || ncpu > 256)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		out[i] = 0;
		if (bpf_map__lookup_elem(map, &i, sizeof(i), vals, sizeof(vals[0]) * ncpu, 0))
			return -errno;
		for (int c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
	return 0;
}

int xdp_steer_counters(const struct xdp_steer *s, uint64_t out[STEER_NR_COUNTERS])
{
	return percpu_sums(s->skel->maps.counters, out, STEER_NR_COUNTERS);
}

int xdp_steer_queue_stats(const struct xdp_steer *s, struct steer_queue_stats *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct steer_queue_stats *v;
	uint32_t zero = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map__lookup_elem(s->skel->maps.queue_stats, &zero, sizeof(zero), v,
				 sizeof(*v) * (size_t)ncpu, 0)) {
		ret = -errno;
		goto out;
	}
	for (int c = 0; c < ncpu; c++) {
		const __u64 *a = &v[c].steered[0][0][0], *b = &v[c].unserved[0][0][0];
		__u64 *oa = &out->steered[0][0][0], *ob = &out->unserved[0][0][0];

		for (size_t i = 0; i < sizeof(out->steered) / sizeof(uint64_t); i++) {
			oa[i] += a[i];
			ob[i] += b[i];
		}
	}
out:
	free(v);
	return ret;
}

int xdp_steer_line_counters(const struct xdp_steer *s,
			    uint64_t out[STEER_LINES][STEER_LINE_NR])
{
	return percpu_sums(s->skel->maps.line_counters, &out[0][0],
			   STEER_LINES * STEER_LINE_NR);
}

void xdp_steer_close(struct xdp_steer *s)
{
	for (unsigned int i = 0; i < STEER_MAX_IFS; i++) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, o);

		if (!s->attached[i])
			continue;
		/* Only detach what is still ours. */
		o.old_prog_fd = bpf_program__fd(s->skel->progs.steer);
		bpf_xdp_detach(s->ifindex[i], s->xdp_flags | XDP_FLAGS_REPLACE, &o);
		s->attached[i] = false;
	}
	if (s->skel)
		steer_bpf__destroy(s->skel);
	s->skel = NULL;
	s->arb = NULL;
}

int xdp_steer_parse_mode(const char *arg, bool *generic)
{
	if (!strcmp(arg, "drv") || !strcmp(arg, "native"))
		*generic = false;
	else if (!strcmp(arg, "generic") || !strcmp(arg, "skb"))
		*generic = true;
	else
		return -1;
	return 0;
}
