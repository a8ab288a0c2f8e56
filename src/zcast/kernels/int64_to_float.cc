// int64 / uint64 -> float64 and float32, every rounding mode (issue 5's "uint64 -> float32" and
// "int64 -> float64" rows). To float64: one rounding in the run's FP environment (Int64ToF64);
// nearest-away, which no hardware mode gives, declines |v| > 2^53, where it could differ. To
// float32: through the exact double up to 2^53 and a rounding to odd above (LoadI64DOdd), then
// the one rounding of F64ToF32; with a scalar_map, the lanes must be the source values, so
// |v| > 2^53 is declined instead (LoadI64D).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/int64_to_float.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

// Raw int64 / uint64 lanes as loaded (Lanes64's Conv sees them as a float64 vector's bits).
struct LoadRaw64 {
  static constexpr std::size_t kSize = 8;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    *bad = hn::FirstN(DF(), 0);
    return hn::BitCast(DF(), hn::LoadU(DU(), reinterpret_cast<const std::uint64_t*>(p)));
  }
};

template <bool kSigned, Rounding R>
struct Int64ToF64Conv {
  struct Params {};
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);
  static HWY_INLINE VU Convert(const Params&, VF raw, MF* declined) {
    VU v = hn::BitCast(DU(), raw);
    if constexpr (R == Rounding::kNearestAway) *declined = Int64Wide<kSigned>(v);
    else *declined = hn::FirstN(DF(), 0);
    return hn::BitCast(DU(), Int64ToF64<kSigned>(v));
  }
};

template <bool kSigned>
std::unique_ptr<const Kernel> FromInt64(const Direction& dir) {
  if (dir.dst == DataType::float64) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      // The map's keys are the raw source lanes; a NaN bit pattern of LoadRaw64's "float64" view
      // is an ordinary integer, and BuildMap refuses NaN keys for int sources anyway.
      using Fam = Lanes64<LoadRaw64, Int64ToF64Conv<kSigned, R>>;
      return MakeWithMap<Fam>(dir, {}, "float64-lanes-int64-to-float64", KeyRep::kFloat64Bits);
    });
  }
  if (dir.dst == DataType::float32) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        if (dir.map.empty()) {
          using Fam = F64Lanes<LoadI64DOdd<kSigned>, F64ToF32<R, O>, 4>;
          return Make<Fam>(dir, {}, "float64-lanes-int64-to-float32");
        }
        using Fam = F64Lanes<LoadI64D<kSigned>, F64ToF32<R, O>, 4>;
        return MakeWithMap<Fam>(dir, {}, "float64-lanes-int64-to-float32", KeyRep::kFloat64Bits);
      });
    });
  }
  return nullptr;
}

}  // namespace f64

std::unique_ptr<const Kernel> MakeInt64ToFloat(const Direction& dir) {
  if (dir.src == DataType::int64) return f64::FromInt64<true>(dir);
  if (dir.src == DataType::uint64) return f64::FromInt64<false>(dir);
  return nullptr;
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeInt64ToFloat);

std::unique_ptr<const Kernel> SelectInt64ToFloat(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeInt64ToFloat, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
