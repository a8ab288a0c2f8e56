// float64 -> float32 rounded to odd, the float64 source of the float-lane converters to float16,
// bfloat16, float8/6/4 and e8m0 (LoadF64Odd; float_lanes-inl.h's wide sources). Per-target, on
// float64-inl.h's tags and DemoteF64ToF32.
//
// Include after zcast/kernels/block-inl.h (DF32, DU32).
#if defined(ZCAST_KERNELS_FLOAT64_ODD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_KERNELS_FLOAT64_ODD_INL_H_
#undef ZCAST_KERNELS_FLOAT64_ODD_INL_H_
#else
#define ZCAST_KERNELS_FLOAT64_ODD_INL_H_
#endif

#include <cstddef>

#include <hwy/highway.h>

#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

// float64 -> float32 rounded to odd: the float32 neighbour of x nearer zero, with its last bit
// set when x is not exactly representable. Rounding that once more to a format with at least two
// fewer significand bits (float16, bfloat16, float8...), whose grid is part of float32's over the
// whole range (subnormals included), gives the result of rounding x directly, in every mode. The
// demotion gives one neighbour y, whichever the environment's mode; b = (double)y is exact and has
// x's sign, so the difference of their bit patterns as int64 (sign and magnitude, the signs
// equal) is > 0 exactly when |b| > |x| (then the other neighbour, one unit nearer zero, is the
// one wanted) and 0 exactly when y is x. Beyond the float32 range this gives +-max, still beyond
// max for float16 and the float8s in every mode; bfloat16 shares float32's exponent range, so for
// it (kHugeToInf) |x| >= 2^128 becomes +-Inf, which its kernel declines under unset and keeps
// under clamp (R1). NaN stays NaN (any bits, one unit less or the last bit set, are still a NaN)
// and Inf passes. The difference and its two compares take three integer operations where
// comparing |b| with |x| as floats, and b with x, take five (float64 -> float16 on SSE4: about 2
// instructions per element fewer).

// One float64 vector's demotion y, and as all-ones/zero 64-bit lanes: |b| > |x|, y == x, and
// (kHugeToInf) |x| >= 2^128.
template <bool kHugeToInf>
HWY_INLINE hn::Vec<DNF32> DemoteForOdd(VF x, VU* above, VU* exact, VU* huge) {
  const DF d;
  const DU du;
  const DI di;
  const hn::Vec<DNF32> y = DemoteF64ToF32(x);
  const hn::Vec<DI> diff = hn::Sub(hn::BitCast(di, hn::PromoteTo(d, y)), hn::BitCast(di, x));
  *above = hn::VecFromMask(du, hn::RebindMask(du, hn::Gt(diff, hn::Zero(di))));
  *exact = hn::VecFromMask(du, hn::RebindMask(du, hn::Eq(diff, hn::Zero(di))));
  if constexpr (kHugeToInf) *huge = hn::VecFromMask(du, hn::RebindMask(du, hn::Ge(hn::Abs(x), hn::Set(d, 0x1p128))));
  return y;
}
// The rounded-to-odd bits from y's and the masks as 32-bit lanes (all-ones or zero): one unit
// less where above (all-ones is -1), the last bit set where not exact (all-ones + 1 is 0).
template <bool kHugeToInf, class D32>
HWY_INLINE hn::Vec<D32> OddBits(D32 d32, hn::Vec<D32> y, hn::Vec<D32> above, hn::Vec<D32> exact, hn::Vec<D32> huge) {
  hn::Vec<D32> yi = hn::Or(hn::Add(y, above), hn::Add(exact, hn::Set(d32, 1u)));
  if constexpr (kHugeToInf) {
    const hn::Vec<D32> inf = hn::Or(hn::And(yi, hn::Set(d32, 0x80000000u)), hn::Set(d32, 0x7F800000u));
    yi = hn::IfThenElse(hn::MaskFromVec(huge), inf, yi);
  }
  return yi;
}

// float64 sources for the float-lane converters (float_lanes-inl.h's loader concept: kSize and
// Load(p) -> one full vector of float32 lanes): float64 -> float16, bfloat16, float8/6/4 as
// float32 rounded to odd (above), then the converter's one rounding. Lanes(DF32) elements: two
// vectors of float64 lanes, demoted and combined, their masks' low halves concatenated (one
// vector on SCALAR, where both tags have one lane). Without scalar_map only: the lanes are not
// the source values.
#if HWY_TARGET != HWY_SCALAR
// Two vectors of 64-bit mask lanes as one of 32-bit lanes, lo's first: a mask lane's low half is
// the even 32-bit lane (both halves are equal).
HWY_INLINE VU32 LowHalves(VU hi, VU lo) {
  const DU32 du32;
  return hn::ConcatEven(du32, hn::BitCast(du32, hi), hn::BitCast(du32, lo));
}
#endif

template <bool kHugeToInf>
struct LoadF64Odd {
  static constexpr std::size_t kSize = 8;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const auto* x = reinterpret_cast<const double*>(p);
    VU a0, e0, h0 = hn::Zero(DU());
#if HWY_TARGET == HWY_SCALAR  // (SCALAR has no Combine)
    const DN32 dn;
    const hn::Vec<DNF32> y = DemoteForOdd<kHugeToInf>(hn::LoadU(DF(), x), &a0, &e0, &h0);
    return hn::BitCast(DF32(), OddBits<kHugeToInf>(dn, hn::BitCast(dn, y), hn::TruncateTo(dn, a0),
                                                   hn::TruncateTo(dn, e0), hn::TruncateTo(dn, h0)));
#else
    const DU32 du32;
    const std::size_t n = hn::Lanes(DF());
    VU a1, e1, h1 = hn::Zero(DU());
    const hn::Vec<DNF32> y0 = DemoteForOdd<kHugeToInf>(hn::LoadU(DF(), x), &a0, &e0, &h0);
    const hn::Vec<DNF32> y1 = DemoteForOdd<kHugeToInf>(hn::LoadU(DF(), x + n), &a1, &e1, &h1);
    return hn::BitCast(DF32(), OddBits<kHugeToInf>(du32, hn::BitCast(du32, hn::Combine(DF32(), y1, y0)), LowHalves(a1, a0),
                                                   LowHalves(e1, e0), LowHalves(h1, h0)));
#endif
  }
};

}  // namespace f64
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // toggle
