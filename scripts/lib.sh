# Shared by scripts/run and scripts/test: install what is missing, configure and build.
# shellcheck shell=bash

UETEMU_PKGS="gcc clang pkg-config meson ninja-build dpdk-dev libdpdk-dev libpcap-dev libbpf-dev libcriterion-dev \
libyaml-dev protobuf-c-compiler libprotobuf-c-dev zlib1g-dev python3-protobuf tshark python3 python3-matplotlib python3-scapy iproute2 iputils-ping procps iperf3 tcpdump ethtool \
libopenmpi-dev openmpi-bin libmicrohttpd-dev python3-prometheus-client curl time"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		echo "uetemu: need root (or sudo) to install: $*" >&2; return 1; fi
}

install_deps() {
	local missing=() p
	for p in $UETEMU_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "uetemu: installing ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# tshark asks whether non-root users may capture; answer no without a prompt
	echo "wireshark-common wireshark-common/install-setuid boolean false" | as_root debconf-set-selections
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build DIR [meson options...]: configure once, then build.
build() {
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" --buildtype=debugoptimized -Dwerror=true "$@" >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log" >&2; return 1; }
	fi
	ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { tail -50 "$dir.ninja.log" >&2; return 1; }
}
