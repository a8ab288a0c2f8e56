// float32, float16 and bfloat16 sources -> integers of <= 32 bits (not uint32, whose values do not
// fit the int32 lanes; 16-bit sources -> int32 are left to the table), every rounding mode and
// out_of_range setting.
//
// Exactness. The value is rounded to an integer first, in mode R, by Highway's Round (nearest-
// even), Trunc, Ceil and Floor, which are exact; nearest-away is trunc(x) + sign(x) where
// |x - trunc(x)| >= 0.5 (x - trunc(x) is exact: both lie in the same binade, or trunc(x) = 0;
// trunc(x) + 1 is exact because |x| < 2^23 whenever x has a fraction). An integral float32 inside
// the destination's range converts exactly (ConvertTo). Clamping before converting is the same as
// clamping the exact integer: the bounds are integers and rounding is monotonic (R1). int32's max,
// 2^31 - 1, is not a float32: values >= 2^31 are found by compare. Wrap (R5): below 2^31 in
// magnitude the conversion is exact; above, r is a multiple of its ulp >= 2^8, and
// w = r - 2^32 * floor(r / 2^32) is exact (every term a multiple of ulp(r), and w < 2^32 needs at
// most 24 significant bits), as is w - 2^32 when w >= 2^31: that is r modulo 2^32 as an int32.
// NaN and +-Inf are declined (R3: errors in every setting).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_to_int.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <type_traits>

#include <hwy/highway.h>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

struct IntParams {
  float lo, hi;            // in range: lo <= r <= hi (kWide: lo <= r < hi = 2^31)
  std::uint32_t hi_bits;   // the destination's max (clamp result above hi)
  std::uint32_t mask;      // the destination's value mask
};

template <Rounding R, OutOfRange O, bool kWide>
struct F32ToInt {
  using Params = IntParams;
  static constexpr bool kDeclinesNonFinite = true;  // R3: no NaN or Inf in an integer type
  // Under clamp and wrap nothing else is declined (FloatToIntLanes::SourceRun).
  static constexpr bool kDeclinesOnlyNonFinite = O != OutOfRange::kUnset;
  // RoundToInt32InRange rounds in the run's mode (wrap's arithmetic is exact in every mode).
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);

  static HWY_INLINE VU32 Convert(const Params& p, VF32 x, MU32* declined) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VU32 mask = hn::Set(du, p.mask);
    if constexpr (O == OutOfRange::kWrap) {
      const VF32 r = RoundToIntegral<R>(x);
      const MU32 nonfinite = NonFiniteLanes(x);
      *declined = nonfinite;
      const auto big = hn::Ge(hn::Abs(r), hn::Set(df, 0x1p31f));
      const VF32 q = hn::Floor(hn::Mul(r, hn::Set(df, 0x1p-32f)));
      VF32 w = hn::Sub(r, hn::Mul(q, hn::Set(df, 0x1p32f)));
      w = hn::IfThenElse(hn::Ge(w, hn::Set(df, 0x1p31f)), hn::Sub(w, hn::Set(df, 0x1p32f)), w);
      const VF32 v = hn::IfThenZeroElse(hn::RebindMask(df, nonfinite), hn::IfThenElse(big, w, r));
      return hn::And(hn::BitCast(du, hn::ConvertTo(di, v)), mask);
    } else if constexpr (O == OutOfRange::kClamp) {
      // NaN and Inf are errors even under clamp (R3): found on x, not after min/max. Clamping x
      // before rounding is clamping the rounded value (integer bounds, monotonic rounding).
      *declined = NonFiniteLanes(x);
      if constexpr (kWide) {
        // Nothing below 2^31 needs rounding to fit; >= 2^31 (checked on the rounded value:
        // nearest-away's 2^31 - 0.5 is not a float32, so x itself decides) gives the max.
        const VU32 v = hn::BitCast(du, RoundToInt32InRange<R>(hn::Max(x, hn::Set(df, p.lo))));
        return hn::IfThenElse(hn::RebindMask(du, hn::Ge(x, hn::Set(df, p.hi))), hn::Set(du, p.hi_bits), hn::And(v, mask));
      } else {
        const VF32 c = hn::Min(hn::Max(x, hn::Set(df, p.lo)), hn::Set(df, p.hi));
        return hn::And(hn::BitCast(du, RoundToInt32InRange<R>(c)), mask);
      }
    } else if constexpr (kWide) {
      // Unset: outside [lo, 2^31) is declined (NaN too: its compares are false); a float32 that
      // needs rounding is below 2^23, so the bounds apply to x as well as to the rounded value.
      const auto ok = hn::And(hn::Ge(x, hn::Set(df, p.lo)), hn::Lt(x, hn::Set(df, p.hi)));
      *declined = hn::RebindMask(du, hn::Not(ok));
      return hn::And(hn::BitCast(du, RoundToInt32InRange<R>(x)), mask);
    } else {
      // Unset, narrow destinations: the rounded integer is range-checked. NaN, +-Inf and values
      // beyond int32 convert to something (x86: INT32_MIN) that is declined unless it is in
      // range, so those lanes are declined on x as well.
      const VI32 v = RoundToInt32InRange<R>(x);
      const auto bad = hn::Or(hn::Lt(v, hn::Set(di, static_cast<std::int32_t>(p.lo))),
                              hn::Gt(v, hn::Set(di, static_cast<std::int32_t>(p.hi))));
      *declined = hn::Or(hn::RebindMask(du, bad), GtS(AbsBits(x), hn::Set(du, 0x4EFFFFFFu)));  // |x| >= 2^31
      return hn::And(hn::BitCast(du, v), mask);
    }
  }
};

// FloatLanes with the common blocks in one loop per source and destination size (FastRun's
// contract, block-inl.h). FloatLanes' own FastRun serves every source and size with one loop, so
// each block chooses its source (a jump table, through the source's byte size), its store and
// whether to prefetch the destination: on AVX2, float16 -> uint8 clamp takes 65 instructions per
// 32-element block that way, 18 of them those choices (callgrind; 1.44 per element with these
// loops, 2.07 without), and streams at 0.79-0.89 of the copy ceiling (1.02 here). These are the Sentinel-2 pairs (float32 ->
// uint16, uint8), so they get loops of their own; other converters keep the one loop, which keeps
// the kernels' compile time down. Each loop is out of line (one call per run): inlined, all seven
// into BlockKernel::Run, the clang ASan build of this file takes 38 minutes instead of about 7.
template <class Conv>
struct FloatToIntLanes : FloatLanes<Conv> {
  using typename FloatLanes<Conv>::Consts;
  using FloatLanes<Conv>::BlockElems;

  template <class Loader, std::size_t kDstSize, FastMapKind kMap>
  static HWY_NOINLINE std::size_t SourceRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                            std::size_t blocks) {
    const Consts k = c;  // a local: the stores through `out` cannot alias it
    const DU32 du;
    const std::size_t n = hn::Lanes(du) * Loader::kSize;
    const std::size_t in_step = kVecs * n, out_step = BlockElems() * kDstSize;
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      PrefetchBlockUpTo<kMaxBlock * Loader::kSize, kMaxBlock * kDstSize>(in, in_step, out, out_step);
      VF32 x0, x1, x2, x3;
      MU32 special = hn::MaskFromVec(hn::Zero(du));
#if !ZCAST_KERNELS_HW_F16_TO_F32
#if HWY_TARGET != HWY_SCALAR  // (its one-lane vectors have no 16-bit vector of the block's size)
      if constexpr (std::is_same_v<Loader, LoadF16> && Conv::kDeclinesOnlyNonFinite && kMap == FastMapKind::kNone) {
        // Under clamp and wrap a lane is declined only for Inf and NaN, exponent 31, which is
        // found on the float16 bits themselves: two operations per 8 lanes, where the float32
        // lanes' two compares each (|x| >= 2^16 and non-finite) with their copies and ORs took
        // 27 of float16 -> uint8 clamp's 75 instructions per 16 elements on SSE4.
        const hn::Repartition<std::uint16_t, DU32> d16;
        const auto e = hn::Set(d16, std::uint16_t{0x7C00});
        const auto* h = reinterpret_cast<const std::uint16_t*>(in);
        const auto inf_nan = hn::Or(hn::Eq(hn::And(hn::LoadU(d16, h), e), e),
                                    hn::Eq(hn::And(hn::LoadU(d16, h + hn::Lanes(d16)), e), e));
        x0 = LoadF16Finite(in), x1 = LoadF16Finite(in + n), x2 = LoadF16Finite(in + 2 * n),
        x3 = LoadF16Finite(in + 3 * n);
        MU32 d0, d1, d2, d3;  // (NonFiniteLanes of finite lanes: unused)
        StoreBlockOf<kDstSize>(Conv::Convert(k.conv, x0, &d0), Conv::Convert(k.conv, x1, &d1),
                               Conv::Convert(k.conv, x2, &d2), Conv::Convert(k.conv, x3, &d3), out);
        if (HWY_UNLIKELY(!hn::AllFalse(d16, inf_nan))) return b;
        continue;
      } else
#endif
      if constexpr (std::is_same_v<Loader, LoadF16>) {
        // As FloatLanes::FastBlock: Inf and NaN come out finite, >= 2^16; such a block is redone
        // by the full block, whose LoadF16 is exact.
        x0 = LoadF16Finite(in), x1 = LoadF16Finite(in + n), x2 = LoadF16Finite(in + 2 * n),
        x3 = LoadF16Finite(in + 3 * n);
        const VU32 lim = hn::Set(du, 0x477FFFFFu);
        special = hn::Or(hn::Or(GtS(AbsBits(x0), lim), GtS(AbsBits(x1), lim)),
                         hn::Or(GtS(AbsBits(x2), lim), GtS(AbsBits(x3), lim)));
      } else
#endif
      {
        x0 = Loader::Load(in), x1 = Loader::Load(in + n), x2 = Loader::Load(in + 2 * n),
        x3 = Loader::Load(in + 3 * n);
      }
      MU32 d0, d1, d2, d3;
      VU32 r0 = Conv::Convert(k.conv, x0, &d0), r1 = Conv::Convert(k.conv, x1, &d1),
           r2 = Conv::Convert(k.conv, x2, &d2), r3 = Conv::Convert(k.conv, x3, &d3);
      if constexpr (kMap != FastMapKind::kNone) {
        MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x0), NaNLanes(x0), &r0, &d0);
        MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x1), NaNLanes(x1), &r1, &d1);
        MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x2), NaNLanes(x2), &r2, &d2);
        MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x3), NaNLanes(x3), &r3, &d3);
      }
      StoreBlockOf<kDstSize>(r0, r1, r2, r3, out);
      if (HWY_UNLIKELY(!hn::AllFalse(du, hn::Or(special, hn::Or(hn::Or(d0, d1), hn::Or(d2, d3)))))) return b;
    }
    return blocks;
  }

  template <class Loader, FastMapKind kMap>
  static HWY_INLINE std::size_t SizeRun(const Consts& k, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    if (k.dst_size == 1) return SourceRun<Loader, 1, kMap>(k, in, out, blocks);
    if (k.dst_size == 2) return SourceRun<Loader, 2, kMap>(k, in, out, blocks);
    // 16-bit sources -> 4-byte integers have no kernel here (MakeFloatToInt): the table does them.
    if constexpr (Loader::kSize == 4) return SourceRun<Loader, 4, kMap>(k, in, out, blocks);
    return 0;
  }

  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    // A map too large for the common blocks' (kBlocks) leaves them the blocks without a key; none
    // where a key could be any value (map_always).
    if (c.fast_map.kind == FastMapKind::kBlocks && c.map_always) return 0;
    const Consts k = c;  // a local: the stores through `out` cannot alias it
    return WithFastMap(k.fast_map.kind, [&]<FastMapKind kMap>() -> std::size_t {
      switch (k.src) {
        case FloatSource::kFloat32: return SizeRun<LoadF32, kMap>(k, in, out, blocks);
        case FloatSource::kFloat16: return SizeRun<LoadF16, kMap>(k, in, out, blocks);
        case FloatSource::kBfloat16: return SizeRun<LoadBF16, kMap>(k, in, out, blocks);
        default: return 0;  // none: F32ToInt takes no wide source (every block would be a full one)
      }
    });
  }
};

template <class Conv>
std::unique_ptr<const Kernel> MakeFloatToIntLanes(const Direction& dir, const IntParams& ip) {
  typename FloatLanes<Conv>::Params p{ip, {}, FloatSource::kFloat32, static_cast<std::uint8_t>(Info(dir.dst).size), {}, {}};
  if (!FloatSourceOf(dir, /*wide=*/false, &p.src)) return nullptr;
  return MakeWithMap<FloatToIntLanes<Conv>>(dir, p, "float-lanes-to-int", KeyRep::kFloat32Bits);
}

std::unique_ptr<const Kernel> MakeFloatToInt(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (!d.is_int() || d.bits == 64 || dir.dst == DataType::uint32) return nullptr;
  if (Info(dir.src).size == 2 && d.size == 4) return nullptr;  // rare: the table does it
  const bool wide = d.bits > 24;
  const std::uint64_t max = d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask();
  IntParams ip;
  ip.lo = d.is_signed_int() ? -static_cast<float>(1ull << (d.bits - 1)) : 0.0f;
  ip.hi = wide ? static_cast<float>(max + 1) : static_cast<float>(max);
  ip.hi_bits = static_cast<std::uint32_t>(max);
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      if (d.size == 4) return MakeFloatToIntLanes<F32ToInt<R, O, true>>(dir, ip);
      return MakeFloatToIntLanes<F32ToInt<R, O, false>>(dir, ip);
    });
  });
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloatToInt);

std::unique_ptr<const Kernel> SelectFloatToInt(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloatToInt, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
