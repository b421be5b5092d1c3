# The namespace/veth rig: rig.sh is a script; mcast_recv is the plain kernel
# UDP receiver its tests use to check that the feed group gets through.

BINS += $(BUILD)/netns/mcast_recv
$(BUILD)/netns/mcast_recv: $(call objs,netns/mcast_recv.c)
	$(CC) $^ -o $@

INT_TESTS += tests/integration/rig_updown.sh

# The exchange simulator and its test tools.
include netns/exsim.mk
