// float64 -> integers of <= 32 bits (not uint32: its max is past int32's), every rounding mode
// and out_of_range. The
// value is rounded explicitly (RoundF64: no FP environment involved, the run is in nearest-even
// for nearest-away's addition), range-checked or clamped as a double (every bound is exact in
// double, so clamping before the truncating conversion equals clamping after), then converted;
// wrap (R5) takes the residue of the integral double modulo 2^64 from its bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float64_to_int.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

struct IntParams64 {
  double lo, hi;  // in range: lo <= r <= hi
  std::uint32_t mask;
};

template <Rounding R, OutOfRange O>
struct F64ToInt {
  using Params = IntParams64;
  using DMask = DF;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  static HWY_INLINE VN32 Convert(const Params& p, VF x, MF* declined) {
    const DF d;
    VF r = RoundF64<R>(x);
    VN32 v;
    if constexpr (O == OutOfRange::kWrap) {
      *declined = NonFinite64(x);  // R3: no NaN or Inf in an integer type
      v = hn::TruncateTo(DN32(), IntegralToInt64(r));
    } else {
      if constexpr (O == OutOfRange::kClamp) {
        *declined = NonFinite64(x);  // R3, decided on x, not after min/max
        r = hn::Min(hn::Max(r, hn::Set(d, p.lo)), hn::Set(d, p.hi));
      } else {
        // Unset: outside [lo, hi] is declined (NaN compares false: declined too).
        *declined = hn::Not(hn::And(hn::Ge(r, hn::Set(d, p.lo)), hn::Le(r, hn::Set(d, p.hi))));
      }
      // The emulated targets convert with a C++ cast, undefined for NaN and out-of-range lanes:
      // those (declined) lanes become 0 first.
      if constexpr (kEmulated) r = hn::IfThenZeroElse(*declined, r);
      v = hn::BitCast(DN32(), hn::DemoteTo(DNI32(), r));
    }
    return hn::And(v, hn::Set(DN32(), p.mask));
  }
};

}  // namespace f64

std::unique_ptr<const Kernel> MakeFloat64ToInt(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.src != DataType::float64 || !d.is_int() || d.bits > 32 || dir.dst == DataType::uint32) return nullptr;
  f64::IntParams64 ip;
  ip.lo = d.is_signed_int() ? -static_cast<double>(1ull << (d.bits - 1)) : 0.0;
  ip.hi = static_cast<double>(d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask());
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() {
        using Fam = f64::F64Lanes<f64::LoadD64, f64::F64ToInt<R, O>, kD>;
        return MakeWithMap<Fam>(dir, {ip, {}}, "float64-lanes-to-int", KeyRep::kFloat64Bits);
      });
    });
  });
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloat64ToInt);

std::unique_ptr<const Kernel> SelectFloat64ToInt(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloat64ToInt, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
