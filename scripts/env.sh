# Sourced by the build scripts: repo root, dependency prefixes, toolchain env.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ ! -f "$ROOT/build/deps.env" ]; then
  echo "build/deps.env is missing: run scripts/bootstrap.sh (npm test and npm start do)" >&2
  exit 1
fi
# shellcheck disable=SC1091
. "$ROOT/build/deps.env"
JOBS=${SHREW_JOBS:-2}
# Debian's emscripten 3.1.6 with Node 20 needs Debian's node modules, and its
# own python (not a pyenv shim that may lack modules).
export NODE_PATH=/usr/share/nodejs
export EMSDK_PYTHON=/usr/bin/python3
