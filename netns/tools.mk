# The rig's test tools (netns/tools/): plain kernel-UDP programs the tests and
# benchmarks run on either side of the rig, never the gateway's code:
#  mcast_recv        the feed group gets through (rig_updown.sh)
#  feed_recv         a whole feed session, strict: fails at the first anomaly
#  fault_recv        the same, tolerant: counts the faults, fills gaps
#  order_client      one OUCH order, the replies decoded
#  rerequest_client  one MoldUDP64 re-request, the answers printed
#  vethfault         loss, duplication and reordering on a veth's egress where
#                    the kernel has no sch_netem (a tc BPF program beside its
#                    loader; rig.sh netem falls back to it)
# Included from netns/build.mk.  Libraries are named by path: proto/ and
# util/ build.mk are read after this file.

# What the kernel-UDP tools share: the command line, the feed socket, the
# trade CSV line.
TOOL_UTIL_OBJS := $(call objs,netns/tools/tool_util.c)

$(BUILD)/tools/mcast_recv: $(call objs,netns/tools/mcast_recv.c)
	$(CC) $^ -o $@

$(BUILD)/tools/feed_recv: $(call objs,netns/tools/feed_recv.c) $(TOOL_UTIL_OBJS) \
		$(BUILD)/libproto.a
	$(CC) $^ -o $@ $(LDLIBS)

$(BUILD)/tools/order_client: $(call objs,netns/tools/order_client.c) $(TOOL_UTIL_OBJS) \
		$(BUILD)/libproto.a
	$(CC) $^ -o $@ $(LDLIBS)

$(BUILD)/tools/fault_recv: $(call objs,netns/tools/fault_recv.c) $(TOOL_UTIL_OBJS) \
		$(BUILD)/libproto.a
	$(CC) $^ -o $@ $(LDLIBS)

$(BUILD)/tools/rerequest_client: $(call objs,netns/tools/rerequest_client.c) \
		$(TOOL_UTIL_OBJS) $(BUILD)/libproto.a
	$(CC) $^ -o $@ $(LDLIBS)

# The skeleton (build/netns/tools/vethfault.skel.h) comes from the top
# Makefile's BPF rules.
$(BUILD)/tools/vethfault: $(call objs,netns/tools/vethfault.c)
	$(CC) $^ -o $@ -lbpf -lelf -lz $(LDLIBS)

BINS += $(BUILD)/tools/mcast_recv $(BUILD)/tools/feed_recv $(BUILD)/tools/order_client \
	$(BUILD)/tools/fault_recv $(BUILD)/tools/rerequest_client $(BUILD)/tools/vethfault
