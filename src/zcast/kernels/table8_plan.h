// The bind-time plan of a 1-byte -> 1-byte kernel (table8.cc): the 256-entry table T filled by the
// reference path, which entries fail, and, where it applies, the sign-symmetric form that lets the
// kernels of the targets without a 256-byte permute look up only one half of T. No Highway here:
// the plan is plain data, made once per bound direction on the baseline code path.
#ifndef ZCAST_SRC_KERNELS_TABLE8_PLAN_H_
#define ZCAST_SRC_KERNELS_TABLE8_PLAN_H_

#include <cstdint>

#include "zcast/kernels.h"

namespace zcast::internal {

// T[y | 0x80] = (T[y] & keep) ^ flip for the lanes y < 0x80 that do not fail, up to at most
// kMaxFixes fixes. float8 -> float8/6/4 tables are nearly sign-symmetric (flip = the destination's
// sign bit, keep = 0xFF), float8 -> unsigned int under clamp has the whole negative half equal
// (R7: 0, keep = 0). The fixes: -0 and the negatives that underflow have no sign in a type without
// -0 (fnuz, R8), the fnuz NaN 0x80 has none either (R19), and a fnuz source has NaN where -0 would
// be. A fix keys on L = T[y] when every lane with that L wants the same upper value (one fix covers
// every underflowing negative), on y otherwise; zero_keep skips the flip where L & ~flip == 0 (a
// destination without -0 whose NaN is the sign bit: one compare instead of two fixes).
struct Table8SignedPlan {
  static constexpr int kMaxFixes = 4;  // each costs a compare and a blend per vector
  enum class Check : std::uint8_t { kNone, kRange, kBitmap };
  std::uint8_t flip = 0;
  bool keep_all = false;  // keep = 0xFF (else 0)
  bool zero_keep = false;
  int n_fix_l = 0, n_fix = 0;  // fixes 0..n_fix_l-1 key on L, the rest on y
  std::uint8_t fix_key[kMaxFixes] = {}, fix_value[kMaxFixes] = {};
  // The y (x & 0x7F) declined: those failing in either half (the reference then decides each
  // lane, so declining a lane that would not fail is only slower). kRange: bad_after < y <=
  // bad_upto (one run, typically the source's Inf and NaN encodings); kBitmap: bit y of `bad`.
  Check check = Check::kNone;
  std::int8_t bad_after = 0, bad_upto = 0;
  std::uint8_t bad[16] = {};
};

struct Table8Plan {
  alignas(64) std::uint8_t table[256];  // T: the destination encoding of each source byte
  alignas(64) std::uint8_t fail[256];   // 0xFF where the entry fails (the reference reports it)
  alignas(16) std::uint8_t fail_bits[32];  // the same as a bitmap: bit (x & 7) of byte x >> 3
  bool any_fail = false;
  bool is_signed = false;  // `sign` applies
  Table8SignedPlan sign;
};

// How a kernel that looks the whole of T up (vpermi2b on AVX3_DL, four-register TBL/TBX on NEON
// and in SVE's common blocks) finds the lanes to decline: none; one run of y = x & 0x7F in either half (the signed plan's
// kRange, typically the source's Inf and NaN encodings: one addition and one compare); else the
// failing entries themselves.
enum class WholeTableCheck : std::uint8_t { kNone, kRange, kEntries };
inline WholeTableCheck WholeTableCheckOf(const Table8Plan& p) {
  if (!p.any_fail) return WholeTableCheck::kNone;
  const bool range = p.is_signed && p.sign.check == Table8SignedPlan::Check::kRange;
  return range ? WholeTableCheck::kRange : WholeTableCheck::kEntries;
}

// T and its failures for `dir` (a 1-byte source and destination), and the signed form when the
// halves differ in at most a few places (and at most two y fail in one half only).
void PlanTable8(const Direction& dir, Table8Plan* plan);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_TABLE8_PLAN_H_
