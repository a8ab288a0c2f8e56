// Oracle 1 of oracle_test.cc and conformance/tools/verify.cc: the cast_value procedure computed
// with LLVM APFloat (llvm-19), independently of zcast's engine. Sources are converted exactly
// into IEEE quad, then rounded into the target with APFloat's own convert / roundToIntegral in
// the requested mode. APFloat follows IEEE 754 overflow (directed modes give +-max, fnuz formats
// overflow to NaN, the fn formats saturate, NaN/Inf into the fn formats give garbage), so the
// range decision (R1-R7) is made here on top of it, in quad: a value up to the target's max is
// converted by APFloat; a value between max and max + ulp(max) is rounded by APFloat's
// roundToIntegral on the ulp(max) grid; beyond that it is out of range in every mode. APFloat 19
// has no float8_e3m4 and no float8_e8m0fnu: HasApOracle says which targets it decides; as
// sources their exact value comes from the reference model's decoder.
//
// Uses GoogleTest's EXPECT_* for APFloat's own consistency checks: include from a gtest program.
#ifndef ZCAST_TESTS_APFLOAT_MODEL_H_
#define ZCAST_TESTS_APFLOAT_MODEL_H_

#include <gtest/gtest.h>
#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>
#include <llvm/ADT/APSInt.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "reference_model.h"
#include "zcast/zcast.hpp"

namespace zcast_test {

using llvm::APFloat;
using llvm::APInt;
using llvm::APSInt;
using zcast::DataType;
using zcast::OutOfRange;
using zcast::Rounding;

inline const llvm::fltSemantics* ApSemantics(DataType t) {
  switch (t) {
    case DataType::float4_e2m1fn: return &APFloat::Float4E2M1FN();
    case DataType::float6_e2m3fn: return &APFloat::Float6E2M3FN();
    case DataType::float6_e3m2fn: return &APFloat::Float6E3M2FN();
    case DataType::float8_e4m3: return &APFloat::Float8E4M3();
    case DataType::float8_e4m3b11fnuz: return &APFloat::Float8E4M3B11FNUZ();
    case DataType::float8_e4m3fnuz: return &APFloat::Float8E4M3FNUZ();
    case DataType::float8_e5m2: return &APFloat::Float8E5M2();
    case DataType::float8_e5m2fnuz: return &APFloat::Float8E5M2FNUZ();
    case DataType::bfloat16: return &APFloat::BFloat();
    case DataType::float16: return &APFloat::IEEEhalf();
    case DataType::float32: return &APFloat::IEEEsingle();
    case DataType::float64: return &APFloat::IEEEdouble();
    default: return nullptr;  // integers; float8_e3m4 and float8_e8m0fnu are missing in LLVM 19
  }
}

inline llvm::RoundingMode ApMode(Rounding r) {
  switch (r) {
    case Rounding::kNearestEven: return llvm::RoundingMode::NearestTiesToEven;
    case Rounding::kNearestAway: return llvm::RoundingMode::NearestTiesToAway;
    case Rounding::kTowardsZero: return llvm::RoundingMode::TowardZero;
    case Rounding::kTowardsPositive: return llvm::RoundingMode::TowardPositive;
    case Rounding::kTowardsNegative: return llvm::RoundingMode::TowardNegative;
  }
  return llvm::RoundingMode::NearestTiesToEven;
}

inline const llvm::fltSemantics& Quad() { return APFloat::IEEEquad(); }

inline APFloat QuadFromF128(f128 v) {
  u128 rep;
  std::memcpy(&rep, &v, sizeof rep);
  std::uint64_t words[2] = {static_cast<std::uint64_t>(rep), static_cast<std::uint64_t>(rep >> 64)};
  return APFloat(Quad(), APInt(128, words));
}

inline APFloat QuadPow2(int e) { return QuadFromF128(Pow2(e)); }

// The exact value of a source encoding in IEEE quad. Integer and APFloat-known sources go through
// LLVM alone; float8_e3m4 and float8_e8m0fnu sources are decoded by the reference model (APFloat
// still does the rounding into the target).
inline APFloat ApSourceQuad(DataType src, std::uint64_t bits) {
  const RefType& t = Ref(src);
  bits &= Mask(t.bits);
  if (IsIntForm(t.form)) {
    APFloat q(Quad());
    APFloat::opStatus st =
        q.convertFromAPInt(APInt(t.bits, bits), t.form == Form::kInt, APFloat::rmNearestTiesToEven);
    EXPECT_EQ(st, APFloat::opOK) << "int to quad must be exact";
    return q;
  }
  if (const llvm::fltSemantics* sem = ApSemantics(src)) {
    APFloat v(*sem, APInt(t.bits, bits));
    // The one NaN of a fnuz type (0x80) carries no sign: the types have no negative zero and no
    // second NaN, so "sign kept" (R3) has nothing to keep and the NaN reads as positive. APFloat
    // reports 0x80 as a negative NaN; R19 (docs/semantics-additions.md) reads it as +NaN, as the
    // engine and the reference do.
    if (v.isNaN()) return APFloat::getQNaN(Quad(), t.form == Form::kIeee && v.isNegative());
    bool lost = false;
    APFloat::opStatus st = v.convert(Quad(), APFloat::rmNearestTiesToEven, &lost);
    EXPECT_FALSE(lost) << "widening to quad must be exact";
    EXPECT_TRUE(st == APFloat::opOK) << "widening to quad must be exact";
    return v;
  }
  RefValue rv = RefDecode(src, bits);
  if (rv.cls == RefValue::Cls::kNaN) return APFloat::getQNaN(Quad(), rv.neg);
  if (rv.cls == RefValue::Cls::kInf) return APFloat::getInf(Quad(), rv.neg);
  return QuadFromF128(rv.neg ? -rv.mag : rv.mag);
}

// Per-target constants in quad, computed once with APFloat.
struct ApTarget {
  const llvm::fltSemantics* sem = nullptr;  // null for integer targets
  APFloat max{Quad()};      // float: largest finite; int: largest value
  APFloat min{Quad()};      // int: smallest value
  APFloat ulp_max{Quad()};  // float: max - (next value below max)
  APFloat cont{Quad()};     // float: max + ulp(max), the first point of the grid above the range
};

inline const ApTarget& ApTargetInfo(DataType dst) {
  static const std::array<ApTarget, 26> targets = [] {
    std::array<ApTarget, 26> a;
    for (int i = 0; i < 26; ++i) {
      DataType t = static_cast<DataType>(i);
      const RefType& rt = kRefTypes[i];
      ApTarget& x = a[i];
      if (IsIntForm(rt.form)) {
        APInt hi = rt.form == Form::kInt ? APInt::getSignedMaxValue(rt.bits)
                                         : APInt::getMaxValue(rt.bits);
        APInt lo = rt.form == Form::kInt ? APInt::getSignedMinValue(rt.bits)
                                         : APInt::getMinValue(rt.bits);
        x.max.convertFromAPInt(hi, rt.form == Form::kInt, APFloat::rmNearestTiesToEven);
        x.min.convertFromAPInt(lo, rt.form == Form::kInt, APFloat::rmNearestTiesToEven);
        continue;
      }
      x.sem = ApSemantics(t);
      if (!x.sem) continue;
      bool lost = false;
      APFloat max = APFloat::getLargest(*x.sem);
      APFloat below = max;
      below.next(/*nextDown=*/true);
      max.convert(Quad(), APFloat::rmNearestTiesToEven, &lost);
      below.convert(Quad(), APFloat::rmNearestTiesToEven, &lost);
      x.max = max;
      x.ulp_max = max - below;  // exact in quad
      x.cont = max + x.ulp_max;
    }
    return a;
  }();
  return targets[static_cast<int>(dst)];
}

// The APFloat oracle's step-4 result for one mode, before out_of_range.
struct ApRounded {
  enum class Kind : std::uint8_t { kNaN, kInf, kValue, kAbove, kBelow } kind = Kind::kValue;
  bool neg = false;
  std::uint64_t bits = 0;  // kValue: the target encoding
  std::optional<APFloat> integral;  // integer targets: the rounded integer (for wrap)
};

// Integral quad value -> low 64 bits of its two's complement (the value modulo 2^64), exactly.
inline std::uint64_t ApIntegralModulo64(const APFloat& integral) {
  APFloat r = integral;
  APFloat::opStatus st = r.mod(QuadPow2(64));  // fmod is exact; |r| < 2^64, sign of the dividend
  EXPECT_EQ(st, APFloat::opOK);
  APSInt v(128, /*isUnsigned=*/false);
  bool exact = false;
  st = r.convertToInteger(v, APFloat::rmTowardZero, &exact);
  EXPECT_TRUE(st == APFloat::opOK && (exact || r.isZero()));  // LLVM calls -0 inexact
  return v.trunc(64).getZExtValue();
}

inline ApRounded ApRound(const APFloat& x, DataType dst, Rounding mode) {
  const RefType& t = Ref(dst);
  const ApTarget& info = ApTargetInfo(dst);
  ApRounded out;
  out.neg = x.isNegative();
  if (x.isNaN()) {
    out.kind = ApRounded::Kind::kNaN;
    return out;
  }
  if (x.isInfinity()) {
    out.kind = ApRounded::Kind::kInf;
    return out;
  }
  if (IsIntForm(t.form)) {
    APFloat r = x;
    r.roundToIntegral(ApMode(mode));  // exact integer in quad (every integer < 2^113 fits)
    bool in_range = r.compare(info.max) != APFloat::cmpGreaterThan &&
                    r.compare(info.min) != APFloat::cmpLessThan;  // -0 == 0: R7, R8
    out.neg = r.isNegative();
    if (in_range) {
      APSInt v(128, /*isUnsigned=*/false);
      bool exact = false;
      r.convertToInteger(v, APFloat::rmTowardZero, &exact);
      // A second LLVM route, convertToInteger rounding in the mode itself, must agree.
      APSInt w(128, /*isUnsigned=*/false);
      x.convertToInteger(w, ApMode(mode), &exact);
      EXPECT_TRUE(v == w) << "APFloat roundToIntegral and convertToInteger disagree";
      out.bits = v.trunc(64).getZExtValue() & Mask(t.bits);
    } else {
      out.kind = r.isNegative() ? ApRounded::Kind::kBelow : ApRounded::Kind::kAbove;
    }
    out.integral = r;
    return out;
  }
  APFloat mag = abs(x);
  if (mag.compare(info.max) != APFloat::cmpGreaterThan) {
    // In range whatever the mode: APFloat's conversion cannot overflow.
    APFloat r = x;
    bool lost = false;
    r.convert(*info.sem, ApMode(mode), &lost);
    out.bits = r.bitcastToAPInt().getZExtValue();
    return out;
  }
  if (mag.compare(info.cont) != APFloat::cmpLessThan) {
    out.kind = ApRounded::Kind::kAbove;
    return out;
  }
  // max < |x| < max + ulp: round on the grid of multiples of ulp(max) (unbounded exponent, step
  // 4 of the procedure) with APFloat's own rounding, then compare with max.
  APFloat scaled = x / info.ulp_max;  // exact: ulp is a power of two
  scaled.roundToIntegral(ApMode(mode));
  APFloat rounded = abs(scaled * info.ulp_max);
  if (rounded.compare(info.max) == APFloat::cmpGreaterThan) {
    out.kind = ApRounded::Kind::kAbove;
  } else {
    out.bits = APFloat::getLargest(*info.sem, out.neg).bitcastToAPInt().getZExtValue();
  }
  return out;
}

// out_of_range on top of the APFloat rounding, with the rules of semantics.md.
inline RefOutcome ApFinish(DataType dst, const ApRounded& r, OutOfRange oor) {
  const RefType& t = Ref(dst);
  const ApTarget& info = ApTargetInfo(dst);
  bool is_int = IsIntForm(t.form);
  switch (r.kind) {
    case ApRounded::Kind::kNaN: {  // R3
      if (is_int || t.form == Form::kFn) return {0, RefError::kNaN};
      if (t.form == Form::kFnuz) return {0x80, RefError::kNone};
      // IEEE-like: the canonical quiet NaN of APFloat (mantissa MSB set), sign kept.
      APFloat nan = APFloat::getQNaN(*info.sem, r.neg);
      return {nan.bitcastToAPInt().getZExtValue(), RefError::kNone};
    }
    case ApRounded::Kind::kInf:  // R3
      if (t.form != Form::kIeee) return {0, RefError::kInf};
      return {APFloat::getInf(*info.sem, r.neg).bitcastToAPInt().getZExtValue(), RefError::kNone};
    case ApRounded::Kind::kValue:
      if (t.form == Form::kFnuz && (r.bits & 0x7f) == 0) return {0, RefError::kNone};  // R8
      return {r.bits, RefError::kNone};
    default:
      break;
  }
  bool above = r.kind == ApRounded::Kind::kAbove;
  if (is_int) {
    if (oor == OutOfRange::kWrap) return {ApIntegralModulo64(*r.integral) & Mask(t.bits),
                                          RefError::kNone};  // R5
    if (oor == OutOfRange::kUnset) return {0, RefError::kOutOfRange};
    APFloat end = above ? info.max : info.min;  // R2 (R7: min of unsigned is 0)
    APSInt v(128, false);
    bool exact = false;
    end.convertToInteger(v, APFloat::rmTowardZero, &exact);
    return {v.trunc(64).getZExtValue() & Mask(t.bits), RefError::kNone};
  }
  // Unset; wrap into a float type acts as unset (R4).
  if (oor != OutOfRange::kClamp) return {0, RefError::kOutOfRange};
  if (t.form == Form::kIeee) {  // R1
    return {APFloat::getInf(*info.sem, r.neg).bitcastToAPInt().getZExtValue(), RefError::kNone};
  }
  return {APFloat::getLargest(*info.sem, r.neg).bitcastToAPInt().getZExtValue(),
          RefError::kNone};  // R2
}

inline bool HasApOracle(DataType dst) {
  return IsIntForm(Ref(dst).form) || ApSemantics(dst) != nullptr;
}

}  // namespace zcast_test

#endif  // ZCAST_TESTS_APFLOAT_MODEL_H_
