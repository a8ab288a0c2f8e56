// The float-lane family: float32, float16 and bfloat16 sources, whose values are exact in float32
// lanes (float_lanes-inl.h), -> integers of <= 32 bits, float32, float16, bfloat16, float8/6/4
// and float8_e8m0fnu; and the wide sources (integers of <= 32 bits but uint32, float8/6/4,
// float64; float_lanes-inl.h) -> float16, bfloat16, float8/6/4 and e8m0. This file holds the
// float32 destination (canonical NaN, R3) and SelectFloatLanes, which hands the other
// destinations to their translation units (float_lanes.h). float16 -> float16 and bfloat16 ->
// bfloat16 are left to the table kernel.
//
// The pattern every family file follows: a Highway foreach_target translation unit; per-target
// code in zcast::internal::HWY_NAMESPACE; a per-target maker; HWY_EXPORT of it and a selector
// calling the table entry of the caller's target (dispatch.h) under HWY_ONCE.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_lanes.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

std::unique_ptr<const Kernel> MakeFloatToFloat32(const Direction& dir) {
  if (dir.dst != DataType::float32) return nullptr;
  return MakeFloatLanes<F32Canonical>(dir, {}, "float-lanes-to-float32");
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"
#include "zcast/kernels/float_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloatToFloat32);

std::unique_ptr<const Kernel> SelectFloatLanes(const Direction& dir, std::int64_t target) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.src != DataType::float32 && dir.src != DataType::float16 && dir.src != DataType::bfloat16) {
    // The wide sources (float_lanes-inl.h) -> the float types narrower than float32.
    const TypeInfo& s = Info(dir.src);
    const bool wide = (s.is_int() && s.bits <= 32 && dir.src != DataType::uint32) || dir.src == DataType::float64 ||
                      (s.kind == Kind::Float && s.size == 1 && s.special != Special::E8m0);
    // 1-byte -> 1-byte pairs are the 8-bit families' (int8_lanes.cc, table8.cc).
    if (!wide || d.kind != Kind::Float || d.size > 2 || (s.size == 1 && d.size == 1)) return nullptr;
  }
  if (d.is_int()) return SelectFloatToInt(dir, target);
  if (dir.dst == DataType::float32) return ZCAST_CALL_FOR_TARGET(MakeFloatToFloat32, target, dir);
  if (dir.dst == DataType::bfloat16 || dir.dst == DataType::float8_e8m0fnu) return SelectFloatToBfloat16(dir, target);
  return SelectFloatToNarrow(dir, target);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
