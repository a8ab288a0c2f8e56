// float32, float16 and bfloat16 sources -> float16 and the float8/float6/float4 formats (fnuz
// included; not float8_e8m0fnu: float_to_bfloat16.cc), every rounding mode, clamp or unset (R4:
// wrap acts as unset for float destinations). One float32 addition and integer arithmetic on the
// bit patterns, the same on every target, float16 included (the hardware's float16 conversion,
// F16C, has no nearest-away and its overflow behaviour differs per mode), except on x86 targets
// with F16C (AVX2, AVX3, AVX3_DL), where float16 is F32ToF16C below: the integer path runs at
// 0.65-0.81 of vcvtps2ph's speed there.
//
// Exactness. One float32 addition rounds every lane, normal or subnormal: with e the exponent
// of |x| raised to the target's min normal (and capped at 2^(emax + 1)), the "magic" m =
// e * 2^(23 - M) has an ulp of exactly the target's quantum at |x| (2^(E - M), or the subnormal
// quantum), and |x| < 2e <= m / 4, so x + sign(x) * m stays in m's binade and the hardware rounds
// it in the run's IEEE mode (fp_env.h): |sum| - m, as bit patterns, is the rounded magnitude in
// quanta, q in [2^M, 2^(M+1)] for a normal (the carry into the next binade included) and
// [0, 2^M] below; the encoding is q + (e - min_normal) >> (23 - M). The grid continues above max,
// so an encoding beyond max_bits is out of range in that mode; at and above the cap every value
// is, and the encoding comes out beyond max_bits too (as for NaN and Inf, whose |sum| is
// 0x7F800000 or more). Nearest-away is nearest-even of x with its lowest bit set (Encode).
// The source always has more significand bits than the target and a wider exponent range, so
// every target value lies on float32's grid. NaN -> canonical NaN, Inf -> Inf, or errors where
// the target lacks them (R3); fnuz targets have no -0 (R8); clamp gives Inf where the target has
// it, else max finite (R1, R2). About 12 operations per vector, where an integer rounding for
// normals and an addition for subnormals, blended, take about 20 (and put SSE4's float16 and
// float8 rows at 0.22-0.28 of the copy ceiling). The integer sources of 8 to 32 bits have a loop of their own for
// the common blocks (IntSourceLanes, float_lanes-inl.h), whose lanes are integers: no subnormal
// result, so FastStoreIntegral rounds by integer addition alone, in any mode.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_to_narrow.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <bit>
#include <cstdint>
#include <type_traits>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

struct NarrowParams {
  int shift;                    // 23 - M: dropped bits of a float32 normal
  int sign_shift;               // 31 - (E + M): float32's sign bit to the target's
  std::uint32_t min_normal;     // float32 exponent field of the target's min normal, 2^(1 - bias)
  std::uint32_t exp_hi;         // float32 exponent field of 2^(emax + 1): at and above it, out of range
  std::uint32_t min_normal_enc; // min_normal >> shift
  std::uint32_t max_bits;       // encoding of max finite
  std::uint32_t special_sign;   // the sign bit where NaN/Inf keep their sign (IEEE-like), else 0
  std::uint32_t nan_bits, inf_bits;
  std::uint32_t nan_bad, inf_bad;  // all ones where the target lacks NaN / Inf (R3: errors)
  std::uint32_t clamp_bits;     // R1: Inf where the target has it, else max finite (R2)
  std::uint8_t dst_size;        // 1, or 2 for float16
  // IntRun16: the largest integer magnitude whose encoding is at most max_bits in the run's
  // rounding mode, for either sign (IntLimit).
  std::uint16_t int_limit;
};

// FastStoreIntegral's addition below the kept bits, in mode R (it says why), and the scalar
// encoding of an integer magnitude `a` < 2^24 by the same arithmetic: IntLimit's model of
// EncodeIntegral and IntRun16.
template <Rounding R>
std::uint32_t IntegralAdd(const NarrowParams& p) {
  const std::uint32_t rebias = p.min_normal - (1u << 23);  // float32's exponent field at the target's min normal, less 1
  const std::uint32_t half = 1u << (p.shift - 1);
  return R == Rounding::kNearestEven ? half - 1 - rebias : R == Rounding::kNearestAway ? half - rebias : 0u - rebias;
}
template <Rounding R>
bool IntegralInRange(const NarrowParams& p, std::uint32_t a, bool negative) {
  std::uint32_t r = std::bit_cast<std::uint32_t>(static_cast<float>(a));
  if constexpr (R == Rounding::kNearestEven) r += (r >> p.shift) & 1u;
  if ((R == Rounding::kTowardsPositive && !negative) || (R == Rounding::kTowardsNegative && negative)) {
    r += (1u << p.shift) - 1;
  }
  const std::int32_t enc = static_cast<std::int32_t>(r + IntegralAdd<R>(p)) >> p.shift;
  return enc <= static_cast<std::int32_t>(p.max_bits);
}
// The encoding grows with the magnitude, so the limit is found by bisection, for each sign (the
// directed modes round the two differently); at most 65535.
template <Rounding R>
std::uint16_t IntLimit(const NarrowParams& p) {
  std::uint32_t lo = 0, hi = 65536;  // IntegralInRange at lo (0 always is), not at hi
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    (IntegralInRange<R>(p, mid, false) && IntegralInRange<R>(p, mid, true) ? lo : hi) = mid;
  }
  return static_cast<std::uint16_t>(lo);
}

#if HWY_TARGET != HWY_SCALAR  // (one lane: no 16-bit vector of two; IntSourceRun's loop there)
// 16-bit lanes <-> 32-bit lanes for IntRun16: Widen16 zero-extends one vector into two, in an
// order that Narrow32 (unsigned saturation) undoes. On x86 both are the in-lane unpacks and
// packs, one instruction each and no permute: the lanes' order between them does not matter.
using DU16 = hn::Repartition<std::uint16_t, DU32>;
using DI16 = hn::Repartition<std::int16_t, DU32>;
using VU16 = hn::Vec<DU16>;
#if HWY_TARGET == HWY_SSE4
#define ZCAST_X86_16(op) _mm_##op
#elif HWY_TARGET == HWY_AVX2
#define ZCAST_X86_16(op) _mm256_##op
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define ZCAST_X86_16(op) _mm512_##op
#endif
HWY_INLINE void Widen16(VU16 a, VU32* lo, VU32* hi) {
#ifdef ZCAST_X86_16
  const VU16 zero = hn::Zero(DU16());
  *lo = VU32{ZCAST_X86_16(unpacklo_epi16)(a.raw, zero.raw)};
  *hi = VU32{ZCAST_X86_16(unpackhi_epi16)(a.raw, zero.raw)};
#else
  const hn::Half<DU16> dh;
  *lo = hn::PromoteTo(DU32(), hn::LowerHalf(dh, a));
  *hi = hn::PromoteTo(DU32(), hn::UpperHalf(dh, a));
#endif
}
// The same for a vector of 16-bit masks (all ones or zero), sign-extended.
HWY_INLINE void WidenMask16(VU16 m, VI32* lo, VI32* hi) {
#ifdef ZCAST_X86_16
  *lo = VI32{ZCAST_X86_16(unpacklo_epi16)(m.raw, m.raw)};
  *hi = VI32{ZCAST_X86_16(unpackhi_epi16)(m.raw, m.raw)};
#else
  const hn::Half<DI16> dh;
  *lo = hn::PromoteTo(DI32(), hn::LowerHalf(dh, hn::BitCast(DI16(), m)));
  *hi = hn::PromoteTo(DI32(), hn::UpperHalf(dh, hn::BitCast(DI16(), m)));
#endif
}
HWY_INLINE VU16 Narrow32(VI32 lo, VI32 hi) {
#ifdef ZCAST_X86_16
  return VU16{ZCAST_X86_16(packus_epi32)(lo.raw, hi.raw)};
#else
  const hn::Half<DU16> dh;
  return hn::Combine(DU16(), hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
#endif
}
// Whether any bit of v is set: ptest on SSE4 and AVX2, where Highway's AllTrue of a compare takes
// a pack and a byte mask too.
HWY_INLINE bool AnyNonZero16(VU16 v) {
#if HWY_TARGET == HWY_SSE4
  return !_mm_testz_si128(v.raw, v.raw);
#elif HWY_TARGET == HWY_AVX2
  return !_mm256_testz_si256(v.raw, v.raw);
#else
  return !hn::AllTrue(DU16(), hn::Eq(v, hn::Zero(DU16())));
#endif
}
// Two vectors of 16-bit lanes below 256 -> bytes, stored in order.
HWY_INLINE void Store16As8(VU16 a, VU16 b, unsigned char* out) {
#if HWY_TARGET == HWY_SSE4
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(a.raw, b.raw));
#elif HWY_TARGET == HWY_AVX2
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute4x64_epi64(_mm256_packus_epi16(a.raw, b.raw), 0xD8));
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  _mm512_storeu_si512(out, _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
                                                     _mm512_packus_epi16(a.raw, b.raw)));
#else
  const hn::Rebind<std::uint8_t, DI16> d8;
  hn::StoreU(hn::DemoteTo(d8, hn::BitCast(DI16(), a)), d8, out);
  hn::StoreU(hn::DemoteTo(d8, hn::BitCast(DI16(), b)), d8, out + hn::Lanes(DU16()));
#endif
}
#undef ZCAST_X86_16
#endif  // HWY_TARGET != HWY_SCALAR

template <Rounding R, OutOfRange O, bool kFnuz>
struct F32ToNarrow {
  static constexpr bool kWideSources = true;       // float_lanes-inl.h
  static constexpr bool kIntSourceLanes = true;  // (float_lanes-inl.h; FastStoreIntegral)
  using IntStore = F32ToNarrow<R, OutOfRange::kUnset, false>;  // FastStoreIntegral: R alone
  // The float32, bfloat16 and float64 sources' common blocks in loops of their own too
  // (FloatSourceRun, float_lanes-inl.h): FastStore depends on R and, for fnuz's zero (R8), kFnuz.
  static constexpr bool kFloatSourceRun = true;
  using FloatStore = F32ToNarrow<R, OutOfRange::kUnset, kFnuz>;
  using Params = NarrowParams;
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);  // nearest for nearest-away (Encode)

  // The encoding of |x| rounded in mode R on the target's grid continued above max (a value
  // greater than max_bits: out of range, or NaN/Inf: Convert sorts those out; never negative as
  // int32), and x's sign moved to the target's sign bit.
  static HWY_INLINE VU32 Encode(const Params& p, VF32 x, VU32* sign) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VU32 sgn = hn::And(hn::BitCast(du, x), hn::Set(du, 0x80000000u));
    // Nearest-away as nearest-even of x with its lowest bit set: the target's grid points and
    // midpoints are multiples of at least 2^13 float32 ulps of their binade (M <= 10; below the
    // min normal, multiples of half the quantum, at least 2^-25, where float32's ulp is at most
    // 2^-38), so their lowest bit is clear, x | 1 never reaches or crosses one, and an exact
    // midpoint moves just past it, away from zero. The float64 and int32 lanes are rounded to odd
    // (float_lanes-inl.h), which keeps that. +-Inf becomes a NaN here, beyond max_bits as before;
    // Convert reads the original x. One operation where a half-ulp addition takes five: float32
    // -> float16 on SSE4 takes 7.6 instructions an element this way, 9.6 that way (nearest-even:
    // 7.4).
    if constexpr (R == Rounding::kNearestAway) x = hn::Or(x, hn::BitCast(df, hn::Set(du, 1u)));
    const VI32 e = hn::Min(hn::Max(hn::BitCast(di, hn::And(hn::BitCast(du, x), hn::Set(du, 0x7F800000u))),
                                   hn::Set(di, static_cast<std::int32_t>(p.min_normal))),
                           hn::Set(di, static_cast<std::int32_t>(p.exp_hi)));
    const VU32 magic = hn::Add(hn::BitCast(du, e), hn::Set(du, static_cast<std::uint32_t>(p.shift) << 23));
    const VF32 sum = hn::Add(x, hn::BitCast(df, hn::Or(magic, sgn)));
    *sign = hn::ShiftRightSame(sgn, p.sign_shift);
    const VU32 q = hn::Sub(AbsBits(sum), magic);
    return hn::Add(q, hn::Sub(hn::ShiftRightSame(hn::BitCast(du, e), p.shift), hn::Set(du, p.min_normal_enc)));
  }
  static HWY_INLINE VU32 Signed(VU32 enc, VU32 sign) {
    if constexpr (kFnuz) sign = hn::IfThenZeroElse(hn::Eq(enc, hn::Zero(DU32())), sign);  // R8: no -0
    return hn::Or(enc, sign);
  }
  static HWY_INLINE MU32 Beyond(const Params& p, VU32 enc) {
    return hn::RebindMask(DU32(), hn::Gt(hn::BitCast(DI32(), enc), hn::Set(DI32(), static_cast<std::int32_t>(p.max_bits))));
  }

  // The common block (FloatLanes::FastBlock): every lane finite and in range, so the encodings
  // are the answers; one test per block.
  static HWY_INLINE bool FastStore(const Params& p, VF32 x0, VF32 x1, VF32 x2, VF32 x3, unsigned char* out) {
    VU32 s0, s1, s2, s3;
    const VU32 e0 = Encode(p, x0, &s0), e1 = Encode(p, x1, &s1), e2 = Encode(p, x2, &s2), e3 = Encode(p, x3, &s3);
    const MU32 beyond = hn::Or(hn::Or(Beyond(p, e0), Beyond(p, e1)), hn::Or(Beyond(p, e2), Beyond(p, e3)));
    StoreBlock(p.dst_size, Signed(e0, s0), Signed(e1, s1), Signed(e2, s2), Signed(e3, s3), out);
    return hn::AllFalse(DU32(), beyond);
  }

  // The common block of the integer sources (IntSourceLanes): every lane an integer of magnitude
  // at most 2^24, so 0 or at least 1, which is at or above every target's min normal (the largest
  // is 1: float6_e2m3fn, float4_e2m1fn). No lane is subnormal in the target, so the rounding is
  // the integer one on the float32 bits: add the mode's increment below the kept bits (nearest-
  // even: half an ulp less one, plus the kept lowest bit; nearest-away: half; towards the
  // magnitude's +Inf: an ulp less one), then drop them. The same addition moves the exponent from
  // float32's bias to the target's (rebias, a multiple of 2^23, leaves the bits below alone), and
  // a carry out of the significand is the next binade: past max, an encoding beyond max_bits, as
  // in Encode. Zero comes out negative, which the saturating packs store as 0 (StoreBlock). About
  // 10 operations a vector where Encode, Signed and Beyond take 16.
  static HWY_INLINE VU32 EncodeIntegral(const Params& p, VF32 x, VI32 add, VI32 up, VI32 max_bits, MI32* beyond) {
    const DU32 du;
    const DI32 di;
    const VU32 bits = hn::BitCast(du, x);
    VI32 r = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7FFFFFFFu)));
    if constexpr (R == Rounding::kNearestEven) {
      r = hn::Add(r, hn::BitCast(di, hn::And(hn::ShiftRightSame(hn::BitCast(du, r), p.shift), hn::Set(du, 1u))));
    } else if constexpr (R == Rounding::kTowardsPositive) {
      r = hn::Add(r, hn::AndNot(hn::ShiftRight<31>(hn::BitCast(di, bits)), up));
    } else if constexpr (R == Rounding::kTowardsNegative) {
      r = hn::Add(r, hn::And(hn::ShiftRight<31>(hn::BitCast(di, bits)), up));
    }
    const VI32 enc = hn::ShiftRightSame(hn::Add(r, add), p.shift);  // arithmetic: zero stays negative
    *beyond = hn::Gt(enc, max_bits);
    return hn::Or(hn::BitCast(du, enc), hn::ShiftRightSame(hn::And(bits, hn::Set(du, 0x80000000u)), p.sign_shift));
  }
  static HWY_INLINE bool FastStoreIntegral(const Params& p, VF32 x0, VF32 x1, VF32 x2, VF32 x3, unsigned char* out) {
    const DI32 di;
    const VI32 k = hn::Set(di, static_cast<std::int32_t>(IntegralAdd<R>(p)));
    const VI32 up = hn::Set(di, static_cast<std::int32_t>((1u << p.shift) - 1));
    const VI32 max_bits = hn::Set(di, static_cast<std::int32_t>(p.max_bits));
    MI32 b0, b1, b2, b3;
    const VU32 e0 = EncodeIntegral(p, x0, k, up, max_bits, &b0), e1 = EncodeIntegral(p, x1, k, up, max_bits, &b1),
               e2 = EncodeIntegral(p, x2, k, up, max_bits, &b2), e3 = EncodeIntegral(p, x3, k, up, max_bits, &b3);
    StoreBlock(p.dst_size, e0, e1, e2, e3, out);
    return hn::AllFalse(di, hn::Or(hn::Or(b0, b1), hn::Or(b2, b3)));
  }

  // The common blocks of the 16-bit integer sources (IntSourceRun, float_lanes-inl.h; the 8-bit
  // ones take table8.cc's tables), `blocks` at most, stopping before the first with a magnitude
  // above int_limit (FastRun's contract): EncodeIntegral's arithmetic, but the magnitudes and
  // signs taken in 16-bit lanes (twice as many per instruction), the range tested there once per
  // block (a maximum and a saturating subtraction), and the sign put into the 16-bit results,
  // which then go to bytes with one pack. Only the encoding itself runs in 32-bit lanes, from a
  // float32 conversion (exact: magnitudes below 2^16). On SSE4, int16 -> float8_e4m3 clamp takes
  // 3.67 instructions an element this way and streams at 0.50 of the copy ceiling; in 32-bit
  // lanes throughout (FastStoreIntegral) it takes 5.2 and streams at 0.33-0.46.
#if HWY_TARGET != HWY_SCALAR
  static constexpr bool kIntRun16 = true;
  template <class T>
  static std::size_t IntRun16(const Params& p, const unsigned char* in, unsigned char* out, std::size_t blocks) {
    return p.dst_size == 1 ? IntRun16Of<T, 1>(p, in, out, blocks) : IntRun16Of<T, 2>(p, in, out, blocks);
  }
  // The destination's size a constant: the prefetches and the loop's steps are fixed.
  template <class T, std::size_t kDstSize>
  static HWY_NOINLINE std::size_t IntRun16Of(const Params& params, const unsigned char* in, unsigned char* out,
                                             std::size_t blocks) {
    static_assert(std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t>);
    const Params p = params;  // a local: the stores through `out` cannot alias it
    const DU16 du16;
    const DI16 di16;
    const DI32 di;
    const DF32 df;
    const std::size_t n16 = hn::Lanes(du16);
    const std::size_t in_step = 2 * n16 * sizeof(T), out_step = 2 * n16 * kDstSize;
    const VI32 k = hn::Set(di, static_cast<std::int32_t>(IntegralAdd<R>(p)));
    const VI32 up = hn::Set(di, static_cast<std::int32_t>((1u << p.shift) - 1));
    const VU16 limit = hn::Set(du16, p.int_limit);
    const VU16 sign_bit = hn::Set(du16, static_cast<std::uint16_t>(1u << (31 - p.sign_shift)));
    // The magnitudes, and for signed sources the lanes' signs as masks (all ones if negative).
    const auto load = [&](const unsigned char* at, VU16* mag, VU16* neg) {
      if constexpr (std::is_signed_v<T>) {
        const auto v = hn::LoadU(di16, reinterpret_cast<const std::int16_t*>(at));
        *mag = hn::BitCast(du16, hn::Abs(v));  // 2^15 for INT16_MIN: right as unsigned
        *neg = hn::BitCast(du16, hn::ShiftRight<15>(v));
      } else {
        *mag = hn::LoadU(du16, reinterpret_cast<const std::uint16_t*>(at));
        *neg = hn::Zero(du16);
      }
    };
    // 32-bit magnitudes (and their signs' masks) -> encodings, zero negative (Narrow32 stores 0).
    const auto encode = [&](VU32 w, VI32 neg) -> VI32 {
      VI32 r = hn::BitCast(di, hn::ConvertTo(df, hn::BitCast(di, w)));
      if constexpr (R == Rounding::kNearestEven) r = hn::Add(r, hn::And(hn::ShiftRightSame(r, p.shift), hn::Set(di, 1)));
      if constexpr (R == Rounding::kTowardsPositive) r = hn::Add(r, hn::AndNot(neg, up));
      if constexpr (R == Rounding::kTowardsNegative) r = hn::Add(r, hn::And(neg, up));
      return hn::ShiftRightSame(hn::Add(r, k), p.shift);
    };
    const auto encode16 = [&](VU16 mag, VU16 neg) -> VU16 {
      VU32 w0, w1;
      Widen16(mag, &w0, &w1);
      VI32 n0 = hn::Zero(di), n1 = hn::Zero(di);
      // (unsigned sources: no sign, the masks stay zero)
      if constexpr (std::is_signed_v<T> && (R == Rounding::kTowardsPositive || R == Rounding::kTowardsNegative)) {
        WidenMask16(neg, &n0, &n1);
      }
      const VU16 enc = Narrow32(encode(w0, n0), encode(w1, n1));
      if constexpr (std::is_signed_v<T>) return hn::Or(enc, hn::And(neg, sign_bit));
      return enc;
    };
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      PrefetchBlockUpTo<kMaxBlock * sizeof(T), kMaxBlock * kDstSize>(in, in_step, out, out_step);
      VU16 a0, a1, s0, s1;
      load(in, &a0, &s0);
      load(in + n16 * sizeof(T), &a1, &s1);
      if (HWY_UNLIKELY(AnyNonZero16(hn::SaturatedSub(hn::Max(a0, a1), limit)))) return b;
      const VU16 e0 = encode16(a0, s0), e1 = encode16(a1, s1);
      if constexpr (kDstSize == 1) {
        Store16As8(e0, e1, out);
      } else {
        hn::StoreU(e0, du16, reinterpret_cast<std::uint16_t*>(out));
        hn::StoreU(e1, du16, reinterpret_cast<std::uint16_t*>(out) + n16);
      }
    }
    return blocks;
  }
#endif  // HWY_TARGET != HWY_SCALAR

  static HWY_INLINE VU32 Convert(const Params& p, VF32 x, MU32* declined) {
    const DU32 du;
    VU32 sign;
    const VU32 enc = Encode(p, x, &sign);
    VU32 res = Signed(enc, sign);
    MU32 out = Beyond(p, enc);
    const MU32 nonfinite = NonFiniteLanes(x);
    MU32 bad = hn::MaskFromVec(hn::Zero(du));
    if (HWY_UNLIKELY(!hn::AllFalse(du, nonfinite))) {
      // R3: NaN -> canonical NaN (IEEE-like keeps the sign), Inf -> Inf; errors where absent.
      out = hn::AndNot(nonfinite, out);
      const MU32 nan = NaNLanes(x);
      const VU32 special = hn::Or(hn::And(sign, hn::Set(du, p.special_sign)),
                                  hn::IfThenElse(nan, hn::Set(du, p.nan_bits), hn::Set(du, p.inf_bits)));
      res = hn::IfThenElse(nonfinite, special, res);
      const VU32 lacks = hn::IfThenElse(nan, hn::Set(du, p.nan_bad), hn::Set(du, p.inf_bad));
      bad = hn::And(nonfinite, hn::MaskFromVec(lacks));
    }
    if constexpr (O == OutOfRange::kClamp) {
      res = hn::IfThenElse(out, hn::Or(sign, hn::Set(du, p.clamp_bits)), res);
      *declined = bad;
    } else {
      *declined = hn::Or(bad, out);
    }
    return res;
  }
};

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define ZCAST_KERNELS_HAVE_F16C 1
// float32 lanes -> float16 with F16C (vcvtps2ph, an immediate rounding mode: exact in the four
// IEEE modes, subnormal results included; DAZ/FTZ are off during a run). Nearest-away has no
// hardware mode: it is nearest-even of x with its lowest bit set (F32ToNarrow::Encode says why),
// which turns +-Inf into a NaN that Convert turns back. R1: in nearest-even (and so nearest-away)
// the hardware gives +-Inf exactly when the rounded value is beyond max (or x is +-Inf), which is
// clamp's answer; the directed modes give +-max instead for |x| >= 65536, so those lanes are
// found on x. Unset and
// error decline every +-Inf result, and in the directed modes every +-max one (it may stand for a
// value beyond max): the exact engine decides those (rare). R3: NaN -> canonical NaN, sign kept.
struct F16CParams {};  // one type for every F32ToF16C (IntStore)
template <Rounding R, OutOfRange O>
struct F32ToF16C {
  static constexpr bool kWideSources = true;       // float_lanes-inl.h
  static constexpr bool kIntSourceLanes = true;   // (float_lanes-inl.h; F16C is exact on integers too)
  static constexpr bool kFloatSourceRun = true;   // (float_lanes-inl.h: FloatSourceRun)
  using IntStore = F32ToF16C<R, OutOfRange::kUnset>;  // FastStore: R alone
  using FloatStore = IntStore;
  using Params = F16CParams;
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);  // (no float arithmetic)
  static constexpr bool kNearest = R == Rounding::kNearestEven || R == Rounding::kNearestAway;
  static constexpr bool kDirected = !kNearest;
  static constexpr int kImm = R == Rounding::kTowardsPositive   ? _MM_FROUND_TO_POS_INF
                              : R == Rounding::kTowardsNegative ? _MM_FROUND_TO_NEG_INF
                              : kNearest                        ? _MM_FROUND_TO_NEAREST_INT
                                                                : _MM_FROUND_TO_ZERO;

  using D16 = hn::Rebind<std::uint16_t, DF32>;  // half a vector of 16-bit lanes
  // x itself for the IEEE modes; for nearest-away, x with its lowest bit set (+-Inf: a NaN).
  static HWY_INLINE VF32 Prepared(VF32 x) {
    if constexpr (R == Rounding::kNearestAway) x = hn::Or(x, hn::BitCast(DF32(), hn::Set(DU32(), 1u)));
    return x;
  }
  // Prepared lanes -> float16 bits.
  static HWY_INLINE hn::Vec<D16> ToHalf(VF32 x) {
#if HWY_TARGET == HWY_AVX2
    return hn::Vec<D16>{_mm256_cvtps_ph(x.raw, kImm)};
#else
    return hn::Vec<D16>{_mm512_cvtps_ph(x.raw, kImm)};
#endif
  }

  // The common block (FloatLanes::FastBlock): the results kept in 16-bit lanes, two full vectors
  // stored as they are, and one compare per 16-bit vector: every result finite (below max in the
  // directed modes). Through Convert's 32-bit lanes (widened, then packed again by StoreBlock)
  // the kernel runs at 0.57 of this one's in-cache speed.
  static HWY_INLINE bool FastStore(const Params&, VF32 x0, VF32 x1, VF32 x2, VF32 x3, unsigned char* out) {
    const hn::Repartition<std::uint16_t, DF32> du16;
    const hn::Repartition<std::int16_t, DF32> di16;
    const auto a = hn::Combine(du16, ToHalf(Prepared(x1)), ToHalf(Prepared(x0)));
    const auto b = hn::Combine(du16, ToHalf(Prepared(x3)), ToHalf(Prepared(x2)));
    const auto mag = hn::Set(du16, std::uint16_t{0x7FFF});
    const auto limit = hn::Set(di16, static_cast<std::int16_t>(kDirected ? 0x7BFE : 0x7BFF));
    const auto bad = hn::Or(hn::Gt(hn::BitCast(di16, hn::And(a, mag)), limit),
                            hn::Gt(hn::BitCast(di16, hn::And(b, mag)), limit));
    auto* o = reinterpret_cast<std::uint16_t*>(out);
    hn::StoreU(a, du16, o);
    hn::StoreU(b, du16, o + hn::Lanes(du16));
    return hn::AllFalse(di16, bad);
  }

  static HWY_INLINE VU32 Convert(const Params&, VF32 x, MU32* declined) {
    const DU32 du;
    VU32 h = hn::PromoteTo(du, ToHalf(Prepared(x)));
    VU32 abs = hn::And(h, hn::Set(du, 0x7FFFu));
    *declined = hn::MaskFromVec(hn::Zero(du));
    // The common vector: every result finite, and below max in the directed modes (where max may
    // stand for a value beyond it). Then the hardware's result is the answer as it is: one compare.
    if (HWY_LIKELY(hn::AllFalse(du, hn::Gt(abs, hn::Set(du, kDirected ? 0x7BFEu : 0x7BFFu))))) return h;
    if constexpr (R == Rounding::kNearestAway) {  // +-Inf back from Prepared's NaN
      h = hn::IfThenElse(hn::RebindMask(du, hn::IsInf(x)), hn::Or(hn::And(h, hn::Set(du, 0x8000u)), hn::Set(du, 0x7C00u)), h);
      abs = hn::And(h, hn::Set(du, 0x7FFFu));
    }
    const VU32 sign = hn::And(h, hn::Set(du, 0x8000u));
    const MU32 nan = hn::Gt(abs, hn::Set(du, 0x7C00u));
    VU32 r = hn::IfThenElse(nan, hn::Or(sign, hn::Set(du, 0x7E00u)), h);
    MU32 out = hn::Eq(abs, hn::Set(du, 0x7C00u));
    if constexpr (O == OutOfRange::kClamp) {
      if constexpr (kDirected) {
        out = hn::AndNot(nan, hn::Or(out, GtS(AbsBits(x), hn::Set(du, 0x477FFFFFu))));
        r = hn::IfThenElse(out, hn::Or(sign, hn::Set(du, 0x7C00u)), r);
      }
    } else {
      if constexpr (kDirected) out = hn::Or(out, hn::Eq(abs, hn::Set(du, 0x7BFFu)));
      *declined = out;
    }
    return r;
  }
};
#endif

NarrowParams NarrowFacts(const TypeInfo& d) {
  NarrowParams p;
  const int emax = static_cast<int>(d.max_biased_exp()) - d.bias;
  p.shift = 23 - d.mant_bits;
  p.sign_shift = 31 - d.exp_bits - d.mant_bits;
  p.min_normal = static_cast<std::uint32_t>(128 - d.bias) << 23;
  p.exp_hi = static_cast<std::uint32_t>(emax + 1 + 127) << 23;
  p.min_normal_enc = p.min_normal >> p.shift;
  p.max_bits = static_cast<std::uint32_t>((static_cast<std::uint64_t>(d.max_biased_exp()) << d.mant_bits) |
                                          ((1ull << d.mant_bits) - 1));
  p.special_sign = d.special == Special::Ieee ? static_cast<std::uint32_t>(d.sign_bit()) : 0;
  p.nan_bits = static_cast<std::uint32_t>(d.canonical_nan());
  p.inf_bits = static_cast<std::uint32_t>(d.positive_inf());
  p.nan_bad = d.has_nan() ? 0u : ~0u;
  p.inf_bad = d.has_inf() ? 0u : ~0u;
  p.clamp_bits = d.has_inf() ? p.inf_bits : p.max_bits;
  p.dst_size = static_cast<std::uint8_t>(d.size);
  p.int_limit = 0;  // per rounding mode: MakeFloatToNarrow
  return p;
}

std::unique_ptr<const Kernel> MakeFloatToNarrow(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (d.kind != Kind::Float || d.special == Special::E8m0 || dir.src == dir.dst) return nullptr;
  if (d.size != 1 && dir.dst != DataType::float16) return nullptr;
#ifdef ZCAST_KERNELS_HAVE_F16C
  if (dir.dst == DataType::float16) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        return MakeFloatLanes<F32ToF16C<R, O>>(dir, {}, "float-lanes-to-float16-f16c", "float-lanes-int-to-float16-f16c");
      });
    });
  }
#undef ZCAST_KERNELS_HAVE_F16C
#endif
  NarrowParams p = NarrowFacts(d);
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    p.int_limit = IntLimit<R>(p);
    return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      constexpr const char* kName = "float-lanes-to-narrow-float";
      constexpr const char* kIntName = "float-lanes-int-to-narrow-float";
      if (d.special == Special::Fnuz) return MakeFloatLanes<F32ToNarrow<R, O, true>>(dir, p, kName, kIntName);
      return MakeFloatLanes<F32ToNarrow<R, O, false>>(dir, p, kName, kIntName);
    });
  });
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloatToNarrow);

std::unique_ptr<const Kernel> SelectFloatToNarrow(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloatToNarrow, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
