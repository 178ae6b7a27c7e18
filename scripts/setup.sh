#!/usr/bin/env bash
# Create .venv and install the project. Usage: scripts/setup.sh [run|test]
#   run   the runtime and the web service (no torch, no ultralytics)
#   test  everything: the service, training (torch + hash-pinned ultralytics), test tools, the
#         postgres, distributed and pbr (the benches' second renderer) extras, Debian's chromium for the browser tests and Debian's
#         postgresql for the store tests on a server (the tests start their own)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-run}
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "need Python 3.11+" >&2; exit 1; }
  "$PY" -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# pip runs only when the venv does not yet hold this target for this pyproject, these pins and this
# script (the source is installed editable: code changes need no install). scripts/serve.sh calls
# this on every start, and a table with no network must still start the service. The test target
# installs the run target's packages too, so it stamps both.
want=$(cat pyproject.toml requirements/*.txt scripts/setup.sh | sha256sum | cut -d' ' -f1)
# -I: not the checkout's own folder on the path (there `import ecoscore` works with nothing installed)
installed() {
  [ "$(cat ".venv/.ecoscore-setup-$1" 2>/dev/null)" = "$want" ] && .venv/bin/python -I -c "$2" 2>/dev/null
}
# The version installed, read from its metadata (nothing imported): a pin changed is installed again.
# ("2.14.1+cu130" is 2.14.1; "2.14.10" is not)
has() { .venv/bin/python -I -c "import importlib.metadata as m, sys; v = m.version('$1'); sys.exit(v != '$2' and not v.startswith('$2+'))" 2>/dev/null; }
pin=$(grep -m1 -o '^[A-Za-z0-9_.-]*==[^ ]*' requirements/ultralytics.txt)  # its wheel's name==version
if [ "$target" = test ]; then
  if ! installed test 'import ecoscore.service, fastapi, torch'; then
    # PyPI's torch for x86_64 Linux is a CUDA build (~5.5 GB with its nvidia-* wheels; ~7 GB in all):
    # say so before pip fails half-way with "No space left on device".
    free_kb=$(df -Pk .venv | awk 'NR == 2 {print $4}')
    if ! has torch 2.14.1 && [ "${free_kb:-0}" -lt 8000000 ]; then
      echo "the test set-up needs about 8 GB free on $(df -P .venv | awk 'NR == 2 {print $6}'), has $((free_kb / 1000000)) GB" >&2
      exit 1
    fi
    # torch 2.14.1 / torchvision 0.29.1: the wheels this kind of machine carries (CPU use only).
    { has torch 2.14.1 && has torchvision 0.29.1; } || "${pip[@]}" torch==2.14.1 torchvision==0.29.1
    # Ultralytics pinned by the sha256 of its wheel; its dependencies come from the train extra.
    # Never imported here: a bare `import ultralytics` looks up DNS names and writes ~/.config
    # (vision/offline.py closes those doors for the project's own imports).
    has "${pin%%==*}" "${pin##*==}" || "${pip[@]}" --no-deps --require-hashes -r requirements/ultralytics.txt
    "${pip[@]}" -e '.[service,train,test,postgres,distributed,pbr]'
    echo "$want" | tee .venv/.ecoscore-setup-test > .venv/.ecoscore-setup-run
  fi
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || missing+=(postgresql)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) ||
        echo "warning: could not install ${missing[*]}; browser or PostgreSQL tests will be skipped" >&2
    else
      echo "warning: ${missing[*]} not found (apt-get install ${missing[*]}); their tests will be skipped" >&2
    fi
  fi
elif ! installed run 'import ecoscore.service, fastapi'; then
  "${pip[@]}" -e '.[service]'
  echo "$want" > .venv/.ecoscore-setup-run
fi
