// 64-bit results from float64 lanes: float64, float32, int32, uint32 -> float64 (the value, NaN
// canonical, R3) and float64, float32 -> int64, uint64 in every rounding mode and out_of_range.
// The value is rounded explicitly (RoundF64), compared
// with the range as a double (clamped or declined), then converted (IntegralTo64); wrap (R5)
// takes the residue modulo 2^64 of any integral double (IntegralToInt64).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/lanes64.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

struct Int64Params {
  double lo, hi;  // in range: lo <= r < hi
  std::uint64_t lo_bits, hi_bits;
};

template <Rounding R, OutOfRange O>
struct ToInt64 {
  using Params = Int64Params;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  static HWY_INLINE VU Convert(const Params& p, VF x, MF* declined) {
    const DF d;
    const DU du;
    VF r = RoundF64<R>(x);
    if constexpr (O == OutOfRange::kWrap) {
      *declined = NonFinite64(x);  // R3
      return IntegralToInt64(r);
    } else {
      VU v = IntegralTo64(r);
      if constexpr (O == OutOfRange::kClamp) {
        *declined = NonFinite64(x);  // R3, before the clamp
        v = hn::IfThenElse(hn::RebindMask(du, hn::Lt(r, hn::Set(d, p.lo))), hn::Set(du, p.lo_bits), v);
        return hn::IfThenElse(hn::RebindMask(du, hn::Ge(r, hn::Set(d, p.hi))), hn::Set(du, p.hi_bits), v);
      } else {
        *declined = hn::Not(hn::And(hn::Ge(r, hn::Set(d, p.lo)), hn::Lt(r, hn::Set(d, p.hi))));
        return v;
      }
    }
  }
};

// float64 lanes -> float64: the value, NaN canonicalised (R3).
struct ToF64Canonical {
  struct Params {};
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;  // LoadU32D's +0
  static HWY_INLINE VU Convert(const Params&, VF x, MF* declined) {
    const DU du;
    *declined = hn::FirstN(DF(), 0);
    VU bits = hn::BitCast(du, x);
    VU nan = hn::Or(hn::And(bits, hn::Set(du, 0x8000000000000000ull)), hn::Set(du, 0x7FF8000000000000ull));
    return hn::IfThenElse(hn::RebindMask(du, IsNaN64(x)), nan, bits);
  }
};

template <class DLoader>
std::unique_ptr<const Kernel> To64(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  const KeyRep rep = DLoader::kSize == 8 ? KeyRep::kFloat64Bits : KeyRep::kFloat64Value;
  if (dir.dst == DataType::float64) {
    using Fam = Lanes64<DLoader, ToF64Canonical>;
    return MakeWithMap<Fam>(dir, {}, "float64-lanes-to-float64", rep);
  }
  if (!d.is_int() || d.bits != 64) return nullptr;
  Int64Params ip;
  ip.lo = d.is_signed_int() ? -0x1p63 : 0.0;
  ip.hi = d.is_signed_int() ? 0x1p63 : 0x1p64;
  ip.lo_bits = d.is_signed_int() ? 0x8000000000000000ull : 0;
  ip.hi_bits = d.is_signed_int() ? 0x7FFFFFFFFFFFFFFFull : ~0ull;
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      using Fam = Lanes64<DLoader, ToInt64<R, O>>;
      return MakeWithMap<Fam>(dir, {ip, {}}, "float64-lanes-to-int64", rep);
    });
  });
}

}  // namespace f64

std::unique_ptr<const Kernel> MakeLanes64(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  const bool to64 = dir.dst == DataType::float64 || (d.is_int() && d.bits == 64);
  if (!to64) return nullptr;
  switch (dir.src) {
    case DataType::float64: return f64::To64<f64::LoadD64>(dir);
    case DataType::float32: return f64::To64<f64::LoadF32D>(dir);
    case DataType::int32:
      if (dir.dst == DataType::float64) return f64::To64<f64::LoadI32D>(dir);
      return nullptr;
    case DataType::uint32:
      if (dir.dst == DataType::float64) return f64::To64<f64::LoadU32D>(dir);
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeLanes64);

std::unique_ptr<const Kernel> SelectLanes64(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeLanes64, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
