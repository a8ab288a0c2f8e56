// Every kernel SelectKernel picks must agree with the reference path (ConvertScalar on each
// element): the same output bytes and the same first failing index, for every type pair, rounding
// and out_of_range, in both directions (a decode is just another Direction). Sources of <= 16 bits
// are run on every encoding; wider ones on boundary values plus seeded random bit patterns.
#include "zcast/kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "zcast/dtype.h"

namespace zcast::internal {
namespace {

std::vector<std::uint64_t> Inputs(DataType src) {
  const TypeInfo& s = Info(src);
  std::vector<std::uint64_t> v;
  if (s.size <= 2) {
    for (std::uint64_t b = 0; b < (1ull << (8 * s.size)); ++b) v.push_back(b);
    return v;
  }
  // Boundaries: small integers, powers of two and their neighbours, the type's extremes.
  for (int e = 0; e < 64; ++e) {
    for (std::int64_t d = -2; d <= 2; ++d) {
      std::uint64_t p = (1ull << e) + static_cast<std::uint64_t>(d);
      v.push_back(p);
      v.push_back(~p + 1);
    }
  }
  if (src == DataType::float32 || src == DataType::float64) {
    // Every float value of the small targets' neighbourhoods: +-k/16 * 2^e for a range of e.
    for (int e = -140; e <= 140; e += 1) {
      for (int k = 8; k <= 40; ++k) {
        double x = std::ldexp(k / 16.0, e);
        for (double sgn : {1.0, -1.0}) {
          if (src == DataType::float32) {
            float f = static_cast<float>(sgn * x);
            std::uint32_t b;
            std::memcpy(&b, &f, 4);
            for (int d = -1; d <= 1; ++d) v.push_back(static_cast<std::uint32_t>(b + d));
          } else {
            double f = sgn * x;
            std::uint64_t b;
            std::memcpy(&b, &f, 8);
            for (int d = -1; d <= 1; ++d) v.push_back(b + d);
          }
        }
      }
    }
  }
  std::mt19937_64 rng(12345 + static_cast<int>(src));
  for (int i = 0; i < 20000; ++i) v.push_back(rng());
  for (auto& b : v) b &= s.value_mask();
  return v;
}

void ExpectSame(const Direction& dir, const std::vector<std::uint64_t>& inputs) {
  const std::size_t ss = Info(dir.src).size, ds = Info(dir.dst).size;
  std::vector<unsigned char> in(inputs.size() * ss);
  for (std::size_t i = 0; i < inputs.size(); ++i) StoreBits(&in[i * ss], ss, inputs[i]);
  auto fast = SelectKernel(dir);
  auto ref = ReferenceKernel(dir);
  std::vector<unsigned char> out_fast(inputs.size() * ds), out_ref(inputs.size() * ds);
  std::size_t start = 0, n = inputs.size();
  while (start < n) {
    std::size_t f = fast->Run(&in[start * ss], n - start, &out_fast[start * ds]);
    std::size_t r = ref->Run(&in[start * ss], n - start, &out_ref[start * ds]);
    ASSERT_EQ(f, r) << "first failure differs, kernel " << fast->name() << " from element "
                    << start << ", input bits 0x" << std::hex << inputs[start + std::min(f, r)];
    ASSERT_EQ(0, std::memcmp(&out_fast[start * ds], &out_ref[start * ds], f * ds))
        << "kernel " << fast->name();
    start += f + 1;  // skip the failing element and go on
  }
}

class KernelMatchesReference : public ::testing::TestWithParam<DataType> {};

TEST_P(KernelMatchesReference, AllTargetsModesAndRanges) {
  DataType src = GetParam();
  auto inputs = Inputs(src);
  for (DataType dst : kAllDataTypes) {
    for (int r = 0; r < 5; ++r) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
        SCOPED_TRACE(std::string(DataTypeName(src)) + " -> " + std::string(DataTypeName(dst)) +
                     " " + std::string(RoundingName(dir.rounding)) + " " +
                     std::string(OutOfRangeName(oor)));
        ExpectSame(dir, inputs);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A scalar_map goes through the kernels' cold path: keys must win over every other rule (R10).
TEST_P(KernelMatchesReference, WithScalarMap) {
  DataType src = GetParam();
  const TypeInfo& s = Info(src);
  auto inputs = Inputs(src);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> map;
  if (s.has_nan()) map.emplace_back(s.canonical_nan(), 0);
  if (s.has_inf()) map.emplace_back(s.positive_inf(), 1);
  map.emplace_back(inputs[inputs.size() / 2], 1);
  map.emplace_back(inputs.back(), 0);
  for (DataType dst : {DataType::uint8, DataType::int16, DataType::float8_e4m3fnuz,
                       DataType::int4, DataType::float32}) {
    Direction dir{src, dst, Rounding::kNearestEven, OutOfRange::kUnset, map};
    SCOPED_TRACE(std::string(DataTypeName(src)) + " -> " + std::string(DataTypeName(dst)));
    ExpectSame(dir, inputs);
  }
}

INSTANTIATE_TEST_SUITE_P(AllSources, KernelMatchesReference, ::testing::ValuesIn(kAllDataTypes),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

TEST(KernelSelection, FastPathsAreChosen) {
  auto name = [](DataType s, DataType d, Rounding r) {
    return std::string(SelectKernel({s, d, r, OutOfRange::kClamp, {}})->name());
  };
  EXPECT_EQ(name(DataType::float32, DataType::uint8, Rounding::kNearestEven), "float-to-int");
  EXPECT_EQ(name(DataType::float64, DataType::float32, Rounding::kNearestEven), "hardware-to-float");
  EXPECT_EQ(name(DataType::float32, DataType::bfloat16, Rounding::kNearestEven), "float32-to-bfloat16");
  EXPECT_EQ(name(DataType::uint8, DataType::float32, Rounding::kTowardsZero), "table");
  EXPECT_EQ(name(DataType::float16, DataType::float32, Rounding::kTowardsZero), "table");
}

}  // namespace
}  // namespace zcast::internal
