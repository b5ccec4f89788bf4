#!/usr/bin/env bash
# Installs what nmt needs to build and test on Debian bookworm (run as root or with sudo).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends \
    ca-certificates g++ make cmake pkg-config \
    libdnnl-dev libcli11-dev libsentencepiece-dev nlohmann-json3-dev doctest-dev libcld2-dev libxxhash-dev libtomlplusplus-dev \
    libgettextpo-dev gettext \
    libgumbo-dev libcmark-gfm-dev libcmark-gfm-extensions-dev \
    libcpp-httplib-dev \
    python3 curl >/dev/null
# Extras, by name: `fuzz` adds clang and its libFuzzer runtime (tests/fuzz/);
# `mpi` adds Open MPI, for data-parallel training (cmake -DNMT_MPI=ON); `npm`
# adds Node.js and npm where there is no npm yet, for tests/cli/serve.sh's
# third-party client (the `libretranslate` package); `peer` adds PyTorch,
# SentencePiece's Python module and OpenBLAS, for tools/peer_bench.sh's PyTorch
# peer (tools/torch_peer.py; without OpenBLAS, Debian's torch multiplies with
# the reference BLAS, ~20x slower).
for extra in "$@"; do
    case $extra in
        fuzz) $SUDO apt-get install -y --no-install-recommends clang libclang-rt-dev >/dev/null ;;
        mpi) $SUDO apt-get install -y --no-install-recommends libopenmpi-dev openmpi-bin >/dev/null ;;
        peer) $SUDO apt-get install -y --no-install-recommends python3-torch python3-sentencepiece \
                  libopenblas0-openmp libopenblas0-pthread >/dev/null ;;
        npm) command -v npm >/dev/null || $SUDO apt-get install -y --no-install-recommends npm >/dev/null ;;
        *) echo "$0: unknown extra '$extra' (fuzz, mpi, npm, peer)" >&2; exit 2 ;;
    esac
done
echo "nmt build dependencies installed"
