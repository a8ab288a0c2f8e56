// The Highway kernel families: one selector per family, all of the same signature. `target` is
// one Highway target bit the CPU supports (targets.h); the result is the family's kernel for `dir`
// on that target, or nullptr when the family has nothing for `dir` there (SelectKernelFor then
// tries the next family, then the baseline).
//
// Each family is a Highway foreach_target translation unit (float_lanes.cc shows the pattern):
// per-target code in zcast::internal::HWY_NAMESPACE, a per-target MakeXxx(const Direction&),
// HWY_EXPORT(MakeXxx) and SelectXxx calling the table entry of `target` (dispatch.h).
#ifndef ZCAST_SRC_KERNELS_FAMILIES_H_
#define ZCAST_SRC_KERNELS_FAMILIES_H_

#include <cstdint>
#include <memory>

#include "zcast/kernels.h"

namespace zcast::internal {

using FamilySelector = std::unique_ptr<const Kernel> (*)(const Direction& dir, std::int64_t target);

// float_lanes.cc (and its per-destination files): float32, float16 and bfloat16 sources ->
// integers of <= 32 bits, float32, float8/6/4, float16, bfloat16, float8_e8m0fnu.
std::unique_ptr<const Kernel> SelectFloatLanes(const Direction& dir, std::int64_t target);
// float64_lanes.cc: float64 -> float32 and integers; float64/int64 lanes; int64/uint64 -> floats.
std::unique_ptr<const Kernel> SelectFloat64Lanes(const Direction& dir, std::int64_t target);
// int_lanes.cc: integer sources of <= 32 bits -> integers, float32; float8/6/4 -> float32.
std::unique_ptr<const Kernel> SelectIntLanes(const Direction& dir, std::int64_t target);
// int8_lanes.cc, table8.cc: 1-byte -> 1-byte pairs.
std::unique_ptr<const Kernel> SelectInt8Lanes(const Direction& dir, std::int64_t target);
std::unique_ptr<const Kernel> SelectTable8(const Direction& dir, std::int64_t target);
// table8_to16.cc: 1-byte -> 2-byte pairs by a table (integers into 16-bit integers only on AVX3_DL;
// int_lanes.cc has them below): loads (SSE4), a gather (AVX2, AVX3),
// vpermi2b (AVX3_DL).
std::unique_ptr<const Kernel> SelectTable8To16(const Direction& dir, std::int64_t target);
// float8_to_half.cc: float8/6/4 -> float16 and bfloat16 in 16-bit lanes, without a scalar_map.
std::unique_ptr<const Kernel> SelectFloat8ToHalf(const Direction& dir, std::int64_t target);
// int8_to_half.cc: int8 and uint8 -> float16 and bfloat16, without a scalar_map (not on AVX3_DL,
// nor float16 where F16C is).
std::unique_ptr<const Kernel> SelectInt8ToHalf(const Direction& dir, std::int64_t target);

// In the order SelectKernelFor tries them. The 8-bit integers into float16 and bfloat16 first
// (they decline where the table or F16C is faster); the 1-byte -> 2-byte tables next (they
// decline the pairs where they are slower, table8_to16.cc); for float8/6/4 -> float16 and bfloat16 the
// float8-to-half lanes before the float lanes, which decode in 32-bit lanes and round (they keep
// the pairs with a scalar_map where there is no table: ARM).
inline constexpr FamilySelector kFamilySelectors[] = {
    &SelectInt8ToHalf, &SelectTable8To16, &SelectFloat8ToHalf, &SelectIntLanes,
    &SelectFloatLanes, &SelectFloat64Lanes, &SelectInt8Lanes,   &SelectTable8,
};

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_FAMILIES_H_
