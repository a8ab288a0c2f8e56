// The float64 family (src/zcast/kernels/float64_lanes.cc and its parts) on every compiled SIMD
// target the CPU runs, one test instance per target, named by it: each kernel against the
// reference path (ConvertScalar per element), same output bytes and same first failing index, for
// every pair the family takes, every rounding mode and out_of_range, with and without scalar_map.
// Inputs: boundary sweeps where the 64-bit conversions can go wrong (float32 ties and their float64
// neighbours, integers and halves near 2^31, 2^32, 2^53, 2^63, 2^64, the bits an int64 -> float32
// rounding folds into its sticky bit) and seeded random bit patterns; tails of 0..40 elements,
// unaligned buffers, a declined lane in every position, and a non-default FP environment.
// kernels_test.cc runs the generic comparisons through SelectKernelFor as well.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/kernels.h"
#include "zcast/kernels/families.h"
#include "zcast/kernels/fp_env.h"
#include "zcast/kernels/targets.h"
#include "zcast/kernels_test_util.h"

namespace zcast::internal {
namespace {

using kernel_test::Describe;
using kernel_test::ExpectKernelMatches;
using kernel_test::Expected;
using kernel_test::F64Bits;
using kernel_test::Reference;

// Boundary values and seeded random bit patterns of a 4- or 8-byte source.
std::vector<std::uint64_t> Inputs64(DataType src) {
  std::vector<std::uint64_t> v;
  std::mt19937_64 rng(4242 + static_cast<int>(src));
  const bool is_float = src == DataType::float64 || src == DataType::float32;
  auto add_double = [&](double x) {
    if (src == DataType::float64) {
      std::uint64_t b = F64Bits(x);
      for (int d = -2; d <= 2; ++d) v.push_back(b + static_cast<std::uint64_t>(d));
    } else if (src == DataType::float32) {
      float f = static_cast<float>(x);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      for (int d = -2; d <= 2; ++d) v.push_back(static_cast<std::uint32_t>(b + static_cast<std::uint32_t>(d)));
    }
  };
  if (is_float) {
    for (double x : std::initializer_list<double>{0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0x1p31, 0x1p32, 0x1p53, 0x1p63, 0x1p64, -0x1p63,
                     -0x1p31, 127.5, 128.5, 255.5, 256.0, 32767.5, 65535.5, -128.5, -32768.5, 0x1p-1074,
                     0x1p-1022, 0x1p-149, 0x1p-126, 0x1.fffffep127, 0x1p128, 1e300, -1e300, INFINITY,
                     -INFINITY, NAN, -NAN, 0.49999999999999994, -0.49999999999999994}) {
      add_double(x);
    }
    // Halves and integers around every power of two an integer destination cares about.
    for (int e = 0; e <= 65; ++e) {
      for (double k : {-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5}) {
        add_double(std::ldexp(1.0, e) + k);
        add_double(-std::ldexp(1.0, e) + k);
      }
    }
    // Every binade of float64 (subnormals to max), both signs.
    for (int e = -1074; e <= 1023; e += 7) {
      add_double(std::ldexp(1.0, e));
      add_double(-std::ldexp(1.5, e));
    }
  }
  if (src == DataType::float64) {
    // float32 ties (a float32 value plus half its ulp) and their float64 neighbours, across the
    // float32 range (subnormals included) and just beyond max.
    for (int i = 0; i < 4000; ++i) {
      std::uint32_t fb = static_cast<std::uint32_t>(rng());
      if ((fb & 0x7F800000u) == 0x7F800000u) fb &= 0xBFFFFFFFu;
      float f;
      std::memcpy(&f, &fb, 4);
      double next = std::nextafter(f, f < 0 ? -INFINITY : INFINITY);
      double half = std::isinf(next) ? std::ldexp(1.0, 103) : (next - static_cast<double>(f)) / 2;
      add_double(static_cast<double>(f) + half);
    }
    // Integral doubles and halves of every magnitude up to 2^66 (wrap and clamp of 64-bit ints).
    for (int i = 0; i < 3000; ++i) {
      double x = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 67) - 53);
      add_double(std::floor(x) + (rng() % 2 ? 0.5 : 0.0));
    }
  }
  if (!is_float) {
    const bool sgn = src == DataType::int64 || src == DataType::int32;
    const int bits = Info(src).bits;
    for (int e = 0; e < bits; ++e) {
      for (std::int64_t d = -3; d <= 3; ++d) {
        std::uint64_t p = (std::uint64_t{1} << e) + static_cast<std::uint64_t>(d);
        v.push_back(p);
        if (sgn) v.push_back(~p + 1);
      }
    }
    if (bits == 64) {
      // float32 ties and their neighbours of big integers: m * 2^k + 2^(k-1) (+-1, +- a bit in
      // the sticky range below bit 11), for 24-bit m.
      for (int i = 0; i < 4000; ++i) {
        int k = 1 + static_cast<int>(rng() % 40);
        std::uint64_t m = (rng() >> 40) | (1ull << 23);
        std::uint64_t t = (m << k) + (1ull << (k - 1));
        for (std::uint64_t x : std::initializer_list<std::uint64_t>{t, t - 1, t + 1, t ^ (1ull << (rng() % 11)), t - (1ull << (rng() % 11))}) {
          v.push_back(x);
          if (sgn) v.push_back(~x + 1);
        }
      }
      for (std::uint64_t x : {0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, ~0ull, 0x20000000000001ull,
                              0x20000000000003ull, 0xFFFFFFFFFFFFF800ull, 0xFFFFFFFFFFFFFC00ull})
        v.push_back(x);
    }
  }
  for (int i = 0; i < 12000; ++i) v.push_back(rng());
  // Random finite values of moderate size (many land in range of the integer destinations).
  for (int i = 0; i < 4000; ++i) {
    double x = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng())) * 0x1p-63, static_cast<int>(rng() % 70) - 3);
    if (src == DataType::float64) v.push_back(F64Bits(x));
    else if (src == DataType::float32) add_double(x);
    // Integer sources: fmod keeps |x| < 2^63, where the conversion to int64 is defined (UBSan).
    else v.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(std::fmod(x, 0x1p63))));
  }
  for (auto& b : v) b &= Info(src).value_mask();
  return v;
}

// The pairs the family must take on every target (in every mode and out_of_range).
struct Pair {
  DataType src, dst;
  const char* name;
};
const Pair kPairs[] = {
    {DataType::float64, DataType::float32, "float64-lanes-to-float32"},
    {DataType::float64, DataType::int32, "float64-lanes-to-int"},
    {DataType::float64, DataType::int16, "float64-lanes-to-int"},
    {DataType::float64, DataType::uint16, "float64-lanes-to-int"},
    {DataType::float64, DataType::int8, "float64-lanes-to-int"},
    {DataType::float64, DataType::uint8, "float64-lanes-to-int"},
    {DataType::float64, DataType::int64, "float64-lanes-to-int64"},
    {DataType::float64, DataType::uint64, "float64-lanes-to-int64"},
    {DataType::float64, DataType::float64, "float64-lanes-to-float64"},
    {DataType::float32, DataType::float64, "float64-lanes-to-float64"},
    {DataType::float32, DataType::int64, "float64-lanes-to-int64"},
    {DataType::float32, DataType::uint64, "float64-lanes-to-int64"},
    {DataType::int32, DataType::float64, "float64-lanes-to-float64"},
    {DataType::uint32, DataType::float64, "float64-lanes-to-float64"},
    {DataType::int64, DataType::float64, "float64-lanes-int64-to-float64"},
    {DataType::uint64, DataType::float64, "float64-lanes-int64-to-float64"},
    {DataType::int64, DataType::float32, "float64-lanes-int64-to-float32"},
    {DataType::uint64, DataType::float32, "float64-lanes-int64-to-float32"},
};

class Float64Family : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override {
    ZCAST_SKIP_UNLESS_SUPPORTED(GetParam());
  }
  std::unique_ptr<const Kernel> Select(const Direction& dir) { return SelectFloat64Lanes(dir, GetParam()); }
};

TEST_P(Float64Family, EveryPairModeAndRange) {
  for (const Pair& p : kPairs) {
    const auto inputs = Inputs64(p.src);
    for (int r = 0; r < 5; ++r) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{p.src, p.dst, static_cast<Rounding>(r), oor, {}};
        if (!Info(p.dst).is_int() && oor == OutOfRange::kWrap) dir.out_of_range = OutOfRange::kUnset;  // R4
        SCOPED_TRACE(Describe(dir));
        auto kernel = Select(dir);
        ASSERT_NE(kernel, nullptr) << "the family does not take this pair";
        EXPECT_STREQ(kernel->name(), p.name);
        ExpectKernelMatches(*kernel, dir, inputs, Reference(dir, inputs));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// scalar_map keys (NaN, +-Inf, a finite value, an out-of-range one) blended in the vector.
TEST_P(Float64Family, WithScalarMap) {
  for (const Pair& p : kPairs) {
    const auto inputs = Inputs64(p.src);
    const TypeInfo& s = Info(p.src);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> map;
    if (s.has_nan()) map.emplace_back(s.canonical_nan(), 1);
    if (s.has_inf()) map.emplace_back(s.positive_inf() | s.sign_bit(), 0);
    map.emplace_back(inputs[inputs.size() / 3], 1);
    map.emplace_back(inputs.back(), 0);
    for (int r : {0, 1, 3}) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
        Direction dir{p.src, p.dst, static_cast<Rounding>(r), oor, map};
        SCOPED_TRACE(Describe(dir));
        auto kernel = Select(dir);
        ASSERT_NE(kernel, nullptr);
        ExpectKernelMatches(*kernel, dir, inputs, Reference(dir, inputs));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Tails of every length 0..40 from unaligned buffers, and a declined value (NaN, Inf, out of
// range) in every position of 40 elements: the first failure and every result before it exact.
TEST_P(Float64Family, TailsUnalignedAndDeclinedLanes) {
  std::mt19937_64 rng(7);
  for (const Pair& p : kPairs) {
    const auto all = Inputs64(p.src);
    Direction dir{p.src, p.dst, static_cast<Rounding>(rng() % 5), rng() % 2 ? OutOfRange::kUnset : OutOfRange::kClamp, {}};
    SCOPED_TRACE(Describe(dir));
    auto kernel = Select(dir);
    ASSERT_NE(kernel, nullptr);
    for (std::size_t n = 0; n <= 40; ++n) {
      std::vector<std::uint64_t> in(n);
      for (auto& b : in) b = all[rng() % all.size()];
      const Expected& want = Reference(dir, in);
      for (std::size_t off : {0, 1, 3}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(off));
        ExpectKernelMatches(*kernel, dir, in, want, off, (off * 5) % 4);
        if (HasFatalFailure()) return;
      }
    }
    const TypeInfo& s = Info(p.src);
    std::vector<std::uint64_t> specials = {all[5], all[all.size() - 7]};
    if (s.has_nan()) specials.push_back(s.canonical_nan());
    if (s.has_inf()) specials.push_back(s.positive_inf() | s.sign_bit());
    if (p.src == DataType::float64) specials.push_back(F64Bits(1e20));
    for (std::uint64_t special : specials) {
      for (std::size_t pos = 0; pos < 40; ++pos) {
        std::vector<std::uint64_t> in(40, p.src == DataType::float64 ? F64Bits(3.0) : 3);
        if (p.src == DataType::float32) std::fill(in.begin(), in.end(), 0x40400000u);
        in[pos] = special;
        SCOPED_TRACE("special at " + std::to_string(pos));
        ExpectKernelMatches(*kernel, dir, in, Reference(dir, in));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A caller's non-default FP environment (flush-to-zero, denormals-are-zero, rounding towards
// zero) must not change a result, and must be back after the run.
TEST_P(Float64Family, NonDefaultFpEnvironment) {
  const std::uint64_t odd = NonDefaultFpControlForTest();
  if (odd == 0) GTEST_SKIP() << "NOT RUN: no FP control register on this architecture";
  const std::uint64_t saved = FpControlForTest();
  for (const Pair& p : kPairs) {
    const auto inputs = Inputs64(p.src);
    for (int r = 0; r < 5; ++r) {
      Direction dir{p.src, p.dst, static_cast<Rounding>(r), r % 2 ? OutOfRange::kClamp : OutOfRange::kUnset, {}};
      SCOPED_TRACE(Describe(dir));
      const Expected& want = Reference(dir, inputs);
      auto kernel = Select(dir);
      ASSERT_NE(kernel, nullptr);
      SetFpControlForTest(odd);
      ExpectKernelMatches(*kernel, dir, inputs, want);
      const std::uint64_t after = FpControlForTest();
      SetFpControlForTest(saved);
      EXPECT_EQ(after, odd) << "FP environment not restored by " << kernel->name();
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Float64Family, ::testing::ValuesIn([] {
                           std::vector<std::int64_t> t;
                           for (std::int64_t x : CompiledSimdTargets())
                             if (x != kBaselineTarget) t.push_back(x);
                           return t;
                         }()),
                         [](const auto& info) { return std::string(SimdTargetName(info.param)); });

}  // namespace
}  // namespace zcast::internal
