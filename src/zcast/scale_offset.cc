// scale_offset: the exact scalar path and the kernels (semantics.md "scale_offset"; rules R20-R24
// are the new ones this codec introduced). The metadata and the binding to an array are in
// scale_offset_codec.cc.
//
// Every operation is defined as "compute the exact result, round it once to the array's type":
//  - floats: the exact sum / product / quotient of two values of the type is formed as an
//    ExactValue (a 64-bit significand plus a sticky bit for what lies below it) and rounded by
//    the cast_value engine (CastExact, nearest-even, out_of_range unset), so each step is the
//    correctly rounded IEEE-style operation of that format, subnormals and all, for every float
//    type including the float8/float6/float4 ones. float32 and float64 kernels use the hardware's
//    operations, which are that same correctly rounded operation; the tests prove it.
//  - integers: exact 128-bit arithmetic with a range check after each step.
#include "zcast/scale_offset.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cfloat>
#include <limits>
#include <optional>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/element_error.h"
#include "zcast/exact.h"

namespace zcast {
namespace internal {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

// ---------------------------------------------------------------------------------------------
// Exact arithmetic on finite ExactValues. Inputs come from DecodeBits (no sticky, mag < 2^54);
// results carry at most 64 significant bits plus sticky. When sticky is set the significand is
// kept at >= 63 bits, so every float target (<= 53 significant bits) rounds strictly above the
// sticky position, which is what CastExact's rounding expects of a sticky value.

int BitWidth128(u128 v) {
  auto hi = static_cast<std::uint64_t>(v >> 64);
  return hi ? 64 + static_cast<int>(std::bit_width(hi))
            : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v)));
}

ExactValue Zero(bool negative) {
  ExactValue z;
  z.negative = negative;
  return z;
}

// m * 2^exp (m != 0) reduced to 64 bits; dropped bits and `sticky` fold into the sticky bit.
ExactValue FromWide(bool negative, u128 m, std::int32_t exp, bool sticky) {
  int bw = BitWidth128(m);
  if (bw > 64) {
    int k = bw - 64;
    sticky |= (m & ((u128{1} << k) - 1)) != 0;
    m >>= k;
    exp += k;
  }
  ExactValue v;
  v.negative = negative;
  v.mag = static_cast<std::uint64_t>(m);
  v.exp = exp;
  v.sticky = sticky;
  return v;
}

// Shifts a nonzero significand up to 64 bits (value unchanged).
ExactValue Normalized(ExactValue v) {
  int s = 64 - static_cast<int>(std::bit_width(v.mag));
  v.mag <<= s;
  v.exp -= s;
  return v;
}

// a + b. Zeros follow IEEE 754 round-to-nearest: an exact zero sum is +0 unless both operands
// are -0 (so x - x = +0, and -0 - 0 = -0).
ExactValue ExactAdd(ExactValue a, ExactValue b) {
  if (a.mag == 0 && b.mag == 0) return Zero(a.negative && b.negative);
  if (a.mag == 0) return b;
  if (b.mag == 0) return a;
  a = Normalized(a);
  b = Normalized(b);
  if (a.exp < b.exp) std::swap(a, b);
  std::int64_t d = static_cast<std::int64_t>(a.exp) - b.exp;
  bool same_sign = a.negative == b.negative;
  if (d >= 64) {
    // |b| < 2^(b.exp + 64) <= 2^a.exp, one unit of a's last bit: the sum is a plus or minus a
    // nonzero amount below one unit, i.e. mag + eps or (mag - 1) + (1 - eps).
    ExactValue r = a;
    r.sticky = true;
    if (!same_sign) r.mag -= 1;
    return r;
  }
  u128 wa = u128{a.mag} << d, wb = b.mag;  // wa < 2^127: the sum fits in 128 bits
  if (same_sign) return FromWide(a.negative, wa + wb, b.exp, false);
  if (wa == wb) return Zero(false);
  return wa > wb ? FromWide(a.negative, wa - wb, b.exp, false)
                 : FromWide(b.negative, wb - wa, b.exp, false);
}

ExactValue ExactMul(const ExactValue& a, const ExactValue& b) {
  bool negative = a.negative != b.negative;
  if (a.mag == 0 || b.mag == 0) return Zero(negative);
  return FromWide(negative, u128{a.mag} * b.mag, a.exp + b.exp, false);
}

// a / b, b != 0: a 64-bit numerator shifted up by 64 gives a quotient of >= 74 bits, whose
// remainder joins the sticky bit.
ExactValue ExactDiv(ExactValue a, const ExactValue& b) {
  bool negative = a.negative != b.negative;
  if (a.mag == 0) return Zero(negative);
  a = Normalized(a);
  u128 num = u128{a.mag} << 64;
  return FromWide(negative, num / b.mag, a.exp - 64 - b.exp, num % b.mag != 0);
}

ExactValue Negated(ExactValue v) {
  v.negative = !v.negative;
  return v;
}

// True when an exact value lies below float8_e8m0fnu's range (zero, negative, or < 1 and thus
// on the low side of the failure; overflow means > 2^127).
bool BelowOne(const ExactValue& v) {
  if (v.negative || (v.mag == 0 && !v.sticky)) return true;
  return v.mag != 0 && v.exp + static_cast<int>(std::bit_width(v.mag)) - 1 < 0;
}

// One step for a float type: round the exact result once (nearest-even, no out_of_range: an
// overflow is the error of R24; underflow to a signed zero or subnormal is not an error).
bool RoundStep(const ScaleOffsetParams& p, ArithStep step, std::uint64_t lhs,
               const ExactValue& exact, std::uint64_t* cur, ArithOutcome* out) {
  CastOutcome r = CastExact(exact, p.type, Rounding::kNearestEven, OutOfRange::kUnset);
  if (r.error == CastError::kNone) {
    *cur = r.bits;
    return true;
  }
  out->error = Info(p.type).special == Special::E8m0 && BelowOne(exact) ? ArithError::kBelowRange
                                                                        : ArithError::kOverflow;
  out->step = step;
  out->operand = lhs;
  return false;
}

ArithOutcome FloatScalar(const ScaleOffsetParams& p, bool encode, std::uint64_t x) {
  const TypeInfo& t = Info(p.type);
  x &= t.value_mask();
  ExactValue v = DecodeBits(p.type, x);
  ArithOutcome out;
  if (v.cls == ValueClass::kNaN) {  // R23: NaN passes through, encoding unchanged
    out.bits = x;
    return out;
  }
  if (v.cls == ValueClass::kInf) {  // +-Inf -+ finite = +-Inf; times/over a finite scale: sign xor
    bool negative = v.negative;
    if (p.scale && DecodeBits(p.type, *p.scale).negative) negative = !negative;
    out.bits = (negative ? t.sign_bit() : 0) | t.positive_inf();
    return out;
  }
  std::uint64_t cur = x;
  auto value = [&](std::uint64_t bits) { return DecodeBits(p.type, bits); };
  if (encode) {
    if (p.offset && !RoundStep(p, ArithStep::kSubtractOffset, cur,
                               ExactAdd(value(cur), Negated(value(*p.offset))), &cur, &out))
      return out;
    if (p.scale && !RoundStep(p, ArithStep::kMultiplyScale, cur,
                              ExactMul(value(cur), value(*p.scale)), &cur, &out))
      return out;
  } else {
    if (p.scale && !RoundStep(p, ArithStep::kDivideScale, cur,
                              ExactDiv(value(cur), value(*p.scale)), &cur, &out))
      return out;
    if (p.offset && !RoundStep(p, ArithStep::kAddOffset, cur,
                               ExactAdd(value(cur), value(*p.offset)), &cur, &out))
      return out;
  }
  out.bits = cur;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Integers: exact values in 128 bits, the type's range checked after every step (R24).

i128 ToInt(const TypeInfo& t, std::uint64_t bits) {
  bits &= t.value_mask();
  if (t.is_signed_int() && (bits & t.sign_bit()))
    return static_cast<i128>(static_cast<std::int64_t>(bits | ~t.value_mask()));
  return static_cast<i128>(bits);
}

i128 IntMin(const TypeInfo& t) { return t.is_signed_int() ? -(i128{1} << (t.bits - 1)) : 0; }
i128 IntMax(const TypeInfo& t) {
  return t.is_signed_int() ? (i128{1} << (t.bits - 1)) - 1 : (i128{1} << t.bits) - 1;
}
bool InRange(const TypeInfo& t, i128 v) { return v >= IntMin(t) && v <= IntMax(t); }

std::string IntToString(i128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  u128 m = negative ? -static_cast<u128>(v) : static_cast<u128>(v);
  std::string s;
  while (m) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + s : s;
}

ArithOutcome IntScalar(const ScaleOffsetParams& p, bool encode, std::uint64_t x) {
  const TypeInfo& t = Info(p.type);
  i128 v = ToInt(t, x);
  i128 o = p.offset ? ToInt(t, *p.offset) : 0;
  i128 s = p.scale ? ToInt(t, *p.scale) : 1;
  ArithOutcome out;
  auto fail = [&](ArithError e, ArithStep step, i128 lhs) {
    out.error = e;
    out.step = step;
    out.operand = static_cast<std::uint64_t>(lhs) & t.value_mask();
    return out;
  };
  if (encode) {
    if (p.offset) {
      i128 r = v - o;  // |v|, |o| < 2^64: no 128-bit overflow
      if (!InRange(t, r)) return fail(ArithError::kOverflow, ArithStep::kSubtractOffset, v);
      v = r;
    }
    if (p.scale) {
      i128 r;
      if (__builtin_mul_overflow(v, s, &r) || !InRange(t, r))
        return fail(ArithError::kOverflow, ArithStep::kMultiplyScale, v);
      v = r;
    }
  } else {
    if (p.scale) {
      if (v % s != 0) return fail(ArithError::kInexactDivision, ArithStep::kDivideScale, v);
      i128 r = v / s;  // out of range only for the minimum divided by -1
      if (!InRange(t, r)) return fail(ArithError::kOverflow, ArithStep::kDivideScale, v);
      v = r;
    }
    if (p.offset) {
      i128 r = v + o;
      if (!InRange(t, r)) return fail(ArithError::kOverflow, ArithStep::kAddOffset, v);
      v = r;
    }
  }
  out.bits = static_cast<std::uint64_t>(v) & t.value_mask();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Kernels.

class ReferenceLoop final : public Kernel {
 public:
  ReferenceLoop(const ScaleOffsetParams& p, bool encode) : p_(p), encode_(encode) {}
  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    std::size_t size = Info(p_.type).size;
    auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    for (std::size_t i = 0; i < n; ++i) {
      ArithOutcome r = ScaleOffsetScalar(p_, encode_, LoadBits(src + i * size, size));
      if (r.error != ArithError::kNone) return i;
      StoreBits(dst + i * size, size, r.bits);
    }
    return n;
  }
  const char* name() const override { return "reference"; }

 private:
  ScaleOffsetParams p_;
  bool encode_;
};

// Shared block structure of the wide kernels: a branch-free pass over a block ORs a "maybe bad"
// flag; a flagged block is redone by the reference loop, which writes the exact results and
// finds the first failing element (and would correct a fast path that was wrong).
template <typename Derived>
class BlockKernel : public Kernel {
 public:
  BlockKernel(const ScaleOffsetParams& p, bool encode) : reference_(p, encode) {}
  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    if (!Self().EnvironmentOk()) return reference_.Run(in, n, out);
    constexpr std::size_t kBlock = 256;
    std::size_t size = Info(Self().type()).size;
    for (std::size_t start = 0; start < n; start += kBlock) {
      std::size_t len = std::min(kBlock, n - start);
      const void* src = static_cast<const unsigned char*>(in) + start * size;
      void* dst = static_cast<unsigned char*>(out) + start * size;
      if (Self().RunBlock(src, len, dst)) {
        std::size_t failed = reference_.Run(src, len, dst);
        if (failed != len) return start + failed;
      }
    }
    return n;
  }

 private:
  const Derived& Self() const { return static_cast<const Derived&>(*this); }
  ReferenceLoop reference_;
};

// float32 / float64 through the hardware's IEEE operations (round-to-nearest-even, the default
// environment that zcast never changes; FLT_EVAL_METHOD == 0 so each operation rounds to the
// operand type). The hardware's operation is exactly "exact result rounded once". An absent
// offset is -0.0 when added and +0.0 when subtracted: both are identities for every input,
// -0 included (R21). NaN inputs are restored bit for bit (R23); a finite input whose result is
// infinite flags the block (R24).
template <typename F, bool kEncode>
class HardwareFloatKernel final : public BlockKernel<HardwareFloatKernel<F, kEncode>> {
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  static constexpr U kAbs = static_cast<U>(~U{0} >> 1);
  static constexpr U kInf = std::bit_cast<U>(std::numeric_limits<F>::infinity());

 public:
  HardwareFloatKernel(const ScaleOffsetParams& p)
      : BlockKernel<HardwareFloatKernel>(p, kEncode), type_(p.type) {
    offset_ = p.offset ? std::bit_cast<F>(static_cast<U>(*p.offset)) : (kEncode ? F(0) : -F(0));
    scale_ = p.scale ? std::bit_cast<F>(static_cast<U>(*p.scale)) : F(1);
  }
  DataType type() const { return type_; }
  // The hardware path is exact only in the default floating-point environment. A process may
  // have changed it behind zcast's back (a library built with -ffast-math sets flush-to-zero and
  // denormals-are-zero at load time): then the reference path runs instead.
  bool EnvironmentOk() const {
    volatile F tiny = std::numeric_limits<F>::denorm_min(), one = F(1);
    return std::fegetround() == FE_TONEAREST && tiny * one != F(0);
  }
  bool RunBlock(const void* in, std::size_t n, void* out) const {
    const F o = offset_, s = scale_;
    U bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      U xb = LoadElement<U>(in, i);
      F x = std::bit_cast<F>(xb);
      F y = kEncode ? (x - o) * s : x / s + o;
      U yb = std::bit_cast<U>(y);
      U xa = xb & kAbs;
      bad |= static_cast<U>(((yb & kAbs) == kInf) & (xa < kInf));
      StoreElement(out, i, xa > kInf ? xb : yb);
    }
    return bad != 0;
  }
  const char* name() const override { return "hardware-float"; }

 private:
  DataType type_;
  F offset_, scale_;
};

// 32/64-bit integers: checked machine arithmetic in the type itself, which is exactly "exact
// result, range checked after each step". Division by -1 is a negation (x / -1 would trap on the
// minimum).
template <typename T, bool kEncode, bool kScaleMinusOne>
class CheckedIntKernel final : public BlockKernel<CheckedIntKernel<T, kEncode, kScaleMinusOne>> {
  using U = std::make_unsigned_t<T>;

 public:
  CheckedIntKernel(const ScaleOffsetParams& p)
      : BlockKernel<CheckedIntKernel>(p, kEncode), type_(p.type) {
    offset_ = p.offset ? static_cast<T>(static_cast<U>(*p.offset)) : T{0};
    scale_ = p.scale ? static_cast<T>(static_cast<U>(*p.scale)) : T{1};
  }
  DataType type() const { return type_; }
  bool EnvironmentOk() const { return true; }
  bool RunBlock(const void* in, std::size_t n, void* out) const {
    const T o = offset_, s = scale_;
    bool bad = false;
    for (std::size_t i = 0; i < n; ++i) {
      T x = LoadElement<T>(in, i), y;
      bool f;
      if constexpr (kEncode) {
        T a;
        f = __builtin_sub_overflow(x, o, &a);
        f |= __builtin_mul_overflow(a, s, &y);
      } else if constexpr (kScaleMinusOne) {
        T q;
        f = __builtin_sub_overflow(T{0}, x, &q);
        f |= __builtin_add_overflow(q, o, &y);
      } else {
        T q = x / s;
        f = x % s != 0;
        f |= __builtin_add_overflow(q, o, &y);
      }
      bad |= f;
      StoreElement(out, i, y);
    }
    return bad;
  }
  const char* name() const override { return "checked-int"; }

 private:
  DataType type_;
  T offset_, scale_;
};

template <typename T>
std::unique_ptr<const Kernel> MakeIntKernel(const ScaleOffsetParams& p, bool encode) {
  if (encode) return std::make_unique<CheckedIntKernel<T, true, false>>(p);
  bool minus_one = std::is_signed_v<T> && p.scale &&
                   static_cast<T>(static_cast<std::make_unsigned_t<T>>(*p.scale)) == T(-1);
  if (minus_one) return std::make_unique<CheckedIntKernel<T, false, true>>(p);
  return std::make_unique<CheckedIntKernel<T, false, false>>(p);
}

template <typename F>
std::unique_ptr<const Kernel> MakeFloatKernel(const ScaleOffsetParams& p, bool encode) {
  if (encode) return std::make_unique<HardwareFloatKernel<F, true>>(p);
  return std::make_unique<HardwareFloatKernel<F, false>>(p);
}

std::string Operand(DataType type, std::uint64_t bits) {
  std::string s = DescribeBits(type, bits);
  return s.starts_with('-') ? "(" + s + ")" : s;
}

}  // namespace

ArithOutcome ScaleOffsetScalar(const ScaleOffsetParams& p, bool encode, std::uint64_t x) {
  return Info(p.type).is_int() ? IntScalar(p, encode, x) : FloatScalar(p, encode, x);
}

std::string DescribeScaleOffsetFailure(const ScaleOffsetParams& p, bool encode, std::uint64_t x) {
  const TypeInfo& t = Info(p.type);
  std::string name(t.name);
  x &= t.value_mask();
  ArithOutcome r = ScaleOffsetScalar(p, encode, x);
  std::string head = name + " value " + DescribeBits(p.type, x) + ": ";
  if (r.error == ArithError::kNone) return head + "no failure";
  std::string lhs = DescribeBits(p.type, r.operand);
  std::string off = p.offset ? Operand(p.type, *p.offset) : "0";
  std::string sc = p.scale ? Operand(p.type, *p.scale) : "1";
  std::string expr;
  // Integers: the exact result of the failing step, for the message (a product of two 64-bit
  // magnitudes may not fit 128 signed bits; it is then left out).
  i128 exact = 0;
  bool exact_known = false;
  if (t.is_int()) {
    i128 a = ToInt(t, r.operand), o = p.offset ? ToInt(t, *p.offset) : 0,
         s = p.scale ? ToInt(t, *p.scale) : 1;
    exact_known = true;
    switch (r.step) {
      case ArithStep::kSubtractOffset: exact = a - o; break;
      case ArithStep::kMultiplyScale: exact_known = !__builtin_mul_overflow(a, s, &exact); break;
      case ArithStep::kDivideScale: exact = a / s; break;
      case ArithStep::kAddOffset: exact = a + o; break;
    }
  }
  switch (r.step) {
    case ArithStep::kSubtractOffset: expr = "x - offset = " + lhs + " - " + off; break;
    case ArithStep::kMultiplyScale:
      expr = std::string(p.offset ? "(x - offset) * scale = " : "x * scale = ") + lhs + " * " + sc;
      break;
    case ArithStep::kDivideScale: expr = "x / scale = " + lhs + " / " + sc; break;
    case ArithStep::kAddOffset:
      expr = std::string(p.scale ? "x / scale + offset = " : "x + offset = ") + lhs + " + " + off;
      break;
  }
  switch (r.error) {
    case ArithError::kInexactDivision:
      return head + expr + " is not an integer (inexact integer division)";
    case ArithError::kBelowRange:
      return head + expr + " has no " + name + " value (" + name +
             " holds only positive powers of two from 2^-127 to 2^127)";
    case ArithError::kOverflow:
      if (t.is_int()) {
        return head + expr + (exact_known ? " = " + IntToString(exact) : std::string()) +
               " is out of the range of " + name;
      }
      return head + expr + " overflows " + name +
             (t.has_inf() ? " (the result rounds to infinity)"
                          : " (the result rounds beyond its largest finite value)");
    case ArithError::kNone: break;
  }
  return head + expr;
}

std::unique_ptr<const Kernel> ReferenceScaleOffsetKernel(const ScaleOffsetParams& p, bool encode) {
  return std::make_unique<ReferenceLoop>(p, encode);
}

std::unique_ptr<const Kernel> SelectScaleOffsetKernel(const ScaleOffsetParams& p, bool encode) {
  if (std::size_t size = Info(p.type).size; size <= 2) {
    // Types of <= 16 bits: the reference path tabulated for every encoding, errors included.
    auto fill = [&p, encode](std::uint64_t x) -> std::optional<std::uint64_t> {
      ArithOutcome r = ScaleOffsetScalar(p, encode, x);
      if (r.error != ArithError::kNone) return std::nullopt;
      return r.bits;
    };
    return MakeTableKernel(size, size, fill);
  }
  switch (p.type) {
#if FLT_EVAL_METHOD == 0
    case DataType::float32: return MakeFloatKernel<float>(p, encode);
    case DataType::float64: return MakeFloatKernel<double>(p, encode);
#endif
    case DataType::int32: return MakeIntKernel<std::int32_t>(p, encode);
    case DataType::int64: return MakeIntKernel<std::int64_t>(p, encode);
    case DataType::uint32: return MakeIntKernel<std::uint32_t>(p, encode);
    case DataType::uint64: return MakeIntKernel<std::uint64_t>(p, encode);
    default: break;
  }
  return ReferenceScaleOffsetKernel(p, encode);
}

}  // namespace internal
}  // namespace zcast
