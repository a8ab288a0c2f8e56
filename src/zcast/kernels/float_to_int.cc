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
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;

  static HWY_INLINE VU32 Convert(const Params& p, VF32 x, MU32* declined) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VF32 r = RoundToIntegral<R>(x);
    const VU32 mask = hn::Set(du, p.mask);
    if constexpr (O == OutOfRange::kWrap) {
      const MU32 nonfinite = NonFiniteLanes(x);
      *declined = nonfinite;
      const auto big = hn::Ge(hn::Abs(r), hn::Set(df, 0x1p31f));
      const VF32 q = hn::Floor(hn::Mul(r, hn::Set(df, 0x1p-32f)));
      VF32 w = hn::Sub(r, hn::Mul(q, hn::Set(df, 0x1p32f)));
      w = hn::IfThenElse(hn::Ge(w, hn::Set(df, 0x1p31f)), hn::Sub(w, hn::Set(df, 0x1p32f)), w);
      const VF32 v = hn::IfThenZeroElse(hn::RebindMask(df, nonfinite), hn::IfThenElse(big, w, r));
      return hn::And(hn::BitCast(du, hn::ConvertTo(di, v)), mask);
    } else if constexpr (O == OutOfRange::kClamp) {
      // NaN and Inf are errors even under clamp (R3): found on x, not after min/max.
      *declined = NonFiniteLanes(x);
      if constexpr (kWide) {
        const VU32 v = hn::BitCast(du, hn::ConvertTo(di, hn::Min(hn::Max(r, hn::Set(df, p.lo)), hn::Set(df, 0x1.fffffep30f))));
        return hn::IfThenElse(hn::RebindMask(du, hn::Ge(r, hn::Set(df, p.hi))), hn::Set(du, p.hi_bits), hn::And(v, mask));
      } else {
        const VF32 c = hn::Min(hn::Max(r, hn::Set(df, p.lo)), hn::Set(df, p.hi));
        return hn::And(hn::BitCast(du, hn::ConvertTo(di, c)), mask);
      }
    } else {
      // Unset: outside the range (NaN too: its compares are false) is declined.
      const auto lo_ok = hn::Ge(r, hn::Set(df, p.lo));
      const auto hi_ok = kWide ? hn::Lt(r, hn::Set(df, p.hi)) : hn::Le(r, hn::Set(df, p.hi));
      *declined = hn::RebindMask(du, hn::Not(hn::And(lo_ok, hi_ok)));
      const VF32 v = hn::IfThenElseZero(hn::And(lo_ok, hi_ok), r);
      return hn::And(hn::BitCast(du, hn::ConvertTo(di, v)), mask);
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
