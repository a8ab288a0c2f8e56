// float32, float16 and bfloat16 sources -> float16 and the float8/float6/float4 formats (fnuz
// included; not float8_e8m0fnu: float_to_e8m0.cc), every rounding mode, clamp or unset (R4: wrap
// acts as unset for float destinations). Integer arithmetic on the float32 bit pattern, the same
// on every target, float16 included (the hardware's float16 conversion, F16C, has no nearest-away
// and its overflow behaviour differs per mode), except on x86 targets with F16C (AVX2, AVX3,
// AVX3_DL), where float16 is F32ToF16C below: the integer path measured 0.65-0.81 of the
// hand-written F16C kernel there (docs/performance-highway.md).
//
// Exactness. From the target's min normal up, the target encoding is the float32 pattern shifted
// right by 23 - M and rebiased, after adding the rounding increment to the magnitude (as for
// bfloat16: nearest-even 2^(s-1) - 1 + the lowest kept bit; nearest-away 2^(s-1); towards +-inf
// 2^s - 1 on the matching sign); the carry may run into the exponent field (the encoding is
// monotonic in the magnitude), and beyond max is one compare. Below the min normal (zero
// included) the encoding is x / 2^qmin rounded to an integer in mode R (up to 2^M, the min
// normal, when it rounds up): in the IEEE modes the hardware does it in one addition,
// x + sign(x) * 2^(qmin + 23), whose ulp is 2^qmin, rounded in the run's FP mode (fp_env.h), the
// encoding being the difference of the two bit patterns; nearest-away scales by 2^-qmin (exact)
// and rounds with RoundToIntegral. Both paths are computed for every lane and blended. The
// source always has more significand bits than the target and a wider exponent range, so every
// target value lies on float32's grid. NaN -> canonical NaN, Inf -> Inf, or errors where the
// target lacks them (R3); fnuz targets have no -0 (R8); clamp gives Inf where the target has it,
// else max finite (R1, R2).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_to_narrow.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

struct NarrowParams {
  int shift;                    // 23 - M: dropped bits of a float32 normal
  std::uint32_t rebias;         // (127 - bias) << M
  std::uint32_t min_normal;     // float32 bits of the target's min normal, 2^(1 - bias)
  std::uint32_t magic_bits;     // float32 bits of 2^(qmin + 23), whose ulp is the target's quantum
  float sub_scale;              // 2^-qmin: the target's subnormal quantum becomes 1
  std::uint32_t max_bits;       // encoding of max finite
  std::uint32_t sign_bit;       // 1 << (E + M)
  std::uint32_t special_sign;   // sign_bit where NaN/Inf keep their sign (IEEE-like), else 0
  std::uint32_t nan_bits, inf_bits;
  std::uint32_t nan_bad, inf_bad;  // all ones where the target lacks NaN / Inf (R3: errors)
  std::uint32_t clamp_bits;     // R1: Inf where the target has it, else max finite (R2)
};

template <Rounding R, OutOfRange O, bool kFnuz>
struct F32ToNarrow {
  static constexpr bool kWideSources = true;  // float_lanes-inl.h
  using Params = NarrowParams;
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);

  static HWY_INLINE VU32 Convert(const Params& p, VF32 x, MU32* declined) {
    const DF32 df;
    const DU32 du;
    const DI32 di;
    const VU32 bits = hn::BitCast(du, x);
    const VU32 a = AbsBits(x);
    const VU32 neg = hn::BitCast(du, hn::ShiftRight<31>(hn::BitCast(di, bits)));  // all ones if x < 0
    VU32 add;
    const std::uint32_t half = 1u << (p.shift - 1);
    if constexpr (R == Rounding::kNearestEven)
      add = hn::Add(hn::Set(du, half - 1), hn::And(hn::ShiftRightSame(a, p.shift), hn::Set(du, 1)));
    else if constexpr (R == Rounding::kNearestAway) add = hn::Set(du, half);
    else if constexpr (R == Rounding::kTowardsZero) add = hn::Zero(du);
    else if constexpr (R == Rounding::kTowardsPositive) add = hn::AndNot(neg, hn::Set(du, 2 * half - 1));
    else add = hn::And(neg, hn::Set(du, 2 * half - 1));
    const VU32 normal = hn::Sub(hn::ShiftRightSame(hn::Add(a, add), p.shift), hn::Set(du, p.rebias));
    VU32 small;
    if constexpr (R == Rounding::kNearestAway) {
      VF32 scaled = RoundToIntegral<R>(hn::Mul(x, hn::Set(df, p.sub_scale)));
      // Only the lanes below the min normal use `small` (at most 2^M there). The emulated targets
      // convert with a C++ cast per lane, undefined for NaN and beyond int32, so every other lane
      // is made 0 first (NaN compares false); the vector targets convert with an instruction.
      if constexpr (HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR)
        scaled = hn::IfThenElseZero(hn::Lt(hn::Abs(scaled), hn::Set(df, 0x1p30f)), scaled);
      small = hn::BitCast(du, hn::Abs(hn::ConvertTo(di, scaled)));
    } else {
      const VU32 magic = hn::Set(du, p.magic_bits);
      const VF32 y = hn::Add(x, hn::BitCast(df, hn::Or(hn::And(bits, hn::Set(du, 0x80000000u)), magic)));
      small = hn::Sub(AbsBits(y), magic);
    }
    const auto is_small = hn::RebindMask(du, hn::Gt(hn::Set(di, static_cast<std::int32_t>(p.min_normal)), hn::BitCast(di, a)));
    const VU32 enc = hn::IfThenElse(is_small, small, normal);
    VU32 sign = hn::And(neg, hn::Set(du, p.sign_bit));
    if constexpr (kFnuz) sign = hn::IfThenZeroElse(hn::Eq(enc, hn::Zero(du)), sign);
    VU32 res = hn::Or(enc, sign);
    MU32 out = hn::RebindMask(du, hn::Gt(hn::BitCast(di, enc), hn::Set(di, static_cast<std::int32_t>(p.max_bits))));
    const MU32 nonfinite = NonFiniteLanes(x);
    MU32 bad = hn::MaskFromVec(hn::Zero(du));
    if (HWY_UNLIKELY(!hn::AllFalse(du, nonfinite))) {
      // R3: NaN -> canonical NaN (IEEE-like keeps the sign), Inf -> Inf; errors where absent.
      out = hn::AndNot(nonfinite, out);
      const MU32 nan = NaNLanes(x);
      const VU32 special = hn::Or(hn::And(neg, hn::Set(du, p.special_sign)),
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
// hardware mode: truncating x + sign(x) * half a float16 ulp at x (2^(E - 11), at least 2^-25, the
// half quantum) is nearest-away; the float32 addition is done towards zero too (kFpRounding), which
// cannot change the result (float16's grid is part of float32's: truncating twice is truncating
// once). R1: in nearest-even the hardware gives +-Inf exactly when the rounded value is beyond max
// (or x is +-Inf), which is clamp's answer; the directed modes (and nearest-away's truncation) give
// +-max instead for |x| >= 65536 (x after the addition), so those lanes are found on x. Unset and
// error decline every +-Inf result, and in the directed modes every +-max one (it may stand for a
// value beyond max): the exact engine decides those (rare). R3: NaN -> canonical NaN, sign kept.
template <Rounding R, OutOfRange O>
struct F32ToF16C {
  static constexpr bool kWideSources = true;       // float_lanes-inl.h
  static constexpr bool kInlineIntSources = true;  // (the 8- and 16-bit integers)
  struct Params {};
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding =
      R == Rounding::kNearestAway ? FpRounding::kTowardsZero : FpRoundingOf(R);
  static constexpr bool kDirected = R != Rounding::kNearestEven;
  static constexpr int kImm = R == Rounding::kTowardsPositive   ? _MM_FROUND_TO_POS_INF
                              : R == Rounding::kTowardsNegative ? _MM_FROUND_TO_NEG_INF
                              : R == Rounding::kNearestEven     ? _MM_FROUND_TO_NEAREST_INT
                                                                : _MM_FROUND_TO_ZERO;

  using D16 = hn::Rebind<std::uint16_t, DF32>;  // half a vector of 16-bit lanes
  // x itself for the IEEE modes; for nearest-away, x plus half an ulp (Convert's overflow test
  // reads this value).
  static HWY_INLINE VF32 Prepared(VF32 x) {
    if constexpr (R == Rounding::kNearestAway) {
      const DF32 df;
      const DU32 du;
      const DI32 di;
      const VI32 e = hn::BitCast(di, hn::And(hn::BitCast(du, x), hn::Set(du, 0x7F800000u)));
      const VI32 half = hn::Max(hn::Sub(e, hn::Set(di, 11 << 23)), hn::Set(di, 0x33000000));  // 2^-25
      x = hn::Add(x, hn::BitCast(df, hn::Or(hn::BitCast(du, half), hn::And(hn::BitCast(du, x), hn::Set(du, 0x80000000u)))));
    }
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
  // the kernel measured 0.57 of the hand-written F16C kernel's in-cache speed.
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
    x = Prepared(x);
    const VU32 h = hn::PromoteTo(du, ToHalf(x));
    const VU32 abs = hn::And(h, hn::Set(du, 0x7FFFu));
    *declined = hn::MaskFromVec(hn::Zero(du));
    // The common vector: every result finite, and below max in the directed modes (where max may
    // stand for a value beyond it). Then the hardware's result is the answer as it is: one compare.
    if (HWY_LIKELY(hn::AllFalse(du, hn::Gt(abs, hn::Set(du, kDirected ? 0x7BFEu : 0x7BFFu))))) return h;
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
  p.shift = 23 - d.mant_bits;
  p.rebias = static_cast<std::uint32_t>(127 - d.bias) << d.mant_bits;
  p.min_normal = static_cast<std::uint32_t>(128 - d.bias) << 23;
  p.magic_bits = static_cast<std::uint32_t>(d.min_quantum_exp() + 23 + 127) << 23;
  p.sub_scale = std::ldexp(1.0f, -d.min_quantum_exp());
  p.max_bits = static_cast<std::uint32_t>((static_cast<std::uint64_t>(d.max_biased_exp()) << d.mant_bits) |
                                          ((1ull << d.mant_bits) - 1));
  p.sign_bit = static_cast<std::uint32_t>(d.sign_bit());
  p.special_sign = d.special == Special::Ieee ? p.sign_bit : 0;
  p.nan_bits = static_cast<std::uint32_t>(d.canonical_nan());
  p.inf_bits = static_cast<std::uint32_t>(d.positive_inf());
  p.nan_bad = d.has_nan() ? 0u : ~0u;
  p.inf_bad = d.has_inf() ? 0u : ~0u;
  p.clamp_bits = d.has_inf() ? p.inf_bits : p.max_bits;
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
        return MakeFloatLanes<F32ToF16C<R, O>>(dir, {}, "float-lanes-to-float16-f16c");
      });
    });
  }
#undef ZCAST_KERNELS_HAVE_F16C
#endif
  const NarrowParams p = NarrowFacts(d);
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      if (d.special == Special::Fnuz) return MakeFloatLanes<F32ToNarrow<R, O, true>>(dir, p, "float-lanes-to-narrow-float");
      return MakeFloatLanes<F32ToNarrow<R, O, false>>(dir, p, "float-lanes-to-narrow-float");
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
