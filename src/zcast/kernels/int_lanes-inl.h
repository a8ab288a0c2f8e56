// Per-target loaders and converters of the int-lane family (int_lanes.cc): integer sources of at
// most 32 bits and float8/6/4 sources in int32 lanes, converted to integers of at most 32 bits or
// to float32 bits. Included once per Highway target.

#if defined(ZCAST_SRC_KERNELS_INT_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_SRC_KERNELS_INT_LANES_INL_H_
#undef ZCAST_SRC_KERNELS_INT_LANES_INL_H_
#else
#define ZCAST_SRC_KERNELS_INT_LANES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "zcast/kernels.h"
#include "zcast/kernels/fp_env.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DI32 = hn::ScalableTag<std::int32_t>;
using VI32 = hn::Vec<DI32>;
using MI32 = hn::Mask<DI32>;

// ---- loaders: Lanes(DI32) source elements at p -> their values in int32 lanes ----

template <typename T>
struct LoadPromoted {
  static constexpr std::size_t kSize = sizeof(T);
  static HWY_INLINE VI32 Load(const unsigned char* p) {
    const DI32 d;
    if constexpr (sizeof(T) == 4) {
      return hn::LoadU(d, reinterpret_cast<const std::int32_t*>(p));
    } else {
      const hn::Rebind<T, DI32> dn;
      return hn::PromoteTo(d, hn::LoadU(dn, reinterpret_cast<const T*>(p)));
    }
  }
};
using LoadU8 = LoadPromoted<std::uint8_t>;
using LoadI8 = LoadPromoted<std::int8_t>;
using LoadU16 = LoadPromoted<std::uint16_t>;
using LoadI16 = LoadPromoted<std::int16_t>;
using LoadI32 = LoadPromoted<std::int32_t>;

// int2/int4/uint2/uint4: the value bits of each byte, sign-extended for the signed ones (the upper
// bits of the byte are ignored).
template <int kBits, bool kSigned>
struct LoadSubByte {
  static constexpr std::size_t kSize = 1;
  static HWY_INLINE VI32 Load(const unsigned char* p) {
    const DI32 d;
    const VI32 v = LoadU8::Load(p);
    if constexpr (kSigned) return hn::ShiftRight<32 - kBits>(hn::ShiftLeft<32 - kBits>(v));
    else return hn::And(v, hn::Set(d, (1 << kBits) - 1));
  }
};

// ---- converters: int32 lanes -> destination bits in int32 lanes, and the declined lanes ----

// -> an integer type of at most 32 bits: a range check, clamp by min/max, wrap by the mask (R5).
struct IntRangeConsts {
  std::int32_t lo, hi;
  std::uint32_t mask;
};
template <OutOfRange O>
struct IntToInt {
  using Consts = IntRangeConsts;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  static HWY_INLINE VI32 Convert(const Consts& c, VI32 v, MI32* declined) {
    const DI32 d;
    const VI32 mask = hn::Set(d, static_cast<std::int32_t>(c.mask));
    const VI32 lo = hn::Set(d, c.lo), hi = hn::Set(d, c.hi);
    if constexpr (O == OutOfRange::kClamp) {
      *declined = hn::FirstN(d, 0);
      return hn::And(hn::Min(hn::Max(v, lo), hi), mask);
    } else if constexpr (O == OutOfRange::kWrap) {
      *declined = hn::FirstN(d, 0);
      return hn::And(v, mask);
    } else {
      *declined = hn::Or(hn::Lt(v, lo), hn::Gt(v, hi));
      return hn::And(v, mask);
    }
  }
};

// -> float32 by the hardware conversion (cvtdq2ps / scvtf / svcvt), which rounds in the run's FP
// environment (kFp: fp_env.h sets the direction for the IEEE modes): exact for |v| <= 2^24 in
// every mode, one correct rounding beyond. kDeclineWide declines |v| > 2^24 where that rounding is
// not the one asked for: nearest-away (no hardware mode), and the directed modes on the portable
// targets, whose scalar conversion the compiler may treat as if the environment were the default.
template <FpRounding kFp, bool kDeclineWide>
struct IntToF32 {
  struct Consts {};
  static constexpr FpRounding kFpRounding = kFp;
  static HWY_INLINE VI32 Convert(const Consts&, VI32 v, MI32* declined) {
    const DI32 d;
    const hn::Rebind<float, DI32> df;
    if constexpr (kDeclineWide) {
      *declined = hn::Or(hn::Gt(v, hn::Set(d, 1 << 24)), hn::Lt(v, hn::Set(d, -(1 << 24))));
    } else {
      *declined = hn::FirstN(d, 0);
    }
    return hn::BitCast(d, hn::ConvertTo(df, v));
  }
};

// A float8 (or float6/float4) encoding in an int32 lane -> float32 bits, exactly and without a
// float multiply (nothing depends on FTZ/DAZ). Normal values move their exponent and mantissa
// fields to float32's positions and rebias the exponent (an integer add of (127 - bias) << 23);
// a subnormal's magnitude m < 2^M converts exactly to float32 and m * 2^qmin is that with qmin
// added to its exponent field (a normal float32: qmin >= -16 for every source); zero stays zero.
// Then the sign bit and the specials (kKind): IEEE-like Inf and NaN (exponent field all ones),
// fnuz NaN 0x80 (R3: float32's quiet NaN, sign kept for IEEE-like sources, none for fnuz).
enum class Special8 { kNone, kIeee, kFnuz };
struct Float8Consts {
  std::int32_t value_mask, mag_mask, inf_mag;  // inf_mag: exponent field all ones, mantissa 0
  int shift, sign_shift;                       // 23 - M, 31 - (E + M)
  std::int32_t rebias, min_normal_mag;         // (127 - bias) << 23, 1 << M
  std::int32_t sub_adjust;                     // qmin << 23 (negative)
};
inline Float8Consts Float8ConstsOf(const TypeInfo& s) {
  Float8Consts c;
  c.value_mask = static_cast<std::int32_t>(s.value_mask());
  c.mag_mask = (1 << (s.exp_bits + s.mant_bits)) - 1;
  c.inf_mag = static_cast<std::int32_t>(s.positive_inf());
  c.shift = 23 - s.mant_bits;
  c.sign_shift = 31 - (s.exp_bits + s.mant_bits);
  c.rebias = (127 - s.bias) * (1 << 23);
  c.min_normal_mag = 1 << s.mant_bits;
  c.sub_adjust = s.min_quantum_exp() * (1 << 23);
  return c;
}
template <Special8 kKind>
struct Float8ToF32 {
  using Consts = Float8Consts;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  static HWY_INLINE VI32 Convert(const Consts& c, VI32 v, MI32* declined) {
    const DI32 d;
    const hn::Rebind<float, DI32> df;
    *declined = hn::FirstN(d, 0);
    const VI32 s = hn::And(v, hn::Set(d, c.value_mask));
    const VI32 mag = hn::And(s, hn::Set(d, c.mag_mask));
    const VI32 normal = hn::Add(hn::ShiftLeftSame(mag, c.shift), hn::Set(d, c.rebias));
    const VI32 sub = hn::Add(hn::BitCast(d, hn::ConvertTo(df, mag)), hn::Set(d, c.sub_adjust));
    const VI32 small = hn::IfThenZeroElse(hn::Eq(mag, hn::Zero(d)), sub);
    const VI32 f = hn::IfThenElse(hn::Lt(mag, hn::Set(d, c.min_normal_mag)), small, normal);
    const VI32 sign = hn::ShiftLeftSame(hn::Xor(s, mag), c.sign_shift);
    VI32 res = hn::Or(f, sign);
    if constexpr (kKind == Special8::kIeee) {
      const VI32 inf_mag = hn::Set(d, c.inf_mag);
      const MI32 special = hn::Gt(mag, hn::Sub(inf_mag, hn::Set(d, 1)));
      if (!hn::AllFalse(d, special)) [[unlikely]] {
        res = hn::IfThenElse(hn::Gt(mag, inf_mag), hn::Or(sign, hn::Set(d, 0x7FC00000)), res);
        res = hn::IfThenElse(hn::Eq(mag, inf_mag), hn::Or(sign, hn::Set(d, 0x7F800000)), res);
      }
    } else if constexpr (kKind == Special8::kFnuz) {
      res = hn::IfThenElse(hn::Eq(s, hn::Set(d, 0x80)), hn::Set(d, 0x7FC00000), res);
    }
    return res;
  }
};

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
