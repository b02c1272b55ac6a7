#!/usr/bin/env bash
# Installs everything the build needs, idempotently:
#   1. Debian packages (only the missing ones),
#   2. the pinned XNNPACK / pthreadpool / FXdiv orig tarballs, from Debian's
#      source packages (hash-checked),
#   3. XNNPACK built twice, native and wasm, as static libraries,
#   4. npm dependencies (npm ci, when the lock file changed).
# Everything heavy lives in a cache outside the clone ($SHREW_CACHE, default
# ~/.cache/shrew), keyed by versions + flags + patch, so later runs reuse it.
# On success it writes build/deps.env, which the build scripts read.
#
# Usage: scripts/bootstrap.sh [--no-apt] [--no-npm] [--only native|wasm]
# Local tarballs (when a pinned version is no longer served):
#   SHREW_XNNPACK_TARBALL, SHREW_PTHREADPOOL_TARBALL, SHREW_FXDIV_TARBALL
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SHREW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shrew}
JOBS=${SHREW_JOBS:-2}
DO_APT=1 DO_NPM=1 ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-apt) DO_APT=0 ;;
    --no-npm) DO_NPM=0 ;;
    --only) ONLY=$2; shift ;;
    *) echo "bootstrap: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { printf '[bootstrap] error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- 1. apt
APT_PACKAGES=(emscripten cmake ninja-build g++ clang lld libclang-rt-14-dev
  googletest libgtest-dev libcpuinfo-dev llvm-14 python3 xz-utils patch chromium
  nodejs)

apt_step() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && { log "apt packages present"; return; }
  log "installing apt packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# ---------------------------------------------------------------- 2. sources
SUITE=$(awk '$1=="suite"{print $2}' "$ROOT/third_party/deps.lock")
pin() { awk -v n="$1" -v f="$2" '$1==n{print (f==1?$2:$3)}' "$ROOT/third_party/deps.lock"; }
upstream_version() { local v=$1; v=${v#*:}; echo "${v%-*}"; }   # strip epoch and Debian revision
tarball_path() { echo "$CACHE/src/$1_$(upstream_version "$(pin "$1" 1)").orig.tar.xz"; }

# The private apt state: a deb-src list for $SUITE whose archive URI is taken
# from this machine's own apt sources, so no host name lives in the repo and
# the system's apt configuration is never touched.
APT_DIR="$CACHE/apt"
apt_opts() {
  echo "-o Dir::Etc::SourceList=$APT_DIR/sources.list -o Dir::Etc::SourceParts=$APT_DIR/parts.d -o Dir::State::Lists=$APT_DIR/lists"
  # As root, apt drops to the _apt user, which cannot write into our cache.
  [ "$(id -u)" -eq 0 ] && echo "-o APT::Sandbox::User=root"
  return 0
}
archive_uri() {
  local uri=""
  # deb822 sources: the URIs line of a stanza whose Suites name a Debian release.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk 'BEGIN{RS="";FS="\n"} /Signed-By: .*debian-archive-keyring/ && !/security/ {
            for(i=1;i<=NF;i++) if($i ~ /^URIs:/){sub(/^URIs:[ \t]*/,"",$i); split($i,a," "); print a[1]; exit}}' "$f")
    [ -n "$uri" ] && break
  done
  if [ -z "$uri" ]; then
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if($i ~ /^[a-z]+:\/\//){print $i; exit}}')
  fi
  [ -n "$uri" ] || die "cannot derive a Debian archive URI from /etc/apt/sources*"
  echo "${uri%/}"
}
APT_READY=0
prepare_private_apt() {
  [ $APT_READY -eq 1 ] && return
  mkdir -p "$APT_DIR/parts.d" "$APT_DIR/lists/partial"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  echo "deb-src [signed-by=$keyring] $(archive_uri) $SUITE main" > "$APT_DIR/sources.list"
  log "updating private source index for $SUITE"
  # shellcheck disable=SC2046
  apt-get $(apt_opts) update -qq || die "apt-get update of the private $SUITE source list failed"
  APT_READY=1
}

fetch_source() {
  local name=$1 version sha env_var tb
  version=$(pin "$name" 1); sha=$(pin "$name" 2); tb=$(tarball_path "$name")
  if [ -f "$tb" ] && echo "$sha  $tb" | sha256sum -c --status; then return; fi
  mkdir -p "$CACHE/src"
  env_var="SHREW_$(echo "$name" | tr a-z A-Z)_TARBALL"
  if [ -n "${!env_var:-}" ]; then
    log "using local tarball for $name: ${!env_var}"
    cp "${!env_var}" "$tb.part"
  else
    prepare_private_apt
    log "downloading $name=$version (Debian source package)"
    # The .dsc/.debian.tar.xz are not served; apt-get source then exits
    # non-zero after the orig tarball arrived, so the hash decides.
    # shellcheck disable=SC2046
    (cd "$CACHE/src" && apt-get $(apt_opts) source --download-only "$name=$version" >/dev/null 2>&1) || true
    [ -f "$tb" ] && mv "$tb" "$tb.part"
  fi
  [ -f "$tb.part" ] || die "$name=$version is not served by Debian's $SUITE archive any more.
  Get ${tb##*/} (sha256 $sha) elsewhere and rerun with $env_var=/path/to/it"
  echo "$sha  $tb.part" | sha256sum -c --status \
    || die "$name tarball hash mismatch: expected $sha, got $(sha256sum "$tb.part" | cut -d' ' -f1)"
  mv "$tb.part" "$tb"
  rm -f "$CACHE/src/"*.dsc "$CACHE/src/"*.debian.tar.* 2>/dev/null || true
}

extract() {  # extract NAME DEST: DEST gets the tarball's contents at top level
  local tb; tb=$(tarball_path "$1")
  rm -rf "$2"; mkdir -p "$2"
  tar -xf "$tb" -C "$2"
  # xnnpack's tarball has no top-level folder; the others have one.
  local entries=("$2"/*)
  if [ ${#entries[@]} -eq 1 ] && [ -d "${entries[0]}" ]; then
    mv "${entries[0]}"/* "${entries[0]}"/.[!.]* "$2"/ 2>/dev/null || true
    rmdir "${entries[0]}"
  fi
}

# ---------------------------------------------------------------- 3. build
# Both flavours: the Emscripten build fixes, and fp32 GEMM remainders that keep
# NaN * 0 = NaN; native only: SSE clamps that keep a NaN sum, and operators
# that keep subnormals instead of flushing them to zero (see each patch).
PATCHES=("$ROOT/third_party/patches/xnnpack-emscripten.patch"
  "$ROOT/third_party/patches/xnnpack-gemm-kc-remainder-nan.patch")
NATIVE_PATCHES=("$ROOT/third_party/patches/xnnpack-sse-clamp-nan.patch"
  "$ROOT/third_party/patches/xnnpack-keep-denormals.patch")
# wasm only, in this order: fp32-only element-wise operators (smaller module),
# weight packing without a memcpy call per row (faster compile), load-splat
# 4x8 GEMM tiles on x86 whatever the core count (faster GEMM) and one-row GEMMs
# two panels at a time (faster batch-1 layers); see each patch.
WASM_PATCHES=("$ROOT/third_party/patches/xnnpack-wasm-fp32-only.patch"
  "$ROOT/third_party/patches/xnnpack-wasm-pack-rows.patch"
  "$ROOT/third_party/patches/xnnpack-wasm-x86-loadsplat.patch"
  "$ROOT/third_party/patches/xnnpack-wasm-gemv-two-panels.patch")
CPUINFO_SHIM="$ROOT/third_party/cpuinfo-system"
COMMON_FLAGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release
  -DXNNPACK_LIBRARY_TYPE=static -DXNNPACK_BUILD_TESTS=OFF -DXNNPACK_BUILD_BENCHMARKS=OFF
  -DXNNPACK_BUILD_ALL_MICROKERNELS=OFF -DXNNPACK_USE_SYSTEM_LIBS=OFF
  -DPTHREADPOOL_BUILD_TESTS=OFF -DPTHREADPOOL_BUILD_BENCHMARKS=OFF
  -DFXDIV_BUILD_TESTS=OFF -DFXDIV_BUILD_BENCHMARKS=OFF)
NATIVE_FLAGS=(-DCMAKE_POSITION_INDEPENDENT_CODE=ON
  "-DCMAKE_C_FLAGS=-Werror=implicit-function-declaration"
  -DXNNPACK_ENABLE_AVXVNNI=OFF -DXNNPACK_ENABLE_AVX256SKX=OFF -DXNNPACK_ENABLE_AVX256VNNI=OFF
  -DXNNPACK_ENABLE_AVX256VNNIGFNI=OFF -DXNNPACK_ENABLE_AVX512VNNIGFNI=OFF)
WASM_FLAGS=("-DCMAKE_TOOLCHAIN_FILE=$ROOT/wasm-toolchain.cmake" -DXNNPACK_ENABLE_ASSEMBLY=OFF
  "-DCMAKE_C_FLAGS=-Werror=implicit-function-declaration")

build_key() {  # everything that changes the built libraries
  local flavour=$1
  {
    cat "$ROOT/third_party/deps.lock" "${PATCHES[@]}"
    # Paths inside the clone are left out: every clone shares the cache.
    echo "$flavour ${COMMON_FLAGS[*]}"
    if [ "$flavour" = native ]; then echo "${NATIVE_FLAGS[*]}"; cat "$CPUINFO_SHIM/CMakeLists.txt" "${NATIVE_PATCHES[@]}"; g++ --version | head -1
    else echo "${WASM_FLAGS[*]//$ROOT/}"; cat "$ROOT/wasm-toolchain.cmake" "${WASM_PATCHES[@]}"; emcc --version 2>/dev/null | head -1; fi
    echo "layout-v1"
  } | sha256sum | cut -c1-16
}

build_flavour() {
  local flavour=$1 key prefix work
  key=$(build_key "$flavour")
  prefix="$CACHE/deps/$flavour-$key"
  if [ -f "$prefix/.complete" ]; then
    log "XNNPACK $flavour: cached ($prefix)"
    echo "$prefix"; return
  fi
  log "XNNPACK $flavour: building into $prefix (a few minutes on 2 cores)"
  work="$CACHE/work/$flavour-$key"
  rm -rf "$work"; mkdir -p "$work"
  extract xnnpack "$work/xnnpack"
  extract pthreadpool "$work/pthreadpool"
  extract fxdiv "$work/fxdiv"
  local p
  for p in "${PATCHES[@]}"; do patch -p1 -s -d "$work/xnnpack" < "$p"; done
  if [ "$flavour" = native ]; then
    for p in "${NATIVE_PATCHES[@]}"; do patch -p1 -s -d "$work/xnnpack" < "$p"; done
  else
    for p in "${WASM_PATCHES[@]}"; do patch -p1 -s -d "$work/xnnpack" < "$p"; done
  fi
  local flags=("${COMMON_FLAGS[@]}" -DPTHREADPOOL_SOURCE_DIR="$work/pthreadpool" -DFXDIV_SOURCE_DIR="$work/fxdiv")
  local env=()
  if [ "$flavour" = native ]; then
    flags+=("${NATIVE_FLAGS[@]}" -DCPUINFO_SOURCE_DIR="$CPUINFO_SHIM")
  else
    flags+=("${WASM_FLAGS[@]}" -DCPUINFO_SOURCE_DIR="$work/no-cpuinfo")
    env=(NODE_PATH=/usr/share/nodejs EMSDK_PYTHON=/usr/bin/python3)
  fi
  local t0=$SECONDS
  env "${env[@]}" cmake -S "$work/xnnpack" -B "$work/build" "${flags[@]}" > "$work/configure.log" 2>&1 \
    || { tail -30 "$work/configure.log" >&2; die "XNNPACK $flavour configure failed (log: $work/configure.log)"; }
  env "${env[@]}" cmake --build "$work/build" -j "$JOBS" --target XNNPACK microkernels-prod pthreadpool \
    > "$work/build.log" 2>&1 \
    || { grep -m5 -B2 -A8 "error" "$work/build.log" >&2; die "XNNPACK $flavour build failed (log: $work/build.log)"; }
  rm -rf "$prefix"; mkdir -p "$prefix/lib" "$prefix/include"
  for lib in libXNNPACK.a libmicrokernels-prod.a libpthreadpool.a; do
    local f; f=$(find "$work/build" -name "$lib" | head -1)
    [ -n "$f" ] || die "XNNPACK $flavour: $lib was not built"
    cp "$f" "$prefix/lib/"
  done
  cp "$work/xnnpack/include/"*.h "$prefix/include/"
  cp "$work/pthreadpool/include/pthreadpool.h" "$prefix/include/"
  echo "built in $((SECONDS - t0)) s" > "$prefix/.complete"
  rm -rf "$work"
  log "XNNPACK $flavour: done in $((SECONDS - t0)) s"
  echo "$prefix"
}

# ---------------------------------------------------------------- 4. npm
npm_step() {
  local stamp="$ROOT/node_modules/.shrew-lock-sha"
  local want; want=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then log "npm dependencies present"; return; fi
  log "npm ci"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
}

# ---------------------------------------------------------------- main
[ $DO_APT -eq 1 ] && apt_step
for n in xnnpack pthreadpool fxdiv; do fetch_source "$n"; done
mkdir -p "$ROOT/build"
native_prefix="" wasm_prefix=""
if [ -z "$ONLY" ] || [ "$ONLY" = native ]; then native_prefix=$(build_flavour native); fi
if [ -z "$ONLY" ] || [ "$ONLY" = wasm ]; then wasm_prefix=$(build_flavour wasm); fi
printf '# written by scripts/bootstrap.sh\nSHREW_DEPS_NATIVE=%s\nSHREW_DEPS_WASM=%s\n' \
  "$native_prefix" "$wasm_prefix" > "$ROOT/build/deps.env"
[ $DO_NPM -eq 1 ] && npm_step
log "ready"
