#!/usr/bin/env bash
# Installs what nmt needs to build and test on Debian bookworm (run as root or with sudo).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends \
    ca-certificates g++ make cmake pkg-config \
    libdnnl-dev libcli11-dev libsentencepiece-dev nlohmann-json3-dev doctest-dev \
    python3 >/dev/null
# `setup-debian.sh fuzz` adds clang and its libFuzzer runtime (tests/fuzz/).
if [ "${1:-}" = fuzz ]; then
    $SUDO apt-get install -y --no-install-recommends clang libclang-rt-dev >/dev/null
fi
echo "nmt build dependencies installed"
