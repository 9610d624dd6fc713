#!/bin/sh
# bench/setup.sh -- what `make bench` needs beyond `make`: Node.js and npm
# (ONNX Runtime runs under node), gnuplot (the plot), and onnxruntime-node
# itself, installed into bench/node_modules from bench/package-lock.json with
# `npm install --ignore-scripts` (the package ships its CPU binaries; the
# install script only fetches GPU extras).  Debian packages come from
# apt-get, only when missing, after waiting for any running apt/dpkg.
set -e
cd "$(dirname "$0")"

missing=""
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
command -v taskset >/dev/null 2>&1 || missing="$missing util-linux"
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    i=0
    while pgrep -x 'apt|apt-get|dpkg' >/dev/null 2>&1; do
        [ $i -ge 60 ] && { echo "bench/setup.sh: apt/dpkg still running after 5 minutes" >&2; exit 1; }
        [ $i -eq 0 ] && echo "bench/setup.sh: waiting for a running apt/dpkg to finish"
        i=$((i + 1)); sleep 5
    done
    echo "bench/setup.sh: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null \
        || { case "$missing" in *nodejs*|*npm*) exit 1;; esac;
             echo "bench/setup.sh: could not install$missing; going on without" >&2; }
fi

if [ ! -f node_modules/onnxruntime-node/package.json ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "bench/setup.sh: npm install --ignore-scripts (onnxruntime-node)"
    npm install --ignore-scripts --no-audit --no-fund --loglevel=error
fi
