// The parts of the float64 family (families.h: SelectFloat64Lanes), one Highway foreach_target
// translation unit each, with the per-target helpers they share in float64-inl.h. Same signature
// as the family selectors: nullptr when the part has nothing for `dir` on `target`.
#ifndef ZCAST_SRC_KERNELS_FLOAT64_LANES_H_
#define ZCAST_SRC_KERNELS_FLOAT64_LANES_H_

#include <cstdint>
#include <memory>

#include "zcast/kernels.h"

namespace zcast::internal {

// float64_to_float32.cc: float64 -> float32, every mode.
std::unique_ptr<const Kernel> SelectFloat64ToFloat32(const Direction& dir, std::int64_t target);
// float64_to_int.cc: float64 -> integers of <= 32 bits (not uint32), every mode and out_of_range.
std::unique_ptr<const Kernel> SelectFloat64ToInt(const Direction& dir, std::int64_t target);
// lanes64.cc: float64, float32, int32, uint32 -> float64; float64, float32 -> int64, uint64.
std::unique_ptr<const Kernel> SelectLanes64(const Direction& dir, std::int64_t target);
// int64_to_float.cc: int64, uint64 -> float64 and float32, every mode.
std::unique_ptr<const Kernel> SelectInt64ToFloat(const Direction& dir, std::int64_t target);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_FLOAT64_LANES_H_
