#!/bin/sh
# Install the Debian packages LightNet needs, when missing.  Runs apt-get
# update once, and only if something is missing.  Safe to run again.
set -e
PKGS="gcc clang libclang-rt-14-dev make pkg-config perl m4 python3 python3-numpy python3-onnx libcjson-dev check git
      protobuf-c-compiler libprotobuf-c-dev libonnx-dev
      gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm qemu-user graphviz librsvg2-bin"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
