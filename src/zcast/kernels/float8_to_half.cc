// The float8-to-half family: float8/6/4 sources (not e8m0) -> float16 and bfloat16, in 16-bit
// lanes, without a scalar_map. Every value of these sources is a value of both destinations (at
// most 4 significand bits; magnitudes 2^-17 .. 57344, float16 reaching 2^-24 .. 65504), so the
// result is a pure function of the byte: no rounding, no out-of-range, no declined lane.
//
// Why a family of its own: the other exact ways are all slower where they run. The int lanes
// decode to float32 in 32-bit lanes (about 18 operations per 8 lanes on AVX2) and narrow: 0.43
// / 0.46 of the copy ceiling (float16 / bfloat16) on an AMD EPYC, where AVX2's gather of a 256-entry
// table is 0.33 / 0.35; this family streams at 1.03-1.08 there. Here a vector of 16-bit lanes
// (twice the elements) takes about 18 operations, none of them a gather or a conversion:
//   - magnitudes 16 and up: the exponent and mantissa fields shifted to the destination's places
//     and the exponent rebiased by one integer add (all of them are normal in both destinations);
//   - magnitudes 0..15 (every subnormal of every source: M <= 4; also float8_e5m2fnuz's smallest
//     normals, which are float16 subnormals): two byte lookups (pshufb, tbl) in 16-entry tables
//     of the results' low and high bytes, filled by the reference path at bind time;
//   - the sign bit moved to bit 15 (float8 is loaded sign-extended: it is there already);
//     IEEE-like Inf and NaN and fnuz's NaN 0x80 blended in with the reference's results, in the
//     vector: a branch on their presence, with a NaN every 8 or 64 elements (a nodata fill), makes
//     the SSE4 kernel 3x slower in cache; blended, it costs nothing.
// At bind time the same formula, in scalar code (Model), is checked against the reference path on
// all 256 bytes; a source it did not fit would get no kernel here (none does: the tests ask for
// one on every pair). Selection (families.h): after the 1-byte -> 2-byte table, which keeps these
// pairs only on AVX3_DL (vpermi2b) or with a scalar_map; before the int and float lanes.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float8_to_half.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cstring>

#include "zcast/kernels/block-inl.h"

#ifndef ZCAST_SRC_KERNELS_FLOAT8_TO_HALF_PLAN_
#define ZCAST_SRC_KERNELS_FLOAT8_TO_HALF_PLAN_
namespace zcast::internal {

enum class HalfSpecials { kNone, kInfNan, kNanAt0x80 };  // float4/6 (fn); IEEE-like; fnuz

struct HalfPlan {
  alignas(16) std::uint8_t low[16];  // the results of magnitudes 0..15: low bytes
  alignas(16) std::uint8_t high[16];  // and high bytes
  std::uint16_t value_mask, mag_mask;
  int shift, sign_shift;  // M_dst - M_src; 15 - (E + M)
  std::uint16_t rebias;   // (bias_dst - bias_src) << M_dst, modulo 2^16
  std::uint16_t inf_mag;  // kInfNan: the magnitude of Inf (larger ones are NaN)
  std::uint16_t inf, nan;  // kInfNan: +Inf's and +NaN's results; kNanAt0x80: 0x80's result
};

// The kernel's formula for one byte, in scalar code.
template <HalfSpecials kS>
inline std::uint16_t Model(const HalfPlan& p, std::uint8_t byte) {
  const unsigned s = byte & p.value_mask, mag = s & p.mag_mask;
  const unsigned sign = (s ^ mag) << p.sign_shift;
  unsigned r = mag < 16 ? p.low[mag] | (p.high[mag] << 8) : (mag << p.shift) + p.rebias;
  r = (r | sign) & 0xFFFF;
  if (kS == HalfSpecials::kInfNan && mag >= p.inf_mag) r = (mag == p.inf_mag ? p.inf : p.nan) | sign;
  if (kS == HalfSpecials::kNanAt0x80 && s == 0x80) r = p.nan;
  return static_cast<std::uint16_t>(r);
}

}  // namespace zcast::internal
#endif  // ZCAST_SRC_KERNELS_FLOAT8_TO_HALF_PLAN_

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

// kSubByte: float6/float4, whose upper bits are ignored (masked off first).
template <HalfSpecials kS, bool kSubByte>
struct Float8ToHalfFamily {
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;  // integer arithmetic only
  using Params = HalfPlan;
  static constexpr std::size_t SrcSize(const Params&) { return 1; }
  static constexpr std::size_t DstSize(const Params&) { return 2; }
  static std::size_t BlockElems() { return kVecs * hn::Lanes(DU32()); }

#if HWY_TARGET == HWY_SCALAR
  // One lane per vector: a byte table lookup is no vector operation there; the formula as is.
  using Consts = const HalfPlan*;
  static Consts MakeConsts(const Params& p) { return &p; }
  static HWY_INLINE std::size_t Block(const Consts& p, const unsigned char* in, unsigned char* out,
                                      const Resolver&) {
    for (std::size_t j = 0; j < kVecs; ++j) {
      const std::uint16_t r = Model<kS>(*p, in[j]);
      std::memcpy(out + 2 * j, &r, 2);
    }
    return kNoFailure;
  }
#else
  using DU16 = hn::ScalableTag<std::uint16_t>;
  using DI16 = hn::RebindToSigned<DU16>;
  using DU8 = hn::Repartition<std::uint8_t, DU16>;
  using VU16 = hn::Vec<DU16>;
  // Plain data: SVE's vectors cannot be members. The vectors are set where they are used; in
  // FastRun's loop, from a local copy, so that they are set once (stores through `out` could
  // alias a plan that is not local).
  using Consts = HalfPlan;
  static Consts MakeConsts(const Params& p) { return p; }
  // The source bytes in 16-bit lanes: float6/float4 zero-extended and masked to their value
  // bits; float8 sign-extended, so that the sign is already bit 15 (one AND where a shift of
  // the sign bit takes two operations: this target's SSE4 build is compute-bound).
  static HWY_INLINE VU16 Load(const Consts& c, const unsigned char* in) {
    const DU16 d;
    if constexpr (kSubByte) {
      return hn::And(hn::PromoteTo(d, hn::LoadU(hn::Rebind<std::uint8_t, DU16>(), in)), hn::Set(d, c.value_mask));
    } else {
      const DI16 di;
      const auto* p = reinterpret_cast<const std::int8_t*>(in);
      return hn::BitCast(d, hn::PromoteTo(di, hn::LoadU(hn::Rebind<std::int8_t, DI16>(), p)));
    }
  }
  // One vector's results.
  static HWY_INLINE VU16 One(const Consts& c, const unsigned char* in) {
    const DU16 d;
    const DI16 di;
    const DU8 d8;
    const VU16 v = Load(c, in);
    const VU16 mag = hn::And(v, hn::Set(d, c.mag_mask));
    VU16 r = hn::Add(hn::ShiftLeftSame(mag, c.shift), hn::Set(d, c.rebias));
    // The magnitude in both bytes of its lane (< 2^7, so the product fits) indexes the low-byte
    // table for the low byte and the high-byte table for the high byte. Magnitudes >= 16 index
    // what TableLookupBytes leaves implementation-defined: those lanes keep the shifted fields.
    const auto index = hn::BitCast(d8, hn::Mul(mag, hn::Set(d, 0x0101)));
    const VU16 table = hn::BitCast(d, hn::OddEven(hn::TableLookupBytes(hn::LoadDup128(d8, c.high), index),
                                                  hn::TableLookupBytes(hn::LoadDup128(d8, c.low), index)));
    // Magnitudes are < 2^15: signed compares are one instruction on x86.
    r = hn::IfThenElse(hn::RebindMask(d, hn::Lt(hn::BitCast(di, mag), hn::Set(di, 16))), table, r);
    if constexpr (kS == HalfSpecials::kInfNan) {
      // Inf (the largest magnitude) and NaN (above it), in the vector: a branch on their presence
      // made a step that has one cost 3-5x one that has none (SSE4, a NaN every 64 or 8 elements).
      const VU16 special = hn::IfThenElse(hn::Eq(mag, hn::Set(d, c.inf_mag)), hn::Set(d, c.inf), hn::Set(d, c.nan));
      const auto is_special = hn::Gt(hn::BitCast(di, mag), hn::Set(di, static_cast<std::int16_t>(c.inf_mag - 1)));
      r = hn::IfThenElse(hn::RebindMask(d, is_special), special, r);
    }
    if constexpr (kSubByte) r = hn::Or(r, hn::ShiftLeftSame(hn::Xor(v, mag), c.sign_shift));  // sign bit to 15
    else r = hn::Or(r, hn::And(v, hn::Set(d, 0x8000)));
    // fnuz's NaN, 0x80: 0xFF80 sign-extended.
    if constexpr (kS == HalfSpecials::kNanAt0x80) {
      r = hn::IfThenElse(hn::Eq(v, hn::Set(d, 0xFF80)), hn::Set(d, c.nan), r);
    }
    return r;
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver&) {
    const DU16 d;
    const std::size_t n = hn::Lanes(d);
    auto* o = reinterpret_cast<std::uint16_t*>(out);
    for (std::size_t j = 0; j < kVecs / 2; ++j) hn::StoreU(One(c, in + j * n), d, o + j * n);
    return kNoFailure;
  }
  // 64 source bytes per step (one line; several blocks on SSE4 and NEON): one prefetch of the
  // source and two of the destination per step, where PrefetchBlock once per block prefetched
  // each source line four times on SSE4.
  static HWY_INLINE std::size_t FastRun(const Consts& plan, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    const HalfPlan c = plan;  // a local: see Consts
    const DU16 d;
    const std::size_t n = hn::Lanes(d);
    const std::size_t per_step = BlockElems() >= 64 ? 1 : 64 / BlockElems();
    const std::size_t step = per_step * BlockElems();  // elements
    std::size_t b = 0;
    for (; b + per_step <= blocks; b += per_step) {
      const unsigned char* src = in + b * BlockElems();
      auto* o = reinterpret_cast<std::uint16_t*>(out) + b * BlockElems();
      PrefetchBlock(src, step, reinterpret_cast<unsigned char*>(o), 2 * step);
      for (std::size_t j = 0; j < step; j += n) hn::StoreU(One(c, src + j), d, o + j);
    }
    return b;
  }
#endif
};

std::unique_ptr<const Kernel> MakeFloat8ToHalf(const Direction& dir, const HalfPlan& plan, HalfSpecials kind) {
  const char* name = "float8-to-half-lanes";
  switch (kind) {
    case HalfSpecials::kInfNan: return Make<Float8ToHalfFamily<HalfSpecials::kInfNan, false>>(dir, plan, name);
    case HalfSpecials::kNanAt0x80: return Make<Float8ToHalfFamily<HalfSpecials::kNanAt0x80, false>>(dir, plan, name);
    // The sources without Inf or NaN are float4/float6 (fn), the sub-byte ones (a value mask of
    // 0xFF would be harmless on an 8-bit one).
    default: return Make<Float8ToHalfFamily<HalfSpecials::kNone, true>>(dir, plan, name);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloat8ToHalf);

namespace {

// The plan of `dir`, or false where the formula does not give the reference's result for every
// byte (checked, not assumed: Model against ConvertScalar).
bool PlanFor(const Direction& dir, HalfPlan* p, HalfSpecials* kind) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  *kind = s.special == Special::Ieee ? HalfSpecials::kInfNan
          : s.special == Special::Fnuz ? HalfSpecials::kNanAt0x80
                                       : HalfSpecials::kNone;
  const auto result = [&](std::uint64_t bits) { return ConvertScalar(dir, bits); };
  for (unsigned m = 0; m < 16; ++m) {
    const CastOutcome r = result(m & s.value_mask());
    p->low[m] = static_cast<std::uint8_t>(r.bits);
    p->high[m] = static_cast<std::uint8_t>(r.bits >> 8);
  }
  p->value_mask = static_cast<std::uint16_t>(s.value_mask());
  p->mag_mask = static_cast<std::uint16_t>((1u << (s.exp_bits + s.mant_bits)) - 1);
  p->shift = d.mant_bits - s.mant_bits;
  p->sign_shift = 15 - (s.exp_bits + s.mant_bits);
  p->rebias = static_cast<std::uint16_t>((d.bias - s.bias) * (1 << d.mant_bits));
  p->inf_mag = static_cast<std::uint16_t>(s.positive_inf());
  p->inf = p->nan = 0;
  if (*kind == HalfSpecials::kInfNan) {
    p->inf = static_cast<std::uint16_t>(result(s.positive_inf()).bits);
    p->nan = static_cast<std::uint16_t>(result(s.positive_inf() + 1).bits);
  } else if (*kind == HalfSpecials::kNanAt0x80) {
    p->nan = static_cast<std::uint16_t>(result(0x80).bits);
  }
  for (unsigned b = 0; b < 256; ++b) {
    const CastOutcome r = result(b);
    std::uint16_t got = 0;
    switch (*kind) {
      case HalfSpecials::kInfNan: got = Model<HalfSpecials::kInfNan>(*p, static_cast<std::uint8_t>(b)); break;
      case HalfSpecials::kNanAt0x80: got = Model<HalfSpecials::kNanAt0x80>(*p, static_cast<std::uint8_t>(b)); break;
      case HalfSpecials::kNone: got = Model<HalfSpecials::kNone>(*p, static_cast<std::uint8_t>(b)); break;
    }
    if (r.error != CastError::kNone || r.bits != got) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<const Kernel> SelectFloat8ToHalf(const Direction& dir, std::int64_t target) {
  const TypeInfo& s = Info(dir.src);
  if (s.kind != Kind::Float || s.size != 1 || s.special == Special::E8m0 || !dir.map.empty()) return nullptr;
  if (dir.dst != DataType::float16 && dir.dst != DataType::bfloat16) return nullptr;
  HalfPlan plan;
  HalfSpecials kind;
  if (!PlanFor(dir, &plan, &kind)) return nullptr;
  return ZCAST_CALL_FOR_TARGET(MakeFloat8ToHalf, target, dir, plan, kind);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
