// The float-lane family, per target (shared by float_lanes.cc, float_to_int.cc and the other
// float-lane translation units): loaders giving each source element's exact float32 value in a
// 32-bit lane (float32, float16, bfloat16), the FloatLanes block (four vectors, scalar_map in the
// vector), and converters used by several files. The lane bits also serve as the scalar_map key
// representation (KeyRep::kFloat32Bits: the conversion is injective on non-NaN values).
#if defined(ZCAST_SRC_KERNELS_FLOAT_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_SRC_KERNELS_FLOAT_LANES_INL_H_
#undef ZCAST_SRC_KERNELS_FLOAT_LANES_INL_H_
#else
#define ZCAST_SRC_KERNELS_FLOAT_LANES_INL_H_
#endif

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"
#include "zcast/kernels/float64_odd-inl.h"  // LoadF64Odd
#include "zcast/kernels/int_lanes-inl.h"  // LoadSubByte, Float8ToF32

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

struct LoadF32 {
  static constexpr std::size_t kSize = 4;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    return hn::LoadU(DF32(), reinterpret_cast<const float*>(p));
  }
};

// 1 where this target converts float16 -> float32 in hardware: F16C on x86 AVX2 and better (the
// Highway targets from AVX2 up all have it), and every aarch64 target. Per target: this part of
// the file is compiled once per target (foreach_target.h), HWY_TARGET differing each time.
#undef ZCAST_KERNELS_HW_F16_TO_F32
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || HWY_ARCH_ARM
#define ZCAST_KERNELS_HW_F16_TO_F32 1
#else
#define ZCAST_KERNELS_HW_F16_TO_F32 0
#endif

// float16 -> float32, exactly (subnormals included: DAZ is off during a run). The hardware's
// conversion where there is one (ZCAST_KERNELS_HW_F16_TO_F32); elsewhere integer bit
// manipulation, because Highway 1.0.3's portable PromoteTo (SSE4, EMU128) turns Inf and NaN into
// finite values.
struct LoadF16 {
  static constexpr std::size_t kSize = 2;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const DF32 df;
#if ZCAST_KERNELS_HW_F16_TO_F32
    const hn::Rebind<hwy::float16_t, DF32> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
#else
    const DU32 du;
    const hn::Rebind<std::uint16_t, DU32> d16;
    const VU32 h = hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(p)));
    const VU32 mag = hn::And(h, hn::Set(du, 0x7FFFu));
    // The fields moved to float32's places are the value times 2^-112 (exponent bias 15 against
    // 127), a float32 subnormal for float16's subnormals: one multiplication by 2^112 gives every
    // finite value exactly (DAZ is off during a run). Inf and NaN (exponent 31) get exponent 255.
    const VU32 moved = hn::ShiftLeft<13>(mag);
    VU32 bits = hn::BitCast(du, hn::Mul(hn::BitCast(df, moved), hn::Set(df, 0x1p112f)));
    bits = hn::IfThenElse(hn::Gt(mag, hn::Set(du, 0x7BFFu)), hn::Or(moved, hn::Set(du, 0x7F800000u)), bits);
    return hn::BitCast(df, hn::Or(bits, hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)))));
#endif
  }
};

#if !ZCAST_KERNELS_HW_F16_TO_F32
// float16 -> float32 for the common block (FloatLanes::FastBlock) where LoadF16 is integer bit
// work: the same scaling by 2^112 in three operations, float16's sign landing in float32's by the
// sign-extending load, but without LoadF16's fix-up of exponent 31, so Inf and NaN come out as
// finite values of magnitude 2^16 or more (no finite float16 reaches 65536): a block with such a
// lane is redone by the full block, whose LoadF16 is exact. With LoadF16's eleven operations
// float16 -> uint8 on SSE4 streams at 0.39 of the copy ceiling.
HWY_INLINE VF32 LoadF16Finite(const unsigned char* p) {
  const DI32 di;
  const hn::Rebind<std::int16_t, DI32> d16;
  const VI32 h = hn::PromoteTo(di, hn::LoadU(d16, reinterpret_cast<const std::int16_t*>(p)));
  const DU32 du;
  const VU32 moved = hn::And(hn::ShiftLeft<13>(hn::BitCast(du, h)), hn::Set(du, 0x8FFFE000u));
  return hn::Mul(hn::BitCast(DF32(), moved), hn::Set(DF32(), 0x1p112f));
}
#endif

// bfloat16 is the upper half of a float32.
struct LoadBF16 {
  static constexpr std::size_t kSize = 2;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const DU32 du;
    const hn::Rebind<std::uint16_t, DU32> d16;
    const VU32 h = hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(p)));
    return hn::BitCast(DF32(), hn::ShiftLeft<16>(h));
  }
};

HWY_INLINE VU32 AbsBits(VF32 x) { return hn::And(hn::BitCast(DU32(), x), hn::Set(DU32(), 0x7FFFFFFFu)); }
HWY_INLINE MU32 NaNLanes(VF32 x) { return hn::RebindMask(DU32(), hn::IsNaN(x)); }
HWY_INLINE MU32 NonFiniteLanes(VF32 x) { return GtS(AbsBits(x), hn::Set(DU32(), 0x7F7FFFFFu)); }

// Rounds to an integral value in mode R, exactly: Highway's Round (nearest-even), Trunc, Ceil and
// Floor; nearest-away is trunc(x) + sign(x) where |x - trunc(x)| >= 0.5 (x - trunc(x) is exact:
// both lie in the same binade, or trunc(x) = 0; trunc(x) + 1 is exact because |x| < 2^23 whenever
// x has a fraction).
template <Rounding R>
HWY_INLINE VF32 RoundToIntegral(VF32 x) {
  if constexpr (R == Rounding::kNearestEven) return hn::Round(x);
  else if constexpr (R == Rounding::kTowardsZero) return hn::Trunc(x);
  else if constexpr (R == Rounding::kTowardsPositive) return hn::Ceil(x);
  else if constexpr (R == Rounding::kTowardsNegative) return hn::Floor(x);
  else {
    const DF32 df;
    const VF32 t = hn::Trunc(x);
    const auto ge = hn::Ge(hn::Abs(hn::Sub(x, t)), hn::Set(df, 0.5f));
    return hn::Add(t, hn::IfThenElseZero(ge, hn::CopySignToAbs(hn::Set(df, 1.0f), x)));
  }
}

#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
// vcvttps2dq (truncating) or vcvtps2dq (the MXCSR mode) at the target's width.
template <bool kTruncate>
HWY_INLINE VI32 CvtPsToInt32(VF32 x) {
#if HWY_TARGET <= HWY_AVX3
  return VI32{kTruncate ? _mm512_cvttps_epi32(x.raw) : _mm512_cvtps_epi32(x.raw)};
#elif HWY_TARGET == HWY_AVX2
  return VI32{kTruncate ? _mm256_cvttps_epi32(x.raw) : _mm256_cvtps_epi32(x.raw)};
#else
  return VI32{kTruncate ? _mm_cvttps_epi32(x.raw) : _mm_cvtps_epi32(x.raw)};
#endif
}
#endif

// x rounded to an integer in mode R, as int32, for lanes whose rounded value is within int32's
// range (other lanes: any value, which the caller declines or replaces). On x86, vcvtps2dq alone
// for the IEEE modes, rounding in the run's MXCSR mode (the converter's kFpRounding must be
// FpRoundingOf(R)), without the overflow fix-up of Highway's ConvertTo/NearestInt (4 more
// instructions per vector, which cost float32 -> uint8 a fifth of its streaming speed). Nearest-away is the truncating vcvttps2dq of x + sign(x) * pred(0.5), the sum rounded
// to nearest-even (the mode of nearest-away runs): a fraction >= 0.5 sums to at least
// trunc(x) + 1 - 2^-25, which rounds up to trunc(x) + 1 (at 0.5, 1 - 2^-25 is a tie that goes to
// the even 1.0; higher, the spacing is coarser); a smaller fraction stays below trunc(x) + 1 by
// more than half the spacing there; |x| >= 2^23 is integral with an ulp >= 1, so the sum rounds
// back to x (float64-inl.h's RoundF64 makes the same argument). Four instructions where
// RoundToIntegral's nearest-away took nine: float32 -> uint8 nearest-away on SSE4 ran at half the
// nearest-even speed. With an addend of exactly 0.5 the unit tests fail (checked). Elsewhere (ARM's
// FCVTZS is one instruction with its saturation) RoundToIntegral then the truncating ConvertTo;
// on the emulated targets, whose ConvertTo is a C++ cast per lane (undefined for NaN), the lanes
// outside [-2^31, 2^31) are made 0 first.
template <Rounding R>
HWY_INLINE VI32 RoundToInt32InRange(VF32 x) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  if constexpr (R == Rounding::kNearestAway) {
    const DU32 du;
    const VF32 h = hn::BitCast(DF32(), hn::Or(hn::And(hn::BitCast(du, x), hn::Set(du, 0x80000000u)),
                                              hn::Set(du, 0x3EFFFFFFu)));  // +-(0.5 - 2^-25)
    return CvtPsToInt32<true>(hn::Add(x, h));
  } else {
    return CvtPsToInt32<false>(x);
  }
#elif HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
  const VF32 r = RoundToIntegral<R>(x);
  const auto in = hn::And(hn::Ge(r, hn::Set(DF32(), -0x1p31f)), hn::Lt(r, hn::Set(DF32(), 0x1p31f)));
  return hn::ConvertTo(DI32(), hn::IfThenElseZero(in, r));
#else
  return hn::ConvertTo(DI32(), RoundToIntegral<R>(x));
#endif
}

// float32 lanes -> float32: the value as is, NaN canonicalised (R3: quiet NaN, sign kept, payload
// dropped). Used for float16 and bfloat16 sources (and float32 -> float32).
struct F32Canonical {
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  struct Params {};
  static HWY_INLINE VU32 Convert(const Params&, VF32 x, MU32* declined) {
    const DU32 du;
    const VU32 bits = hn::BitCast(du, x);
    *declined = hn::MaskFromVec(hn::Zero(du));
    const VU32 canonical = hn::Or(hn::And(bits, hn::Set(du, 0x80000000u)), hn::Set(du, 0x7FC00000u));
    return hn::IfThenElse(NaNLanes(x), canonical, bits);
  }
};

// 8- and 16-bit integers: exact in float32.
template <typename T>
struct LoadIntAsF32 {
  static constexpr std::size_t kSize = sizeof(T);
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const DI32 di;
    const hn::Rebind<T, DI32> dt;
    return hn::ConvertTo(DF32(), hn::PromoteTo(di, hn::LoadU(dt, reinterpret_cast<const T*>(p))));
  }
};

// int32 -> float32 rounded to odd: exact below 2^24 in magnitude; above, the magnitude's bits
// below bit 8 are folded into bit 8 (set if any was), which leaves at most 24 significant bits
// (exact in float32) and at least 17, so one more rounding to a format of at most 11 significant
// bits (float16, bfloat16, float8/6/4, e8m0) gives the integer's own rounding in every mode (as
// LoadI64DOdd in float64-inl.h). The lanes are then not the source values: no scalar_map.
struct LoadI32Odd {
  static constexpr std::size_t kSize = 4;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VI32 v = hn::LoadU(di, reinterpret_cast<const std::int32_t*>(p));
    const VU32 mag = hn::BitCast(du, hn::Abs(v));  // 2^31 for INT32_MIN: right as unsigned
    const VU32 folded = hn::Or(hn::ShiftRight<8>(mag),
                               hn::IfThenElseZero(hn::Ne(hn::And(mag, hn::Set(du, 0xFFu)), hn::Zero(du)), hn::Set(du, 1u)));
    const VF32 big = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, folded)), hn::Set(df, 256.0f));  // exact
    const VF32 small = hn::ConvertTo(df, hn::BitCast(di, mag));  // exact when < 2^24
    const VF32 a = hn::IfThenElse(hn::RebindMask(df, hn::Gt(mag, hn::Set(du, 0xFFFFFFu))), big, small);
    return hn::Or(a, hn::BitCast(df, hn::And(hn::BitCast(du, v), hn::Set(du, 0x80000000u))));
  }
};

// int32 -> float32 for the common block of IntSourceLanes (below): the value clamped to
// [-2^24, 2^24], exact in float32. A lane within that range keeps its value. A lane beyond it
// becomes +-2^24, which is out of range in every mode for the converters that take this path:
// every finite value of their destinations is below 2^16. So that block fails the converter's
// test and is redone by the full block, whose LoadI32Odd is exact. This loader takes three
// operations, LoadI32Odd about twelve (with which int32 -> float16 on SSE4 streams at 0.49 of
// the copy ceiling).
struct LoadI32Clamped {
  static constexpr std::size_t kSize = 4;
  static HWY_INLINE VF32 Load(const unsigned char* p) {
    const DI32 di;
    const VI32 v = hn::LoadU(di, reinterpret_cast<const std::int32_t*>(p));
    return hn::ConvertTo(DF32(), hn::Min(hn::Max(v, hn::Set(di, -(1 << 24))), hn::Set(di, 1 << 24)));
  }
};

// The source of a float-lane kernel, chosen per block (see BlockKernel). After kBfloat16, the
// "wide" sources, taken only by the converters to float16, bfloat16, float8/6/4 and e8m0
// (kWideSources; the others have families of their own for them): integers of at most 16 bits and
// float8/6/4 (exact float32 lanes: int_lanes-inl.h's loaders), int32 rounded to odd (LoadI32Odd)
// and float64 as float32 rounded to odd (f64::LoadF64Odd, which is exact for one more rounding to
// those formats; kFloat64HugeInf: |x| >= 2^128 as Inf, for bfloat16 and e8m0, whose exponent
// range is float32's). The rounded-to-odd lanes are not the source values: no scalar_map there.
enum class FloatSource : std::uint8_t {
  kFloat32, kFloat16, kBfloat16,
  kInt8, kUint8, kInt16, kUint16, kInt4, kUint4, kInt2, kUint2,
  kFloat8Ieee, kFloat8Fnuz, kFloat8None,  // float8/6/4 by their Special (Float8ToF32)
  kInt32Odd, kFloat64, kFloat64HugeInf,
};
constexpr std::size_t FloatSourceSize(FloatSource s) {
  switch (s) {
    case FloatSource::kFloat32: case FloatSource::kInt32Odd: return 4;
    case FloatSource::kFloat16: case FloatSource::kBfloat16: case FloatSource::kInt16: case FloatSource::kUint16:
      return 2;
    case FloatSource::kFloat64: case FloatSource::kFloat64HugeInf: return 8;
    default: return 1;
  }
}

HWY_INLINE VF32 LoadFloatLanes(FloatSource src, const unsigned char* p) {
  if (src == FloatSource::kFloat32) return LoadF32::Load(p);
  if (src == FloatSource::kFloat16) return LoadF16::Load(p);
  return LoadBF16::Load(p);
}

HWY_INLINE VF32 LoadWideLanes(FloatSource src, const Float8Consts& f8, const unsigned char* p) {
  const DF32 df;
  MI32 unused;
  switch (src) {
      case FloatSource::kInt8: return LoadIntAsF32<std::int8_t>::Load(p);
      case FloatSource::kUint8: return LoadIntAsF32<std::uint8_t>::Load(p);
      case FloatSource::kInt16: return LoadIntAsF32<std::int16_t>::Load(p);
      case FloatSource::kUint16: return LoadIntAsF32<std::uint16_t>::Load(p);
      case FloatSource::kInt4: return hn::ConvertTo(df, LoadSubByte<4, true>::Load(p));
      case FloatSource::kUint4: return hn::ConvertTo(df, LoadSubByte<4, false>::Load(p));
      case FloatSource::kInt2: return hn::ConvertTo(df, LoadSubByte<2, true>::Load(p));
      case FloatSource::kUint2: return hn::ConvertTo(df, LoadSubByte<2, false>::Load(p));
      case FloatSource::kFloat8Ieee: return hn::BitCast(df, Float8ToF32<Special8::kIeee>::Convert(f8, LoadU8::Load(p), &unused));
      case FloatSource::kFloat8Fnuz: return hn::BitCast(df, Float8ToF32<Special8::kFnuz>::Convert(f8, LoadU8::Load(p), &unused));
      case FloatSource::kFloat8None: return hn::BitCast(df, Float8ToF32<Special8::kNone>::Convert(f8, LoadU8::Load(p), &unused));
      case FloatSource::kInt32Odd: return LoadI32Odd::Load(p);
      case FloatSource::kFloat64: return f64::LoadF64Odd<false>::Load(p);
      case FloatSource::kFloat64HugeInf: return f64::LoadF64Odd<true>::Load(p);
      default: return LoadFloatLanes(src, p);
  }
}

// A block of a wide source: the four vectors, by one call that is not inlined. Inlined into every
// converter's block (30 instantiations in float_to_narrow.cc alone, per target), the 14 loaders
// made the clang ASan build of that one translation unit take over 20 minutes. Not templated, so
// each translation unit has one copy per target; `n` is the byte step between the vectors.
inline HWY_NOINLINE void LoadWideBlock(FloatSource src, const Float8Consts& f8, const unsigned char* in, std::size_t n,
                                VF32* x0, VF32* x1, VF32* x2, VF32* x3) {
  *x0 = LoadWideLanes(src, f8, in);
  *x1 = LoadWideLanes(src, f8, in + n);
  *x2 = LoadWideLanes(src, f8, in + 2 * n);
  *x3 = LoadWideLanes(src, f8, in + 3 * n);
}

// Converters that take the wide sources declare kWideSources = true. Those that also declare
// kIntSourceLanes = true get the integer sources of 8 to 32 bits as a family of their own
// (IntSourceLanes, below); they must be converters to a format whose finite values are all below
// 2^16 in magnitude (float16, float8/6/4), and name as IntStore a converter type with the same
// Params whose FastStoreIntegral or FastStore is theirs and depends on the rounding mode alone.
template <class Conv>
inline constexpr bool kTakesWideSources = requires { requires Conv::kWideSources; };
template <class Conv>
inline constexpr bool kTakesIntSourceLanes = requires { requires Conv::kIntSourceLanes; };

// Converters may store a common block themselves (FastStore(params, x0..x3, out) -> bool, as
// FloatLanes::FastBlock: true when no lane is declined), where their results are narrower than
// the 32-bit lanes Convert gives.
template <class Conv>
inline constexpr bool kHasFastStore = requires(const typename Conv::Params& p, VF32 x, unsigned char* out) {
  { Conv::FastStore(p, x, x, x, x, out) } -> std::same_as<bool>;
};
// ... and one for lanes known to hold integers (FastStoreIntegral, same contract), used by
// IntSourceLanes.
template <class Conv>
inline constexpr bool kHasFastStoreIntegral = requires(const typename Conv::Params& p, VF32 x, unsigned char* out) {
  { Conv::FastStoreIntegral(p, x, x, x, x, out) } -> std::same_as<bool>;
};

// Four vectors of float32 lanes per block: load, convert (Conv: Params, kDeclinesNonFinite,
// kFpRounding, Convert(params, x, &declined) -> destination bits in 32-bit lanes), scalar_map,
// store, declined lanes to the reference path. The source (float32/float16/bfloat16) and the
// destination size (1, 2, 4 bytes) are chosen per block, one instantiation for all of them.
template <class Conv>
struct FloatLanes {
  static constexpr FpRounding kFpRounding = Conv::kFpRounding;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;
    FloatSource src;
    std::uint8_t dst_size;
    Float8Consts f8;  // float8/6/4 sources
    FastMap fast_map = {};  // the map of the common blocks (MakeWithMap)
  };
  struct Consts {
    typename Conv::Params conv;
    const VectorMap* map;  // null: no scalar_map
    // False when every key is NaN or +-Inf and the converter declines those: the map can only
    // apply to declined lanes, so blocks without one skip it.
    bool map_always;
    FloatSource src;
    std::uint8_t dst_size;
    Float8Consts f8;
    FastMap fast_map;
  };
  static std::size_t SrcSize(const Params& p) { return FloatSourceSize(p.src); }
  static std::size_t DstSize(const Params& p) { return p.dst_size; }
  static Consts MakeConsts(const Params& p) {
    return {p.conv, p.map.n ? &p.map : nullptr, !(Conv::kDeclinesNonFinite && p.map.only_nonfinite), p.src,
            p.dst_size, p.f8, p.fast_map};
  }
  static std::size_t BlockElems() { return kVecs * hn::Lanes(DF32()); }

  static HWY_INLINE void Load(const Consts& c, const unsigned char* in, VF32* x0, VF32* x1, VF32* x2, VF32* x3) {
    const std::size_t n = hn::Lanes(DU32()) * FloatSourceSize(c.src);
    if (!kTakesWideSources<Conv> || c.src <= FloatSource::kBfloat16) {
      *x0 = LoadFloatLanes(c.src, in);
      *x1 = LoadFloatLanes(c.src, in + n);
      *x2 = LoadFloatLanes(c.src, in + 2 * n);
      *x3 = LoadFloatLanes(c.src, in + 3 * n);
    } else {
      // Through locals of their own: with x0..x3's addresses passed out of line, the float32,
      // float16 and bfloat16 lanes go through the stack too (float32 -> e8m0 on AVX2: 3.39
      // instructions per element that way).
      VF32 w0, w1, w2, w3;
      LoadWideBlock(c.src, c.f8, in, n, &w0, &w1, &w2, &w3);
      *x0 = w0, *x1 = w1, *x2 = w2, *x3 = w3;
    }
  }

  // The common block (block-inl.h): no scalar_map that could apply, no lane declined.
  static HWY_INLINE bool FastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if (c.map != nullptr && c.map_always) return false;
    const DU32 du;
    VF32 x0, x1, x2, x3;
    MU32 special = hn::MaskFromVec(hn::Zero(du));
#if !ZCAST_KERNELS_HW_F16_TO_F32
    if (c.src == FloatSource::kFloat16) {
      const std::size_t n = hn::Lanes(du) * 2;
      x0 = LoadF16Finite(in), x1 = LoadF16Finite(in + n), x2 = LoadF16Finite(in + 2 * n), x3 = LoadF16Finite(in + 3 * n);
      const VU32 lim = hn::Set(du, 0x477FFFFFu);  // at or above 65536: Inf or NaN
      special = hn::Or(hn::Or(GtS(AbsBits(x0), lim), GtS(AbsBits(x1), lim)),
                       hn::Or(GtS(AbsBits(x2), lim), GtS(AbsBits(x3), lim)));
    } else {
      Load(c, in, &x0, &x1, &x2, &x3);
    }
#else
    Load(c, in, &x0, &x1, &x2, &x3);
#endif
    if constexpr (kHasFastStore<Conv>) return Conv::FastStore(c.conv, x0, x1, x2, x3, out) && hn::AllFalse(du, special);
    MU32 d0, d1, d2, d3;
    const VU32 r0 = Conv::Convert(c.conv, x0, &d0), r1 = Conv::Convert(c.conv, x1, &d1),
               r2 = Conv::Convert(c.conv, x2, &d2), r3 = Conv::Convert(c.conv, x3, &d3);
    StoreBlock(c.dst_size, r0, r1, r2, r3, out);
    return hn::AllFalse(du, hn::Or(special, hn::Or(hn::Or(d0, d1), hn::Or(d2, d3))));
  }

  // The common blocks in a loop of their own (FastRun's contract, block-inl.h) rather than
  // block-inl.h's generic one: the step is derived from the source here, so that when GCC (-O3)
  // takes the choice of the source out of the loop the prefetch loop has a constant count too,
  // and the scalar_map test is made once. AVX2 float32 -> uint8 clamp: about 2.2 instructions per
  // element against 2.4 through the generic loop (whole-program callgrind counts).
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    if constexpr (kMapBlends) {
      if (c.fast_map.kind == FastMapKind::kNaN) return MappedRun<FastMapKind::kNaN>(c, in, out, blocks);
      if (c.fast_map.kind == FastMapKind::kKeys) return MappedRun<FastMapKind::kKeys>(c, in, out, blocks);
    }
    if (c.map != nullptr && c.map_always) return 0;
    const Consts k = c;  // a local: the stores through `out` cannot alias it
    const std::size_t in_step = BlockElems() * FloatSourceSize(k.src), out_step = BlockElems() * k.dst_size;
    // Sources of 4 bytes at most (8: float64, through LoadWideBlock), destinations of 4 at most.
    constexpr std::size_t kMaxIn = kMaxBlock * (kTakesWideSources<Conv> ? 8 : 4);
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      PrefetchBlockUpTo<kMaxIn, kMaxBlock * 4>(in, in_step, out, out_step);
      if (HWY_UNLIKELY(!FastBlock(k, in, out))) return b;
    }
    return blocks;
  }

  // The common blocks with a scalar_map (FastMap kNaN or kKeys, scalar_map.h): FastRun's
  // contract, the map compared and blended in every block (MapFastLanes32), so that blocks with
  // keys in them stay here; a block with a lane still declined after the map is the full block's.
  // Converters with a FastStore of their own store through Convert and StoreBlock here, as the
  // full block does.
  template <FastMapKind kMap>
  static HWY_NOINLINE std::size_t MappedRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                            std::size_t blocks) {
    const Consts k = c;  // a local: the stores through `out` cannot alias it
    const DU32 du;
    const std::size_t in_step = BlockElems() * FloatSourceSize(k.src), out_step = BlockElems() * k.dst_size;
    constexpr std::size_t kMaxIn = kMaxBlock * (kTakesWideSources<Conv> ? 8 : 4);
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      PrefetchBlockUpTo<kMaxIn, kMaxBlock * 4>(in, in_step, out, out_step);
      VF32 x0, x1, x2, x3;
      Load(k, in, &x0, &x1, &x2, &x3);
      MU32 d0, d1, d2, d3;
      VU32 r0 = Conv::Convert(k.conv, x0, &d0), r1 = Conv::Convert(k.conv, x1, &d1),
           r2 = Conv::Convert(k.conv, x2, &d2), r3 = Conv::Convert(k.conv, x3, &d3);
      MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x0), NaNLanes(x0), &r0, &d0);
      MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x1), NaNLanes(x1), &r1, &d1);
      MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x2), NaNLanes(x2), &r2, &d2);
      MapFastLanes32<kMap>(k.fast_map, hn::BitCast(du, x3), NaNLanes(x3), &r3, &d3);
      StoreBlock(k.dst_size, r0, r1, r2, r3, out);
      if (HWY_UNLIKELY(!hn::AllFalse(du, hn::Or(hn::Or(d0, d1), hn::Or(d2, d3))))) return b;
    }
    return blocks;
  }

  // Out of line: the rare path (FastBlock takes the common blocks), shared by FloatLanes' and
  // IntSourceLanes' kernels of one converter.
  static HWY_NOINLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                        const Resolver& res) {
    const DU32 du;
    VF32 x0, x1, x2, x3;
    Load(c, in, &x0, &x1, &x2, &x3);
    MU32 d0, d1, d2, d3;
    VU32 r0 = Conv::Convert(c.conv, x0, &d0), r1 = Conv::Convert(c.conv, x1, &d1),
         r2 = Conv::Convert(c.conv, x2, &d2), r3 = Conv::Convert(c.conv, x3, &d3);
    MU32 any = hn::Or(hn::Or(d0, d1), hn::Or(d2, d3));
    if (HWY_UNLIKELY(c.map != nullptr) && (c.map_always || !hn::AllFalse(du, any))) {
      MapLanes32(*c.map, hn::BitCast(du, x0), NaNLanes(x0), &r0, &d0);
      MapLanes32(*c.map, hn::BitCast(du, x1), NaNLanes(x1), &r1, &d1);
      MapLanes32(*c.map, hn::BitCast(du, x2), NaNLanes(x2), &r2, &d2);
      MapLanes32(*c.map, hn::BitCast(du, x3), NaNLanes(x3), &r3, &d3);
      any = hn::Or(hn::Or(d0, d1), hn::Or(d2, d3));
    }
    StoreBlock(c.dst_size, r0, r1, r2, r3, out);
    if (HWY_LIKELY(hn::AllFalse(du, any))) return kNoFailure;
    return ResolveBlock(du, d0, d1, d2, d3, res);
  }
};

// One source's common blocks: `blocks` at most, stopping before the first that Store refuses
// (FastStoreIntegral where kIntegral and Store has it, else FastStore).
template <class Store, bool kIntegral, class Loader>
HWY_INLINE std::size_t RunCommonBlocks(const typename Store::Params& p, std::size_t dst_size, const unsigned char* in,
                                       unsigned char* out, std::size_t blocks) {
  const std::size_t n = hn::Lanes(DU32()) * Loader::kSize;
  const std::size_t in_step = kVecs * n, out_step = kVecs * hn::Lanes(DU32()) * dst_size;
  for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
    PrefetchBlock(in, in_step, out, out_step);
    const VF32 x0 = Loader::Load(in), x1 = Loader::Load(in + n), x2 = Loader::Load(in + 2 * n),
               x3 = Loader::Load(in + 3 * n);
    bool ok;
    if constexpr (kIntegral && kHasFastStoreIntegral<Store>) ok = Store::FastStoreIntegral(p, x0, x1, x2, x3, out);
    else ok = Store::FastStore(p, x0, x1, x2, x3, out);
    if (HWY_UNLIKELY(!ok)) return b;
  }
  return blocks;
}

// The common blocks of the integer sources of 8 to 32 bits (IntSourceLanes, below), `blocks` at
// most, stopping before the first that Store's test refuses (FastRun's contract, block-inl.h):
// the lanes loaded inline (int32 clamped: LoadI32Clamped), stored by Store::FastStoreIntegral (or
// FastStore). Store is the part of the converter that depends on the rounding mode alone
// (Conv::IntStore), so there are five of these per target, not one per converter: with one per
// converter the clang ASan build of float_to_narrow.cc takes 12 minutes instead of 7.
template <class Store>
HWY_NOINLINE std::size_t IntSourceRun(const typename Store::Params& params, FloatSource src, std::size_t dst_size,
                                      const unsigned char* in, unsigned char* out, std::size_t blocks) {
  const typename Store::Params p = params;  // a local: the stores through `out` cannot alias it
  const auto run = [&]<class Loader>(Loader) -> std::size_t {
    return RunCommonBlocks<Store, true, Loader>(p, dst_size, in, out, blocks);
  };
  // A Store with a loop of its own for the 16-bit sources, in 16-bit lanes (F32ToNarrow::IntRun16).
  if constexpr (requires { requires Store::kIntRun16; }) {
    if (src == FloatSource::kInt16) return Store::template IntRun16<std::int16_t>(p, in, out, blocks);
    if (src == FloatSource::kUint16) return Store::template IntRun16<std::uint16_t>(p, in, out, blocks);
  }
  switch (src) {
    case FloatSource::kInt8: return run(LoadIntAsF32<std::int8_t>{});
    case FloatSource::kUint8: return run(LoadIntAsF32<std::uint8_t>{});
    case FloatSource::kInt16: return run(LoadIntAsF32<std::int16_t>{});
    case FloatSource::kUint16: return run(LoadIntAsF32<std::uint16_t>{});
    default: return run(LoadI32Clamped{});  // kInt32Odd (IsIntSourceLane)
  }
}

// The integer sources of 8 to 32 bits of a converter with kIntSourceLanes: FloatLanes but for
// the common blocks, which IntSourceRun's loops run (FastRun). Through FloatLanes' common block,
// shared with the float sources and LoadWideBlock's call, the lanes went through the stack and
// the constants were set again per block: int16 -> float8_e4m3 on SSE4 was at 0.40 of the copy
// ceiling. Other blocks (a lane declined or out of range, a scalar_map that may apply) are
// FloatLanes' full block, exact as for every source.
//
// The same for float32, bfloat16 and float64 sources (FloatSourceLanes), for the converters
// that name as FloatStore a converter type whose FastStore is theirs for any lanes
// (kFloatSourceRun: F32ToF16C, whose FastStore depends on the rounding mode alone; F32ToNarrow,
// on the mode and on fnuz). Through FloatLanes' common block the source was
// chosen per block and float64's lanes (LoadWideBlock) went through the stack: float32 ->
// float16 took about 2.1 instructions per element against the hand-written F16C kernel's 1.4,
// float64 -> float16 7.1 against 4.6 (callgrind, AVX2), and streamed at 0.85-0.96 of its speed.
template <class Store>
HWY_NOINLINE std::size_t FloatSourceRun(const typename Store::Params& params, FloatSource src, std::size_t dst_size,
                                        const unsigned char* in, unsigned char* out, std::size_t blocks) {
  const typename Store::Params p = params;
  const auto run = [&]<class Loader>(Loader) -> std::size_t {
    return RunCommonBlocks<Store, false, Loader>(p, dst_size, in, out, blocks);
  };
  switch (src) {
    case FloatSource::kFloat32: return run(LoadF32{});
    case FloatSource::kBfloat16: return run(LoadBF16{});
    case FloatSource::kFloat64: return run(f64::LoadF64Odd<false>{});
    // Not kFloat64HugeInf: only bfloat16 and e8m0 take it, whose converters have no
    // FloatSourceRun (its loader here only lengthened float_to_narrow.cc's ASan compile).
    default: return 0;  // FloatLanes' blocks (IsFloatSourceRun)
  }
}
template <class Conv>
inline constexpr bool kTakesFloatSourceRun = requires { requires Conv::kFloatSourceRun; };
template <class Conv, bool kIntSources>
struct StoreRunLanes : FloatLanes<Conv> {
  using typename FloatLanes<Conv>::Consts;
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    if (c.fast_map.kind == FastMapKind::kNaN || c.fast_map.kind == FastMapKind::kKeys) {
      return FloatLanes<Conv>::FastRun(c, in, out, blocks);  // its MappedRun
    }
    if (c.map != nullptr && c.map_always) return 0;
    if constexpr (kIntSources) return IntSourceRun<typename Conv::IntStore>(c.conv, c.src, c.dst_size, in, out, blocks);
    else return FloatSourceRun<typename Conv::FloatStore>(c.conv, c.src, c.dst_size, in, out, blocks);
  }
};
template <class Conv>
using IntSourceLanes = StoreRunLanes<Conv, true>;
template <class Conv>
using FloatSourceLanes = StoreRunLanes<Conv, false>;
constexpr bool IsFloatSourceRun(FloatSource s) {
  return s == FloatSource::kFloat32 || s == FloatSource::kBfloat16 || s == FloatSource::kFloat64;
}

constexpr bool IsIntSourceLane(FloatSource s) {
  return s == FloatSource::kInt8 || s == FloatSource::kUint8 || s == FloatSource::kInt16 ||
         s == FloatSource::kUint16 || s == FloatSource::kInt32Odd;
}

// The float-lane source of `dir.src`, if it is one (the wide ones only if `wide`).
inline bool FloatSourceOf(const Direction& dir, bool wide, FloatSource* out) {
  switch (dir.src) {
    case DataType::float32: *out = FloatSource::kFloat32; return true;
    case DataType::float16: *out = FloatSource::kFloat16; return true;
    case DataType::bfloat16: *out = FloatSource::kBfloat16; return true;
    case DataType::int8: *out = FloatSource::kInt8; return wide;
    case DataType::uint8: *out = FloatSource::kUint8; return wide;
    case DataType::int16: *out = FloatSource::kInt16; return wide;
    case DataType::uint16: *out = FloatSource::kUint16; return wide;
    case DataType::int4: *out = FloatSource::kInt4; return wide;
    case DataType::uint4: *out = FloatSource::kUint4; return wide;
    case DataType::int2: *out = FloatSource::kInt2; return wide;
    case DataType::uint2: *out = FloatSource::kUint2; return wide;
    case DataType::int32: *out = FloatSource::kInt32Odd; return wide && dir.map.empty();
    case DataType::float64:
      *out = dir.dst == DataType::bfloat16 || dir.dst == DataType::float8_e8m0fnu ? FloatSource::kFloat64HugeInf
                                                                                  : FloatSource::kFloat64;
      return wide && dir.map.empty();
    default: {
      const TypeInfo& s = Info(dir.src);
      if (s.kind != Kind::Float || s.size != 1 || s.special == Special::E8m0) return false;
      *out = s.special == Special::Ieee   ? FloatSource::kFloat8Ieee
             : s.special == Special::Fnuz ? FloatSource::kFloat8Fnuz
                                          : FloatSource::kFloat8None;
      return wide;
    }
  }
}

// A float-lane kernel for `dir` with converter Conv: nullptr when the source is not a float-lane
// type or the scalar_map cannot go in the vector.
// `int_name` names the kernel of the integer sources of a converter with kIntSourceLanes.
template <class Conv>
std::unique_ptr<const Kernel> MakeFloatLanes(const Direction& dir, const typename Conv::Params& conv,
                                             const char* name, const char* int_name = nullptr) {
  typename FloatLanes<Conv>::Params p{conv, {}, FloatSource::kFloat32,
                                      static_cast<std::uint8_t>(Info(dir.dst).size), {}, {}};
  if (!FloatSourceOf(dir, kTakesWideSources<Conv>, &p.src)) return nullptr;
  if (Info(dir.src).kind == Kind::Float && Info(dir.src).size == 1) p.f8 = Float8ConstsOf(Info(dir.src));
  if constexpr (kTakesIntSourceLanes<Conv>) {
    static_assert(kHasFastStore<Conv>);
    if (IsIntSourceLane(p.src)) {
      return MakeWithMap<IntSourceLanes<Conv>>(dir, p, int_name != nullptr ? int_name : name, KeyRep::kFloat32Bits);
    }
  }
  if constexpr (kTakesFloatSourceRun<Conv>) {
    if (IsFloatSourceRun(p.src)) return MakeWithMap<FloatSourceLanes<Conv>>(dir, p, name, KeyRep::kFloat32Bits);
  }
  return MakeWithMap<FloatLanes<Conv>>(dir, p, name, KeyRep::kFloat32Bits);
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
