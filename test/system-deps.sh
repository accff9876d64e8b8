#!/usr/bin/env bash
# Run before `npm test`: the suite drives real nginx (fleet test) and real Chromium (page tests)
# from Debian's packages. Install whichever is missing when we can (root with apt-get), otherwise
# say exactly what to install.
set -euo pipefail
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages for the tests: ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The tests need these Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
