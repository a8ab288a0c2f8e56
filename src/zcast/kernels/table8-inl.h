// Per-target lookups of the 1-byte -> 1-byte kernels (table8.cc): one vector of source bytes ->
// the table's bytes and the lanes declined to the reference path. Included once per Highway
// target (the -inl.h include-guard toggle), inside HWY_NAMESPACE.
//
// Two ways to look up a 256-entry table T:
// - AVX3_DL (AVX-512 VBMI): vpermi2b looks up 128 entries in two 64-byte registers (index bits
//   0..6); two of them cover T and the index's top bit picks one (Table8Permute): three
//   instructions per 64 bytes, and two more for the failing lanes when T has any.
// - NEON, and SVE with vectors of at most 256 bits: NEON's TBL/TBX look up 64 entries in four
//   registers; four of them cover T (Table8Tbl).
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

#if HWY_ARCH_ARM_A64
#include <arm_neon.h>  // Table8Tbl, on the SVE targets too
#endif

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
#if HWY_TARGET == HWY_SSE4  // LookUpHalf's differences of neighbouring rows
  const auto diff = [&](int g) { return hn::Xor(row(g), row(g - 1)); };
  return Rows8{{row(0), diff(1), diff(2), diff(3), diff(4), diff(5), diff(6), diff(7)}};
#else
  return Rows8{{row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)}};
#endif
}
#endif

// T_half[x & 0x7F]: row (x >> 4) & 7, entry x & 15.
#if HWY_TARGET == HWY_SSE4
// SSE4 has 16 registers and two-operand instructions: pshufb overwrites its table and pblendvb
// takes its mask in xmm0, so the blend tree takes 16 register copies besides its 19 operations (46
// instructions per 16 bytes for float8_e4m3 -> float8_e5m2). Instead the rows are kept as the
// differences of neighbours (MakeRows8: row 0, then row g ^ row g-1) and looked up with the index
// y - 16 g, which has its top bit set, so that pshufb gives 0, exactly for the rows g above y's,
// y >> 4 (y - 16 g >= -112: no wrap); the low nibble is y's in every one. The XOR of the lookups
// telescopes to y's row: 8 lookups, 7 XORs and 7 subtractions, with a copy per lookup.
HWY_INLINE V8 LookUpHalf(D8 d, const Rows8& rows, V8 x) {
  V8 idx = hn::And(x, hn::Set(d, 0x7F));
  const V8 step = hn::Set(d, 16);
  V8 acc = hn::TableLookupBytesOr0(rows.Row(d, 0), idx);
  for (int g = 1; g < 8; ++g) {
    idx = hn::SaturatedSub(idx, step);  // (saturating: GCC rewrote a chain of Sub as y + (-16 g), a copy each)
    acc = hn::Xor(acc, hn::TableLookupBytesOr0(rows.Row(d, g), idx));
  }
  return acc;
}
#else
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
#endif

// The lanes whose bit y of the 128-bit `bitmap` is set (bit y & 7 of byte y >> 3), y < 128.
HWY_INLINE M8 BitmapLanes(D8 d, const std::uint8_t* bitmap, V8 y) {
  alignas(16) static constexpr std::int8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0};
  const hn::RebindToUnsigned<D8> du;
  const V8 byte_idx = hn::BitCast(d, hn::ShiftRight<3>(hn::BitCast(du, y)));  // < 16
  const V8 byte = hn::TableLookupBytes(hn::LoadDup128(d, AsI8(bitmap)), byte_idx);
  const V8 bit = hn::TableLookupBytes(hn::LoadDup128(d, kBit), hn::And(y, hn::Set(d, 7)));
  return hn::TestBit(byte, bit);
}

// The lanes with bad_after < y <= bad_upto, y = x & 0x7F (Table8SignedPlan::Check::kRange): one
// addition and one compare, where a compare per bound and their AND take four
// instructions on SSE4 with the copies. Adding 127 - bad_upto moves bad_upto to 127 and wraps every
// larger y to a negative byte (at most -2 - bad_upto), so the run is the lanes above
// 127 - bad_upto + bad_after as signed bytes, a bound in [-1, 126] (bad_after >= -1).
struct Range8 {
  std::int8_t add, above;
};
inline Range8 MakeRange8(std::int8_t bad_after, std::int8_t bad_upto) {
  return {static_cast<std::int8_t>(127 - bad_upto), static_cast<std::int8_t>(127 - bad_upto + bad_after)};
}
HWY_INLINE M8 RangeLanes(D8 d, Range8 r, V8 y) { return hn::Gt(hn::Add(y, hn::Set(d, r.add)), hn::Set(d, r.above)); }

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
  std::int8_t flip;
  Range8 range;
  bool keep_all, zero_keep;
  Table8SignedPlan::Check check;
  int n_fix_l, n_fix;
  std::int8_t fix_key[Table8SignedPlan::kMaxFixes], fix_value[Table8SignedPlan::kMaxFixes];
};
inline Table8SignedConsts MakeTable8SignedConsts(D8 d, const Table8Plan& p) {
  const Table8SignedPlan& s = p.sign;
  Table8SignedConsts c{MakeRows8(d, p.table), s.bad, static_cast<std::int8_t>(s.flip), MakeRange8(s.bad_after, s.bad_upto),
                       s.keep_all, s.zero_keep, s.check, s.n_fix_l, s.n_fix, {}, {}};
  for (int k = 0; k < s.n_fix; ++k) {
    c.fix_key[k] = static_cast<std::int8_t>(s.fix_key[k]);
    c.fix_value[k] = static_cast<std::int8_t>(s.fix_value[k]);
  }
  return c;
}

// The fixes as Table8Signed's kFix: read from the plan at run time, none, or exactly one, keyed on
// L or on y (the common shapes: about 2 in 3 of the signed plans with fixes, over every pair and
// setting). With the count read at run time, GCC tested it after each possible fix: about 10 more
// instructions per vector for float8_e4m3fnuz -> float8_e5m2's one fix on SSE4 (3.75 against 3.12
// instructions per element with the fix compiled in, callgrind).
enum FixShape : int { kFixRunTime = -1, kNoFix = 0, kOneFixOnL = 1, kOneFixOnY = 2 };

// L = T[y] looked up, U = (L & keep) ^ flip plus the fixes, picked by x's sign bit.
// The plan's settings as template arguments where known, -1 where read from `c` at run time:
// Table8SignedShape below compiles one loop per plan shape, so that the loop over the common
// blocks tests none of them (GCC kept a test and a branch per setting in every block).
template <int kKeepAll = -1, int kZeroKeep = -1, int kFix = kFixRunTime, int kCheck = -1>
HWY_INLINE V8 Table8Signed(D8 d, const Table8SignedConsts& c, V8 x, M8* declined) {
  using Check = Table8SignedPlan::Check;
  const bool keep_all = kKeepAll < 0 ? c.keep_all : kKeepAll != 0;
  const bool zero_keep = kZeroKeep < 0 ? c.zero_keep : kZeroKeep != 0;
  const Check check = kCheck < 0 ? c.check : static_cast<Check>(kCheck);
  const V8 l = LookUpHalf(d, c.lo, x);
  const V8 kept = keep_all ? l : hn::Zero(d);
  V8 flip = hn::Set(d, c.flip);
  if (zero_keep) flip = hn::IfThenZeroElse(hn::Eq(hn::AndNot(flip, kept), hn::Zero(d)), flip);
  V8 u = hn::Xor(kept, flip);
  const V8 y = hn::And(x, hn::Set(d, 0x7F));
  if constexpr (kFix == kOneFixOnL || kFix == kOneFixOnY) {
    u = hn::IfThenElse(hn::Eq(kFix == kOneFixOnL ? l : y, hn::Set(d, c.fix_key[0])), hn::Set(d, c.fix_value[0]), u);
  } else if constexpr (kFix == kFixRunTime) {
    for (int k = 0; k < c.n_fix_l; ++k) u = hn::IfThenElse(hn::Eq(l, hn::Set(d, c.fix_key[k])), hn::Set(d, c.fix_value[k]), u);
    for (int k = c.n_fix_l; k < c.n_fix; ++k)
      u = hn::IfThenElse(hn::Eq(y, hn::Set(d, c.fix_key[k])), hn::Set(d, c.fix_value[k]), u);
  }
  if (check == Check::kNone) {
    *declined = hn::FirstN(d, 0);
  } else if (check == Check::kRange) {
    *declined = RangeLanes(d, c.range, y);
  } else {
    *declined = BitmapLanes(d, c.bad, y);
  }
  return SelectByTop(x, u, l);
}

// Calls body(lookup) with `lookup(c, x, &declined)` compiled for c's shape: (keep_all, zero_keep)
// of (0, 0), (1, 0) or (1, 1), the fixes of FixShape, and the check (3 x 3 x 3 loops per target),
// or, for the rare other shapes, one loop that reads them all from `c`.
template <class Body>
HWY_INLINE std::size_t Table8SignedShape(const Table8SignedConsts& c, Body&& body) {
  using Check = Table8SignedPlan::Check;
  const int fix = c.n_fix == 0 ? kNoFix : c.n_fix != 1 ? kFixRunTime : c.n_fix_l == 1 ? kOneFixOnL : kOneFixOnY;
  if (fix == kFixRunTime || (c.zero_keep && !c.keep_all)) {
    return body([](const Table8SignedConsts& k, V8 x, M8* declined) { return Table8Signed(D8(), k, x, declined); });
  }
  const auto with_check = [&](auto keep, auto zero, auto fix_shape) -> std::size_t {
    const auto run = [&](auto check) -> std::size_t {
      return body([](const Table8SignedConsts& k, V8 x, M8* declined) {
        return Table8Signed<decltype(keep)::value, decltype(zero)::value, decltype(fix_shape)::value,
                            decltype(check)::value>(D8(), k, x, declined);
      });
    };
    switch (c.check) {
      case Check::kNone: return run(std::integral_constant<int, static_cast<int>(Check::kNone)>());
      case Check::kRange: return run(std::integral_constant<int, static_cast<int>(Check::kRange)>());
      case Check::kBitmap: break;
    }
    return run(std::integral_constant<int, static_cast<int>(Check::kBitmap)>());
  };
  const auto with_fix = [&](auto keep, auto zero) -> std::size_t {
    switch (fix) {
      case kOneFixOnL: return with_check(keep, zero, std::integral_constant<int, kOneFixOnL>());
      case kOneFixOnY: return with_check(keep, zero, std::integral_constant<int, kOneFixOnY>());
      default: break;
    }
    return with_check(keep, zero, std::integral_constant<int, kNoFix>());
  };
  using Zero = std::integral_constant<int, 0>;
  using One = std::integral_constant<int, 1>;
  if (!c.keep_all) return with_fix(Zero(), Zero());
  return c.zero_keep ? with_fix(One(), One()) : with_fix(One(), Zero());
}

#if HWY_TARGET == HWY_AVX3_DL
// The whole table in four registers. The failing entries (WholeTableCheck::kEntries): 0xFF per
// failing entry, looked up the same way.
struct Table8PermuteConsts {
  __m512i t[4], f[4];
  WholeTableCheck check;
  Range8 range;
};
inline Table8PermuteConsts MakeTable8PermuteConsts(const Table8Plan& p) {
  Table8PermuteConsts c;
  for (int k = 0; k < 4; ++k) {
    c.t[k] = _mm512_load_si512(p.table + 64 * k);
    c.f[k] = _mm512_load_si512(p.fail + 64 * k);
  }
  c.check = WholeTableCheckOf(p);
  c.range = MakeRange8(p.sign.bad_after, p.sign.bad_upto);
  return c;
}
// vpermi2b: bits 0..5 of x index a register, bit 6 picks one of the pair; bit 7 picks the pair.
HWY_INLINE V8 Table8Permute(const Table8PermuteConsts& c, V8 x, M8* declined) {
  using Check = WholeTableCheck;
  const __mmask64 neg = _mm512_movepi8_mask(x.raw);
  const __m512i lo = _mm512_permutex2var_epi8(c.t[0], x.raw, c.t[1]);
  const __m512i up = _mm512_permutex2var_epi8(c.t[2], x.raw, c.t[3]);
  if (c.check == Check::kNone) {
    declined->raw = 0;
  } else if (c.check == Check::kRange) {
    const D8 d;
    const V8 y = hn::And(x, hn::Set(d, 0x7F));
    *declined = RangeLanes(d, c.range, y);
  } else {
    const __m512i f = _mm512_mask_blend_epi8(neg, _mm512_permutex2var_epi8(c.f[0], x.raw, c.f[1]),
                                             _mm512_permutex2var_epi8(c.f[2], x.raw, c.f[3]));
    declined->raw = _mm512_movepi8_mask(f);
  }
  return V8{_mm512_mask_blend_epi8(neg, lo, up)};
}
#endif

#if HWY_TARGET == HWY_NEON || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
// The whole table in 16 of the 32 NEON registers. TBL with four registers looks up 64 entries and
// gives 0 for an index of 64 or more; TBX gives the destination's byte there instead. So T[x] is
// TBL of the first quarter at x, then TBX of quarter q at x - 64 q, which is below 64 exactly in
// x's quarter (the subtraction wraps the others to 64 or more): 4 lookups and 3 subtractions per
// 16 bytes, where the generic half-table takes 8 single-register lookups, the 7 selects of their
// tree and the sign's derivation (counted under qemu: 0.8 instructions per element for
// float8_e4m3 -> float8_e5m2 on NEON, 2.2 by the half-table; docs/performance.md). The failing entries
// (WholeTableCheck::kEntries): bit x of the 256-bit bitmap, its byte x >> 3 looked up in two
// registers. Plain NEON, not Highway's vectors: the SVE targets (whose CPUs all have NEON) run
// this loop too where their vectors are at most 256 bits (table8.cc).
struct Table8TblConsts {
  uint8x16x4_t t[4];
  uint8x16x2_t fail_bits;
  WholeTableCheck check;
  Range8 range;
};
inline Table8TblConsts MakeTable8TblConsts(const Table8Plan& p) {
  Table8TblConsts c;
  for (int k = 0; k < 4; ++k) c.t[k] = vld1q_u8_x4(p.table + 64 * k);
  c.fail_bits = vld1q_u8_x2(p.fail_bits);
  c.check = WholeTableCheckOf(p);
  c.range = MakeRange8(p.sign.bad_after, p.sign.bad_upto);
  return c;
}
// T[x]; *declined: 0xFF in the lanes to decline.
template <WholeTableCheck kCheck>
HWY_INLINE uint8x16_t Table8Tbl(const uint8x16x4_t& t0, const uint8x16x4_t& t1, const uint8x16x4_t& t2,
                                const uint8x16x4_t& t3, const uint8x16x2_t& fail_bits, Range8 range, uint8x16_t x,
                                uint8x16_t* declined) {
  using Check = WholeTableCheck;
  const uint8x16_t quarter = vdupq_n_u8(64);
  uint8x16_t i = x;
  uint8x16_t r = vqtbl4q_u8(t0, i);
  i = vsubq_u8(i, quarter);
  r = vqtbx4q_u8(r, t1, i);
  i = vsubq_u8(i, quarter);
  r = vqtbx4q_u8(r, t2, i);
  i = vsubq_u8(i, quarter);
  r = vqtbx4q_u8(r, t3, i);
  if constexpr (kCheck == Check::kNone) {
    *declined = vdupq_n_u8(0);
  } else if constexpr (kCheck == Check::kRange) {  // RangeLanes
    const int8x16_t y = vreinterpretq_s8_u8(vandq_u8(x, vdupq_n_u8(0x7F)));
    *declined = vcgtq_s8(vaddq_s8(y, vdupq_n_s8(range.add)), vdupq_n_s8(range.above));
  } else {
    alignas(16) static constexpr std::uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0};
    const uint8x16_t byte = vqtbl2q_u8(fail_bits, vshrq_n_u8(x, 3));
    const uint8x16_t bit = vqtbl1q_u8(vld1q_u8(kBit), vandq_u8(x, vdupq_n_u8(7)));
    *declined = vtstq_u8(byte, bit);
  }
  return r;
}
// Table8Family::FastRun's loop (its contract: the whole blocks of `block` bytes converted, up to
// the first with a declined lane), 16 bytes per step, with the table in local variables of the
// function that holds the loop: passed in a struct (the Consts, or a lambda's capture), GCC kept
// them in memory, which stores through unsigned char* may alias, and loaded all 16 registers
// again in every step (18 instructions per 16 bytes; 12 with them in registers).
template <WholeTableCheck kCheck>
HWY_NOINLINE std::size_t Table8TblRun(const Table8TblConsts& c, const unsigned char* in, unsigned char* out,
                                      std::size_t blocks, std::size_t block) {
  const uint8x16x4_t t0 = c.t[0], t1 = c.t[1], t2 = c.t[2], t3 = c.t[3];
  const uint8x16x2_t fail_bits = c.fail_bits;
  const Range8 range = c.range;
  const unsigned char* p = in;
  unsigned char* q = out;
  const unsigned char* const end = in + blocks * block;  // block: a multiple of 16
  for (; p != end; p += 16, q += 16) {
    PrefetchBlock(p, 16, q, 16);
    uint8x16_t declined;
    const uint8x16_t r = Table8Tbl<kCheck>(t0, t1, t2, t3, fail_bits, range, vld1q_u8(p), &declined);
    if (HWY_UNLIKELY(vmaxvq_u8(declined) != 0)) break;
    vst1q_u8(q, r);
  }
  return static_cast<std::size_t>(p - in) / block;
}
inline std::size_t RunTable8Tbl(const Table8TblConsts& c, const unsigned char* in, unsigned char* out,
                                std::size_t blocks, std::size_t block) {
  using Check = WholeTableCheck;
  if (c.check == Check::kNone) return Table8TblRun<Check::kNone>(c, in, out, blocks, block);
  if (c.check == Check::kRange) return Table8TblRun<Check::kRange>(c, in, out, blocks, block);
  return Table8TblRun<Check::kEntries>(c, in, out, blocks, block);
}
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
