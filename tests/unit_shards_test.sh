#!/bin/sh
# The sharding of tests/unit_main.cc (ctest's unit_0 ... unit_3): every unit test in exactly one
# shard, and a test's instances for the SIMD targets all in the same one (they share the exact
# engine's references, kernels_test_util.h). Exits 1 naming what is wrong.
# Usage: unit_shards_test.sh <zcast_unit_tests> <shards>
set -eu
bin=$1
shards=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --gtest_list_tests prints "Suite." then "  Test  # GetParam() = ...": one full name per line.
list() { awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }'; }
"$bin" --gtest_list_tests | list | sort >"$tmp/all"
: >"$tmp/union"
i=0
while [ "$i" -lt "$shards" ]; do
  ZCAST_TEST_SHARDS=$shards ZCAST_TEST_SHARD_INDEX=$i "$bin" --gtest_list_tests | list >"$tmp/shard$i"
  cat "$tmp/shard$i" >>"$tmp/union"
  # The group key: every Highway target name (and "baseline") in the parameter part made "*".
  sed -E ':a; s#([/_])(baseline|SCALAR|EMU128|SSE2|SSSE3|SSE4|AVX2|AVX3_DL|AVX3_ZEN4|AVX3_SPR|AVX3|NEON|SVE2_128|SVE_256|SVE2|SVE|PPC8|PPC9|PPC10|WASM_EMU256|WASM|RVV)(_|/|$)#\1*\3#; ta' \
    "$tmp/shard$i" | sed "s/\$/ $i/" | sort -u >>"$tmp/keys"
  i=$((i + 1))
done
status=0
sort "$tmp/union" >"$tmp/union.sorted"
if ! cmp -s "$tmp/all" "$tmp/union.sorted"; then
  echo "the shards do not hold every test exactly once (< only in the full list, > in the shards):"
  diff "$tmp/all" "$tmp/union.sorted" | head -20
  status=1
fi
split=$(awk '{ k = $1; if (k in shard && shard[k] != $2) print k; shard[k] = $2 }' "$tmp/keys" | sort -u)
if [ -n "$split" ]; then
  echo "tests whose target instances are split over shards:"
  echo "$split" | head -20
  status=1
fi
[ "$status" -eq 0 ] && echo "$(wc -l <"$tmp/all") tests in $shards shards, each once, targets kept together"
exit "$status"
