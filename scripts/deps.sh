#!/usr/bin/env bash
# Installs the Debian packages xpose builds with, if any is missing. Idempotent; needs root (or
# sudo) only when something is missing. The CUDA toolkit (nvcc) is expected from the machine image;
# without it xpose builds its CPU backend only.
set -euo pipefail
pkgs=(cmake g++ make libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "xpose: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { $sudo_cmd apt-get update -q >/dev/null && $sudo_cmd apt-get install -y -q "${missing[@]}" >/dev/null; }
fi
