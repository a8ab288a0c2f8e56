// Per-target conversion of 8-bit and sub-byte integers to one-byte integers in byte lanes
// (int8_lanes.cc): the source value (masked or sign-extended from its bits), a range check and
// clamp by min/max in the source's signedness, wrap by the destination's mask (R5), and the
// scalar_map keys compared in the vector (R10). Included once per Highway target.

#if defined(ZCAST_SRC_KERNELS_INT8_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_SRC_KERNELS_INT8_LANES_INL_H_
#undef ZCAST_SRC_KERNELS_INT8_LANES_INL_H_
#else
#define ZCAST_SRC_KERNELS_INT8_LANES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <type_traits>

#include "zcast/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Settings of one pair, as bytes in the source's signedness.
struct Int8Consts {
  static constexpr int kMaxKeys = 16;  // larger scalar maps: the baseline table kernel
  std::uint8_t lo, hi;  // the destination's range within the source's
  std::uint8_t mask;    // the destination's value mask
  int map_n;
  std::uint8_t key[kMaxKeys], value[kMaxKeys];  // keys as source values (sign-extended, low byte)
};

// One vector of source bytes -> destination bytes; `declined`: out of range under unset (the
// reference reports them). The result lanes are uint8.
template <int kSrcBits, bool kSrcSigned, OutOfRange O>
HWY_INLINE hn::Vec<hn::ScalableTag<std::uint8_t>> Int8Convert(const Int8Consts& c, hn::Vec<hn::ScalableTag<std::uint8_t>> raw,
                                                              hn::Mask<hn::ScalableTag<std::uint8_t>>* declined) {
  using T = std::conditional_t<kSrcSigned, std::int8_t, std::uint8_t>;
  const hn::ScalableTag<T> dt;
  const hn::ScalableTag<std::uint8_t> du;
  auto v = hn::BitCast(dt, raw);
  if constexpr (kSrcBits < 8) {
    v = hn::And(v, hn::Set(dt, static_cast<T>((1 << kSrcBits) - 1)));
    if constexpr (kSrcSigned) {  // (v ^ s) - s sign-extends from the top value bit s
      const auto sbit = hn::Set(dt, static_cast<T>(1 << (kSrcBits - 1)));
      v = hn::Sub(hn::Xor(v, sbit), sbit);
    }
  }
  const auto clamped = hn::Min(hn::Max(v, hn::Set(dt, static_cast<T>(c.lo))), hn::Set(dt, static_cast<T>(c.hi)));
  const auto mask = hn::Set(du, c.mask);
  auto r = hn::And(hn::BitCast(du, O == OutOfRange::kClamp ? clamped : v), mask);
  auto out = hn::FirstN(du, 0);
  if constexpr (O == OutOfRange::kUnset) out = hn::RebindMask(du, hn::Ne(clamped, v));
  if (c.map_n) [[unlikely]] {
    // Last key first, so that the first matching key wins (R10).
    for (int k = c.map_n - 1; k >= 0; --k) {
      const auto hit = hn::RebindMask(du, hn::Eq(v, hn::Set(dt, static_cast<T>(c.key[k]))));
      r = hn::IfThenElse(hit, hn::Set(du, c.value[k]), r);
      out = hn::AndNot(hit, out);
    }
  }
  *declined = out;
  return r;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
