#!/bin/sh
# Install the Debian packages the project needs, only those that are missing.
# Idempotent and quiet when everything is present, so every make target that
# needs a tool can call it cheaply.
set -eu

PKGS="gcc make clang llvm libbpf-dev libxdp-dev bpftool libelf-dev zlib1g-dev
pkg-config libcmocka-dev libclang-rt-14-dev xdp-tools iproute2 ethtool
tcpdump tcpreplay tshark sockperf gnuplot-nox iputils-ping netcat-openbsd
linux-perf jq
libmicrohttpd-dev prometheus chromium tmux curl fonts-dejavu-core
python3-numpy python3-pandas python3-distributed python3-pytest"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Packages install, services do not start: the prometheus package is here
# for promtool only, and must not leave a server listening on :9090.
guard=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	guard=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$guard"
	chmod 755 "$guard"
	trap 'rm -f "$guard"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
case " $missing " in
*" prometheus "*)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus >/dev/null 2>&1 || true
	fi ;;
esac
echo "deps: done"
