#!/usr/bin/env bash
# Run before `npm test`: the suite drives real programs from Debian's packages: PostgreSQL and
# Redis (test/global-setup.ts starts private servers of both; none needs to be running), nginx
# with its brotli_static module (fleet test), Chromium (page tests, Lighthouse) and Prometheus with
# promtool (metrics and alert-rule tests). Install whichever is
# missing when we can (root with apt-get), otherwise say exactly what to install.
set -euo pipefail
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
# nginx's brotli_static, which deploy/render-nginx.ts loads where it is installed (test/fleet/nginx-config.test.ts).
[ -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || missing+=(libnginx-mod-http-brotli-static)
# A self-signed certificate for the TLS server block, and systemd's unit checker.
command -v openssl >/dev/null || missing+=(openssl)
command -v systemd-analyze >/dev/null || missing+=(systemd)
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || missing+=(chromium)
# The page tests drive the headless shell (test/helpers/browser.ts); Lighthouse the full browser.
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
# The private cluster needs the server binaries (initdb, postgres), not only the client.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
# A real Prometheus scrapes a running server, and promtool checks and tests the alert rules
# (test/e2e/metrics.test.ts, test/integration/deploy/prometheus/alerts.test.ts).
{ command -v prometheus >/dev/null && command -v promtool >/dev/null; } || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages for the tests: ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The tests need these Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
