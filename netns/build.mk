# netns/: the namespace/veth rig (rig.sh, a script), the exchange simulator
# (netns/exsim/, netns/exsim.mk) and the test tools (netns/tools/,
# netns/tools.mk).

INT_TESTS += tests/integration/rig_updown.sh tests/integration/rig_netem_tcp.sh

include netns/exsim.mk netns/tools.mk
