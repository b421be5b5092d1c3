# The rig's test tools (netns/tools/): plain kernel-UDP programs the tests and
# benchmarks run on either side of the rig, never the gateway's code:
#  mcast_recv        the feed group gets through (rig_updown.sh)
#  feed_recv         a whole feed session, strict: fails at the first anomaly
#  fault_recv        the same, tolerant: counts the faults, fills gaps
#  order_client      OUCH orders in a SoupBinTCP session (kernel TCP), the
#                    replies decoded with their sequence numbers
#  rerequest_client  one MoldUDP64 re-request, the answers printed
#  vethfault         loss, duplication and reordering on a veth's egress where
#                    the kernel has no sch_netem (a tc BPF program beside its
#                    loader; rig.sh netem falls back to it)
#  tcp_spoof         forged segments of a live order connection with the
#                    exchange's addresses (AF_PACKET; RFC 5961's attacks)
# Included from netns/build.mk.  Libraries are named by path: proto/ and
# util/ build.mk are read after this file.

# Every tool's command line is a table (util/opt.h).  What the four
# kernel-UDP tools share besides: the receivers' options and start, the feed
# socket, the trade and hex lines (tool_util.[ch]).
TOOL_UTIL_OBJS := $(call objs,netns/tools/tool_util.c)
UDP_TOOLS := $(addprefix $(BUILD)/tools/,feed_recv fault_recv order_client rerequest_client)

$(UDP_TOOLS): $(BUILD)/tools/%: $(BUILD)/netns/tools/%.o $(TOOL_UTIL_OBJS) $(BUILD)/libproto.a \
		$(BUILD)/libutil.a
	$(CC) $^ -o $@ $(LDLIBS)

$(BUILD)/tools/mcast_recv: $(call objs,netns/tools/mcast_recv.c) $(BUILD)/libutil.a
	$(CC) $^ -o $@ $(LDLIBS)

# The skeleton (build/netns/tools/vethfault.skel.h) comes from the top
# Makefile's BPF rules.
$(BUILD)/tools/vethfault: $(call objs,netns/tools/vethfault.c) $(BUILD)/libutil.a
	$(CC) $^ -o $@ -lbpf -lelf -lz $(LDLIBS)

$(BUILD)/tools/tcp_spoof: $(call objs,netns/tools/tcp_spoof.c) $(BUILD)/libproto.a \
		$(BUILD)/libutil.a
	$(CC) $^ -o $@ $(LDLIBS)

BINS += $(UDP_TOOLS) $(BUILD)/tools/mcast_recv $(BUILD)/tools/vethfault $(BUILD)/tools/tcp_spoof
