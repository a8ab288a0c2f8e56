// float32, float16 and bfloat16 sources -> integers of <= 32 bits (not uint32, whose values do not
// fit the int32 lanes; 16-bit sources -> int32 are left to the table), every rounding mode and
// out_of_range setting.
//
// Exactness. The value is rounded to an integer first, in mode R, by Highway's Round (nearest-
// even), Trunc, Ceil and Floor, which are exact; nearest-away is trunc(x) + sign(x) where
// |x - trunc(x)| >= 0.5 (x - trunc(x) is exact: both lie in the same binade, or trunc(x) = 0;
// trunc(x) + 1 is exact because |x| < 2^23 whenever x has a fraction). An integral float32 inside
// the destination's range converts exactly (ConvertTo). Clamping before converting is the same as
// clamping the exact integer: the bounds are integers and rounding is monotonic (R1). int32's max,
// 2^31 - 1, is not a float32: values >= 2^31 are found by compare. Wrap (R5): below 2^31 in
// magnitude the conversion is exact; above, r is a multiple of its ulp >= 2^8, and
// w = r - 2^32 * floor(r / 2^32) is exact (every term a multiple of ulp(r), and w < 2^32 needs at
// most 24 significant bits), as is w - 2^32 when w >= 2^31: that is r modulo 2^32 as an int32.
// NaN and +-Inf are declined (R3: errors in every setting).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_to_int.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

struct IntParams {
  float lo, hi;            // in range: lo <= r <= hi (kWide: lo <= r < hi = 2^31)
  std::uint32_t hi_bits;   // the destination's max (clamp result above hi)
  std::uint32_t mask;      // the destination's value mask
};

template <Rounding R, OutOfRange O, bool kWide>
struct F32ToInt {
  using Params = IntParams;
  static constexpr bool kDeclinesNonFinite = true;  // R3: no NaN or Inf in an integer type
  // RoundToInt32InRange rounds in the run's mode (wrap's arithmetic is exact in every mode).
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);

  static HWY_INLINE VU32 Convert(const Params& p, VF32 x, MU32* declined) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VU32 mask = hn::Set(du, p.mask);
    if constexpr (O == OutOfRange::kWrap) {
      const VF32 r = RoundToIntegral<R>(x);
      const MU32 nonfinite = NonFiniteLanes(x);
      *declined = nonfinite;
      const auto big = hn::Ge(hn::Abs(r), hn::Set(df, 0x1p31f));
      const VF32 q = hn::Floor(hn::Mul(r, hn::Set(df, 0x1p-32f)));
      VF32 w = hn::Sub(r, hn::Mul(q, hn::Set(df, 0x1p32f)));
      w = hn::IfThenElse(hn::Ge(w, hn::Set(df, 0x1p31f)), hn::Sub(w, hn::Set(df, 0x1p32f)), w);
      const VF32 v = hn::IfThenZeroElse(hn::RebindMask(df, nonfinite), hn::IfThenElse(big, w, r));
      return hn::And(hn::BitCast(du, hn::ConvertTo(di, v)), mask);
    } else if constexpr (O == OutOfRange::kClamp) {
      // NaN and Inf are errors even under clamp (R3): found on x, not after min/max. Clamping x
      // before rounding is clamping the rounded value (integer bounds, monotonic rounding).
      *declined = NonFiniteLanes(x);
      if constexpr (kWide) {
        // Nothing below 2^31 needs rounding to fit; >= 2^31 (checked on the rounded value:
        // nearest-away's 2^31 - 0.5 is not a float32, so x itself decides) gives the max.
        const VU32 v = hn::BitCast(du, RoundToInt32InRange<R>(hn::Max(x, hn::Set(df, p.lo))));
        return hn::IfThenElse(hn::RebindMask(du, hn::Ge(x, hn::Set(df, p.hi))), hn::Set(du, p.hi_bits), hn::And(v, mask));
      } else {
        const VF32 c = hn::Min(hn::Max(x, hn::Set(df, p.lo)), hn::Set(df, p.hi));
        return hn::And(hn::BitCast(du, RoundToInt32InRange<R>(c)), mask);
      }
    } else if constexpr (kWide) {
      // Unset: outside [lo, 2^31) is declined (NaN too: its compares are false); a float32 that
      // needs rounding is below 2^23, so the bounds apply to x as well as to the rounded value.
      const auto ok = hn::And(hn::Ge(x, hn::Set(df, p.lo)), hn::Lt(x, hn::Set(df, p.hi)));
      *declined = hn::RebindMask(du, hn::Not(ok));
      return hn::And(hn::BitCast(du, RoundToInt32InRange<R>(x)), mask);
    } else {
      // Unset, narrow destinations: the rounded integer is range-checked. NaN, +-Inf and values
      // beyond int32 convert to something (x86: INT32_MIN) that is declined unless it is in
      // range, so those lanes are declined on x as well.
      const VI32 v = RoundToInt32InRange<R>(x);
      const auto bad = hn::Or(hn::Lt(v, hn::Set(di, static_cast<std::int32_t>(p.lo))),
                              hn::Gt(v, hn::Set(di, static_cast<std::int32_t>(p.hi))));
      *declined = hn::Or(hn::RebindMask(du, bad), GtS(AbsBits(x), hn::Set(du, 0x4EFFFFFFu)));  // |x| >= 2^31
      return hn::And(hn::BitCast(du, v), mask);
    }
  }
};

std::unique_ptr<const Kernel> MakeFloatToInt(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (!d.is_int() || d.bits == 64 || dir.dst == DataType::uint32) return nullptr;
  if (Info(dir.src).size == 2 && d.size == 4) return nullptr;  // rare: the table does it
  const bool wide = d.bits > 24;
  const std::uint64_t max = d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask();
  IntParams ip;
  ip.lo = d.is_signed_int() ? -static_cast<float>(1ull << (d.bits - 1)) : 0.0f;
  ip.hi = wide ? static_cast<float>(max + 1) : static_cast<float>(max);
  ip.hi_bits = static_cast<std::uint32_t>(max);
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      if (d.size == 4) return MakeFloatLanes<F32ToInt<R, O, true>>(dir, ip, "float-lanes-to-int");
      return MakeFloatLanes<F32ToInt<R, O, false>>(dir, ip, "float-lanes-to-int");
    });
  });
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloatToInt);

std::unique_ptr<const Kernel> SelectFloatToInt(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloatToInt, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
