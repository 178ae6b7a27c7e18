#!/usr/bin/env bash
# Set up (runtime only) and start the scoring service on the shipped models.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh run
exec .venv/bin/ecoscore serve "$@"
