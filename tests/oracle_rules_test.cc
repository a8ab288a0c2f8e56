// Oracle tests, part two (part one and the method: oracle_test.cc): the named examples of the
// spec text and of semantics.md's rules, each checked against the engine, the reference model and
// LLVM APFloat where it has the target; the engine's decimal (sticky) path; and a count of where
// raw APFloat's IEEE behaviour differs from semantics.md, so that the range decision made on top
// of it (oracle_test.cc's header) stays justified.
#include <gtest/gtest.h>
#include <llvm/ADT/APInt.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>

#include "oracle_driver.h"

namespace zcast_test {
namespace {

std::uint64_t F64(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
std::uint64_t I64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

constexpr Rounding kNE = Rounding::kNearestEven;
constexpr OutOfRange kUnset = OutOfRange::kUnset, kClamp = OutOfRange::kClamp,
                     kWrap = OutOfRange::kWrap;
const RefOutcome kOutOfRangeError{0, RefError::kOutOfRange};

// Expects the engine and the reference (and APFloat where it has the target) to give `want`.
void ExpectCast(DataType src, std::uint64_t bits, DataType dst, Rounding r, OutOfRange o,
                RefOutcome want) {
  SCOPED_TRACE(TypeName(src) + " " + Hex(bits) + " -> " + TypeName(dst) + " " + ModeName(r) +
               " " + RangeName(o));
  EXPECT_EQ(OutcomeString(Engine(src, bits, dst, r, o)), OutcomeString(want)) << "engine";
  EXPECT_EQ(OutcomeString(RefCast(src, bits, dst, r, o)), OutcomeString(want)) << "reference";
  if (HasApOracle(dst)) {
    ApRounded a = ApRound(ApSourceQuad(src, bits), dst, r);
    EXPECT_EQ(OutcomeString(ApFinish(dst, a, o)), OutcomeString(want)) << "apfloat";
  }
}
RefOutcome Ok(std::uint64_t bits) { return {bits, RefError::kNone}; }

TEST(SpecExamples, Float128ToInt8) {
  // Spec, out_of_range: 128.0 -> int8 fails unset, clamps to 127, wraps to -128.
  ExpectCast(DataType::float64, F64(128.0), DataType::int8, kNE, kUnset, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(128.0), DataType::int8, kNE, kClamp, Ok(0x7f));
  ExpectCast(DataType::float64, F64(128.0), DataType::int8, kNE, kWrap, Ok(0x80));
}

TEST(SpecExamples, Int16WrapsTwosComplement) {
  // Spec: 32768 -> -32768, 32769 -> -32767, -32769 -> 32767 (R5).
  ExpectCast(DataType::int32, I64(32768), DataType::int16, kNE, kWrap, Ok(0x8000));
  ExpectCast(DataType::int32, I64(32769), DataType::int16, kNE, kWrap, Ok(0x8001));
  ExpectCast(DataType::int32, I64(-32769) & 0xffffffff, DataType::int16, kNE, kWrap, Ok(0x7fff));
  ExpectCast(DataType::float64, F64(32769.0), DataType::int16, kNE, kWrap, Ok(0x8001));
}

TEST(Rules, R5WrapIsExact) {
  // 1e300 is a multiple of 2^8 (its exponent is far above the significand), so it wraps to 0;
  // implementations that go through int64 saturation give -128.
  for (Rounding r : kModes) {
    ExpectCast(DataType::float64, F64(1e300), DataType::int8, r, kWrap, Ok(0));
  }
  ExpectCast(DataType::float64, F64(-1e300), DataType::int8, kNE, kWrap, Ok(0));
  ExpectCast(DataType::float64, F64(0x1p60 + 256), DataType::int16, kNE, kWrap, Ok(256));
  ExpectCast(DataType::int64, I64((1ll << 60) + 256), DataType::int16, kNE, kWrap, Ok(256));
  ExpectCast(DataType::float64, F64(-1.0), DataType::uint8, kNE, kWrap, Ok(255));
  ExpectCast(DataType::int8, 0xff, DataType::uint8, kNE, kWrap, Ok(255));
  // Round first, then wrap: 255.5 nearest-even -> 256 -> 0; towards-zero -> 255.
  ExpectCast(DataType::float64, F64(255.5), DataType::uint8, kNE, kWrap, Ok(0));
  ExpectCast(DataType::float64, F64(255.5), DataType::uint8, Rounding::kTowardsZero, kWrap,
             Ok(255));
  // 2^64 + 2^12 (float64) into uint64 wraps to 2^12; into int64 too.
  ExpectCast(DataType::float64, F64(0x1p64 + 0x1p12), DataType::uint64, kNE, kWrap, Ok(4096));
  ExpectCast(DataType::float64, F64(-0x1p63), DataType::int64, kNE, kUnset, Ok(1ull << 63));
  ExpectCast(DataType::float64, F64(0x1p63), DataType::int64, kNE, kWrap, Ok(1ull << 63));
  ExpectCast(DataType::float64, F64(0x1p63), DataType::int64, kNE, kUnset, kOutOfRangeError);
}

TEST(Rules, R4WrapIntoFloatActsAsUnset) {
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e4m3, kNE, kWrap, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e4m3fnuz, kNE, kWrap, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(1.0), DataType::float8_e4m3fnuz, kNE, kWrap, Ok(0x40));
}

TEST(Rules, R1ClampIntoTypesWithInfinity) {
  // Beyond the finite range -> +-Inf under clamp in every mode, never +-max; error when unset.
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e4m3, Rounding::kTowardsZero, kClamp,
             Ok(0x78));
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e4m3, Rounding::kTowardsZero, kUnset,
             kOutOfRangeError);
  ExpectCast(DataType::float64, F64(-1e6), DataType::float8_e4m3, Rounding::kTowardsPositive,
             kClamp, Ok(0xf8));
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e3m4, Rounding::kTowardsZero, kClamp,
             Ok(0x70));
  ExpectCast(DataType::float64, F64(1e300), DataType::float32, Rounding::kTowardsNegative, kClamp,
             Ok(0x7f800000));
  // A value that rounds *to* max is in range: 244 -> 240 (0x77); 248 is the tie max/next -> out.
  ExpectCast(DataType::float64, F64(244.0), DataType::float8_e4m3, kNE, kUnset, Ok(0x77));
  ExpectCast(DataType::float64, F64(248.0), DataType::float8_e4m3, kNE, kUnset, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(248.0), DataType::float8_e4m3, Rounding::kTowardsZero, kUnset,
             Ok(0x77));
  ExpectCast(DataType::float64, F64(65519.0), DataType::float16, kNE, kUnset, Ok(0x7bff));
  ExpectCast(DataType::float64, F64(65520.0), DataType::float16, kNE, kClamp, Ok(0x7c00));
  ExpectCast(DataType::float64, F64(65520.0), DataType::float16, Rounding::kTowardsZero, kUnset,
             Ok(0x7bff));
}

TEST(Rules, R2ClampIntoTypesWithoutInfinity) {
  ExpectCast(DataType::float64, F64(1e6), DataType::float8_e4m3fnuz, kNE, kClamp, Ok(0x7f));
  ExpectCast(DataType::float64, F64(-1e6), DataType::float8_e4m3fnuz, kNE, kClamp, Ok(0xff));
  ExpectCast(DataType::float64, F64(1e6), DataType::float4_e2m1fn, kNE, kClamp, Ok(0x7));
  ExpectCast(DataType::float64, F64(-7.0), DataType::float4_e2m1fn, kNE, kClamp, Ok(0xf));
  ExpectCast(DataType::float64, F64(7.0), DataType::float4_e2m1fn, kNE, kUnset, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(6.9), DataType::float4_e2m1fn, kNE, kUnset, Ok(0x7));
  ExpectCast(DataType::float64, F64(-1e300), DataType::uint8, kNE, kClamp, Ok(0));
  ExpectCast(DataType::float64, F64(-1e300), DataType::int8, kNE, kClamp, Ok(0x80));
  ExpectCast(DataType::float64, F64(1e300), DataType::float8_e8m0fnu, kNE, kClamp, Ok(0xfe));
}

TEST(Rules, R3NanAndInfinity) {
  const std::uint64_t kNaN64 = 0x7ff8000000000000, kNegNaN64 = 0xfff8000000000001;
  const std::uint64_t kInf64 = 0x7ff0000000000000;
  for (OutOfRange o : kRanges) {
    ExpectCast(DataType::float64, kNaN64, DataType::uint8, kNE, o, {0, RefError::kNaN});
    ExpectCast(DataType::float64, kInf64, DataType::int8, kNE, o, {0, RefError::kInf});
    ExpectCast(DataType::float64, kInf64, DataType::float8_e4m3fnuz, kNE, o, {0, RefError::kInf});
    ExpectCast(DataType::float64, kNaN64, DataType::float4_e2m1fn, kNE, o, {0, RefError::kNaN});
    ExpectCast(DataType::float64, kInf64, DataType::float8_e8m0fnu, kNE, o, {0, RefError::kInf});
    ExpectCast(DataType::float64, kNegNaN64, DataType::float8_e4m3fnuz, kNE, o, Ok(0x80));
    ExpectCast(DataType::float64, kNegNaN64, DataType::float8_e8m0fnu, kNE, o, Ok(0xff));
    ExpectCast(DataType::float64, kNegNaN64, DataType::float16, kNE, o, Ok(0xfe00));
    ExpectCast(DataType::float64, kNegNaN64, DataType::float8_e3m4, kNE, o, Ok(0xf8));
    ExpectCast(DataType::float16, 0x7c01, DataType::float32, kNE, o, Ok(0x7fc00000));
    ExpectCast(DataType::float64, kInf64 | (1ull << 63), DataType::float8_e5m2, kNE, o, Ok(0xfc));
  }
}

TEST(Rules, R6E8m0) {
  const DataType e8 = DataType::float8_e8m0fnu;
  ExpectCast(DataType::float64, F64(1.0), e8, kNE, kUnset, Ok(127));
  ExpectCast(DataType::float64, F64(0x1p-127), e8, kNE, kUnset, Ok(0x00));
  ExpectCast(DataType::float64, F64(0x1p127), e8, kNE, kUnset, Ok(0xfe));
  // Zero, -0 and negatives are below the range: clamp -> 0x00 (2^-127), unset -> error.
  for (double d : {0.0, -0.0, -1.0, -0x1p-200}) {
    ExpectCast(DataType::float64, F64(d), e8, kNE, kUnset, kOutOfRangeError);
    ExpectCast(DataType::float64, F64(d), e8, kNE, kClamp, Ok(0x00));
    ExpectCast(DataType::float64, F64(d), e8, Rounding::kTowardsPositive, kClamp, Ok(0x00));
  }
  // Ties 1.5*2^e go up in both nearest modes.
  ExpectCast(DataType::float64, F64(3.0), e8, kNE, kUnset, Ok(129));
  ExpectCast(DataType::float64, F64(3.0), e8, Rounding::kNearestAway, kUnset, Ok(129));
  ExpectCast(DataType::float64, F64(0x1.7ffffffffffffp1), e8, kNE, kUnset, Ok(128));
  // Directed: floor / ceil of log2.
  ExpectCast(DataType::float64, F64(3.9), e8, Rounding::kTowardsZero, kUnset, Ok(128));
  ExpectCast(DataType::float64, F64(3.9), e8, Rounding::kTowardsNegative, kUnset, Ok(128));
  ExpectCast(DataType::float64, F64(2.1), e8, Rounding::kTowardsPositive, kUnset, Ok(129));
  // Below 2^-127: a value in [1.5*2^-128, 2^-127) rounds up to 2^-127 (in range), less goes below.
  ExpectCast(DataType::float64, F64(0x1.8p-128), e8, kNE, kUnset, Ok(0x00));
  ExpectCast(DataType::float64, F64(0x1.7ffffffffffffp-128), e8, kNE, kUnset, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(0x1.7ffffffffffffp-128), e8, kNE, kClamp, Ok(0x00));
  ExpectCast(DataType::float64, F64(0x1.0000000000001p-128), e8, Rounding::kTowardsPositive,
             kUnset, Ok(0x00));
  ExpectCast(DataType::float64, F64(0x1p-128), e8, Rounding::kTowardsPositive, kUnset,
             kOutOfRangeError);
  // Above 2^127: [1.5*2^127, ...) rounds to 2^128 in nearest modes -> out of range.
  ExpectCast(DataType::float64, F64(0x1.8p127), e8, kNE, kUnset, kOutOfRangeError);
  ExpectCast(DataType::float64, F64(0x1.8p127), e8, Rounding::kTowardsZero, kUnset, Ok(0xfe));
  ExpectCast(DataType::float64, F64(0x1.8p127), e8, kNE, kClamp, Ok(0xfe));
  // ml_dtypes' known bugs are not repeated: (2^-127, 1.5*2^-127) -> 2^-127, not 2^-126.
  ExpectCast(DataType::float64, F64(0x1.2p-127), e8, kNE, kUnset, Ok(0x00));
  ExpectCast(DataType::float64, F64(0x1.cp128), e8, kNE, kClamp, Ok(0xfe));
  // From e8m0: 2^-127 into float32 is subnormal; NaN 0xff into float16 is NaN.
  ExpectCast(e8, 0x00, DataType::float32, kNE, kUnset, Ok(0x00400000));
  ExpectCast(e8, 0xff, DataType::float16, kNE, kUnset, Ok(0x7e00));
  ExpectCast(e8, 0xff, DataType::int8, kNE, kClamp, {0, RefError::kNaN});
}

TEST(Rules, R7NegativesIntoUnsigned) {
  ExpectCast(DataType::float64, F64(-0.4), DataType::uint8, kNE, kUnset, Ok(0));
  ExpectCast(DataType::float64, F64(-0.5), DataType::uint8, kNE, kUnset, Ok(0));  // tie -> 0
  ExpectCast(DataType::float64, F64(-0.5), DataType::uint8, Rounding::kNearestAway, kUnset,
             kOutOfRangeError);
  ExpectCast(DataType::float64, F64(-0.9), DataType::uint8, Rounding::kTowardsZero, kUnset, Ok(0));
  ExpectCast(DataType::float64, F64(-0.1), DataType::uint8, Rounding::kTowardsNegative, kClamp,
             Ok(0));
  ExpectCast(DataType::float64, F64(-0.1), DataType::uint8, Rounding::kTowardsNegative, kWrap,
             Ok(255));
  ExpectCast(DataType::float64, F64(-0.1), DataType::uint8, Rounding::kTowardsNegative, kUnset,
             kOutOfRangeError);
}

TEST(Rules, R8SignedZero) {
  ExpectCast(DataType::float64, F64(-0.0), DataType::int8, kNE, kUnset, Ok(0));
  ExpectCast(DataType::float64, F64(-0.0), DataType::uint8, kNE, kUnset, Ok(0));
  ExpectCast(DataType::float64, F64(-0.0), DataType::float16, kNE, kUnset, Ok(0x8000));
  ExpectCast(DataType::float64, F64(-0.0), DataType::float4_e2m1fn, kNE, kUnset, Ok(0x8));
  ExpectCast(DataType::float64, F64(-0.0), DataType::float8_e4m3fnuz, kNE, kUnset, Ok(0x00));
  ExpectCast(DataType::float64, F64(-1e-300), DataType::float16, kNE, kUnset, Ok(0x8000));
  ExpectCast(DataType::float64, F64(-1e-300), DataType::float16, Rounding::kTowardsPositive,
             kUnset, Ok(0x8000));
  ExpectCast(DataType::float64, F64(-1e-300), DataType::float16, Rounding::kTowardsNegative,
             kUnset, Ok(0x8001));
  for (DataType fnuz : {DataType::float8_e4m3fnuz, DataType::float8_e5m2fnuz,
                        DataType::float8_e4m3b11fnuz}) {
    ExpectCast(DataType::float64, F64(-1e-300), fnuz, kNE, kUnset, Ok(0x00));  // never 0x80 (NaN)
    ExpectCast(DataType::float64, F64(-1e-300), fnuz, Rounding::kTowardsZero, kClamp, Ok(0x00));
  }
  ExpectCast(DataType::float64, F64(-1e-300), DataType::float6_e2m3fn, kNE, kUnset, Ok(0x20));
  ExpectCast(DataType::float64, F64(-0.4), DataType::int8, kNE, kUnset, Ok(0));
  ExpectCast(DataType::float16, 0x8000, DataType::float8_e3m4, kNE, kUnset, Ok(0x80));
}

TEST(Rules, NearestAwayIsATrueTiesAwayRounding) {
  // 0.49999999999999994 is below one half: 0 (floor(|x| + 0.5) would give 1).
  for (DataType dst : {DataType::int8, DataType::uint8, DataType::int64, DataType::uint64}) {
    ExpectCast(DataType::float64, F64(0.49999999999999994), dst, Rounding::kNearestAway, kUnset,
               Ok(0));
  }
  ExpectCast(DataType::float64, F64(0.5), DataType::int8, Rounding::kNearestAway, kUnset, Ok(1));
  ExpectCast(DataType::float64, F64(-2.5), DataType::int8, Rounding::kNearestAway, kUnset,
             Ok(0xfd));
  ExpectCast(DataType::float64, F64(-2.5), DataType::int8, kNE, kUnset, Ok(0xfe));
  // 2^52 + 1 is an integer: it stays, in every mode (x + 0.5 would round to 2^52 + 2).
  for (Rounding r : kModes) {
    ExpectCast(DataType::float64, F64(0x1p52 + 1), DataType::int64, r, kUnset,
               Ok((1ull << 52) + 1));
    ExpectCast(DataType::float64, F64(0x1p52 + 1), DataType::uint64, r, kUnset,
               Ok((1ull << 52) + 1));
  }
}

TEST(DoubleRounding, Int64ToFloat32IsOneRounding) {
  // 2^53 + 1: float32's ulp there is 2^30; via float64 the +1 would be lost before a directed
  // rounding.
  const std::uint64_t x = (1ull << 53) + 1;
  ExpectCast(DataType::int64, x, DataType::float32, kNE, kUnset, Ok(0x5a000000));
  ExpectCast(DataType::int64, x, DataType::float32, Rounding::kNearestAway, kUnset, Ok(0x5a000000));
  ExpectCast(DataType::int64, x, DataType::float32, Rounding::kTowardsZero, kUnset, Ok(0x5a000000));
  ExpectCast(DataType::int64, x, DataType::float32, Rounding::kTowardsNegative, kUnset,
             Ok(0x5a000000));
  ExpectCast(DataType::int64, x, DataType::float32, Rounding::kTowardsPositive, kUnset,
             Ok(0x5a000001));
  ExpectCast(DataType::int64, I64(-static_cast<std::int64_t>(x)), DataType::float32,
             Rounding::kTowardsNegative, kUnset, Ok(0xda000001));
  // 2^62 + 2^38 + 1: just above the float32 tie 2^62 + 2^38; float64 would round to the tie
  // and nearest-even would then go down to 2^62.
  const std::uint64_t y = (1ull << 62) + (1ull << 38) + 1;
  ExpectCast(DataType::int64, y, DataType::float32, kNE, kUnset, Ok(0x5e800001));
  ExpectCast(DataType::int64, y, DataType::float32, Rounding::kNearestAway, kUnset, Ok(0x5e800001));
  ExpectCast(DataType::int64, y, DataType::float32, Rounding::kTowardsZero, kUnset, Ok(0x5e800000));
  ExpectCast(DataType::int64, y, DataType::float32, Rounding::kTowardsPositive, kUnset,
             Ok(0x5e800001));
  ExpectCast(DataType::int64, y, DataType::float32, Rounding::kTowardsNegative, kUnset,
             Ok(0x5e800000));
  ExpectCast(DataType::uint64, y, DataType::float32, kNE, kUnset, Ok(0x5e800001));
  ExpectCast(DataType::uint64, ~0ull, DataType::float32, Rounding::kTowardsZero, kUnset,
             Ok(0x5f7fffff));
  ExpectCast(DataType::uint64, ~0ull, DataType::float32, kNE, kUnset, Ok(0x5f800000));
}

TEST(DoubleRounding, Float64ToFloat8IsOneRounding) {
  // 1 + 2^-4 is the float8_e4m3 tie between 1.0 (0x38) and 1.125 (0x39); 2^-40 above it, float32
  // would round to the tie and nearest-even would then pick 1.0.
  ExpectCast(DataType::float64, F64(1 + 0x1p-4 + 0x1p-40), DataType::float8_e4m3, kNE, kUnset,
             Ok(0x39));
  ExpectCast(DataType::float64, F64(1 + 0x1p-4), DataType::float8_e4m3, kNE, kUnset, Ok(0x38));
  ExpectCast(DataType::float64, F64(1 + 0x1p-4 - 0x1p-40), DataType::float8_e4m3,
             Rounding::kNearestAway, kUnset, Ok(0x38));
  // float16: 1 + 2^-11 is the tie between 1 and 1 + 2^-10.
  ExpectCast(DataType::float64, F64(1 + 0x1p-11 + 0x1p-52), DataType::float16, kNE, kUnset,
             Ok(0x3c01));
  ExpectCast(DataType::float32, 0x3f800000 | (1u << 12) | 1u, DataType::float16, kNE, kUnset,
             Ok(0x3c01));
  // Subnormal tie of float16: 2^-25 is half the smallest subnormal -> 0; a hair above -> 2^-24.
  ExpectCast(DataType::float64, F64(0x1p-25), DataType::float16, kNE, kUnset, Ok(0x0000));
  ExpectCast(DataType::float64, F64(0x1.0000000000001p-25), DataType::float16, kNE, kUnset,
             Ok(0x0001));
  ExpectCast(DataType::float64, F64(0x1p-25), DataType::float16, Rounding::kNearestAway, kUnset,
             Ok(0x0001));
}

// ---- sticky values (the JSON decimal path of the engine) ----

TEST(StickyValues, UnknownRemainderMatchesReference) {
  // JSON decimals and scale_offset results reach CastExact as (mag + eps) * 2^exp with an
  // unknown 0 < eps < 1 ("sticky"), mag having at least 60 significant bits (the decimal parser
  // keeps 62, scale_offset up to 64), float targets only (exact.h, scale_offset.cc). No float
  // grid point or midpoint (at most 54 significant bits) can then lie
  // strictly inside (mag, mag + 1) * 2^exp, so every eps gives the same result: the reference is
  // asked with eps = 1/4, 1/2 and 3/4 and must agree with itself and with the engine. Half of the
  // mags end in zeros, so that eps lifts the value just above a grid point or an exact tie.
  std::mt19937_64 rng(0x571c4);
  std::int64_t calls = 0, failures = 0;
  for (int i = 0; i < 4000; ++i) {
    std::uint64_t mag = (rng() >> (rng() % 4)) | (1ull << 60);  // [2^60, 2^64)
    if (i % 97 == 0) mag = ~0ull >> (rng() % 4);
    if (i % 2) mag &= ~0ull << (rng() % 12 + 6);      // a point/tie of some grid, plus eps
    int exp = static_cast<int>(rng() % 2400) - 1300;
    if (i % 3 == 0) exp = static_cast<int>(rng() % 400) - 250 - 60;  // where small types live
    bool neg = rng() & 1;
    if (i % 50 == 0) {  // mag 0: a value in (0, 2^exp), below half of every subnormal quantum
      mag = 0;
      exp = -1076 - static_cast<int>(rng() % 200);
    }
    zcast::internal::ExactValue x;
    x.negative = neg;
    x.sticky = true;
    x.mag = mag;
    x.exp = exp;
    for (DataType dst : zcast::internal::kAllDataTypes) {
      if (IsIntForm(Ref(dst).form)) continue;
      for (Rounding r : kModes) {
        for (OutOfRange o : kRanges) {
          RefOutcome want[3];
          for (int k = 0; k < 3; ++k) {
            RefValue v;
            v.neg = neg;
            v.mag = (FromU64(mag) + static_cast<f128>(k + 1) / 4) * Pow2(exp);
            want[k] = RefCastValue(v, dst, r, o);
          }
          ASSERT_TRUE(want[0] == want[1] && want[1] == want[2]) << "test design: eps matters";
          RefOutcome got = FromEngine(zcast::internal::CastExact(x, dst, r, o));
          ++calls;
          if (!(got == want[1])) {
            ADD_FAILURE() << "sticky (" << Hex(mag) << " + eps) * 2^" << exp << (neg ? " neg" : "")
                          << " -> " << TypeName(dst) << " " << ModeName(r) << " " << RangeName(o)
                          << ": expected " << OutcomeString(want[1]) << ", engine gave "
                          << OutcomeString(got);
            if (++failures >= 12) return;
          }
        }
      }
    }
  }
  RecordProperty("cases", std::to_string(calls));
}

// ---- documentation of where raw LLVM APFloat disagrees with semantics.md ----

TEST(LlvmDivergence, CountedAndReported) {
  // Not an engine test: counts the cases in which a naive APFloat::convert (source -> target in
  // the requested mode) disagrees with the rules, by category, to document why the oracle
  // applies the range rules itself (oracle_test.cc's header). Any category other than the
  // expected ones fails the test.
  std::map<std::string, std::int64_t> counts;
  std::int64_t unexpected = 0;
  for (DataType src : {DataType::float16, DataType::bfloat16, DataType::float8_e5m2,
                       DataType::float8_e4m3fnuz}) {
    for (std::uint64_t b = 0; b <= Mask(Ref(src).bits); ++b) {
      APFloat x = ApSourceQuad(src, b);
      for (DataType dst : zcast::internal::kAllDataTypes) {
        const llvm::fltSemantics* sem = ApSemantics(dst);
        if (!sem) continue;
        for (Rounding r : kModes) {
          APFloat y = x;
          bool lost = false;
          APFloat::opStatus st = y.convert(*sem, ApMode(r), &lost);
          std::uint64_t raw = y.bitcastToAPInt().getZExtValue();
          RefOutcome clamp = RefCast(src, b, dst, r, kClamp);
          RefOutcome unset = RefCast(src, b, dst, r, kUnset);
          if (unset.error == RefError::kNone && clamp.bits == raw) continue;
          const RefType& t = Ref(dst);
          std::string cat;
          if (x.isNaN()) {
            cat = t.form == Form::kFn ? "NaN into a fn type converts to a number (R3: error)"
                                      : "NaN sign/payload differs (R3: canonical, sign kept)";
          } else if (x.isInfinity()) {
            cat = "Inf into a type without Inf converts to a value or NaN (R3: error)";
          } else if (unset.error == RefError::kOutOfRange && t.form == Form::kIeee) {
            cat = (st & APFloat::opOverflow)
                      ? "overflow flagged, result Inf (R1 agrees; unset: error)"
                      : "directed overflow gives +-max, no overflow flag (R1: +-Inf)";
          } else if (unset.error == RefError::kOutOfRange && t.form == Form::kFnuz) {
            cat = raw == 0x80
                      ? "fnuz overflow gives NaN 0x80 (R2: +-max)"
                      : "fnuz overflow gives +-max silently (R2 clamp agrees; unset: error)";
          } else if (unset.error == RefError::kOutOfRange && t.form == Form::kFn) {
            cat = (st & APFloat::opOverflow) ? "fn overflow flagged, saturates (unset: error)"
                                             : "fn overflow saturates silently (unset: error)";
          } else {
            cat = "UNEXPECTED";
            ++unexpected;
            if (unexpected < 10) {
              ADD_FAILURE() << TypeName(src) << " " << Hex(b) << " -> " << TypeName(dst) << " "
                            << ModeName(r) << ": APFloat " << Hex(raw) << " status " << st
                            << ", rules " << OutcomeString(unset) << " / clamp "
                            << OutcomeString(clamp);
            }
          }
          ++counts[cat];
        }
      }
    }
  }
  for (const auto& [k, v] : counts) {
    std::cout << "  [LLVM vs semantics.md] " << v << "  " << k << "\n";
  }
  EXPECT_EQ(unexpected, 0);
}

}  // namespace
}  // namespace zcast_test
