// The float64 family (families.h): float64 sources -> float32 and integers, 64-bit lanes
// (float64, int64, uint64 results), int64/uint64 -> float64 and float32. Its parts are separate
// Highway translation units (float64_lanes.h); this file only tries them in turn.
#include "zcast/kernels/families.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

std::unique_ptr<const Kernel> SelectFloat64Lanes(const Direction& dir, std::int64_t target) {
  for (auto* part : {&SelectFloat64ToFloat32, &SelectFloat64ToInt, &SelectLanes64, &SelectInt64ToFloat}) {
    if (auto k = part(dir, target)) return k;
  }
  return nullptr;
}

}  // namespace zcast::internal
