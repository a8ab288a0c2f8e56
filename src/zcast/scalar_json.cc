// JSON scalars of the 26 types (scalar_json.h, semantics.md "JSON scalars").
//
// Decimal numbers are converted with exactly one rounding: the lexeme becomes an arbitrary-precision
// D * 10^k, that becomes an ExactValue holding the top 62 bits of the binary value plus a sticky
// bit, and CastExact rounds it nearest-even. Nothing goes through double, because a double
// rounding (decimal -> double -> float16) moves values that sit just off a float16 tie onto it.
#include "zcast/scalar_json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"

namespace zcast::internal {
namespace {

// ---------------------------------------------------------------------------------------------
// A minimal unsigned bignum: just what decimal -> binary needs (multiply by small, shift, compare,
// subtract, bit extraction). Little-endian 32-bit limbs, no leading zero limbs.
class BigUint {
 public:
  BigUint() = default;
  explicit BigUint(std::uint32_t v) {
    if (v) limbs_.push_back(v);
  }

  bool IsZero() const { return limbs_.empty(); }

  int BitLength() const {
    if (limbs_.empty()) return 0;
    return static_cast<int>(32 * (limbs_.size() - 1) + std::bit_width(limbs_.back()));
  }

  // *this = *this * m + add.
  void MulAdd(std::uint32_t m, std::uint32_t add) {
    std::uint64_t carry = add;
    for (std::uint32_t& limb : limbs_) {
      std::uint64_t t = static_cast<std::uint64_t>(limb) * m + carry;
      limb = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
    Trim();
  }

  void MulPow10(std::int64_t n) {
    for (; n >= 9; n -= 9) MulAdd(1000000000u, 0);
    static constexpr std::uint32_t kPow10[] = {1,      10,      100,      1000,     10000,
                                               100000, 1000000, 10000000, 100000000};
    if (n > 0) MulAdd(kPow10[n], 0);
  }

  void ShiftLeft(int bits) {
    if (IsZero() || bits == 0) return;
    int words = bits / 32, rem = bits % 32;
    std::vector<std::uint32_t> r(limbs_.size() + words + 1, 0);
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      std::uint64_t v = static_cast<std::uint64_t>(limbs_[i]) << rem;
      r[i + words] |= static_cast<std::uint32_t>(v);
      r[i + words + 1] |= static_cast<std::uint32_t>(v >> 32);
    }
    limbs_ = std::move(r);
    Trim();
  }

  void ShiftRightOne() {
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      limbs_[i] >>= 1;
      if (i + 1 < limbs_.size()) limbs_[i] |= limbs_[i + 1] << 31;
    }
    Trim();
  }

  // -1, 0, 1.
  friend int Compare(const BigUint& a, const BigUint& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (std::size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

  // *this -= b; requires *this >= b.
  void Subtract(const BigUint& b) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      std::int64_t t = static_cast<std::int64_t>(limbs_[i]) - borrow -
                       (i < b.limbs_.size() ? static_cast<std::int64_t>(b.limbs_[i]) : 0);
      borrow = t < 0;
      limbs_[i] = static_cast<std::uint32_t>(t + (borrow ? (std::int64_t{1} << 32) : 0));
    }
    Trim();
  }

  bool Bit(int i) const {
    std::size_t w = static_cast<std::size_t>(i) / 32;
    return w < limbs_.size() && (limbs_[w] >> (i % 32) & 1);
  }

  // Bits [lo, lo + count) as an integer, count <= 64.
  std::uint64_t Extract(int lo, int count) const {
    std::uint64_t v = 0;
    for (int i = count - 1; i >= 0; --i) v = v << 1 | (Bit(lo + i) ? 1 : 0);
    return v;
  }

  // True when any bit below position `lo` is set.
  bool AnyBelow(int lo) const {
    for (int i = 0; i < lo; ++i) {
      if (Bit(i)) return true;
    }
    return false;
  }

 private:
  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<std::uint32_t> limbs_;
};

// ---------------------------------------------------------------------------------------------
// A decimal number: (-1)^negative * digits * 10^exp10, `digits` without leading or trailing zeros
// (empty for zero).
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exp10 = 0;
};

// Float16 needs ~20 significant digits to separate its ties, float64 767; beyond that a run of
// digits only matters through whether it is nonzero, so it is replaced by one nonzero digit one
// place further down (the value stays strictly between the same two neighbouring grid points and
// midpoints, so the rounding is unchanged).
constexpr std::size_t kMaxDigits = 800;
// Every decimal below 10^-400 rounds to zero in every type (float64's smallest half-quantum is
// ~2.5e-324) and every one above 10^400 overflows, so these are short-cut to keep bignums small.
constexpr std::int64_t kTinyExp10 = -400;
constexpr std::int64_t kHugeExp10 = 400;
// Normalised significand width for inexact values: the engine needs 60..63 bits with sticky.
constexpr int kSigBits = 62;

// Parses a JSON number lexeme (validating it again, since a JsonValue can be built by hand).
bool ParseDecimal(std::string_view s, Decimal* out, bool* has_fraction_or_exponent) {
  std::size_t i = 0;
  auto digit = [&](std::size_t j) { return j < s.size() && s[j] >= '0' && s[j] <= '9'; };
  Decimal d;
  if (i < s.size() && s[i] == '-') {
    d.negative = true;
    ++i;
  }
  if (!digit(i)) return false;
  std::string all;  // integer and fraction digits
  std::int64_t frac_len = 0;
  if (s[i] == '0') {
    ++i;
    if (digit(i)) return false;  // leading zero
    all.push_back('0');
  } else {
    while (digit(i)) all.push_back(s[i++]);
  }
  *has_fraction_or_exponent = false;
  if (i < s.size() && s[i] == '.') {
    *has_fraction_or_exponent = true;
    ++i;
    if (!digit(i)) return false;
    while (digit(i)) {
      all.push_back(s[i++]);
      ++frac_len;
    }
  }
  std::int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    *has_fraction_or_exponent = true;
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    if (!digit(i)) return false;
    // Saturate: any exponent this large already puts the value far beyond kHugeExp10/kTinyExp10.
    while (digit(i)) {
      if (exp < 1'000'000'000) exp = exp * 10 + (s[i] - '0');
      ++i;
    }
    if (exp_negative) exp = -exp;
  }
  if (i != s.size()) return false;

  std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits.clear();
    d.exp10 = 0;
  } else {
    std::size_t last = all.find_last_not_of('0');
    d.digits = all.substr(first, last - first + 1);
    d.exp10 = exp - frac_len + static_cast<std::int64_t>(all.size() - 1 - last);
  }
  *out = std::move(d);
  return true;
}

// The exact binary value of a decimal, as the engine's ExactValue (see exact.h): either exact, or
// the top kSigBits bits with `sticky` for the nonzero rest.
ExactValue DecimalToExact(Decimal d) {
  ExactValue v;
  v.negative = d.negative;
  if (d.digits.empty()) return v;  // +-0, sign kept (R8)
  if (d.digits.size() > kMaxDigits) {
    d.exp10 += static_cast<std::int64_t>(d.digits.size() - kMaxDigits) - 1;
    d.digits.resize(kMaxDigits);
    d.digits.push_back('1');
  }
  std::int64_t sci_exp = d.exp10 + static_cast<std::int64_t>(d.digits.size()) - 1;
  if (sci_exp < kTinyExp10 || sci_exp > kHugeExp10) {
    // A stand-in with the same rounding in every type: far below every quantum (rounds to +-0,
    // or below 2^-127 for e8m0) or far above every maximum (overflows).
    v.mag = 1ull << (kSigBits - 1);
    v.exp = sci_exp < 0 ? -5000 : 5000;
    v.sticky = true;
    return v;
  }

  BigUint num;
  for (std::size_t i = 0; i < d.digits.size(); i += 9) {
    std::size_t n = std::min<std::size_t>(9, d.digits.size() - i);
    std::uint32_t chunk = 0, scale = 1;
    for (std::size_t j = 0; j < n; ++j) {
      chunk = chunk * 10 + static_cast<std::uint32_t>(d.digits[i + j] - '0');
      scale *= 10;
    }
    num.MulAdd(scale, chunk);
  }

  if (d.exp10 >= 0) {
    num.MulPow10(d.exp10);
    int len = num.BitLength();
    if (len <= 63) {
      v.mag = num.Extract(0, len);
      v.exp = 0;
      return v;
    }
    int drop = len - kSigBits;
    v.mag = num.Extract(drop, kSigBits);
    v.exp = drop;
    v.sticky = num.AnyBelow(drop);
    return v;
  }

  // value = num / 10^-exp10. Scale by 2^s so that the quotient lands in [2^61, 2^63): with
  // a = bitlen(num), b = bitlen(den), num/den lies in (2^(a-b-1), 2^(a-b+1)).
  BigUint den(1);
  den.MulPow10(-d.exp10);
  int s = kSigBits - (num.BitLength() - den.BitLength());
  if (s > 0) num.ShiftLeft(s);
  else den.ShiftLeft(-s);
  // Long division by shift and subtract; the quotient has at most 63 bits.
  den.ShiftLeft(62);
  std::uint64_t q = 0;
  for (int i = 62; i >= 0; --i) {
    if (Compare(num, den) >= 0) {
      num.Subtract(den);
      q |= 1ull << i;
    }
    den.ShiftRightOne();
  }
  v.mag = q;
  v.exp = -s;
  v.sticky = !num.IsZero();
  return v;
}

// Rounds a decimal to `type` nearest-even. For types with Inf, IEEE overflow: beyond the range is
// +-Inf (kClamp gives exactly that, R1). For the others an overflow stays an error.
CastOutcome CastDecimal(const Decimal& d, DataType type) {
  const TypeInfo& t = Info(type);
  return CastExact(DecimalToExact(d), type, Rounding::kNearestEven,
                   t.has_inf() ? OutOfRange::kClamp : OutOfRange::kUnset);
}

// The JSON value as quoted in messages, bounded so a pathological lexeme cannot flood a log (R34).
std::string Quote(const JsonValue& value) { return BriefJson(value); }

Status Invalid(const JsonValue& value, DataType type, std::string_view reason) {
  return Status(StatusCode::kInvalidMetadata, Quote(value) + " is not a valid " +
                                                  std::string(DataTypeName(type)) + " scalar: " +
                                                  std::string(reason));
}

Result<std::uint64_t> ParseIntScalar(const JsonValue& value, DataType type) {
  const TypeInfo& t = Info(type);
  if (value.type != JsonValue::Type::kNumber) {
    return Invalid(value, type, "integers take JSON numbers");
  }
  std::string_view s = value.text;
  bool negative = !s.empty() && s[0] == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  Decimal unused;
  bool has_fraction_or_exponent = false;
  if (!ParseDecimal(s, &unused, &has_fraction_or_exponent)) {
    return Invalid(value, type, "not a JSON number");
  }
  if (has_fraction_or_exponent) {
    return Invalid(value, type, "integers take JSON numbers without fraction or exponent");
  }
  // Exact accumulation in uint64 (int64/uint64 extremes must not pass through double).
  std::uint64_t mag = 0;
  bool overflow = false;
  for (char c : digits) {
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (mag > (~0ull - digit) / 10) {
      overflow = true;
      break;
    }
    mag = mag * 10 + digit;
  }
  bool in_range;
  if (overflow) {
    in_range = false;
  } else if (t.is_signed_int()) {
    std::uint64_t half = 1ull << (t.bits - 1);
    in_range = negative ? mag <= half : mag < half;
  } else {
    in_range = negative ? mag == 0 : mag <= t.value_mask();  // "-0" is 0
  }
  if (!in_range) return Invalid(value, type, "out of range");
  std::uint64_t bits = negative ? ~mag + 1 : mag;  // two's complement
  return bits & t.value_mask();
}

Result<std::uint64_t> ParseHexScalar(const JsonValue& value, DataType type) {
  const TypeInfo& t = Info(type);
  std::string_view hex = std::string_view(value.text).substr(2);
  std::size_t max_digits = 2u * t.size;
  if (hex.empty() || hex.size() > max_digits) {
    return Invalid(value, type,
                   "hex raw bits take 1 to " + std::to_string(max_digits) + " hex digits");
  }
  std::uint64_t bits = 0;
  for (char c : hex) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return Invalid(value, type, "invalid hex digit");
    bits = bits << 4 | static_cast<std::uint64_t>(d);
  }
  if (bits & ~t.value_mask()) {
    return Invalid(value, type,
                   "raw bits do not fit the " + std::to_string(t.bits) + "-bit type");
  }
  return bits;
}

Result<std::uint64_t> ParseFloatScalar(const JsonValue& value, DataType type) {
  const TypeInfo& t = Info(type);
  std::string name(DataTypeName(type));
  if (value.type == JsonValue::Type::kString) {
    const std::string& s = value.text;
    if (s == "NaN") {
      if (!t.has_nan()) return Invalid(value, type, name + " has no NaN");
      return t.canonical_nan();
    }
    if (s == "Infinity" || s == "+Infinity" || s == "-Infinity") {
      if (!t.has_inf()) return Invalid(value, type, name + " has no infinity");
      return (s[0] == '-' ? t.sign_bit() : 0) | t.positive_inf();
    }
    if (s.size() >= 2 && s[0] == '0' && s[1] == 'x') return ParseHexScalar(value, type);
    return Invalid(value, type,
                   "the only strings are \"NaN\", \"Infinity\", \"-Infinity\" and \"0x\" raw bits");
  }
  if (value.type != JsonValue::Type::kNumber) {
    return Invalid(value, type,
                   "floats take JSON numbers, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" "
                   "raw bits");
  }
  Decimal d;
  bool unused;
  if (!ParseDecimal(value.text, &d, &unused)) return Invalid(value, type, "not a JSON number");
  CastOutcome out = CastDecimal(d, type);
  if (out.error == CastError::kNone) return out.bits;
  if (t.special == Special::E8m0) {
    // R6: find which end was missed, for the message.
    ExactValue v = DecimalToExact(d);
    bool below = v.negative || (v.mag == 0 && !v.sticky) ||
                 v.exp + static_cast<int>(std::bit_width(v.mag)) - 1 < 0;
    if (below) {
      return Invalid(value, type,
                     "out of range: " + name +
                         " holds only positive powers of two from 2^-127 to 2^127 (no zero)");
    }
  }
  return Invalid(value, type, "out of range and " + name + " has no infinity");
}

// ---------------------------------------------------------------------------------------------
// Formatting.

// Writes (-1)^negative * 0.digits * 10^decpt like Python's float repr, which is also what
// zarr-python writes for fill values: positional for 1e-4 <= |x| < 1e16 with at least one digit
// after the point ("240.0", "0.0001"), otherwise d.ddde+XX / d.ddde-XX with a signed exponent
// of at least two digits ("1e+16", "6.103515625e-05").
std::string ReprStyle(bool negative, const std::string& digits, int decpt) {
  std::string out = negative ? "-" : "";
  int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    int e = decpt - 1;
    out.push_back('e');
    out.push_back(e < 0 ? '-' : '+');
    std::string es = std::to_string(e < 0 ? -e : e);
    if (es.size() < 2) out.push_back('0');
    out.append(es);
  } else if (decpt <= 0) {
    out.append("0.");
    out.append(static_cast<std::size_t>(-decpt), '0');
    out.append(digits);
  } else if (decpt >= n) {
    out.append(digits);
    out.append(static_cast<std::size_t>(decpt - n), '0');
    out.append(".0");
  } else {
    out.append(digits, 0, static_cast<std::size_t>(decpt));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(decpt), std::string::npos);
  }
  return out;
}

// Reads to_chars scientific output "d.ddde+XX" (no sign) as its digits without the point and the
// decimal exponent of the first digit.
void ReadScientific(std::string_view s, std::string* digits, int* sci_exp) {
  std::size_t e = s.find('e');
  digits->clear();
  for (char c : s.substr(0, e)) {
    if (c != '.') digits->push_back(c);
  }
  std::string_view es = s.substr(e + 1);
  if (!es.empty() && es[0] == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), *sci_exp);
}

// The same, with trailing zeros of the digits removed.
void ReadShortScientific(std::string_view s, std::string* digits, int* sci_exp) {
  ReadScientific(s, digits, sci_exp);
  std::size_t last = digits->find_last_not_of('0');
  digits->resize(last == std::string::npos ? 1 : last + 1);
}

// Shortest decimal for the types narrower than float32: for each length p = 1, 2, ... the p-digit
// decimal nearest to x is the best p-digit candidate; when it misses x's rounding interval (which
// can be lopsided at a power of two) its neighbour on the other side of x may still hit it, so
// both are checked by parsing back with the exact parser.
bool ShortestSmall(DataType type, std::uint64_t bits, bool negative, double x,
                   std::string* digits, int* sci_exp) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, p - 1);
    std::string m_digits;  // exactly p digits: m +- 1 below are the p-digit neighbours
    int e10 = 0;
    ReadScientific(std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), &m_digits, &e10);
    std::uint64_t m = 0;
    std::from_chars(m_digits.data(), m_digits.data() + m_digits.size(), m);
    std::int64_t unit_exp = e10 - (p - 1);  // candidate value = c * 10^unit_exp
    for (std::uint64_t c : {m, m - 1, m + 1}) {
      if (c == 0) continue;
      Decimal d;
      d.negative = negative;
      std::string cs = std::to_string(c);
      std::size_t last = cs.find_last_not_of('0');
      d.digits = cs.substr(0, last + 1);
      d.exp10 = unit_exp + static_cast<std::int64_t>(cs.size() - 1 - last);
      CastOutcome out = CastDecimal(d, type);
      if (out.error == CastError::kNone && out.bits == bits) {
        *digits = d.digits;
        *sci_exp = static_cast<int>(d.exp10 + static_cast<std::int64_t>(d.digits.size()) - 1);
        return true;
      }
    }
  }
  return false;
}

std::string FormatFinite(DataType type, std::uint64_t bits) {
  ExactValue v = DecodeBits(type, bits);
  if (v.mag == 0) return v.negative ? "-0.0" : "0.0";
  std::string digits;
  int sci_exp = 0;
  char buf[64];
  if (type == DataType::float64 || type == DataType::float32) {
    // to_chars' shortest form round-trips through a correctly rounded nearest-even parser, which
    // ours is; the sign is written separately.
    std::to_chars_result res;
    if (type == DataType::float64) {
      res = std::to_chars(buf, buf + sizeof buf, std::bit_cast<double>(bits & ~(1ull << 63)),
                          std::chars_format::scientific);
    } else {
      res = std::to_chars(buf, buf + sizeof buf,
                          std::bit_cast<float>(static_cast<std::uint32_t>(bits & 0x7fffffffu)),
                          std::chars_format::scientific);
    }
    ReadShortScientific(std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), &digits,
                    &sci_exp);
  } else {
    // Every value of the narrower types is exactly a double.
    double x = std::ldexp(static_cast<double>(v.mag), v.exp);
    if (!ShortestSmall(type, bits, v.negative, x, &digits, &sci_exp)) {
      // Not reached (17 digits identify any double); keep the output valid regardless.
      auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
      ReadShortScientific(std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), &digits,
                      &sci_exp);
    }
  }
  return ReprStyle(v.negative, digits, sci_exp + 1);
}

}  // namespace

Result<std::uint64_t> ParseJsonScalar(const JsonValue& value, DataType type) {
  if (Info(type).is_int()) return ParseIntScalar(value, type);
  return ParseFloatScalar(value, type);
}

std::string FormatJsonScalar(DataType type, std::uint64_t bits) {
  const TypeInfo& t = Info(type);
  bits &= t.value_mask();
  if (t.is_int()) {
    if (t.is_signed_int() && (bits & t.sign_bit())) {
      return std::to_string(static_cast<std::int64_t>(bits | ~t.value_mask()));
    }
    return std::to_string(bits);
  }
  ExactValue v = DecodeBits(type, bits);
  if (v.cls == ValueClass::kNaN) {
    if (bits == t.canonical_nan()) return "\"NaN\"";
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"0x";
    for (int i = 2 * t.size - 1; i >= 0; --i) out.push_back(kHex[bits >> (4 * i) & 0xF]);
    out.push_back('"');
    return out;
  }
  if (v.cls == ValueClass::kInf) return v.negative ? "\"-Infinity\"" : "\"Infinity\"";
  return FormatFinite(type, bits);
}

}  // namespace zcast::internal
