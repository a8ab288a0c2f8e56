// Per-target helpers of the float64 and 64-bit families (float64_to_float32.cc,
// float64_to_int.cc, lanes64.cc, int64_to_float.cc) and of the float-lane converters that take
// float64 sources through float32 rounded to odd (LoadF64Odd, float64_odd-inl.h): the loaders
// that give float64 lanes, rounding to an integer in each mode, the float64 <-> 64-bit integer
// conversions, and the one float64 -> float32 rounding.
//
// Which Highway ops follow the FP environment (fp_env.h sets it for the run: x86 MXCSR, aarch64
// FPCR, rounding as the family asks), checked per target by kernels_test.cc's per-target runs:
// - DemoteTo(float <- double) is vcvtpd2ps (SSE4/AVX2/AVX3), FCVTN (NEON), FCVT (SVE): one IEEE
//   rounding in the environment's mode. EMU128 and SCALAR clamp |x| > FLT_MAX and +-Inf to
//   +-FLT_MAX instead, so DemoteF64ToF32 converts those lanes itself (a C++ cast, which the
//   compiler emits as the hardware's scalar conversion, in the environment's mode).
// - ConvertTo(double <- int64/uint64) is vcvt[u]qq2pd on AVX3 (environment's mode), SCVTF/UCVTF
//   on NEON and SVE (FPCR's mode), a C++ cast on EMU128/SCALAR; on SSE4/AVX2 Highway 1.0.3
//   emulates the signed one with two additions, which under towards-negative turns 0 into -0, so
//   those targets use Int64ToF64 below (one addition, the sign of 0 restored). The C++ cast of a
//   uint64 on EMU128/SCALAR is no better: x86 below AVX-512 has no unsigned conversion, and
//   clang lowers it with the same two-addition trick (uint64 0 -> -0 under towards-negative; found
//   by the clang sanitizer build's EMU128 tests), so the emulated targets use Int64ToF64's own
//   formula for uint64 too.
// - Round/Floor/Ceil/Trunc are explicit (roundpd with an immediate, FRINTN/M/P/Z): no environment.
//   EMU128 and SCALAR emulate them per lane in C++ (Round through a cast of v + 0.5, Ceil(+0) =
//   -0); those targets round with RoundF64's own formulas instead, whose argument is below.
// Checked by fault injection (kernels_float64_test.cc fails without the workaround): SCALAR's
// DemoteTo (float64 -> float32 max instead of Inf) and SSE4/AVX2's ConvertTo (int64/uint64 0 ->
// -0 under towards-negative).
// - ConvertTo/DemoteTo(int <- double) truncate: they only ever see integral values here.
//
// Include after zcast/kernels/block-inl.h (the Family concept, VectorMap, Resolver).
#if defined(ZCAST_KERNELS_FLOAT64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_KERNELS_FLOAT64_INL_H_
#undef ZCAST_KERNELS_FLOAT64_INL_H_
#else
#define ZCAST_KERNELS_FLOAT64_INL_H_
#endif

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <hwy/highway.h>

#include "zcast/zcast.hpp"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<double>;      // float64 lanes
using DU = hn::RebindToUnsigned<DF>;     // their bits
using DI = hn::RebindToSigned<DF>;
using DN32 = hn::Rebind<std::uint32_t, DF>;  // one 32-bit result per float64 lane ("narrow")
using DNI32 = hn::Rebind<std::int32_t, DF>;
using DNF32 = hn::Rebind<float, DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using VN32 = hn::Vec<DN32>;
using MN32 = hn::Mask<DN32>;
using MF = hn::Mask<DF>;

// The targets whose float ops are C++ per lane (no vector unit): their Highway rounding and
// float64 -> float32 ops are not used (see the top of this file).
constexpr bool kEmulated = HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR;
// x86 targets below AVX-512: no float64 <-> int64 conversion instructions.
constexpr bool kX86NoInt64Convert = HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2;
// Where float64 -> int64 is computed from the bits (IntegralTo64): no instruction, or a C++ cast
// that would be undefined for NaN lanes.
constexpr bool kNoInt64Convert = kX86NoInt64Convert || kEmulated;
// Where int64/uint64 -> double is not left to ConvertTo (Int64ToF64: see the top of this file).
template <bool kSigned>
constexpr bool kOwnInt64ToF64 = kX86NoInt64Convert || (kEmulated && !kSigned);

// A mask of float64 lanes as all-ones/zero 32-bit lanes (for results in 32-bit lanes).
HWY_INLINE VN32 Narrow(MF m) { return hn::TruncateTo(DN32(), hn::VecFromMask(DU(), hn::RebindMask(DU(), m))); }
// A mask of float64 lanes as a mask of DM's lanes (DF itself, or DN32: as many lanes, 32 bits).
template <class DM>
HWY_INLINE hn::Mask<DM> ToMask(MF m) {
  if constexpr (std::is_same_v<DM, DF>) return m;
  else return hn::MaskFromVec(Narrow(m));
}

HWY_INLINE MF IsNaN64(VF x) { return hn::IsNaN(x); }
// NaN or +-Inf: not (|x| < Inf), NaN's compare being false. Highway 1.0.3's IsFinite below
// AVX-512 works on the bits with 64-bit integer shifts and compares (six instructions on AVX2
// against three here); AVX-512 classifies in one instruction (vfpclasspd), so it keeps it.
HWY_INLINE MF NonFinite64(VF x) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  return hn::Not(hn::IsFinite(x));
#else
  const DF d;
  return hn::Not(hn::Lt(hn::Abs(x), hn::Set(d, HUGE_VAL)));
#endif
}

// ---- loaders: Lanes(DF) source elements -> float64 lanes, and the lanes they cannot convert
// exactly (declined). Pointers may have any alignment (LoadU).

struct LoadD64 {
  static constexpr std::size_t kSize = 8;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    const DF d;
    *bad = hn::FirstN(d, 0);
    return hn::LoadU(d, reinterpret_cast<const double*>(p));
  }
};
struct LoadF32D {
  static constexpr std::size_t kSize = 4;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    const DF d;
    *bad = hn::FirstN(d, 0);
    return hn::PromoteTo(d, hn::LoadU(DNF32(), reinterpret_cast<const float*>(p)));
  }
};
struct LoadI32D {
  static constexpr std::size_t kSize = 4;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    const DF d;
    *bad = hn::FirstN(d, 0);
    return hn::PromoteTo(d, hn::LoadU(DNI32(), reinterpret_cast<const std::int32_t*>(p)));
  }
};
// 2^52 + v has v as its low significand bits; the subtraction is exact, and gives +0 for v = 0
// only in the nearest modes (the families using it run in nearest-even).
struct LoadU32D {
  static constexpr std::size_t kSize = 4;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    const DF d;
    *bad = hn::FirstN(d, 0);
    VU v = hn::PromoteTo(DU(), hn::LoadU(DN32(), reinterpret_cast<const std::uint32_t*>(p)));
    return hn::Sub(hn::BitCast(d, hn::Or(v, hn::Set(DU(), 0x4330000000000000ull))), hn::Set(d, 0x1p52));
  }
};

// int64/uint64 -> double with one rounding in the environment's mode. Without a conversion
// instruction: v = hi * 2^32 + lo, both parts exact by the 2^84 / 2^52 exponent tricks (hi signed:
// biased by 2^31 first), then one addition, the sign of an exact zero taken from v (towards
// negative gives -0 for x - x).
template <bool kSigned>
HWY_INLINE VF Int64ToF64(VU v) {
  const DF d;
  if constexpr (!kOwnInt64ToF64<kSigned>) {
    if constexpr (kSigned) return hn::ConvertTo(d, hn::BitCast(DI(), v));
    else return hn::ConvertTo(d, v);
  } else {
    VU hi = hn::ShiftRight<32>(v);
    if constexpr (kSigned) hi = hn::Xor(hi, hn::Set(DU(), 0x80000000ull));
    VF dh = hn::Sub(hn::BitCast(d, hn::Or(hi, hn::Set(DU(), 0x4530000000000000ull))),
                    hn::Set(d, kSigned ? 0x1p84 + 0x1p63 : 0x1p84));
    VU lo = hn::Or(hn::And(v, hn::Set(DU(), 0xFFFFFFFFull)), hn::Set(DU(), 0x4330000000000000ull));
    VF dl = hn::Sub(hn::BitCast(d, lo), hn::Set(d, 0x1p52));
    VU r = hn::And(hn::BitCast(DU(), hn::Add(dh, dl)), hn::Set(DU(), 0x7FFFFFFFFFFFFFFFull));
    if constexpr (kSigned) r = hn::Or(r, hn::And(v, hn::Set(DU(), 0x8000000000000000ull)));
    return hn::BitCast(d, r);
  }
}
// |v| > 2^53: not exact in double.
template <bool kSigned>
HWY_INLINE MF Int64Wide(VU v) {
  if constexpr (kSigned) {
    const DI di;
    hn::Vec<DI> s = hn::BitCast(di, v);
    auto m = hn::Or(hn::Gt(s, hn::Set(di, std::int64_t{1} << 53)), hn::Lt(s, hn::Set(di, -(std::int64_t{1} << 53))));
    return hn::RebindMask(DF(), m);
  } else {
    return hn::RebindMask(DF(), hn::Gt(v, hn::Set(DU(), std::uint64_t{1} << 53)));
  }
}
template <bool kSigned>
struct LoadI64D {  // exact up to 2^53 in magnitude, declined above
  static constexpr std::size_t kSize = 8;
  static constexpr bool kMayDecline = true;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    VU v = hn::LoadU(DU(), reinterpret_cast<const std::uint64_t*>(p));
    *bad = Int64Wide<kSigned>(v);
    return Int64ToF64<kSigned>(v);
  }
};
// int64/uint64 -> double for a float32 result, nothing declined: exact up to 2^53 in magnitude;
// above, the magnitude's bits below bit 11 are folded into bit 11 (set if any was): a rounding to
// odd that keeps at least 42 bits and is exact in double (53 bits from bit 11 up). Rounding that
// once more to float32's 24 bits gives the result of rounding the integer itself, in every mode
// (a point or midpoint of the 24-bit grid is never produced by rounding to odd on a grid 2 or more
// bits finer, unless exact). The lanes are then not the source values: used without scalar_map.
template <bool kSigned>
struct LoadI64DOdd {
  static constexpr std::size_t kSize = 8;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    const DU du;
    VU v = hn::LoadU(du, reinterpret_cast<const std::uint64_t*>(p));
    VU sign = kSigned ? hn::BitCast(du, hn::BroadcastSignBit(hn::BitCast(DI(), v))) : hn::Zero(du);
    VU mag = hn::Sub(hn::Xor(v, sign), sign);  // 2^63 for INT64_MIN: right as unsigned
    VU low = hn::And(mag, hn::Set(du, 0x7FF));
    VU sticky = hn::IfThenElseZero(hn::Ne(low, hn::Zero(du)), hn::Set(du, 0x800));
    VU folded = hn::Or(hn::AndNot(hn::Set(du, 0x7FF), mag), sticky);
    mag = hn::IfThenElse(hn::RebindMask(du, Int64Wide<false>(mag)), folded, mag);
    *bad = hn::FirstN(DF(), 0);
    // mag now has at most 53 significant bits: its conversion is exact in every mode.
    VF r = Int64ToF64<false>(mag);
    return hn::Or(r, hn::BitCast(DF(), hn::And(sign, hn::Set(du, 0x8000000000000000ull))));
  }
};

// ---- rounding to an integral double in mode R ----
//
// Nearest-away is trunc(x + sign(x) * pred(0.5)), the sum rounded to nearest-even (every family
// using this mode runs in the nearest-even environment). With pred(0.5) = 0.5 - 2^-54: a fraction
// >= 0.5 sums to >= 1 - 2^-54, which rounds to the next integer (the spacing below it is >= 2^-53,
// and at 0.5 the tie goes to even 1.0); a fraction < 0.5 leaves a gap to the next integer of more
// than half the spacing there; and |x| >= 2^52 is integral with an ulp >= 1, so the sum rounds back
// to x. The emulated targets (kEmulated) build the other modes on Trunc, which they do exactly
// (a cast to int64 below 2^52); nearest-even there is the 2^52 addition, in the nearest-even
// environment too. Only integer destinations use this, so the sign of a zero does not matter.
template <Rounding R>
HWY_INLINE VF RoundF64(VF x) {
  const DF d;
  if constexpr (R == Rounding::kNearestAway) {
    static_assert(0.5 - 0x1p-54 == 0x1.fffffffffffffp-2);
    VF h = hn::IfNegativeThenElse(x, hn::Set(d, -0x1.fffffffffffffp-2), hn::Set(d, 0x1.fffffffffffffp-2));
    return hn::Trunc(hn::Add(x, h));
  } else if constexpr (R == Rounding::kTowardsZero) {
    return hn::Trunc(x);
  } else if constexpr (!kEmulated) {
    if constexpr (R == Rounding::kNearestEven) return hn::Round(x);
    else if constexpr (R == Rounding::kTowardsPositive) return hn::Ceil(x);
    else return hn::Floor(x);
  } else {
    if constexpr (R == Rounding::kNearestEven) {
      const VF big = hn::Set(d, 0x1p52);
      VF a = hn::Abs(x);
      VF t = hn::Sub(hn::Add(a, big), big);
      return hn::CopySign(hn::IfThenElse(hn::Lt(a, big), t, a), x);
    }
    VF t = hn::Trunc(x);
    if constexpr (R == Rounding::kTowardsPositive)
      return hn::Add(t, hn::IfThenElseZero(hn::Lt(t, x), hn::Set(d, 1.0)));
    else
      return hn::Sub(t, hn::IfThenElseZero(hn::Gt(t, x), hn::Set(d, 1.0)));
  }
}

// The integer value of an integral double modulo 2^64 (R5's wrap): the significand shifted by
// (exponent - 52) either way; shifts by 64 or more give 0, the right residue (and +-0's value once
// the implicit bit is dropped there).
HWY_INLINE VU IntegralToInt64(VF r) {
  const DU du;
  VU rb = hn::BitCast(du, r);
  VU ef = hn::ShiftRight<53>(hn::ShiftLeft<1>(rb));
  VU m = hn::Or(hn::And(rb, hn::Set(du, 0xFFFFFFFFFFFFFull)), hn::Set(du, std::uint64_t{1} << 52));
  m = hn::IfThenZeroElse(hn::Eq(ef, hn::Zero(du)), m);
  // Left by e - 1075 when e >= 1075, else right by 1075 - e; counts are capped at 63 (Highway's
  // variable shifts need counts in [0, 64)) and the too-far lanes zeroed. The counts
  // compare as signed (1.0.3 lacks unsigned 64-bit >=); they are below 2^11.
  const DI di;
  const hn::Vec<DI> e = hn::Sub(hn::BitCast(di, ef), hn::Set(di, 1075));  // -1075 .. 972
  const hn::Vec<DI> k63 = hn::Set(di, 63);
  auto left = hn::RebindMask(du, hn::Gt(e, hn::Set(di, -1)));
  const hn::Vec<DI> zero = hn::Zero(di);
  VU lcount = hn::BitCast(du, hn::Max(hn::Min(e, k63), zero));
  VU rcount = hn::BitCast(du, hn::Max(hn::Min(hn::Neg(e), k63), zero));
  VU lv = hn::IfThenZeroElse(hn::RebindMask(du, hn::Gt(e, k63)), hn::Shl(m, lcount));
  VU rv = hn::IfThenZeroElse(hn::RebindMask(du, hn::Gt(hn::Neg(e), k63)), hn::Shr(m, rcount));
  VU v = hn::IfThenElse(left, lv, rv);
  VU neg = hn::BitCast(du, hn::BroadcastSignBit(hn::BitCast(DI(), rb)));
  return hn::Sub(hn::Xor(v, neg), neg);
}

// An integral double r with -2^63 <= r < 2^64 -> its value as 64 bits (signed or unsigned); any
// bits for other lanes (NaN included: no undefined behaviour on the emulated targets). Without a
// conversion instruction: h = floor(r / 2^32) (|h| <= 2^32) and l = r - h * 2^32 in [0, 2^32)
// (exact: the true result is an integer below 2^32), each plus 1.5 * 2^52 exact, whose bit pattern
// minus that constant's is the integer; v = (h << 32) + l. With one (AVX3, NEON, SVE): the signed
// truncating conversion, of r - 2^63 for r >= 2^63 (exact: both multiples of 2^11), 2^63 added back.
HWY_INLINE VU IntegralTo64(VF r) {
  const DF d;
  const DU du;
  if constexpr (kNoInt64Convert) {
    const VF magic = hn::Set(d, 0x1.8p52);
    VF h = RoundF64<Rounding::kTowardsNegative>(hn::Mul(r, hn::Set(d, 0x1p-32)));
    VF l = hn::NegMulAdd(h, hn::Set(d, 0x1p32), r);  // r - h * 2^32, exact: one FMA where there is one
    VU hi = hn::Sub(hn::BitCast(du, hn::Add(h, magic)), hn::BitCast(du, magic));
    VU lo = hn::Sub(hn::BitCast(du, hn::Add(l, magic)), hn::BitCast(du, magic));
    return hn::Add(hn::ShiftLeft<32>(hi), lo);
  } else {
    auto high = hn::Ge(r, hn::Set(d, 0x1p63));
    VF s = hn::IfThenElse(high, hn::Sub(r, hn::Set(d, 0x1p63)), r);
    VU v = hn::BitCast(du, hn::ConvertTo(DI(), s));
    return hn::Xor(v, hn::IfThenElseZero(hn::RebindMask(du, high), hn::Set(du, 0x8000000000000000ull)));
  }
}

// ---- float64 -> float32, one rounding in the environment's mode ----

HWY_INLINE hn::Vec<DNF32> DemoteF64ToF32(VF x) {
  if constexpr (!kEmulated) {
    return hn::DemoteTo(DNF32(), x);
  } else {
    HWY_ALIGN double in[hn::MaxLanes(DF())];
    HWY_ALIGN float out[hn::MaxLanes(DNF32())];
    hn::Store(x, DF(), in);
    for (std::size_t i = 0; i < hn::Lanes(DF()); ++i) out[i] = static_cast<float>(in[i]);
    return hn::Load(DNF32(), out);
  }
}

// ---- float64 lanes -> float32, any mode ----
//
// DemoteF64ToF32 rounds once, correctly, in the environment's mode, which the run sets (kEnv).
// Nearest-away has no hardware mode; it is nearest-even of x with its lowest bit set (StickyAway).
// R1: a rounded value beyond max is +-Inf in the nearest and outward directed cases (clamp's
// answer); the directed modes give +-max instead for some values beyond max, so a +-max result is
// declined there (rare) and the engine decides. Under unset an Inf result is declined (an Inf
// input goes along: rare).
template <Rounding R, OutOfRange O>
struct F64ToF32 {
  struct Params {};
  using DMask = DN32;
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);  // nearest for nearest-away
  // Nearest-away as nearest-even: set the lowest bit of x. A float32 midpoint m (a multiple of
  // 2^-150, and of 2^(E-24) at exponent E) has its 28 lowest bits clear as a double, so the
  // double below it, pred(m), has its lowest bit set: x | 1 is x or succ(x), never lands on a
  // midpoint it was below and never crosses one, and lifts an exact midpoint just above it, where
  // nearest-even rounds away. +-Inf would become a NaN, so it is first replaced by +-DBL_MAX,
  // which still rounds to +-Inf (by a select on the lane: Min/Max treat NaN differently per
  // target).
  static HWY_INLINE VF StickyAway(VF x) {
    const DF d;
    x = hn::IfThenElse(hn::IsInf(x), hn::CopySign(hn::Set(d, 0x1.fffffffffffffp+1023), x), x);
    return hn::Or(x, hn::BitCast(d, hn::Set(DU(), 1)));
  }
  // The common case (block-inl.h's FastBlock): the demoted bits as they are, right when every
  // result of the block is finite (below max in the directed modes): the largest magnitude is
  // checked once per block, where Convert takes about seven operations per vector.
  static HWY_INLINE VN32 FastConvert(const Params&, VF x, VN32* acc) {
    const DN32 dn;
    if constexpr (R == Rounding::kNearestAway) x = StickyAway(x);
    const VN32 y = hn::BitCast(dn, DemoteF64ToF32(x));
    *acc = hn::Max(*acc, hn::And(y, hn::Set(dn, 0x7FFFFFFFu)));
    return y;
  }
  static HWY_INLINE bool FastOk(VN32 acc) {
    constexpr bool kDirected = R != Rounding::kNearestEven && R != Rounding::kNearestAway;
    return hn::AllTrue(DNI32(), hn::Lt(hn::BitCast(DNI32(), acc), hn::Set(DNI32(), kDirected ? 0x7F7FFFFF : 0x7F800000)));
  }
  static HWY_INLINE VN32 Convert(const Params&, VF x, MN32* declined) {
    const DN32 dn;
    if constexpr (R == Rounding::kNearestAway) x = StickyAway(x);
    VN32 y = hn::BitCast(dn, DemoteF64ToF32(x));
    VN32 a = hn::And(y, hn::Set(dn, 0x7FFFFFFFu));
    VN32 nan = hn::Or(hn::And(y, hn::Set(dn, 0x80000000u)), hn::Set(dn, 0x7FC00000u));  // R3
    VN32 res = hn::IfThenElse(hn::Gt(a, hn::Set(dn, 0x7F800000u)), nan, y);
    auto undecided = hn::FirstN(dn, 0);
    if constexpr (R != Rounding::kNearestEven && R != Rounding::kNearestAway)
      undecided = hn::Eq(a, hn::Set(dn, 0x7F7FFFFFu));
    if constexpr (O == OutOfRange::kClamp) *declined = undecided;
    else *declined = hn::Or(undecided, hn::Eq(a, hn::Set(dn, 0x7F800000u)));
    return res;
  }
};

// ---- the block shapes (block-inl.h's Family concept) ----
//
// A converter takes one vector of float64 lanes and gives its results and the lanes it declines.
// F64Lanes: one 32-bit result per lane (float32 bits, integers of <= 32 bits), stored as 1, 2 or
// 4 bytes, declined lanes as a mask of those 32-bit lanes; Lanes64: one 64-bit result per lane
// (float64, int64, uint64), declined lanes as a mask of float64 lanes. A block is as many elements
// as block-inl.h's blocks of 32-bit lanes (4 x Lanes of 32 bits: 8 vectors of float64 lanes),
// and each vector's declined lanes go to the reference path right after its results are stored,
// so they are resolved in index order. Vectors are built inside Block from the plain Params (SVE
// vectors cannot be struct members); once Block is inlined into the run's loop they stay in
// registers.

HWY_INLINE std::size_t BlockElems64() { return kVecs * hn::Lanes(hn::ScalableTag<std::uint32_t>()); }

// scalar_map keys as raw 64-bit source lanes (float64 or int64 bits); NaN keys match every NaN
// lane of a float64 source by a test. Applied last to first so the first key wins (R10); the
// lanes a key matched are returned (no longer declined).
template <class DR, class VR>
HWY_INLINE VR ApplyMap64(const VectorMap& map, VU keys, MF nan, VR r, MF* hit) {
  const DR dr;
  *hit = hn::FirstN(DF(), 0);
  for (int k = map.n - 1; k >= 0; --k) {
    MF m = map.nan_key[k] ? nan : hn::RebindMask(DF(), hn::Eq(keys, hn::Set(DU(), map.key[k])));
    if constexpr (sizeof(hn::TFromD<DR>) == 4) {
      r = hn::IfThenElse(hn::MaskFromVec(Narrow(m)), hn::Set(dr, static_cast<std::uint32_t>(map.value[k])), r);
    } else {
      r = hn::IfThenElse(hn::RebindMask(dr, m), hn::Set(dr, map.value[k]), r);
    }
    *hit = hn::Or(*hit, m);
  }
  return r;
}

template <class Conv>
inline constexpr bool kHasFastConvert = requires(const typename Conv::Params& p, VF x, VN32* acc) {
  { Conv::FastConvert(p, x, acc) } -> std::same_as<VN32>;
  { Conv::FastOk(*acc) } -> std::same_as<bool>;
};

// 32-bit result lanes (values below 2^(8 * kDst)) -> kDst bytes each.
template <std::size_t kDst>
HWY_INLINE void StoreNarrow(VN32 r, unsigned char* out) {
  if constexpr (kDst == 4) {
    hn::StoreU(r, DN32(), reinterpret_cast<std::uint32_t*>(out));
  } else {
    // Saturating demotions from int32 keep every value that fits (all do: masked results).
    using T = std::conditional_t<kDst == 2, std::uint16_t, std::uint8_t>;
    const hn::Rebind<T, DF> dt;
    hn::StoreU(hn::DemoteTo(dt, hn::BitCast(DNI32(), r)), dt, reinterpret_cast<T*>(out));
  }
}

// 8-byte sources as float64 lanes (DLoader) -> 32-bit results (Conv::Convert(params, x,
// &declined) -> VN32, `declined` a mask of Conv::DMask's lanes), stored as kDst bytes.
template <class DLoader, class Conv, std::size_t kDst>
struct F64Lanes {
  static_assert(DLoader::kSize == 8);
  static constexpr std::size_t kSrcSize = 8;
  static constexpr std::size_t kDstSize = kDst;
  static constexpr FpRounding kFpRounding = Conv::kFpRounding;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;  // raw float64 / int64 bits
  };
  struct Consts {
    typename Conv::Params conv;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) { return {p.conv, &p.map}; }
  static std::size_t SrcSize(const Params&) { return kSrcSize; }
  static std::size_t DstSize(const Params&) { return kDstSize; }
  static std::size_t BlockElems() { return BlockElems64(); }
  using DM = typename Conv::DMask;  // DF or DN32: the lanes of Convert's declined mask
  // The common block (block-inl.h): no scalar_map, no lane declined. A converter with
  // FastConvert(params, x, &acc) -> results, which folds what it must check into acc, and
  // FastOk(acc) is checked once per block; the others by Convert's declined masks.
  static HWY_INLINE bool FastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if (c.map->n != 0) return false;
    const std::size_t n = hn::Lanes(DF()), block = BlockElems64();
    if constexpr (kHasFastConvert<Conv> && !DLoader::kMayDecline) {
      VN32 acc = hn::Zero(DN32());
      for (std::size_t i = 0; i < block; i += n) {
        MF bad;
        StoreNarrow<kDst>(Conv::FastConvert(c.conv, DLoader::Load(in + 8 * i, &bad), &acc), out + kDst * i);
      }
      return Conv::FastOk(acc);
    } else {
      hn::Mask<DM> any = hn::FirstN(DM(), 0);
      for (std::size_t i = 0; i < block; i += n) {
        MF bad;
        VF x = DLoader::Load(in + 8 * i, &bad);
        hn::Mask<DM> declined;
        StoreNarrow<kDst>(Conv::Convert(c.conv, x, &declined), out + kDst * i);
        any = hn::Or(any, declined);
        if constexpr (DLoader::kMayDecline) any = hn::Or(any, ToMask<DM>(bad));
      }
      return hn::AllFalse(DM(), any);
    }
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const std::size_t n = hn::Lanes(DF()), block = BlockElems64();
    for (std::size_t i = 0; i < block; i += n) {
      MF bad;
      VF x = DLoader::Load(in + 8 * i, &bad);
      hn::Mask<DM> declined;
      VN32 r = Conv::Convert(c.conv, x, &declined);
      if constexpr (DLoader::kMayDecline) declined = hn::Or(declined, ToMask<DM>(bad));
      if (HWY_UNLIKELY(c.map->n != 0)) {
        VU keys = hn::LoadU(DU(), reinterpret_cast<const std::uint64_t*>(in + 8 * i));
        MF hit;
        r = ApplyMap64<DN32>(*c.map, keys, IsNaN64(hn::BitCast(DF(), keys)), r, &hit);
        declined = hn::AndNot(ToMask<DM>(hit), declined);
      }
      StoreNarrow<kDst>(r, out + kDst * i);
      const std::size_t f = ResolveMask(DM(), declined, i, res);
      if (HWY_UNLIKELY(f != kNoFailure)) return f;
    }
    return kNoFailure;
  }
};

// 64-bit results from float64 lanes (DLoader: 8- or 4-byte sources). The map compares the raw
// source lanes for 8-byte sources and the exact float64 values for 4-byte ones.
template <class DLoader, class Conv>
struct Lanes64 {
  static constexpr std::size_t kSrcSize = DLoader::kSize;
  static constexpr std::size_t kDstSize = 8;
  static constexpr FpRounding kFpRounding = Conv::kFpRounding;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;
  };
  struct Consts {
    typename Conv::Params conv;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) { return {p.conv, &p.map}; }
  static std::size_t SrcSize(const Params&) { return kSrcSize; }
  static std::size_t DstSize(const Params&) { return kDstSize; }
  static std::size_t BlockElems() { return BlockElems64(); }
  // The common block (block-inl.h): no scalar_map, no lane declined.
  static HWY_INLINE bool FastBlock(const Consts& c, const unsigned char* in, unsigned char* out) {
    if (c.map->n != 0) return false;
    const std::size_t n = hn::Lanes(DF()), block = BlockElems64();
    MF any = hn::FirstN(DF(), 0);
    for (std::size_t i = 0; i < block; i += n) {
      MF bad, declined;
      VF x = DLoader::Load(in + kSrcSize * i, &bad);
      hn::StoreU(Conv::Convert(c.conv, x, &declined), DU(), reinterpret_cast<std::uint64_t*>(out + 8 * i));
      any = hn::Or(any, declined);
      if constexpr (DLoader::kMayDecline) any = hn::Or(any, bad);
    }
    return hn::AllFalse(DF(), any);
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const std::size_t n = hn::Lanes(DF()), block = BlockElems64();
    for (std::size_t i = 0; i < block; i += n) {
      MF bad;
      VF x = DLoader::Load(in + kSrcSize * i, &bad);
      MF declined;
      VU v = Conv::Convert(c.conv, x, &declined);
      if constexpr (DLoader::kMayDecline) declined = hn::Or(declined, bad);
      if (HWY_UNLIKELY(c.map->n != 0)) {
        VU keys = kSrcSize == 8 ? hn::LoadU(DU(), reinterpret_cast<const std::uint64_t*>(in + 8 * i))
                                : hn::BitCast(DU(), x);
        MF hit;
        v = ApplyMap64<DU>(*c.map, keys, IsNaN64(x), v, &hit);
        declined = hn::AndNot(hit, declined);
      }
      hn::StoreU(v, DU(), reinterpret_cast<std::uint64_t*>(out + 8 * i));
      const std::size_t f = ResolveMask(DF(), declined, i, res);
      if (HWY_UNLIKELY(f != kNoFailure)) return f;
    }
    return kNoFailure;
  }
};

}  // namespace f64
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // toggle
