#include "zcast/exact.h"

#include <bit>

#include "zcast/dtype.h"
#include "zcast/scalar_json.h"

namespace zcast::internal {
namespace {

using u128 = unsigned __int128;

int BitWidth(std::uint64_t v) { return static_cast<int>(std::bit_width(v)); }

// Result of rounding: (-1)^negative * sig * 2^exp, sig possibly 0.
struct Rounded {
  bool negative;
  std::uint64_t sig;
  std::int32_t exp;
};

// Rounds x to the grid of `dst` with an unbounded exponent (procedure step 4): integers round to
// multiples of 1; floats keep M+1 significant bits, never finer than the subnormal quantum; e8m0
// keeps 1 bit with no lower limit (R6), so its ties 1.5*2^e go up in both nearest modes (the
// candidate 2^e has odd significand 1).
Rounded RoundToGrid(const ExactValue& in, const TypeInfo& d, Rounding mode) {
  if (in.mag == 0 && !in.sticky) return {in.negative, 0, 0};
  ExactValue x = in;
  if (x.mag == 0) {
    // (0 + eps) * 2^exp: a value somewhere in (0, 2^exp), which callers only pass when it lies
    // below every quantum that could tell its position apart (the oracle's StickyValues test).
    // Hold it as the stand-in (2^62 + eps) * 2^(exp - 64), inside that interval, so that it has
    // the 60+ significant bits the shift below relies on. Without it e8m0, whose grid has no
    // lower limit (R6), got quantum = exp - 1 and a negative shift (undefined behaviour).
    x.mag = std::uint64_t{1} << 62;
    x.exp -= 64;
  }
  std::int32_t quantum;
  if (d.is_int()) {
    quantum = 0;
  } else {
    std::int32_t top = x.exp + BitWidth(x.mag) - 1;
    quantum = top - d.mant_bits;
    if (d.special != Special::E8m0 && quantum < d.min_quantum_exp()) quantum = d.min_quantum_exp();
  }
  if (quantum <= x.exp && !x.sticky) return {x.negative, x.mag, x.exp};  // on the grid: exact

  // shift >= 0; shift == 0 only with sticky (a remainder strictly below half a quantum). Callers
  // that set sticky (decimal JSON numbers, scale_offset results) keep at least 60 significant bits
  // in mag, more than any float target's precision, so shift >= 1 for float targets and kept + 1
  // below cannot overflow. Integer targets never receive sticky values (JSON integers are exact,
  // scale_offset on integer arrays is exact integer arithmetic).
  std::int64_t shift = static_cast<std::int64_t>(quantum) - x.exp;
  std::uint64_t kept;
  bool above_half, tie, inexact;
  if (shift == 0) {
    kept = x.mag;
    above_half = tie = false;
    inexact = true;
  } else if (shift <= 64) {
    u128 m = x.mag;
    kept = static_cast<std::uint64_t>(m >> shift);
    u128 rem = m & ((u128{1} << shift) - 1);
    u128 half = u128{1} << (shift - 1);
    above_half = rem > half || (rem == half && x.sticky);
    tie = rem == half && !x.sticky;
    inexact = rem != 0 || x.sticky;
  } else {  // everything below half a quantum
    kept = 0;
    above_half = tie = false;
    inexact = true;
  }
  bool up = false;
  switch (mode) {
    case Rounding::kNearestEven: up = above_half || (tie && (kept & 1)); break;
    case Rounding::kNearestAway: up = above_half || tie; break;
    case Rounding::kTowardsZero: up = false; break;
    case Rounding::kTowardsPositive: up = inexact && !x.negative; break;
    case Rounding::kTowardsNegative: up = inexact && x.negative; break;
  }
  return {x.negative, kept + (up ? 1 : 0), quantum};
}

// Compares sig * 2^exp (sig != 0) with msig * 2^mexp: -1, 0, 1.
int CompareMagnitude(std::uint64_t sig, std::int32_t exp, std::uint64_t msig, std::int32_t mexp) {
  std::int64_t top = static_cast<std::int64_t>(exp) + BitWidth(sig);
  std::int64_t mtop = static_cast<std::int64_t>(mexp) + BitWidth(msig);
  if (top != mtop) return top < mtop ? -1 : 1;
  // Same top bit: align the one with the larger exponent down to the other (fits in 64 bits).
  u128 a = sig, b = msig;
  if (exp > mexp) a <<= (exp - mexp);
  else b <<= (mexp - exp);
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Magnitude sig * 2^exp as uint64 if < 2^64 (exp >= 0 for integers after rounding).
bool MagnitudeToU64(std::uint64_t sig, std::int32_t exp, std::uint64_t* out) {
  if (sig == 0) { *out = 0; return true; }
  if (exp < 0) return false;  // not reached for integer grids
  if (exp + BitWidth(sig) > 64) return false;
  *out = sig << exp;
  return true;
}

std::uint64_t IntBits(const TypeInfo& d, bool negative, std::uint64_t mag) {
  std::uint64_t v = negative ? (~mag + 1) : mag;  // two's complement modulo 2^64
  return v & d.value_mask();
}

// Encodes an in-range, on-grid float value.
std::uint64_t FloatBits(const TypeInfo& d, bool negative, std::uint64_t sig, std::int32_t exp) {
  std::uint64_t sign = negative && d.has_neg_zero() ? d.sign_bit() : 0;
  if (sig == 0) return sign;  // R8: -0 only where D has it
  if (d.special == Special::E8m0) {
    // on the power-of-two grid sig is 1 or 2 (after a carry)
    std::int32_t e = exp + BitWidth(sig) - 1;
    return static_cast<std::uint64_t>(e + d.bias);
  }
  sign = negative ? d.sign_bit() : 0;
  std::int32_t top = exp + BitWidth(sig) - 1;
  std::int32_t emin = 1 - d.bias;
  if (top >= emin) {
    std::int32_t s = exp - (top - d.mant_bits);  // align to M+1 bits
    std::uint64_t full = s >= 0 ? sig << s : sig >> -s;
    std::uint64_t biased = static_cast<std::uint64_t>(top + d.bias);
    return sign | biased << d.mant_bits | (full & ((1ull << d.mant_bits) - 1));
  }
  std::int32_t s = exp - d.min_quantum_exp();
  std::uint64_t mant = s >= 0 ? sig << s : sig >> -s;
  return sign | mant;
}

CastOutcome OutOfRangeResult(const TypeInfo& d, const Rounded& r, bool below, OutOfRange oor) {
  if (oor == OutOfRange::kWrap && d.is_int()) {
    // R5: the value is an integer r.sig * 2^r.exp; reduce modulo 2^N exactly.
    std::uint64_t low = r.exp >= 64 ? 0 : r.sig << r.exp;
    return {IntBits(d, r.negative, low), CastError::kNone};
  }
  if (oor != OutOfRange::kClamp) return {0, CastError::kOutOfRange};
  if (d.is_int()) {
    if (d.is_signed_int()) {
      std::uint64_t half = 1ull << (d.bits - 1);
      return {r.negative ? IntBits(d, true, half) : half - 1, CastError::kNone};
    }
    return {r.negative ? 0 : d.value_mask(), CastError::kNone};
  }
  if (d.special == Special::E8m0) return {below ? 0x00u : 0xFEu, CastError::kNone};  // R2, R6
  std::uint64_t sign = r.negative ? d.sign_bit() : 0;
  if (d.has_inf()) return {sign | d.positive_inf(), CastError::kNone};  // R1
  return {sign | FloatBits(d, false, d.max_sig(), d.max_exp()), CastError::kNone};  // R2
}

}  // namespace

ExactValue DecodeBits(DataType type, std::uint64_t bits) {
  const TypeInfo& t = Info(type);
  bits &= t.value_mask();
  ExactValue v;
  if (t.is_int()) {
    bool neg = t.is_signed_int() && (bits & t.sign_bit());
    v.negative = neg;
    // |INT64_MIN| = 2^63 still fits: magnitudes are uint64.
    v.mag = neg ? ((~bits + 1) & t.value_mask()) : bits;
    return v;
  }
  if (t.special == Special::E8m0) {
    if (bits == 0xFF) { v.cls = ValueClass::kNaN; return v; }
    v.mag = 1;
    v.exp = static_cast<std::int32_t>(bits) - t.bias;
    return v;
  }
  v.negative = (bits & t.sign_bit()) != 0;
  std::uint64_t exp_field = (bits >> t.mant_bits) & ((1ull << t.exp_bits) - 1);
  std::uint64_t mant = bits & ((1ull << t.mant_bits) - 1);
  std::uint64_t all_ones = (1ull << t.exp_bits) - 1;
  if (t.special == Special::Ieee && exp_field == all_ones) {
    v.cls = mant == 0 ? ValueClass::kInf : ValueClass::kNaN;
    return v;
  }
  if (t.special == Special::Fnuz && bits == 0x80) {
    v.cls = ValueClass::kNaN;
    v.negative = false;
    return v;
  }
  if (exp_field == 0) {
    v.mag = mant;
    v.exp = t.min_quantum_exp();
  } else {
    v.mag = mant | (1ull << t.mant_bits);
    v.exp = static_cast<std::int32_t>(exp_field) - t.bias - t.mant_bits;
  }
  return v;
}

CastOutcome CastExact(const ExactValue& x, DataType dst, Rounding rounding, OutOfRange out_of_range) {
  const TypeInfo& d = Info(dst);
  if (out_of_range == OutOfRange::kWrap && !d.is_int()) out_of_range = OutOfRange::kUnset;  // R4
  // Step 2: NaN / Inf, under every out_of_range setting (R3).
  if (x.cls == ValueClass::kNaN) {
    if (!d.has_nan()) return {0, CastError::kNaN};
    std::uint64_t sign = (d.special == Special::Ieee && x.negative) ? d.sign_bit() : 0;
    return {sign | d.canonical_nan(), CastError::kNone};
  }
  if (x.cls == ValueClass::kInf) {
    if (!d.has_inf()) return {0, CastError::kInf};
    return {(x.negative ? d.sign_bit() : 0) | d.positive_inf(), CastError::kNone};
  }
  // Steps 3 and 4: exact values come back from RoundToGrid unchanged.
  Rounded r = RoundToGrid(x, d, rounding);
  if (d.is_int()) {
    std::uint64_t mag;
    bool fits = MagnitudeToU64(r.sig, r.exp, &mag);
    bool in_range;
    if (!fits) {
      in_range = false;
    } else if (d.is_signed_int()) {
      std::uint64_t half = 1ull << (d.bits - 1);
      in_range = r.negative ? mag <= half : mag < half;
    } else {
      in_range = r.negative ? mag == 0 : mag <= d.value_mask();  // R7
    }
    if (in_range) return {IntBits(d, r.negative, mag), CastError::kNone};  // R8: -0 -> 0
    return OutOfRangeResult(d, r, r.negative, out_of_range);
  }
  if (d.special == Special::E8m0) {
    // R6: zero, -0 and negatives are below the range; so are positives below 2^-127.
    bool below = r.negative || r.sig == 0 || CompareMagnitude(r.sig, r.exp, 1, -d.bias) < 0;
    bool above = !below && CompareMagnitude(r.sig, r.exp, 1, d.bias) > 0;
    if (below || above) return OutOfRangeResult(d, r, below, out_of_range);
    return {FloatBits(d, false, r.sig, r.exp), CastError::kNone};
  }
  if (r.sig != 0 && CompareMagnitude(r.sig, r.exp, d.max_sig(), d.max_exp()) > 0) {
    return OutOfRangeResult(d, r, r.negative, out_of_range);
  }
  return {FloatBits(d, r.negative, r.sig, r.exp), CastError::kNone};
}

bool IsNaNBits(DataType type, std::uint64_t bits) {
  const TypeInfo& t = Info(type);
  if (!t.has_nan()) return false;
  return DecodeBits(type, bits).cls == ValueClass::kNaN;
}

bool SameScalar(DataType type, std::uint64_t a, std::uint64_t b) {
  bool na = IsNaNBits(type, a), nb = IsNaNBits(type, b);
  if (na || nb) return na && nb;
  std::uint64_t mask = Info(type).value_mask();
  return (a & mask) == (b & mask);
}

std::string DescribeBits(DataType type, std::uint64_t bits) {
  // Messages show NaN, Infinity and hex patterns without the JSON string quotes.
  std::string s = FormatJsonScalar(type, bits & Info(type).value_mask());
  if (s.size() >= 2 && s.front() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::string DescribeError(CastError error, DataType src, std::uint64_t src_bits, DataType dst,
                          OutOfRange out_of_range) {
  std::string value = std::string(DataTypeName(src)) + " value " + DescribeBits(src, src_bits);
  std::string dst_name(DataTypeName(dst));
  switch (error) {
    case CastError::kNaN:
    case CastError::kInf:
      return value + " has no representation in " + dst_name +
             " and scalar_map does not map it";
    case CastError::kOutOfRange:
      return value + " is out of the range of " + dst_name +
             (out_of_range == OutOfRange::kWrap
                  ? " and wrap does not apply to a float type (R4)"
                  : " and out_of_range is not set");
    case CastError::kNone: break;
  }
  return value + " cast to " + dst_name;
}

}  // namespace zcast::internal
