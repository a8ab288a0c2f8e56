// An independent reference model of the cast_value procedure (semantics.md), used by
// oracle_test.cc as a second opinion next to LLVM APFloat and as the only oracle for the formats
// APFloat 19 lacks (float8_e3m4, float8_e8m0fnu).
//
// Independence from the engine (src/zcast/exact.cc) is the point, so this header:
//  - has its own type table, transcribed from semantics.md (a test compares it with the engine's
//    X-macro table instead of deriving one from the other);
//  - holds values exactly as __float128 (113-bit significand, 15-bit exponent), which represents
//    every value of every one of the 26 types (int64/uint64 need 64 bits, float64 needs 53 bits
//    and exponents down to 2^-1074), plus every midpoint between two neighbouring target values;
//  - rounds by nearest-grid search: the target's non-negative finite values are enumerated into a
//    sorted table (all float types of at most 16 bits), and a value is placed between its two
//    neighbours by binary search. The table is continued by one point above the maximum
//    (max + ulp(max)) so that the unbounded-exponent rounding of procedure step 4 can be decided
//    without special cases. float32/float64 and the integers are too large to enumerate; for
//    them the neighbours are computed as floor(x / quantum) * quantum.
//  - It uses only the public enums of zcast.hpp (DataType, Rounding, OutOfRange).
#ifndef ZCAST_TESTS_REFERENCE_MODEL_H_
#define ZCAST_TESTS_REFERENCE_MODEL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "zcast/zcast.hpp"

namespace zcast_test {

using f128 = __float128;
using u128 = unsigned __int128;

// How a type lays out its values (semantics.md, "Data types").
enum class Form : std::uint8_t { kInt, kUint, kIeee, kFn, kFnuz, kE8m0 };

struct RefType {
  const char* name;
  Form form;
  int bits;  // value bits in the storage
  int e;     // exponent field bits (floats)
  int m;     // stored mantissa bits (floats)
  int bias;
  std::uint64_t nan;  // the canonical NaN from the semantics.md table (0 when the type has none)
};

// semantics.md type table, in the order of zcast::DataType (checked by a test against names).
inline constexpr std::array<RefType, 26> kRefTypes = {{
    {"int2", Form::kInt, 2, 0, 0, 0, 0},
    {"int4", Form::kInt, 4, 0, 0, 0, 0},
    {"int8", Form::kInt, 8, 0, 0, 0, 0},
    {"int16", Form::kInt, 16, 0, 0, 0, 0},
    {"int32", Form::kInt, 32, 0, 0, 0, 0},
    {"int64", Form::kInt, 64, 0, 0, 0, 0},
    {"uint2", Form::kUint, 2, 0, 0, 0, 0},
    {"uint4", Form::kUint, 4, 0, 0, 0, 0},
    {"uint8", Form::kUint, 8, 0, 0, 0, 0},
    {"uint16", Form::kUint, 16, 0, 0, 0, 0},
    {"uint32", Form::kUint, 32, 0, 0, 0, 0},
    {"uint64", Form::kUint, 64, 0, 0, 0, 0},
    {"float4_e2m1fn", Form::kFn, 4, 2, 1, 1, 0},
    {"float6_e2m3fn", Form::kFn, 6, 2, 3, 1, 0},
    {"float6_e3m2fn", Form::kFn, 6, 3, 2, 3, 0},
    {"float8_e3m4", Form::kIeee, 8, 3, 4, 3, 0x78},
    {"float8_e4m3", Form::kIeee, 8, 4, 3, 7, 0x7c},
    {"float8_e4m3b11fnuz", Form::kFnuz, 8, 4, 3, 11, 0x80},
    {"float8_e4m3fnuz", Form::kFnuz, 8, 4, 3, 8, 0x80},
    {"float8_e5m2", Form::kIeee, 8, 5, 2, 15, 0x7e},
    {"float8_e5m2fnuz", Form::kFnuz, 8, 5, 2, 16, 0x80},
    {"float8_e8m0fnu", Form::kE8m0, 8, 8, 0, 127, 0xff},
    {"bfloat16", Form::kIeee, 16, 8, 7, 127, 0x7fc0},
    {"float16", Form::kIeee, 16, 5, 10, 15, 0x7e00},
    {"float32", Form::kIeee, 32, 8, 23, 127, 0x7fc00000},
    {"float64", Form::kIeee, 64, 11, 52, 1023, 0x7ff8000000000000},
}};

inline const RefType& Ref(zcast::DataType t) { return kRefTypes[static_cast<int>(t)]; }
inline bool IsIntForm(Form f) { return f == Form::kInt || f == Form::kUint; }
inline std::uint64_t Mask(int bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

// ---- exact __float128 helpers (no libquadmath: everything by bit manipulation) ----

// 2^e for the normal range of binary128, which contains every exponent we need.
inline f128 Pow2(int e) {
  u128 rep = static_cast<u128>(e + 16383) << 112;
  f128 v;
  std::memcpy(&v, &rep, sizeof v);
  return v;
}

// |v| = sig * 2^exp exactly (sig = 0 for zero). Only finite values occur here.
struct Parts {
  bool neg;
  u128 sig;
  int exp;
};
inline Parts Decompose(f128 v) {
  u128 rep;
  std::memcpy(&rep, &v, sizeof rep);
  bool neg = (rep >> 127) != 0;
  int biased = static_cast<int>((rep >> 112) & 0x7fff);
  u128 frac = rep & ((static_cast<u128>(1) << 112) - 1);
  if (biased == 0) return {neg, frac, 1 - 16383 - 112};
  return {neg, frac | (static_cast<u128>(1) << 112), biased - 16383 - 112};
}

inline f128 FromU64(std::uint64_t v) { return static_cast<f128>(v); }  // exact: 64 < 113 bits

// floor(log2 v) for v > 0.
inline int FloorLog2(f128 v) {
  Parts p = Decompose(v);
  int width = 0;
  for (u128 s = p.sig; s != 0; s >>= 1) ++width;
  return p.exp + width - 1;
}

// floor(v) for 0 <= v < 2^64, as an integer.
inline std::uint64_t FloorToU64(f128 v) {
  Parts p = Decompose(v);
  if (p.sig == 0) return 0;
  if (p.exp >= 0) return static_cast<std::uint64_t>(p.sig << p.exp);
  if (p.exp <= -113) return 0;
  return static_cast<std::uint64_t>(p.sig >> -p.exp);
}

inline bool IsIntegral(f128 v) {
  Parts p = Decompose(v);
  if (p.sig == 0 || p.exp >= 0) return true;
  if (p.exp <= -113) return false;
  return (p.sig & ((static_cast<u128>(1) << -p.exp) - 1)) == 0;
}

// An integral v (any magnitude) modulo 2^64, as the low 64 bits of |v| (R5 needs this exactly).
inline std::uint64_t IntegralLow64(f128 v) {
  Parts p = Decompose(v);
  if (p.sig == 0) return 0;
  if (p.exp >= 128) return 0;
  if (p.exp >= 0) return static_cast<std::uint64_t>(p.sig << p.exp);
  return static_cast<std::uint64_t>(p.sig >> -p.exp);
}

// For messages only (not exact).
inline std::string F128ToString(f128 v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.21Lg", static_cast<long double>(v));
  return buf;
}

// ---- decoding ----

struct RefValue {
  enum class Cls : std::uint8_t { kFinite, kInf, kNaN };
  Cls cls = Cls::kFinite;
  bool neg = false;  // the sign bit (also for zeros, Inf, NaN)
  f128 mag = 0;      // |value| for finite values
};

// The value of a non-negative float code (sign bit clear) of a Ieee/Fn/Fnuz type, from the
// exponent/mantissa formula of the type table; the caller excludes Inf/NaN codes.
inline f128 FloatCodeValue(const RefType& t, std::uint64_t code) {
  std::uint64_t mant = code & Mask(t.m);
  int exp_field = static_cast<int>(code >> t.m);
  if (exp_field == 0) return FromU64(mant) * Pow2(1 - t.bias - t.m);
  return FromU64(mant + (1ull << t.m)) * Pow2(exp_field - t.bias - t.m);
}

inline RefValue RefDecode(zcast::DataType type, std::uint64_t bits) {
  const RefType& t = Ref(type);
  bits &= Mask(t.bits);
  RefValue v;
  switch (t.form) {
    case Form::kInt: {
      bool neg = (bits >> (t.bits - 1)) & 1;
      v.neg = neg;
      // |value| = 2^N - bits for negatives; computed in 128 bits so that int64's -2^63 fits.
      v.mag = neg ? static_cast<f128>((static_cast<u128>(1) << t.bits) - bits) : FromU64(bits);
      return v;
    }
    case Form::kUint:
      v.mag = FromU64(bits);
      return v;
    case Form::kE8m0:
      if (bits == 0xff) {
        v.cls = RefValue::Cls::kNaN;
      } else {
        v.mag = Pow2(static_cast<int>(bits) - 127);
      }
      return v;
    default:
      break;
  }
  std::uint64_t sign = 1ull << (t.e + t.m);
  std::uint64_t code = bits & (sign - 1);
  v.neg = (bits & sign) != 0;
  if (t.form == Form::kFnuz && bits == 0x80) {
    v.cls = RefValue::Cls::kNaN;
    v.neg = false;
    return v;
  }
  if (t.form == Form::kIeee && (code >> t.m) == Mask(t.e)) {
    v.cls = (code & Mask(t.m)) == 0 ? RefValue::Cls::kInf : RefValue::Cls::kNaN;
    return v;
  }
  v.mag = FloatCodeValue(t, code);
  return v;
}

// ---- target grids ----

// All non-negative finite values of a float type of at most 16 bits, indexed by their code
// (the encoding with the sign bit clear). Codes increase with value, and the last bit of a code
// is the last bit of the significand, which is what nearest-even compares.
inline const std::vector<f128>& Grid(zcast::DataType type) {
  static const std::array<std::vector<f128>, 26> grids = [] {
    std::array<std::vector<f128>, 26> g;
    for (int i = 0; i < 26; ++i) {
      const RefType& t = kRefTypes[i];
      if (t.bits > 16 || IsIntForm(t.form) || t.form == Form::kE8m0) continue;
      std::uint64_t codes = 1ull << (t.e + t.m);  // codes with the sign bit clear
      if (t.form == Form::kIeee) codes -= 1ull << t.m;  // minus Inf and NaNs
      for (std::uint64_t c = 0; c < codes; ++c) g[i].push_back(FloatCodeValue(t, c));
    }
    return g;
  }();
  return grids[static_cast<int>(type)];
}

// Largest finite value of a float type (any size), from the table formula.
inline f128 MaxFinite(const RefType& t) {
  if (t.form == Form::kE8m0) return Pow2(127);
  std::uint64_t max_code = (1ull << (t.e + t.m)) - 1;
  if (t.form == Form::kIeee) max_code -= 1ull << t.m;
  return FloatCodeValue(t, max_code);
}

// The two candidates for one magnitude x > 0: `lo` <= x < `hi`, or lo == x when x is on the grid
// (possibly the continued grid above max). Each candidate is a magnitude plus the code that
// encodes it, or a marker that it lies above (or, e8m0 only, below) the finite range.
struct Candidate {
  f128 mag = 0;
  std::uint64_t code = 0;
  bool above = false;
  bool below = false;
};
struct Neighbors {
  Candidate lo, hi;
  bool exact = false;
  bool lo_even = true;  // nearest-even picks lo on a tie iff lo_even
};

inline Neighbors TableNeighbors(zcast::DataType type, f128 x) {
  const std::vector<f128>& g = Grid(type);
  std::uint64_t max_code = g.size() - 1;
  f128 top = g[max_code];
  f128 continued = top + (top - g[max_code - 1]);  // max + ulp(max): next point of the grid
  Neighbors n;
  if (x >= continued) {  // at or beyond the continued point every mode leaves the range
    n.lo = {continued, 0, true, false};
    n.exact = true;
    return n;
  }
  if (x > top) {
    n.lo = {top, max_code, false, false};
    n.hi = {continued, 0, true, false};
    n.lo_even = (max_code & 1) == 0;
    return n;
  }
  auto it = std::upper_bound(g.begin(), g.end(), x);  // first value > x; x >= g[0] = 0
  std::uint64_t idx = static_cast<std::uint64_t>(it - g.begin()) - 1;
  n.lo = {g[idx], idx, false, false};
  n.lo_even = (idx & 1) == 0;
  if (g[idx] == x) {
    n.exact = true;
  } else {
    n.hi = {g[idx + 1], idx + 1, false, false};
  }
  return n;
}

// float32 / float64 (and, in a cross-check test, every table type): the grid computed as
// multiples of the quantum max(2^(floor(log2 x) - M), 2^(1 - bias - M)), continued upwards
// without bound; the candidates carry the multiple k, and the code is built afterwards.
inline std::uint64_t EncodeFloatMagnitude(const RefType& t, std::uint64_t k, int q) {
  if (k == 0) return 0;
  if (k == (2ull << t.m)) {  // carried into the next binade
    k >>= 1;
    ++q;
  }
  if (k >= (1ull << t.m)) {
    std::uint64_t biased = static_cast<std::uint64_t>(q + t.m + t.bias);
    return biased << t.m | (k - (1ull << t.m));
  }
  return k;  // subnormal: q is the subnormal quantum
}
inline Neighbors ComputedNeighbors(const RefType& t, f128 x) {
  int qmin = 1 - t.bias - t.m;
  int q = std::max(FloorLog2(x) - t.m, qmin);
  std::uint64_t k = FloorToU64(x * Pow2(-q));  // < 2^(M+1): exact scaling by a power of two
  f128 max = MaxFinite(t);
  auto make = [&](std::uint64_t kk) {
    Candidate c;
    c.mag = FromU64(kk) * Pow2(q);
    c.above = c.mag > max;
    if (!c.above) c.code = EncodeFloatMagnitude(t, kk, q);
    return c;
  };
  Neighbors n;
  n.lo = make(k);
  n.lo_even = (k & 1) == 0;
  if (n.lo.mag == x) {
    n.exact = true;
  } else {
    n.hi = make(k + 1);
  }
  return n;
}

inline Neighbors IntNeighbors(f128 x) {
  Neighbors n;
  if (IsIntegral(x)) {  // includes every |x| >= 2^113 and all huge values
    n.lo.mag = x;
    n.exact = true;
    return n;
  }
  std::uint64_t fl = FloorToU64(x);  // non-integral sources are below 2^53
  n.lo.mag = FromU64(fl);
  n.hi.mag = FromU64(fl) + 1;
  n.lo_even = (fl & 1) == 0;
  return n;
}

// R6: powers of two 2^-127..2^127 with no lower limit on the exponent while rounding; a tie
// 1.5*2^e goes up in both nearest modes, so lo counts as "odd".
inline Neighbors E8m0Neighbors(f128 x) {
  int e = FloorLog2(x);
  auto make = [](int ee) {
    Candidate c;
    c.mag = Pow2(ee);
    c.below = ee < -127;
    c.above = ee > 127;
    if (!c.below && !c.above) c.code = static_cast<std::uint64_t>(ee + 127);
    return c;
  };
  Neighbors n;
  n.lo = make(e);
  n.lo_even = false;
  if (n.lo.mag == x) {
    n.exact = true;
  } else {
    n.hi = make(e + 1);
  }
  return n;
}

inline Neighbors FindNeighbors(zcast::DataType type, f128 x) {
  const RefType& t = Ref(type);
  if (IsIntForm(t.form)) return IntNeighbors(x);
  if (t.form == Form::kE8m0) return E8m0Neighbors(x);
  if (t.bits <= 16) return TableNeighbors(type, x);
  return ComputedNeighbors(t, x);
}

// Rounding on magnitudes: for a negative value, towards-positive moves towards zero.
enum class MagDir : std::uint8_t { kDown, kUp, kNearEven, kNearAway };
inline MagDir ToMagDir(zcast::Rounding r, bool neg) {
  switch (r) {
    case zcast::Rounding::kNearestEven: return MagDir::kNearEven;
    case zcast::Rounding::kNearestAway: return MagDir::kNearAway;
    case zcast::Rounding::kTowardsZero: return MagDir::kDown;
    case zcast::Rounding::kTowardsPositive: return neg ? MagDir::kDown : MagDir::kUp;
    case zcast::Rounding::kTowardsNegative: return neg ? MagDir::kUp : MagDir::kDown;
  }
  return MagDir::kNearEven;
}

inline const Candidate& Pick(const Neighbors& n, f128 x, MagDir dir) {
  if (n.exact) return n.lo;
  switch (dir) {
    case MagDir::kDown: return n.lo;
    case MagDir::kUp: return n.hi;
    default: break;
  }
  f128 mid = (n.lo.mag + n.hi.mag) / 2;  // exact: neighbours have at most 65 significant bits
  if (x < mid) return n.lo;
  if (x > mid) return n.hi;
  if (dir == MagDir::kNearAway) return n.hi;
  return n.lo_even ? n.lo : n.hi;
}

// ---- the procedure ----

enum class RefError : std::uint8_t { kNone, kNaN, kInf, kOutOfRange };

struct RefOutcome {
  std::uint64_t bits = 0;
  RefError error = RefError::kNone;
  bool operator==(const RefOutcome&) const = default;
};

// Step 4 for one rounding mode, before out_of_range is applied: the rounded value (sign and
// candidate), or the special-value result of step 2.
struct RefRounded {
  RefValue::Cls cls = RefValue::Cls::kFinite;
  bool neg = false;
  Candidate c;
};

inline RefRounded RefRoundValue(const RefValue& x, zcast::DataType dst, zcast::Rounding r) {
  RefRounded out;
  out.cls = x.cls;
  out.neg = x.neg;
  if (x.cls != RefValue::Cls::kFinite) return out;
  if (x.mag == 0) {  // zero is on every grid except e8m0's (R6: below its range)
    out.c.below = Ref(dst).form == Form::kE8m0;
    return out;
  }
  Neighbors n = FindNeighbors(dst, x.mag);
  out.c = Pick(n, x.mag, ToMagDir(r, x.neg));
  return out;
}

// The rounding of every mode at once (the neighbour search is shared).
inline void RefRoundAllModes(const RefValue& x, zcast::DataType dst, RefRounded out[5]) {
  if (x.cls != RefValue::Cls::kFinite || x.mag == 0) {
    for (int i = 0; i < 5; ++i) out[i] = RefRoundValue(x, dst, zcast::Rounding::kNearestEven);
    return;
  }
  Neighbors n = FindNeighbors(dst, x.mag);
  for (int i = 0; i < 5; ++i) {
    out[i].cls = x.cls;
    out[i].neg = x.neg;
    out[i].c = Pick(n, x.mag, ToMagDir(static_cast<zcast::Rounding>(i), x.neg));
  }
}

// Steps 2 and 4 (range) for integer targets: R1/R2 clamp, R5 wrap, R7, R8.
inline RefOutcome FinishInt(const RefType& t, bool neg, f128 mag, zcast::OutOfRange oor) {
  f128 pos_limit, neg_limit;  // largest magnitudes allowed for each sign
  if (t.form == Form::kInt) {
    pos_limit = Pow2(t.bits - 1) - 1;
    neg_limit = Pow2(t.bits - 1);
  } else {
    pos_limit = Pow2(t.bits) - 1;
    neg_limit = 0;  // R7: only -0 (a negative that rounded to zero) is in range
  }
  bool in_range = mag <= (neg ? neg_limit : pos_limit);
  if (in_range || oor == zcast::OutOfRange::kWrap) {
    // In range the value is exact; out of range this is R5's exact reduction modulo 2^N.
    std::uint64_t low = IntegralLow64(mag);
    std::uint64_t v = neg ? (~low + 1) : low;
    return {v & Mask(t.bits), RefError::kNone};
  }
  if (oor == zcast::OutOfRange::kUnset) return {0, RefError::kOutOfRange};
  // R2 clamp: the nearest end of the range.
  if (t.form == Form::kInt) {
    std::uint64_t min_bits = (1ull << (t.bits - 1));  // -2^(N-1) in N bits
    return {neg ? min_bits : min_bits - 1, RefError::kNone};
  }
  return {neg ? 0 : Mask(t.bits), RefError::kNone};
}

inline RefOutcome RefFinish(zcast::DataType dst, const RefRounded& r, zcast::OutOfRange oor) {
  const RefType& t = Ref(dst);
  bool has_inf = t.form == Form::kIeee;
  std::uint64_t sign = (t.form == Form::kE8m0 || IsIntForm(t.form)) ? 0 : 1ull << (t.e + t.m);
  // Step 2 (R3): the same under every out_of_range setting.
  if (r.cls == RefValue::Cls::kNaN) {
    switch (t.form) {
      case Form::kIeee: return {(r.neg ? sign : 0) | t.nan, RefError::kNone};
      case Form::kFnuz:
      case Form::kE8m0: return {t.nan, RefError::kNone};
      default: return {0, RefError::kNaN};
    }
  }
  if (r.cls == RefValue::Cls::kInf) {
    if (!has_inf) return {0, RefError::kInf};
    return {(r.neg ? sign : 0) | (Mask(t.e) << t.m), RefError::kNone};
  }
  if (IsIntForm(t.form)) return FinishInt(t, r.neg, r.c.mag, oor);
  // R4: wrap into a float type acts as unset.
  bool clamp = oor == zcast::OutOfRange::kClamp;
  if (t.form == Form::kE8m0) {
    // R6: zero and every negative are below the range.
    bool below = r.c.below || r.neg || r.c.mag == 0;
    if (!below && !r.c.above) return {r.c.code, RefError::kNone};
    if (!clamp) return {0, RefError::kOutOfRange};
    return {below ? 0x00u : 0xfeu, RefError::kNone};  // R2: 2^-127 or 2^127
  }
  if (r.c.above) {
    if (!clamp) return {0, RefError::kOutOfRange};
    if (has_inf) return {(r.neg ? sign : 0) | (Mask(t.e) << t.m), RefError::kNone};  // R1
    std::uint64_t max_code = sign - 1;  // Fn / Fnuz: every code with the sign clear is finite
    return {(r.neg ? sign : 0) | max_code, RefError::kNone};  // R2
  }
  // R8: a negative zero only where the type has one (not fnuz).
  bool negative_zero_allowed = t.form != Form::kFnuz;
  bool set_sign = r.neg && (r.c.mag != 0 || negative_zero_allowed);
  return {(set_sign ? sign : 0) | r.c.code, RefError::kNone};
}

inline RefOutcome RefCastValue(const RefValue& x, zcast::DataType dst, zcast::Rounding r,
                               zcast::OutOfRange oor) {
  return RefFinish(dst, RefRoundValue(x, dst, r), oor);
}

inline RefOutcome RefCast(zcast::DataType src, std::uint64_t bits, zcast::DataType dst,
                          zcast::Rounding r, zcast::OutOfRange oor) {
  return RefCastValue(RefDecode(src, bits), dst, r, oor);
}

}  // namespace zcast_test

#endif  // ZCAST_TESTS_REFERENCE_MODEL_H_
