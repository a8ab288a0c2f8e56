#!/bin/sh
# The shell scripts (scripts/, .ci/) run under `set -o pipefail`. There a pipeline into a reader
# that stops early (`grep -q`, `head`) fails whenever the reader exits before the writer's last
# write: the writer dies of SIGPIPE and the pipeline's status is 141, at random. scripts/test-arm
# once skipped the aarch64 reader's build that way in CI (`ninja -t targets all | grep -q`).
# Read the output whole first (`x=$(cmd)`, then `grep -q ... <<<"$x"` or a [[ ]] match).
# Exits 1 naming every such line (comments aside).
root=${1:-$(dirname "$0")/..}
found=$(grep -nE '\|[[:space:]]*(grep[[:space:]]+-[A-Za-z]*[qm]|head\b)' \
  "$root"/scripts/* "$root"/.ci/* 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
if [ -n "$found" ]; then
  echo "pipelines into a reader that stops early (SIGPIPE under pipefail):"
  echo "$found"
  exit 1
fi
echo "no pipeline into grep -q/-m or head in scripts/ and .ci/"
