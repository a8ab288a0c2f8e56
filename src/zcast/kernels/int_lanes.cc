// The int-lane family: integer sources of at most 32 bits (uint8, int8, uint16, int16, int32 and
// the sub-byte integers; not uint32, whose values do not fit int32 lanes) -> integers of at most
// 32 bits (IntToInt, every out_of_range) and float32 (IntToF32: exact for every source but int32,
// and for int32 one hardware rounding in the IEEE modes); float8/6/4 (not e8m0) -> float32
// (Float8ToF32, exact). A block is four vectors of int32 lanes (block-inl.h); scalar_map keys are
// the int32 lane values (the raw byte for float8 sources), compared and blended in the vector.
// 1-byte -> 1-byte pairs are int8_lanes.cc's and table8.cc's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/int_lanes.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/int_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

// The destination size (1, 2 or 4 bytes) is a run-time value, as block-inl.h's sizes are: one
// instantiation per loader and converter instead of three.
template <class Loader, class Conv>
struct IntLanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr FpRounding kFpRounding = Conv::kFpRounding;
  struct Params {
    typename Conv::Consts conv;
    VectorMap map;  // equality keys on the int32 lane values
    std::size_t dst_size;
    FastMap fast_map = {};  // the map of the common blocks (MakeWithMap)
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
    int map_n;
    std::size_t dst_size;
    FastMap fast_map;
  };
  static Consts MakeConsts(const Params& p) { return {p.conv, &p.map, p.map.n, p.dst_size, p.fast_map}; }
  static FastMapKind FastMapOf(const Consts& c) { return c.fast_map.kind; }
  static constexpr std::size_t SrcSize(const Params&) { return kSrcSize; }
  static std::size_t DstSize(const Params& p) { return p.dst_size; }
  static std::size_t BlockElems() { return kVecs * hn::Lanes(DU32()); }

  // One vector: load, convert, map.
  static HWY_INLINE VU32 One(const Consts& c, const unsigned char* in, MU32* declined) {
    const DU32 du;
    const VI32 v = Loader::Load(in);
    MI32 m;
    VU32 r = hn::BitCast(du, Conv::Convert(c.conv, v, &m));
    *declined = hn::RebindMask(du, m);
    if (c.map_n) [[unlikely]] MapLanes32(*c.map, hn::BitCast(du, v), hn::FirstN(du, 0), &r, declined);
    return r;
  }
  // For block-inl.h's RunFastBlocks: a block reads kSrcSize and writes at most 4 bytes an element.
  static constexpr std::size_t kMaxSrcSize = kSrcSize, kMaxDstSize = 4;

  // The common block (block-inl.h): no scalar_map, no lane declined. In BlockKernel::Run's loop,
  // with the map tested per vector and the constants reloaded from the stack every block, float8_e4m3
  // -> float32 takes 4.24 instructions per element on AVX2, in this one 3.16.
  static HWY_INLINE bool FastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if (c.map_n) return false;
    const DU32 du;
    const std::size_t step = hn::Lanes(du) * kSrcSize;
    MI32 m0, m1, m2, m3;
    const VU32 r0 = hn::BitCast(du, Conv::Convert(c.conv, Loader::Load(in), &m0));
    const VU32 r1 = hn::BitCast(du, Conv::Convert(c.conv, Loader::Load(in + step), &m1));
    const VU32 r2 = hn::BitCast(du, Conv::Convert(c.conv, Loader::Load(in + 2 * step), &m2));
    const VU32 r3 = hn::BitCast(du, Conv::Convert(c.conv, Loader::Load(in + 3 * step), &m3));
    StoreBlock(c.dst_size, r0, r1, r2, r3, out);
    return hn::AllFalse(DI32(), hn::Or(hn::Or(m0, m1), hn::Or(m2, m3)));
  }
  // The common block with a scalar_map of up to kFastMapKeys keys (FastMap kKeys; integer lanes
  // have no NaN key): keys compared and blended in every block, so blocks with keys stay in the
  // common blocks' loop (block-inl.h, MappedBlocks).
  template <FastMapKind kMap>
  static HWY_INLINE bool MappedFastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if constexpr (kMap == FastMapKind::kNaN) return false;  // (none: BuildMap takes no NaN key here)
    const DU32 du;
    const std::size_t step = hn::Lanes(du) * kSrcSize;
    MU32 m0, m1, m2, m3;  // (no arrays: SVE's vectors and masks are sizeless types)
    const VU32 r0 = MappedOne(c, in, &m0), r1 = MappedOne(c, in + step, &m1), r2 = MappedOne(c, in + 2 * step, &m2),
               r3 = MappedOne(c, in + 3 * step, &m3);
    StoreBlock(c.dst_size, r0, r1, r2, r3, out);
    return hn::AllFalse(du, hn::Or(hn::Or(m0, m1), hn::Or(m2, m3)));
  }
  static HWY_INLINE VU32 MappedOne(const Consts& c, const unsigned char* in, MU32* declined) {
    const DU32 du;
    const VI32 v = Loader::Load(in);
    MI32 m;
    VU32 r = hn::BitCast(du, Conv::Convert(c.conv, v, &m));
    *declined = hn::RebindMask(du, m);
    MapFastKeys32(c.fast_map, hn::BitCast(du, v), &r, declined);
    return r;
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const DU32 du;
    const std::size_t step = hn::Lanes(du) * kSrcSize;
    MU32 m0, m1, m2, m3;
    const VU32 r0 = One(c, in, &m0);
    const VU32 r1 = One(c, in + step, &m1);
    const VU32 r2 = One(c, in + 2 * step, &m2);
    const VU32 r3 = One(c, in + 3 * step, &m3);
    StoreBlock(c.dst_size, r0, r1, r2, r3, out);
    if (HWY_LIKELY(hn::AllFalse(du, hn::Or(hn::Or(m0, m1), hn::Or(m2, m3))))) return kNoFailure;
    return ResolveBlock(du, m0, m1, m2, m3, res);
  }
};

// Calls f.template operator()<Loader>() for an integer source, nullptr for the others.
template <typename F>
std::unique_ptr<const Kernel> WithIntLoader(DataType src, F&& f) {
  switch (src) {
    case DataType::uint8: return f.template operator()<LoadU8>();
    case DataType::int8: return f.template operator()<LoadI8>();
    case DataType::uint16: return f.template operator()<LoadU16>();
    case DataType::int16: return f.template operator()<LoadI16>();
    case DataType::int32: return f.template operator()<LoadI32>();
    case DataType::uint4: return f.template operator()<LoadSubByte<4, false>>();
    case DataType::int4: return f.template operator()<LoadSubByte<4, true>>();
    case DataType::uint2: return f.template operator()<LoadSubByte<2, false>>();
    case DataType::int2: return f.template operator()<LoadSubByte<2, true>>();
    default: return nullptr;
  }
}

template <class Loader>
std::unique_ptr<const Kernel> FromIntLanes(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.dst == DataType::float32) {
    auto make = [&]<FpRounding kFp, bool kDeclineWide>() {
      using Fam = IntLanes<Loader, IntToF32<kFp, kDeclineWide>>;
      return MakeWithMap<Fam>(dir, {{}, {}, 4, {}}, "int-lanes-to-float32", KeyRep::kInt32Value);
    };
    // At most 16 bits: exact in float32, whatever the mode.
    if (Loader::kSize < 4) return make.template operator()<FpRounding::kNearest, false>();
    constexpr bool kPortable = HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR;
    switch (dir.rounding) {
      case Rounding::kNearestEven: return make.template operator()<FpRounding::kNearest, false>();
      case Rounding::kTowardsNegative: return make.template operator()<FpRounding::kDown, kPortable>();
      case Rounding::kTowardsPositive: return make.template operator()<FpRounding::kUp, kPortable>();
      case Rounding::kTowardsZero: return make.template operator()<FpRounding::kTowardsZero, kPortable>();
      case Rounding::kNearestAway: return make.template operator()<FpRounding::kNearest, true>();
    }
    return nullptr;
  }
  if (!d.is_int() || d.bits > 32) return nullptr;
  IntRangeConsts ip;
  ip.lo = d.is_signed_int() ? static_cast<std::int32_t>(-(1ll << (d.bits - 1))) : 0;
  ip.hi = static_cast<std::int32_t>(d.is_signed_int() ? (1ll << (d.bits - 1)) - 1
                                                       : (d.bits == 32 ? 0x7FFFFFFFll : (1ll << d.bits) - 1));
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
    using Fam = IntLanes<Loader, IntToInt<O>>;
    return MakeWithMap<Fam>(dir, {ip, {}, d.size, {}}, "int-lanes-to-int", KeyRep::kInt32Value);
  });
}

// float8/6/4 -> float32 (the 16-bit destinations are float8_to_half.cc's).
std::unique_ptr<const Kernel> FromFloat8(const Direction& dir) {
  const Float8Consts c = Float8ConstsOf(Info(dir.src));
  const auto make = [&]<Special8 kKind>() {
    return MakeWithMap<IntLanes<LoadU8, Float8ToF32<kKind>>>(dir, {c, {}, 4, {}}, "int-lanes-float8-to-float32",
                                                             KeyRep::kInt32Value);
  };
  const Special s = Info(dir.src).special;
  if (s == Special::Ieee) return make.template operator()<Special8::kIeee>();
  if (s == Special::Fnuz) return make.template operator()<Special8::kFnuz>();
  return make.template operator()<Special8::kNone>();
}

std::unique_ptr<const Kernel> MakeIntLanes(const Direction& dir) {
  if (Info(dir.src).kind == Kind::Float) return FromFloat8(dir);
  return WithIntLoader(dir.src, [&]<class Loader>() { return FromIntLanes<Loader>(dir); });
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeIntLanes);

std::unique_ptr<const Kernel> SelectIntLanes(const Direction& dir, std::int64_t target) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  if (s.size == 1 && d.size == 1) return nullptr;  // int8_lanes.cc, table8.cc
  if (s.kind == Kind::Float) {
    // float8/float6/float4 -> float32 (a scalar_map on a sub-byte source would need the ignored
    // upper bits masked before the key compare: left to the table).
    if (s.size != 1 || s.special == Special::E8m0) return nullptr;
    if (dir.dst != DataType::float32) return nullptr;
    if (s.bits != 8 && !dir.map.empty()) return nullptr;
  } else {
    if (dir.src == DataType::uint32 || s.bits > 32) return nullptr;
    if (dir.dst != DataType::float32 && !(d.is_int() && d.bits <= 32)) return nullptr;
  }
  return ZCAST_CALL_FOR_TARGET(MakeIntLanes, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
