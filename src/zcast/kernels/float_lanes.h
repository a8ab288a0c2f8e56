// The float-lane family's translation units (float32, float16 and bfloat16 sources), each a
// Highway foreach_target file with its own selector of the families.h signature; SelectFloatLanes
// (float_lanes.cc) picks one by destination.
#ifndef ZCAST_SRC_KERNELS_FLOAT_LANES_H_
#define ZCAST_SRC_KERNELS_FLOAT_LANES_H_

#include <cstdint>
#include <memory>

#include "zcast/kernels.h"

namespace zcast::internal {

// float_to_int.cc: -> integers of <= 32 bits (not uint32), every rounding and out_of_range.
std::unique_ptr<const Kernel> SelectFloatToInt(const Direction& dir, std::int64_t target);
// float_to_narrow.cc: -> float16 and float8/6/4 (fnuz included), every rounding, clamp/unset.
std::unique_ptr<const Kernel> SelectFloatToNarrow(const Direction& dir, std::int64_t target);
// float_to_bfloat16.cc: -> bfloat16 and float8_e8m0fnu, every rounding, clamp/unset.
std::unique_ptr<const Kernel> SelectFloatToBfloat16(const Direction& dir, std::int64_t target);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_FLOAT_LANES_H_
