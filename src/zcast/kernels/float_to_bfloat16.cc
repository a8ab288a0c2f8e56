// float32 and float16 sources -> bfloat16, and every float-lane source -> float8_e8m0fnu, in every
// rounding mode and out_of_range setting. Highway 1.0.3's bfloat16 DemoteTo truncates, so both are
// integer arithmetic on the float32 bit pattern.
//
// bfloat16 is float32 with the low 16 bits dropped, so rounding is one add to the bit pattern
// before the shift (nearest-even: 0x7FFF plus the lowest kept bit; nearest-away: 0x8000; towards
// +-inf: 0xFFFF on the matching sign; the sign bit is untouched because the magnitude stays below
// 2^31), exact for subnormals too (same exponent range). The carry may reach 0x7F80 and no
// further: exactly +-Inf, which is clamp's answer (R1) and the right one for Inf inputs; a NaN
// input is canonicalised (R3). Under unset a +-Inf result from a finite input is declined.
//
// float8_e8m0fnu (R6): the result is a power of two whose biased exponent is float32's own (both
// biases are 127), plus one where the value rounds up: nearest modes from 1.5 * 2^e up (R6 sends
// the tie up in both), towards-positive for anything above 2^e, never for towards-zero/negative.
// Only positive normal float32 values whose result stays below 0xFF are converted here; zero,
// negatives, subnormals, Inf, NaN and the lanes that would round past 2^127 are declined to the
// engine (out of range or special under R2/R3/R6; real data, scale factors, rarely has them).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/float_to_bfloat16.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/float_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

template <Rounding R, OutOfRange O>
struct F32ToBf16 {
  static constexpr bool kWideSources = true;  // float_lanes-inl.h
  struct Params {};
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;

  // The rounded pattern, sign included (for finite x: NaN patterns may wrap).
  static HWY_INLINE VU32 Rounded(VU32 bits) {
    const DU32 du;
    if constexpr (R == Rounding::kTowardsZero) {
      return hn::ShiftRight<16>(bits);
    } else if constexpr (R == Rounding::kNearestEven) {
      return hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u)))));
    } else if constexpr (R == Rounding::kNearestAway) {
      return hn::ShiftRight<16>(hn::Add(bits, hn::Set(du, 0x8000u)));
    } else {
      const VU32 neg = hn::BitCast(du, hn::ShiftRight<31>(hn::BitCast(DI32(), bits)));
      const VU32 add = R == Rounding::kTowardsPositive ? hn::AndNot(neg, hn::Set(du, 0xFFFFu)) : hn::And(neg, hn::Set(du, 0xFFFFu));
      return hn::ShiftRight<16>(hn::Add(bits, add));
    }
  }

  // The common block (FloatLanes::FastBlock): every |x| at most the largest float32 pattern that
  // rounds to a finite bfloat16 in mode R (the directed modes: either sign), so the rounded
  // patterns are the answers; one test per block on the inputs (a NaN's pattern may wrap in the
  // addition, so the results cannot tell). 8 operations per vector where Convert takes 14.
  static constexpr std::uint32_t kFiniteMax = R == Rounding::kTowardsZero ? 0x7F7FFFFFu
                                              : (R == Rounding::kNearestEven || R == Rounding::kNearestAway)
                                                  ? 0x7F7F7FFFu
                                                  : 0x7F7F0000u;
  static HWY_INLINE bool FastStore(const Params&, VF32 x0, VF32 x1, VF32 x2, VF32 x3, unsigned char* out) {
    const DU32 du;
    const VU32 lim = hn::Set(du, kFiniteMax);
    const MU32 odd = hn::Or(hn::Or(GtS(AbsBits(x0), lim), GtS(AbsBits(x1), lim)),
                            hn::Or(GtS(AbsBits(x2), lim), GtS(AbsBits(x3), lim)));
    StoreBlockOf<2>(Rounded(hn::BitCast(du, x0)), Rounded(hn::BitCast(du, x1)), Rounded(hn::BitCast(du, x2)),
                    Rounded(hn::BitCast(du, x3)), out);
    return hn::AllFalse(du, odd);
  }

  static HWY_INLINE VU32 Convert(const Params&, VF32 x, MU32* declined) {
    const DU32 du;
    const VU32 bits = hn::BitCast(du, x);
    const VU32 r = Rounded(bits);
    const MU32 nan = NaNLanes(x);
    const VU32 sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u));
    const VU32 res = hn::IfThenElse(nan, hn::Or(sign, hn::Set(du, 0x7FC0u)), r);
    if constexpr (O == OutOfRange::kClamp) {
      *declined = hn::MaskFromVec(hn::Zero(du));
    } else {
      // Unset: +-Inf results from finite inputs are out of range (Inf inputs go along: rare).
      const MU32 inf = GtS(hn::And(r, hn::Set(du, 0x7FFFu)), hn::Set(du, 0x7F7Fu));
      *declined = hn::AndNot(nan, inf);
    }
    return res;
  }
};

template <Rounding R>
struct F32ToE8m0 {
  static constexpr bool kWideSources = true;  // float_lanes-inl.h
  struct Params {};
  static constexpr bool kDeclinesNonFinite = true;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;

  static HWY_INLINE VU32 Convert(const Params&, VF32 x, MU32* declined) {
    const DU32 du;
    const DI32 di;
    const VU32 bits = hn::BitCast(du, x);
    const VI32 e = hn::BitCast(di, hn::ShiftRight<23>(bits));  // the sign lands in bit 8: negatives > 255
    const VU32 m = hn::And(bits, hn::Set(du, 0x7FFFFFu));
    VI32 r = e;
    if constexpr (R == Rounding::kNearestEven || R == Rounding::kNearestAway)
      r = hn::Add(e, hn::IfThenElseZero(hn::RebindMask(di, GtS(m, hn::Set(du, 0x3FFFFFu))), hn::Set(di, 1)));
    else if constexpr (R == Rounding::kTowardsPositive)
      r = hn::Add(e, hn::IfThenZeroElse(hn::RebindMask(di, hn::Eq(m, hn::Zero(du))), hn::Set(di, 1)));
    const auto bad = hn::Or(hn::Eq(e, hn::Zero(di)), hn::Gt(r, hn::Set(di, 254)));
    *declined = hn::RebindMask(du, bad);
    return hn::And(hn::BitCast(du, r), hn::Set(du, 0xFFu));
  }
};

std::unique_ptr<const Kernel> MakeFloatToBfloat16(const Direction& dir) {
  if (dir.src == dir.dst) return nullptr;  // bfloat16 -> bfloat16: the table
  if (dir.dst == DataType::bfloat16) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        return MakeFloatLanes<F32ToBf16<R, O>>(dir, {}, "float-lanes-to-bfloat16");
      });
    });
  }
  if (dir.dst == DataType::float8_e8m0fnu) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return MakeFloatLanes<F32ToE8m0<R>>(dir, {}, "float-lanes-to-e8m0");
    });
  }
  return nullptr;
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeFloatToBfloat16);

std::unique_ptr<const Kernel> SelectFloatToBfloat16(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeFloatToBfloat16, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
