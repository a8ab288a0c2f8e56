// scale_offset, every type: the reference path against an independent oracle, and every kernel
// SelectScaleOffsetKernel picks against the reference path (aligned and unaligned buffers, and a
// changed floating-point environment). Metadata, fill values, errors and the worked examples:
// scale_offset_test.cc.
//
// The float oracle is independent of the exact engine: each operation is done in binary128 (IEEE
// quadruple, `f128` below; correctly rounded by libgcc's soft-fp on x86-64 and aarch64 alike) and
// then rounded to the type by a nearest-grid search over the type's enumerated values (types of
// <= 16 bits) or by the compiler's binary128 -> float/double conversion. Rounding twice is
// innocuous here: binary128 has 113 >= 2p + 2 bits for every type (p <= 53), so the binary128
// result never lands on a midpoint of the type's grid that the exact result is not on (and
// products of two values are exact in binary128 anyway).
#include "zcast/scale_offset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/scale_offset_test_util.h"
#include "zcast/zcast.hpp"

namespace zcast {
namespace {

// The engine's internals and the codec helper: scale_offset_test_util.h.
using namespace scale_offset_test;  // NOLINT(build/namespaces)

// ---- the independent float oracle --------------------------------------------------------------

// IEEE binary128 on x86-64 and aarch64 alike. GCC has _Float128 in C++ on both (`__float128` is
// x86-only); Clang has no _Float128 in C++, only `__float128` (x86-64) and, on aarch64 Linux,
// binary128 `long double`.
#if !defined(__clang__)
using f128 = _Float128;
#elif defined(__aarch64__)
using f128 = long double;
#else
using f128 = __float128;
#endif
using u128 = unsigned __int128;
// The format, not just the size: 1.0 is biased exponent 16383 over 112 fraction bits, and the last
// of the 113 significand bits counts (the argument above needs 113 >= 2 * 53 + 2).
static_assert(std::bit_cast<u128>(static_cast<f128>(1)) == static_cast<u128>(16383) << 112);
static_assert(static_cast<f128>(1) + std::bit_cast<f128>(static_cast<u128>(16383 - 112) << 112) !=
              static_cast<f128>(1));

f128 Pow2(int e) {  // binary128: 15-bit exponent, bias 16383, 112 fraction bits
  return std::bit_cast<f128>(static_cast<u128>(static_cast<std::uint64_t>(e + 16383)) << 112);
}

f128 ToF128(DataType t, std::uint64_t bits) {
  internal::ExactValue v = DecodeBits(t, bits);
  f128 r;
  if (v.cls == ValueClass::kInf) r = std::numeric_limits<double>::infinity();
  else r = static_cast<f128>(v.mag) * Pow2(v.exp);
  return v.negative ? -r : r;
}

// The non-negative finite values of a small float type with their encodings, sorted.
struct Grid {
  std::vector<std::pair<f128, std::uint64_t>> points;
};

const Grid& GridOf(DataType t) {
  static std::map<DataType, Grid> grids;
  auto it = grids.find(t);
  if (it != grids.end()) return it->second;
  Grid g;
  for (std::uint64_t c = 0; c <= Info(t).value_mask(); ++c) {
    internal::ExactValue v = DecodeBits(t, c);
    if (v.cls != ValueClass::kFinite || v.negative) continue;
    g.points.emplace_back(ToF128(t, c), c);
  }
  std::sort(g.points.begin(), g.points.end());
  return grids[t] = g;
}

// Rounds a binary128 value to `t`, nearest-even with an unbounded exponent; nullopt when the
// result lies outside t's finite range (or, for e8m0, is not positive and >= 2^-127).
std::optional<std::uint64_t> OracleRound(DataType t, f128 v) {
  const TypeInfo& info = Info(t);
  bool negative = v < 0 || (v == 0 && std::signbit(static_cast<double>(v)));
  f128 a = negative ? -v : v;
  if (a == std::numeric_limits<double>::infinity()) return (negative ? info.sign_bit() : 0) | info.positive_inf();
  if (t == DataType::float32 || t == DataType::float64) {
    std::uint64_t bits;
    double d = static_cast<double>(v);
    if (t == DataType::float32) {
      float f = static_cast<float>(v);
      if (std::isinf(f)) return std::nullopt;
      bits = std::bit_cast<std::uint32_t>(f);
    } else {
      if (std::isinf(d)) return std::nullopt;
      bits = std::bit_cast<std::uint64_t>(d);
    }
    return bits;
  }
  if (info.special == internal::Special::E8m0) {
    if (negative || a == 0) return std::nullopt;
    int e = 0;
    while (a >= Pow2(e + 1)) ++e;
    while (a < Pow2(e)) --e;
    if (a >= Pow2(e) * 1.5) ++e;  // R6: ties 1.5 * 2^e go up
    if (e < -127 || e > 127) return std::nullopt;
    return static_cast<std::uint64_t>(e + 127);
  }
  const auto& pts = GridOf(t).points;
  std::uint64_t sign = negative ? info.sign_bit() : 0;
  f128 max = pts.back().first;
  if (a > max) {
    f128 virt = max + (max - pts[pts.size() - 2].first);  // the next grid point above max
    // Midpoint or beyond rounds away from max (max's significand is odd: ties go up).
    if (a >= (max + virt) / 2) return std::nullopt;
    return sign | pts.back().second;
  }
  auto hi = std::lower_bound(pts.begin(), pts.end(), std::make_pair(a, std::uint64_t{0}),
                             [](const auto& p, const auto& q) { return p.first < q.first; });
  std::uint64_t code;
  if (hi->first == a) {
    code = hi->second;
  } else {
    auto lo = hi - 1;
    f128 mid = (lo->first + hi->first) / 2;
    if (a < mid) code = lo->second;
    else if (a > mid) code = hi->second;
    else code = (lo->second & 1) == 0 ? lo->second : hi->second;
  }
  if (code == 0) return negative && info.has_neg_zero() ? info.sign_bit() : 0;
  return (negative ? info.sign_bit() : 0) | code;
}

// The whole formula in the oracle's terms; nullopt for an error.
std::optional<std::uint64_t> Oracle(const ScaleOffsetParams& p, bool encode, std::uint64_t x) {
  x &= Info(p.type).value_mask();
  if (internal::IsNaNBits(p.type, x)) return x;
  std::uint64_t cur = x;
  auto step = [&](f128 exact) {
    auto r = OracleRound(p.type, exact);
    if (r) cur = *r;
    return r.has_value();
  };
  if (encode) {
    if (p.offset && !step(ToF128(p.type, cur) - ToF128(p.type, *p.offset))) return std::nullopt;
    if (p.scale && !step(ToF128(p.type, cur) * ToF128(p.type, *p.scale))) return std::nullopt;
  } else {
    if (p.scale && !step(ToF128(p.type, cur) / ToF128(p.type, *p.scale))) return std::nullopt;
    if (p.offset && !step(ToF128(p.type, cur) + ToF128(p.type, *p.offset))) return std::nullopt;
  }
  return cur;
}

// Inputs: every encoding of a type of <= 16 bits; for wider types, specials, powers of two and
// their neighbours, the extremes, and seeded random patterns.
std::vector<std::uint64_t> Inputs(DataType t) {
  const TypeInfo& info = Info(t);
  std::vector<std::uint64_t> v;
  if (info.size <= 2) {
    for (std::uint64_t b = 0; b <= 0xFFFF >> (info.size == 1 ? 8 : 0); ++b) v.push_back(b);
    return v;
  }
  for (int e = 0; e < 64; ++e) {
    for (std::int64_t d = -2; d <= 2; ++d) {
      std::uint64_t p = (std::uint64_t{1} << e) + static_cast<std::uint64_t>(d);
      v.push_back(p);
      v.push_back(~p + 1);
    }
  }
  if (!info.is_int()) {
    int span = t == DataType::float32 ? 160 : 1100;
    for (int e = -span; e <= span; e += (e > -20 && e < 20) ? 1 : 7) {
      for (double m : {1.0, 1.25, 1.5, 1.75, 1.9999999}) {
        for (double sign : {1.0, -1.0}) {
          double x = sign * std::ldexp(m, e);
          std::uint64_t b = t == DataType::float32
                                ? std::bit_cast<std::uint32_t>(static_cast<float>(x))
                                : std::bit_cast<std::uint64_t>(x);
          for (int d = -1; d <= 1; ++d) v.push_back(b + static_cast<std::uint64_t>(d));
        }
      }
    }
    v.push_back(info.positive_inf());
    v.push_back(info.positive_inf() | info.sign_bit());
    v.push_back(info.canonical_nan() | 1);
  }
  std::mt19937_64 rng(777 + static_cast<int>(t));
  for (int i = 0; i < 4000; ++i) v.push_back(rng());
  for (auto& b : v) b &= info.value_mask();
  return v;
}

// Parameter sets for a type: absent ones, small and extreme values of both signs, subnormals,
// and seeded random finite encodings (scale non-zero).
std::vector<ScaleOffsetParams> ParamSets(DataType t) {
  const TypeInfo& info = Info(t);
  std::vector<ScaleOffsetParams> sets;
  auto enc = [&](double x) -> std::optional<std::uint64_t> {
    auto r = internal::CastBits(DataType::float64, std::bit_cast<std::uint64_t>(x), t, Rounding::kNearestEven,
                      OutOfRange::kClamp);
    if (r.error != internal::CastError::kNone) return std::nullopt;
    return r.bits;
  };
  auto valid_scale = [&](std::optional<std::uint64_t> s) {
    if (!s) return true;
    auto v = DecodeBits(t, *s);
    return v.cls == ValueClass::kFinite && v.mag != 0;
  };
  auto add = [&](std::optional<std::uint64_t> o, std::optional<std::uint64_t> s) {
    if (o && DecodeBits(t, *o).cls != ValueClass::kFinite) return;
    if (!valid_scale(s)) return;
    sets.push_back({t, o, s});
  };
  add(std::nullopt, std::nullopt);
  add(enc(1.0), std::nullopt);
  add(std::nullopt, enc(2.0));
  add(enc(-3.0), enc(-0.5));
  add(enc(0.1), enc(10.0));
  if (info.is_int()) {
    add(enc(-1e300), enc(3.0));  // clamp: the minimum and maximum
    add(enc(1e300), enc(-1.0));
    add(enc(-1.0), enc(-1.0));
    add(enc(7.0), enc(3.0));
  } else {
    std::uint64_t max = info.special == internal::Special::Ieee   ? info.positive_inf() - 1
                        : info.special == internal::Special::E8m0 ? 0xFE
                                                                  : info.sign_bit() - 1;
    if (info.special != internal::Special::E8m0) add(max | info.sign_bit(), enc(3.0));
    add(max, 1);  // the largest finite value; the smallest positive one (subnormal or 2^-126)
    add(1, max);
    add(0, 1);
  }
  std::mt19937_64 rng(99 + static_cast<int>(t));
  for (int i = 0; i < 8; ++i) {
    std::uint64_t o = rng() & info.value_mask(), s = rng() & info.value_mask();
    if (info.is_int() && i % 2) s = (s % 7) + 1;  // small scales make exact divisions likely
    add(o, s);
    add(std::nullopt, s);
  }
  return sets;
}

class ScaleOffsetEveryType : public ::testing::TestWithParam<DataType> {};

std::string Describe(const ScaleOffsetParams& p) {
  auto s = [&](std::optional<std::uint64_t> b) {
    return b ? internal::DescribeBits(p.type, *b) : std::string("absent");
  };
  return std::string(DataTypeName(p.type)) + " offset " + s(p.offset) + " scale " + s(p.scale);
}

// Integers: an oracle in plain 128-bit arithmetic over the whole formula, step ranges checked.
void ExpectIntegerOracle(DataType t);

// The reference path agrees with the oracle on every input: binary128 for floats, 128-bit
// integers for integers.
TEST_P(ScaleOffsetEveryType, ReferenceMatchesOracle) {
  DataType t = GetParam();
  if (Info(t).is_int()) return ExpectIntegerOracle(t);
  auto inputs = Inputs(t);
  for (const auto& p : ParamSets(t)) {
    for (bool encode : {true, false}) {
      SCOPED_TRACE(Describe(p) + (encode ? " encode" : " decode"));
      int failures = 0;
      for (std::uint64_t x : inputs) {
        ArithOutcome got = ScaleOffsetScalar(p, encode, x);
        auto want = Oracle(p, encode, x);
        bool ok = got.error == ArithError::kNone;
        if (ok != want.has_value() || (ok && got.bits != *want)) {
          ADD_FAILURE() << "x = " << internal::DescribeBits(t, x) << " (0x" << std::hex << x
                        << "): got " << (ok ? internal::DescribeBits(t, got.bits) : "error")
                        << ", oracle " << (want ? internal::DescribeBits(t, *want) : "error");
          if (++failures > 5) return;
        }
      }
    }
  }
}

void ExpectIntegerOracle(DataType t) {
  const TypeInfo& info = Info(t);
  using i128 = __int128;
  i128 lo = info.is_signed_int() ? -(i128{1} << (info.bits - 1)) : 0;
  i128 hi = info.is_signed_int() ? (i128{1} << (info.bits - 1)) - 1 : (i128{1} << info.bits) - 1;
  auto value = [&](std::uint64_t b) -> i128 {
    b &= info.value_mask();
    return info.is_signed_int() && b >= (std::uint64_t{1} << (info.bits - 1))
               ? static_cast<i128>(b) - (i128{1} << info.bits)
               : static_cast<i128>(b);
  };
  for (const auto& p : ParamSets(t)) {
    i128 o = p.offset ? value(*p.offset) : 0, s = p.scale ? value(*p.scale) : 1;
    for (std::uint64_t x : Inputs(t)) {
      i128 v = value(x);
      std::optional<i128> e, d;
      // encode
      if (v - o >= lo && v - o <= hi) {
        i128 prod;  // a product of two 64-bit magnitudes may exceed 127 bits
        if (!__builtin_mul_overflow(v - o, s, &prod) && prod >= lo && prod <= hi) e = prod;
      }
      if (v % s == 0 && v / s >= lo && v / s <= hi && v / s + o >= lo && v / s + o <= hi)
        d = v / s + o;
      ArithOutcome ge = ScaleOffsetScalar(p, true, x), gd = ScaleOffsetScalar(p, false, x);
      ASSERT_EQ(ge.error == ArithError::kNone, e.has_value()) << Describe(p) << " x " << int64_t(v);
      if (e) ASSERT_EQ(ge.bits, static_cast<std::uint64_t>(*e) & info.value_mask());
      ASSERT_EQ(gd.error == ArithError::kNone, d.has_value()) << Describe(p) << " x " << int64_t(v);
      if (d) ASSERT_EQ(gd.bits, static_cast<std::uint64_t>(*d) & info.value_mask());
    }
  }
}

// Every kernel SelectScaleOffsetKernel picks agrees with the reference loop: output bytes and
// first failing index, skipping past each failure.
TEST_P(ScaleOffsetEveryType, KernelMatchesReference) {
  DataType t = GetParam();
  const std::size_t size = Info(t).size;
  auto inputs = Inputs(t);
  std::vector<unsigned char> in(inputs.size() * size);
  for (std::size_t i = 0; i < inputs.size(); ++i) internal::StoreBits(&in[i * size], size, inputs[i]);
  for (const auto& p : ParamSets(t)) {
    for (bool encode : {true, false}) {
      SCOPED_TRACE(Describe(p) + (encode ? " encode" : " decode"));
      auto fast = internal::SelectScaleOffsetKernel(p, encode);
      auto ref = internal::ReferenceScaleOffsetKernel(p, encode);
      std::vector<unsigned char> out_fast(in.size()), out_ref(in.size());
      std::size_t start = 0, n = inputs.size();
      while (start < n) {
        std::size_t f = fast->Run(&in[start * size], n - start, &out_fast[start * size]);
        std::size_t r = ref->Run(&in[start * size], n - start, &out_ref[start * size]);
        ASSERT_EQ(f, r) << "kernel " << fast->name() << " from element " << start;
        ASSERT_EQ(0, std::memcmp(&out_fast[start * size], &out_ref[start * size], f * size))
            << "kernel " << fast->name();
        start += f + 1;
      }
    }
  }
}

// The same from and into buffers one byte off their natural alignment (the C API and Python pass
// any address; the UBSan build checks that no kernel dereferences a typed pointer there).
TEST_P(ScaleOffsetEveryType, KernelsOnUnalignedBuffers) {
  DataType t = GetParam();
  const std::size_t size = Info(t).size;
  auto inputs = Inputs(t);
  inputs.resize(std::min<std::size_t>(inputs.size(), 3000));
  const std::size_t n = inputs.size();
  std::vector<unsigned char> in(n * size + 1), out_fast(n * size + 1), out_ref(n * size);
  for (std::size_t i = 0; i < n; ++i) internal::StoreBits(&in[1 + i * size], size, inputs[i]);
  for (const auto& p : ParamSets(t)) {
    for (bool encode : {true, false}) {
      SCOPED_TRACE(Describe(p) + (encode ? " encode" : " decode"));
      auto fast = internal::SelectScaleOffsetKernel(p, encode);
      auto ref = internal::ReferenceScaleOffsetKernel(p, encode);
      for (std::size_t start = 0; start < n;) {
        std::size_t f = fast->Run(&in[1 + start * size], n - start, &out_fast[1 + start * size]);
        std::size_t r = ref->Run(&in[1 + start * size], n - start, &out_ref[start * size]);
        ASSERT_EQ(f, r) << "kernel " << fast->name() << " from element " << start;
        ASSERT_EQ(0, std::memcmp(&out_fast[1 + start * size], &out_ref[start * size], f * size))
            << "kernel " << fast->name();
        start += f + 1;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, ScaleOffsetEveryType,
                         ::testing::ValuesIn(internal::kAllDataTypes),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

// The hardware kernels hand over to the reference path when the process changed the floating-
// point environment: results stay nearest-even.
TEST(ScaleOffsetKernels, IgnoreAChangedRoundingMode) {
  auto codec = Make(R"({"scale":0.1})", DataType::float32);
  ASSERT_TRUE(codec.ok());
  std::vector<float> in = {1.0f, 3.0f, 7.0f, 1e-40f}, want(4), got(4);
  ASSERT_TRUE(codec->Encode(in.data(), in.size(), want.data()).ok());
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  Status st = codec->Encode(in.data(), in.size(), got.data());
  std::fesetround(FE_TONEAREST);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), sizeof(float) * 4));
  int differ = 0;  // the hardware itself would give other results for some inputs
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  for (std::size_t i = 0; i < in.size(); ++i) {
    volatile float x = in[i], s = 0.1f;
    volatile float upward = x * s;
    differ += std::bit_cast<std::uint32_t>(float(upward)) != std::bit_cast<std::uint32_t>(want[i]);
  }
  std::fesetround(FE_TONEAREST);
  EXPECT_GT(differ, 0) << "the test needs inputs whose rounding differs between the modes";
}

TEST(ScaleOffsetKernels, FastPathsAreChosen) {
  auto name = [](DataType t) {
    return std::string(internal::SelectScaleOffsetKernel({t, 0, 1}, true)->name());
  };
  EXPECT_EQ(name(DataType::float32), "hardware-float");
  EXPECT_EQ(name(DataType::float64), "hardware-float");
  EXPECT_EQ(name(DataType::int64), "checked-int");
  EXPECT_EQ(name(DataType::uint32), "checked-int");
  EXPECT_EQ(name(DataType::float16), "table");
  EXPECT_EQ(name(DataType::int4), "table");
}

// Through the public API, a failing element in a later block of the wide kernels is found and
// the elements before it are written.
TEST(ScaleOffsetCodec, WideKernelsLocateFailures) {
  auto codec = Make(R"({"scale":2})", DataType::int32);
  ASSERT_TRUE(codec.ok());
  std::vector<std::int32_t> in(1000, 3), out(1000);
  in[777] = 1 << 30;
  Status st = codec->Encode(in.data(), in.size(), out.data());
  EXPECT_EQ(st.message(),
            "element 777: scale_offset encode of int32 value 1073741824: x * scale = 1073741824 "
            "* 2 = 2147483648 is out of the range of int32");
  EXPECT_EQ(out[776], 6);
  auto f = Make(R"({"offset":-3.0e38})", DataType::float32);
  std::vector<float> fin(600, 1.0f), fout(600);
  fin[599] = 1e38f;
  st = f->Encode(fin.data(), fin.size(), fout.data());
  EXPECT_NE(st.message().find("element 599: scale_offset encode of float32 value 1e+38"),
            std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace zcast
