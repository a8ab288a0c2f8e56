// Per-target lookups of the 1-byte -> 1-byte kernels (table8.cc): one vector of source bytes ->
// the table's bytes and the lanes declined to the reference path. Included once per Highway
// target (the -inl.h include-guard toggle), inside HWY_NAMESPACE.
//
// Two ways to look up a 256-entry table T:
// - AVX3_DL (AVX-512 VBMI): vpermi2b looks up 128 entries in two 64-byte registers (index bits
//   0..6); two of them cover T and the index's top bit picks one (Table8Permute): three
//   instructions per 64 bytes, and two more for the failing lanes when T has any.
// - Every other target: TableLookupBytes (vpshufb / tbl / svtbl) looks up 16 entries per 128-bit
//   block. A 128-entry half is 8 rows of 16: each row is looked up by x's low nibble and a tree of
//   IfNegativeThenElse on bits 4, 5, 6 of x (moved to the top by doubling the byte) picks the row,
//   8 lookups and 7 blends (LookUpHalf). Table8Signed looks up one half and derives the other
//   (table8_plan.h), which halves that; Table8Full looks up both and picks by the sign bit.
// Failing entries are declined, and the reference path writes those lanes: what the table holds
// for them does not matter.

#if defined(ZCAST_SRC_KERNELS_TABLE8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_SRC_KERNELS_TABLE8_INL_H_
#undef ZCAST_SRC_KERNELS_TABLE8_INL_H_
#else
#define ZCAST_SRC_KERNELS_TABLE8_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <type_traits>

#include "zcast/kernels/block-inl.h"  // MaskOr8
#include "zcast/kernels/table8_plan.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Bytes as int8 lanes: IfNegativeThenElse tests the top bit of signed lanes.
using D8 = hn::ScalableTag<std::int8_t>;
using V8 = hn::Vec<D8>;
using M8 = hn::Mask<D8>;

inline const std::int8_t* AsI8(const std::uint8_t* p) { return reinterpret_cast<const std::int8_t*>(p); }

// x < 0 ? yes : no by the top bit of each byte. On AVX2 the vpblendvb itself: GCC turns
// _mm256_blendv_epi8 into a select on mask < 0 and, when the mask is not a compare result, adds a
// vpcmpgtb to rebuild it (one instruction more per blend, 7-14 per vector here).
HWY_INLINE V8 SelectByTop(V8 x, V8 yes, V8 no) {
#if HWY_TARGET == HWY_AVX2
  __m256i r;
  asm("vpblendvb %3, %2, %1, %0" : "=x"(r) : "x"(no.raw), "x"(yes.raw), "x"(x.raw));
  return V8{r};
#else
  return hn::IfNegativeThenElse(x, yes, no);
#endif
}

// The 8 rows of 16 entries of a 128-entry half, each broadcast to every 128-bit block. Where
// vectors have a fixed size they are loaded once per run and kept (in registers, or spilled to
// the stack, where they cannot alias the output as the table itself can); scalable vectors (SVE)
// cannot be members, so there the rows are loaded where used.
#if HWY_HAVE_SCALABLE
struct Rows8 {
  const std::uint8_t* half;
  HWY_INLINE V8 Row(D8 d, int g) const { return hn::LoadDup128(d, AsI8(half + 16 * g)); }
};
inline Rows8 MakeRows8(D8, const std::uint8_t* half) { return {half}; }
#else
struct Rows8 {
  V8 row[8];
  HWY_INLINE V8 Row(D8, int g) const { return row[g]; }
};
// Aggregate-initialised: a default-constructed Rows8 calls Vec128's always-inline constructor
// from an implicit constructor GCC compiles without the target's options, which the aarch64
// cross build rejects ("inlining failed ... target specific option mismatch").
inline Rows8 MakeRows8(D8 d, const std::uint8_t* half) {
  const auto row = [&](int g) { return hn::LoadDup128(d, AsI8(half + 16 * g)); };
  return Rows8{{row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)}};
}
#endif

// T_half[x & 0x7F]: row (x >> 4) & 7, entry x & 15.
HWY_INLINE V8 LookUpHalf(D8 d, const Rows8& rows, V8 x) {
  const V8 idx = hn::And(x, hn::Set(d, 0x0F));  // < 16 in every block: the lookup's domain
  // Doubling a byte moves its bit 6 to the top without touching the neighbours.
  const V8 bit6 = hn::Add(x, x), bit5 = hn::Add(bit6, bit6), bit4 = hn::Add(bit5, bit5);
  // Written out, not as a loop over an array: GCC kept such an array in memory.
  const V8 q0 = SelectByTop(bit4, hn::TableLookupBytes(rows.Row(d, 1), idx), hn::TableLookupBytes(rows.Row(d, 0), idx));
  const V8 q1 = SelectByTop(bit4, hn::TableLookupBytes(rows.Row(d, 3), idx), hn::TableLookupBytes(rows.Row(d, 2), idx));
  const V8 q2 = SelectByTop(bit4, hn::TableLookupBytes(rows.Row(d, 5), idx), hn::TableLookupBytes(rows.Row(d, 4), idx));
  const V8 q3 = SelectByTop(bit4, hn::TableLookupBytes(rows.Row(d, 7), idx), hn::TableLookupBytes(rows.Row(d, 6), idx));
  return SelectByTop(bit6, SelectByTop(bit5, q3, q2), SelectByTop(bit5, q1, q0));
}

// The lanes whose bit y of the 128-bit `bitmap` is set (bit y & 7 of byte y >> 3), y < 128.
HWY_INLINE M8 BitmapLanes(D8 d, const std::uint8_t* bitmap, V8 y) {
  alignas(16) static constexpr std::int8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0};
  const hn::RebindToUnsigned<D8> du;
  const V8 byte_idx = hn::BitCast(d, hn::ShiftRight<3>(hn::BitCast(du, y)));  // < 16
  const V8 byte = hn::TableLookupBytes(hn::LoadDup128(d, AsI8(bitmap)), byte_idx);
  const V8 bit = hn::TableLookupBytes(hn::LoadDup128(d, kBit), hn::And(y, hn::Set(d, 7)));
  return hn::TestBit(byte, bit);
}

// Both halves, picked by x's sign bit; the failing x by a 256-bit bitmap.
struct Table8FullConsts {
  Rows8 lo, up;
  const std::uint8_t* fail_bits;
  bool any_fail;
};
inline Table8FullConsts MakeTable8FullConsts(D8 d, const Table8Plan& p) {
  return {MakeRows8(d, p.table), MakeRows8(d, p.table + 128), p.fail_bits, p.any_fail};
}
HWY_INLINE V8 Table8Full(D8 d, const Table8FullConsts& p, V8 x, M8* declined) {
  const V8 lo = LookUpHalf(d, p.lo, x), up = LookUpHalf(d, p.up, x);
  if (p.any_fail) {
    const V8 y = hn::And(x, hn::Set(d, 0x7F));
    const M8 neg = hn::MaskFromVec(hn::BroadcastSignBit(x));
    *declined = MaskOr8(hn::AndNot(neg, BitmapLanes(d, p.fail_bits, y)), hn::And(neg, BitmapLanes(d, p.fail_bits + 16, y)));
  } else {
    *declined = hn::FirstN(d, 0);
  }
  return SelectByTop(x, up, lo);
}

// The settings of Table8SignedPlan by value, so that they stay in registers across a run.
struct Table8SignedConsts {
  Rows8 lo;  // T[0..127]
  const std::uint8_t* bad;
  std::int8_t flip, bad_after, bad_upto;
  bool keep_all, zero_keep;
  Table8SignedPlan::Check check;
  int n_fix_l, n_fix;
  std::int8_t fix_key[Table8SignedPlan::kMaxFixes], fix_value[Table8SignedPlan::kMaxFixes];
};
inline Table8SignedConsts MakeTable8SignedConsts(D8 d, const Table8Plan& p) {
  const Table8SignedPlan& s = p.sign;
  Table8SignedConsts c{MakeRows8(d, p.table), s.bad, static_cast<std::int8_t>(s.flip), s.bad_after, s.bad_upto, s.keep_all,
                       s.zero_keep, s.check, s.n_fix_l, s.n_fix, {}, {}};
  for (int k = 0; k < s.n_fix; ++k) {
    c.fix_key[k] = static_cast<std::int8_t>(s.fix_key[k]);
    c.fix_value[k] = static_cast<std::int8_t>(s.fix_value[k]);
  }
  return c;
}

// L = T[y] looked up, U = (L & keep) ^ flip plus the fixes, picked by x's sign bit.
// The plan's settings as template arguments where known, -1 where read from `c` at run time:
// Table8SignedShape below compiles one loop per plan shape, so that the loop over the common
// blocks tests none of them (GCC kept a test and a branch per setting in every block).
template <int kKeepAll = -1, int kZeroKeep = -1, int kFix = -1, int kCheck = -1>
HWY_INLINE V8 Table8Signed(D8 d, const Table8SignedConsts& c, V8 x, M8* declined) {
  using Check = Table8SignedPlan::Check;
  const bool keep_all = kKeepAll < 0 ? c.keep_all : kKeepAll != 0;
  const bool zero_keep = kZeroKeep < 0 ? c.zero_keep : kZeroKeep != 0;
  const bool fix = kFix < 0 ? c.n_fix != 0 : kFix != 0;
  const Check check = kCheck < 0 ? c.check : static_cast<Check>(kCheck);
  const V8 l = LookUpHalf(d, c.lo, x);
  const V8 kept = keep_all ? l : hn::Zero(d);
  V8 flip = hn::Set(d, c.flip);
  if (zero_keep) flip = hn::IfThenZeroElse(hn::Eq(hn::AndNot(flip, kept), hn::Zero(d)), flip);
  V8 u = hn::Xor(kept, flip);
  const V8 y = hn::And(x, hn::Set(d, 0x7F));
  if (fix) {
    for (int k = 0; k < c.n_fix_l; ++k) u = hn::IfThenElse(hn::Eq(l, hn::Set(d, c.fix_key[k])), hn::Set(d, c.fix_value[k]), u);
    for (int k = c.n_fix_l; k < c.n_fix; ++k)
      u = hn::IfThenElse(hn::Eq(y, hn::Set(d, c.fix_key[k])), hn::Set(d, c.fix_value[k]), u);
  }
  if (check == Check::kNone) {
    *declined = hn::FirstN(d, 0);
  } else if (check == Check::kRange) {  // y <= 0x7F: signed compares
    *declined = hn::AndNot(hn::Gt(y, hn::Set(d, c.bad_upto)), hn::Gt(y, hn::Set(d, c.bad_after)));
  } else {
    *declined = BitmapLanes(d, c.bad, y);
  }
  return SelectByTop(x, u, l);
}

// Calls body(lookup) with `lookup(c, x, &declined)` compiled for c's shape: keep_all, zero_keep,
// whether there are fixes, and the check (2 x 2 x 2 x 3 loops per target).
template <class Body>
HWY_INLINE std::size_t Table8SignedShape(const Table8SignedConsts& c, Body&& body) {
  const auto with_check = [&](auto keep, auto zero, auto fix) -> std::size_t {
    const auto run = [&](auto check) -> std::size_t {
      return body([](const Table8SignedConsts& k, V8 x, M8* declined) {
        return Table8Signed<decltype(keep)::value, decltype(zero)::value, decltype(fix)::value, decltype(check)::value>(
            D8(), k, x, declined);
      });
    };
    using Check = Table8SignedPlan::Check;
    switch (c.check) {
      case Check::kNone: return run(std::integral_constant<int, static_cast<int>(Check::kNone)>());
      case Check::kRange: return run(std::integral_constant<int, static_cast<int>(Check::kRange)>());
      case Check::kBitmap: break;
    }
    return run(std::integral_constant<int, static_cast<int>(Check::kBitmap)>());
  };
  const auto with_fix = [&](auto keep, auto zero) -> std::size_t {
    return c.n_fix ? with_check(keep, zero, std::integral_constant<int, 1>())
                   : with_check(keep, zero, std::integral_constant<int, 0>());
  };
  const auto with_zero = [&](auto keep) -> std::size_t {
    return c.zero_keep ? with_fix(keep, std::integral_constant<int, 1>()) : with_fix(keep, std::integral_constant<int, 0>());
  };
  return c.keep_all ? with_zero(std::integral_constant<int, 1>()) : with_zero(std::integral_constant<int, 0>());
}

#if HWY_TARGET == HWY_AVX3_DL
// The whole table in four registers. The failing lanes: none; or, when they are one run of y =
// x & 0x7F in either half (the signed plan's kRange, typically the source's Inf and NaN
// encodings), two compares; else the failures (0xFF per failing entry) looked up the same way.
struct Table8PermuteConsts {
  __m512i t[4], f[4];
  enum class Check : std::uint8_t { kNone, kRange, kTable } check;
  std::int8_t bad_after, bad_upto;
};
inline Table8PermuteConsts MakeTable8PermuteConsts(const Table8Plan& p) {
  Table8PermuteConsts c;
  for (int k = 0; k < 4; ++k) {
    c.t[k] = _mm512_load_si512(p.table + 64 * k);
    c.f[k] = _mm512_load_si512(p.fail + 64 * k);
  }
  using Check = Table8PermuteConsts::Check;
  c.check = !p.any_fail ? Check::kNone
            : p.is_signed && p.sign.check == Table8SignedPlan::Check::kRange ? Check::kRange
                                                                               : Check::kTable;
  c.bad_after = p.sign.bad_after;
  c.bad_upto = p.sign.bad_upto;
  return c;
}
// vpermi2b: bits 0..5 of x index a register, bit 6 picks one of the pair; bit 7 picks the pair.
HWY_INLINE V8 Table8Permute(const Table8PermuteConsts& c, V8 x, M8* declined) {
  using Check = Table8PermuteConsts::Check;
  const __mmask64 neg = _mm512_movepi8_mask(x.raw);
  const __m512i lo = _mm512_permutex2var_epi8(c.t[0], x.raw, c.t[1]);
  const __m512i up = _mm512_permutex2var_epi8(c.t[2], x.raw, c.t[3]);
  if (c.check == Check::kNone) {
    declined->raw = 0;
  } else if (c.check == Check::kRange) {
    const D8 d;
    const V8 y = hn::And(x, hn::Set(d, 0x7F));
    *declined = hn::AndNot(hn::Gt(y, hn::Set(d, c.bad_upto)), hn::Gt(y, hn::Set(d, c.bad_after)));
  } else {
    const __m512i f = _mm512_mask_blend_epi8(neg, _mm512_permutex2var_epi8(c.f[0], x.raw, c.f[1]),
                                             _mm512_permutex2var_epi8(c.f[2], x.raw, c.f[3]));
    declined->raw = _mm512_movepi8_mask(f);
  }
  return V8{_mm512_mask_blend_epi8(neg, lo, up)};
}
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
