// The bind-time plan of the 1-byte -> 1-byte kernels: see table8_plan.h.
#include "zcast/kernels/table8_plan.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace zcast::internal {
namespace {

using Plan = Table8SignedPlan;

// The fixes for one choice of keep (0xFF or 0) and zero_keep; n > kMaxFixes: too many. Fixes on
// L come first and fixes on y after them, so a fix on y overrides one on L (both are blended in
// that order).
struct Choice {
  std::uint8_t keep = 0, flip = 0;
  bool zero_keep = false;
  int n = 0, n_l = 0;
  std::uint8_t key[256] = {}, value[256] = {};
};

Choice Choose(const std::uint8_t* lo, const std::uint8_t* up, const bool bad[128], std::uint8_t keep,
              bool zero_keep) {
  Choice ch;
  ch.keep = keep;
  ch.zero_keep = zero_keep;
  int count[256] = {};
  for (int y = 0; y < 128; ++y) {
    if (!bad[y]) ++count[(lo[y] & keep) ^ up[y]];
  }
  ch.flip = static_cast<std::uint8_t>(std::max_element(count, count + 256) - count);
  std::uint8_t y_key[128], y_value[128];
  int n_y = 0;
  for (int v = 0; v < 256; ++v) {
    // The good lanes with L = v: U is the plain (v & keep) ^ flip, or the most common U among
    // them (one fix on L) where that needs fewer fixes on y; the others get a fix on y each.
    int want[256] = {};
    for (int y = 0; y < 128; ++y) {
      if (!bad[y] && lo[y] == v) ++want[up[y]];
    }
    const int kept = v & keep;
    const int plain = zero_keep && (kept & ~ch.flip) == 0 ? kept : kept ^ ch.flip;
    const int common = static_cast<int>(std::max_element(want, want + 256) - want);
    const int u = want[common] > want[plain] ? common : plain;
    if (u != plain) {
      ch.key[ch.n] = static_cast<std::uint8_t>(v);
      ch.value[ch.n++] = static_cast<std::uint8_t>(u);
    }
    for (int y = 0; y < 128; ++y) {
      if (!bad[y] && lo[y] == v && up[y] != u) {
        y_key[n_y] = static_cast<std::uint8_t>(y);
        y_value[n_y++] = up[y];
      }
    }
  }
  ch.n_l = ch.n;
  for (int k = 0; k < n_y; ++k) {
    ch.key[ch.n] = y_key[k];
    ch.value[ch.n++] = y_value[k];
  }
  return ch;
}

bool PlanSigned(const std::uint8_t table[256], const std::uint8_t fail[256], Plan* p) {
  bool bad[128];
  int lone_failures = 0;  // y that fail in one half only: declined in both, so keep them rare
  for (int y = 0; y < 128; ++y) {
    bad[y] = fail[y] || fail[y | 0x80];
    lone_failures += (fail[y] != 0) != (fail[y | 0x80] != 0);
  }
  if (lone_failures > 2) return false;
  const Choice choices[] = {Choose(table, table + 128, bad, 0xFF, false), Choose(table, table + 128, bad, 0x00, false),
                            Choose(table, table + 128, bad, 0xFF, true), Choose(table, table + 128, bad, 0x00, true)};
  const Choice& ch = *std::min_element(std::begin(choices), std::end(choices),
                                       [](const Choice& a, const Choice& b) { return a.n < b.n; });
  if (ch.n > Plan::kMaxFixes) return false;
  p->flip = ch.flip;
  p->keep_all = ch.keep == 0xFF;
  p->zero_keep = ch.zero_keep;
  p->n_fix_l = ch.n_l;
  p->n_fix = ch.n;
  std::copy(ch.key, ch.key + ch.n, p->fix_key);
  std::copy(ch.value, ch.value + ch.n, p->fix_value);
  // The failing y: none, one run of them, or any.
  const bool* const begin = bad;
  const bool* const stop = bad + 128;
  const bool* first = std::find(begin, stop, true);
  const bool* end = std::find(first, stop, false);
  p->check = first == stop ? Plan::Check::kNone
             : std::find(end, stop, true) == stop ? Plan::Check::kRange
                                                  : Plan::Check::kBitmap;
  p->bad_after = static_cast<std::int8_t>(first - begin - 1);
  p->bad_upto = static_cast<std::int8_t>(end - begin - 1);
  for (int y = 0; y < 128; ++y) {
    if (bad[y]) p->bad[y >> 3] |= static_cast<std::uint8_t>(1u << (y & 7));
  }
  return true;
}

}  // namespace

void PlanTable8(const Direction& dir, Table8Plan* plan) {
  *plan = Table8Plan{};
  for (unsigned s = 0; s < 256; ++s) {
    CastOutcome r = ConvertScalar(dir, s);
    const bool fails = r.error != CastError::kNone;
    plan->table[s] = static_cast<std::uint8_t>(r.bits);
    plan->fail[s] = fails ? 0xFF : 0;
    if (fails) plan->fail_bits[s >> 3] |= static_cast<std::uint8_t>(1u << (s & 7));
    plan->any_fail |= fails;
  }
  plan->is_signed = PlanSigned(plan->table, plan->fail, &plan->sign);
}

}  // namespace zcast::internal
