// float64 -> float32 in every rounding mode, clamp or unset (a 0.90-of-the-ceiling row, docs/performance.md):
// one rounding by the hardware in the run's FP environment (fp_env.h; nearest-away as
// nearest-even of x | 1), F64ToF32 in float64-inl.h, which int64_to_float.cc shares.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float64_to_float32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

std::unique_ptr<const Kernel> MakeFloat64ToFloat32(const Direction& dir) {
  if (dir.src != DataType::float64 || dir.dst != DataType::float32) return nullptr;
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      using Fam = f64::F64Lanes<f64::LoadD64, f64::F64ToF32<R, O>, 4>;
      return MakeWithMap<Fam>(dir, {}, "float64-lanes-to-float32", KeyRep::kFloat64Bits);
    });
  });
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloat64ToFloat32);

std::unique_ptr<const Kernel> SelectFloat64ToFloat32(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloat64ToFloat32, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
