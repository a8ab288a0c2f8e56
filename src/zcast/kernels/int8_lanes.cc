// 8-bit and sub-byte integers (uint8, int8, uint4, int4, uint2, int2) -> one-byte integers, in
// byte lanes: a block is one vector of bytes (int8_lanes-inl.h). Every out_of_range setting;
// scalar_map keys of up to kMaxVectorKeys entries compared in the vector (R10), larger maps left
// to the table kernel (table8.cc), which is just as exact.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/int8_lanes.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <algorithm>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/int8_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

template <int kSrcBits, bool kSrcSigned, OutOfRange O>
struct Int8Family {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  using Params = Int8Consts;
  using Consts = Int8Consts;
  static constexpr std::size_t SrcSize(const Params&) { return kSrcSize; }
  static constexpr std::size_t DstSize(const Params&) { return kDstSize; }
  static Consts MakeConsts(const Params& p) { return p; }
  // kVecs vectors of bytes per block: with one, the loop's own work per 32 bytes (its branch,
  // the prefetch, reloading the settings) about halves uint8 -> int8's in-cache speed.
  static std::size_t BlockElems() { return kVecs * hn::Lanes(hn::ScalableTag<std::uint8_t>()); }
  // The common block (block-inl.h): no scalar_map, no lane declined.
  static HWY_INLINE bool FastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if (c.map_n) return false;
    const hn::ScalableTag<std::uint8_t> d;
    const std::size_t n = hn::Lanes(d);
    hn::Mask<decltype(d)> d0, d1, d2, d3;
    hn::StoreU(Int8Convert<kSrcBits, kSrcSigned, O>(c, hn::LoadU(d, in), &d0), d, out);
    hn::StoreU(Int8Convert<kSrcBits, kSrcSigned, O>(c, hn::LoadU(d, in + n), &d1), d, out + n);
    hn::StoreU(Int8Convert<kSrcBits, kSrcSigned, O>(c, hn::LoadU(d, in + 2 * n), &d2), d, out + 2 * n);
    hn::StoreU(Int8Convert<kSrcBits, kSrcSigned, O>(c, hn::LoadU(d, in + 3 * n), &d3), d, out + 3 * n);
    return hn::AllFalse(d, MaskOr8(MaskOr8(d0, d1), MaskOr8(d2, d3)));  // not hn::Or: see MaskOr8
  }
  // Each vector stored, then its declined lanes resolved: index order.
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const hn::ScalableTag<std::uint8_t> d;
    const std::size_t n = hn::Lanes(d);
    for (std::size_t i = 0; i < kVecs * n; i += n) {
      hn::Mask<decltype(d)> declined;
      hn::StoreU(Int8Convert<kSrcBits, kSrcSigned, O>(c, hn::LoadU(d, in + i), &declined), d, out + i);
      const std::size_t f = ResolveMask(d, declined, i, res);
      if (HWY_UNLIKELY(f != kNoFailure)) return f;
    }
    return kNoFailure;
  }
};

template <int kSrcBits, bool kSrcSigned>
std::unique_ptr<const Kernel> MakeInt8For(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  const int src_lo = kSrcSigned ? -(1 << (kSrcBits - 1)) : 0;
  const int src_hi = kSrcSigned ? (1 << (kSrcBits - 1)) - 1 : (1 << kSrcBits) - 1;
  const int dst_lo = d.is_signed_int() ? -(1 << (d.bits - 1)) : 0;
  const int dst_hi = d.is_signed_int() ? (1 << (d.bits - 1)) - 1 : (1 << d.bits) - 1;
  Int8Consts c{};
  c.lo = static_cast<std::uint8_t>(std::max(src_lo, dst_lo));
  c.hi = static_cast<std::uint8_t>(std::min(src_hi, dst_hi));
  c.mask = static_cast<std::uint8_t>(d.value_mask());
  VectorMap map;  // keys as the sign-extended source values, as the lanes hold them
  if (!BuildMap(dir, KeyRep::kInt32Value, &map) || map.n > Int8Consts::kMaxKeys) return nullptr;
  c.map_n = map.n;
  for (int k = 0; k < map.n; ++k) {
    c.key[k] = static_cast<std::uint8_t>(map.key[k]);
    c.value[k] = static_cast<std::uint8_t>(map.value[k]);
  }
  return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
    return Make<Int8Family<kSrcBits, kSrcSigned, O>>(dir, c, "int8-lanes-to-int");
  });
}

std::unique_ptr<const Kernel> MakeInt8Lanes(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (!d.is_int() || d.size != 1) return nullptr;
  switch (dir.src) {
    case DataType::uint8: return MakeInt8For<8, false>(dir);
    case DataType::int8: return MakeInt8For<8, true>(dir);
    case DataType::uint4: return MakeInt8For<4, false>(dir);
    case DataType::int4: return MakeInt8For<4, true>(dir);
    case DataType::uint2: return MakeInt8For<2, false>(dir);
    case DataType::int2: return MakeInt8For<2, true>(dir);
    default: return nullptr;
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeInt8Lanes);

std::unique_ptr<const Kernel> SelectInt8Lanes(const Direction& dir, std::int64_t target) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  if (!s.is_int() || s.size != 1 || !d.is_int() || d.size != 1) return nullptr;
  return ZCAST_CALL_FOR_TARGET(MakeInt8Lanes, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
