// scalar_map in the kernels against the reference path (ConvertScalar: the map first, R10, then
// the exact engine), on every compiled target: keys of every kind (NaN, +-Inf, +-0, a finite value
// in range, a value out of the destination's range, the value a stored sentinel decodes to) in
// every lane position of full blocks and of a tail, for every source type, into the destinations
// of every kernel family and back (a decode is a Direction like an encode: the destinations
// include the array types float32, float64, float16 and the integers). The maps are a NaN key
// alone, NaN with +-Inf and -0, four keys without NaN, and one larger than the common blocks take
// (block-inl.h's MapFastLanes32 and the full block's MapLanes32 both run).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"
#include "zcast/kernels_test_util.h"

namespace zcast::internal {
namespace {

using kernel_test::Describe;
using kernel_test::ExpectKernelMatches;
using kernel_test::F64Bits;
using kernel_test::Reference;
using Map = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

std::uint64_t FromDouble(DataType t, double x) {
  return CastBits(DataType::float64, F64Bits(x), t, Rounding::kNearestEven, OutOfRange::kClamp).bits;
}

// The keys of one kind in `src`, if the type has such a value.
struct Keys {
  std::vector<std::uint64_t> nan, pos_inf, neg_inf, pos_zero, neg_zero, finite, out_of_range, negative;
};
Keys KeysOf(DataType src) {
  const TypeInfo& s = Info(src);
  Keys k;
  if (s.has_nan()) k.nan = {s.canonical_nan()};
  if (s.has_inf()) k.pos_inf = {s.positive_inf()}, k.neg_inf = {s.positive_inf() | s.sign_bit()};
  k.pos_zero = {FromDouble(src, 0.0)};
  if (FromDouble(src, -0.0) != FromDouble(src, 0.0)) k.neg_zero = {FromDouble(src, -0.0)};
  k.finite = {FromDouble(src, 3.0)};
  k.out_of_range = {FromDouble(src, 1e300)};  // the source's largest value: beyond most destinations
  k.negative = {FromDouble(src, -1.0)};       // out of range of the unsigned destinations
  return k;
}

// `keys` in order, each with the next of `values`, a key the same scalar as an earlier one dropped
// (as Bind does, R10).
Map MakeMap(DataType src, const std::vector<std::vector<std::uint64_t>>& keys, const std::vector<std::uint64_t>& values) {
  Map m;
  for (const auto& kind : keys) {
    for (std::uint64_t key : kind) {
      bool seen = false;
      for (const auto& [k, v] : m) seen |= SameScalar(src, k, key);
      if (!seen) m.emplace_back(key, values[m.size() % values.size()]);
    }
  }
  return m;
}

// Destination values: the destination's NaN where it has one (a sentinel's decode: 0 -> NaN),
// its largest and smallest values, one.
std::vector<std::uint64_t> ValuesOf(DataType dst) {
  const TypeInfo& d = Info(dst);
  std::vector<std::uint64_t> v;
  if (d.has_nan()) v.push_back(d.canonical_nan());
  for (double x : {1e300, 1.0, -1e300, 0.0}) v.push_back(FromDouble(dst, x) & d.value_mask());
  return v;
}

class KernelMapMatchesReference : public ::testing::TestWithParam<std::tuple<DataType, std::int64_t>> {
 protected:
  void SetUp() override { ZCAST_SKIP_UNLESS_SUPPORTED(target()); }
  DataType source() const { return std::get<0>(GetParam()); }
  std::int64_t target() const { return std::get<1>(GetParam()); }
};

// Every key of the map at every position p of the first 68 (a block of 4 x 16 lanes and the start
// of the next, so every lane of every vector on targets up to 512 bits), then further on: the keys
// j = 0, 1, ... at p + 29 j, and beside them a NaN with sign and payload (a key where the map has
// NaN, else a declined or converted lane) and the source's most negative value, in a buffer of two
// full blocks of byte lanes on AVX-512 and a tail.
TEST_P(KernelMapMatchesReference, KeysOfEveryKindInEveryLane) {
  constexpr std::size_t kN = 300;
  const DataType src = source();
  const TypeInfo& s = Info(src);
  const Keys k = KeysOf(src);
  std::vector<std::uint64_t> base(kN);
  for (std::size_t i = 0; i < kN; ++i) base[i] = FromDouble(src, static_cast<double>(i % 7) * 0.75 + (i % 3));
  const std::uint64_t odd_nan = s.has_nan() && s.special == Special::Ieee ? s.canonical_nan() | s.sign_bit() | 1 : 0;
  const std::uint64_t most_negative = FromDouble(src, -1e300);
  for (DataType dst : {DataType::uint8, DataType::int16, DataType::int32, DataType::float16, DataType::bfloat16,
                       DataType::float32, DataType::float8_e4m3, DataType::float64, DataType::int64}) {
    const std::vector<std::uint64_t> values = ValuesOf(dst);
    const Map maps[] = {
        MakeMap(src, {k.nan}, values),
        MakeMap(src, {k.nan, k.pos_inf, k.neg_inf, k.neg_zero}, values),
        MakeMap(src, {k.pos_zero, k.finite, k.out_of_range, k.negative}, values),
        MakeMap(src, {k.neg_inf, k.finite, k.nan, k.pos_zero, k.neg_zero, k.out_of_range, k.pos_inf, k.negative},
                values),
    };
    for (const Map& map : maps) {
      if (map.empty()) continue;
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
        const Direction dir{src, dst, Rounding::kNearestEven, oor, map};
        SCOPED_TRACE(Describe(dir) + " (" + std::to_string(map.size()) + " keys)");
        auto kernel = target() == kBaselineTarget ? SelectKernelFor(dir, target()) : SelectSimdKernelFor(dir, target());
        // No kernel of the target's own (the baseline instance tests that one), or the reference
        // loop itself, which would be compared with itself.
        if (!kernel || std::string_view(kernel->name()) == "reference") continue;
        SCOPED_TRACE(std::string("target ") + SimdTargetName(target()) + ", kernel " + kernel->name());
        for (std::size_t p = 0; p < kN; p += (p < 68 ? 1 : 23)) {
          std::vector<std::uint64_t> in = base;
          if (odd_nan) in[(p * 7 + 3) % kN] = odd_nan;
          in[(p * 11 + 5) % kN] = most_negative;
          for (std::size_t j = 0; j < map.size(); ++j) in[(p + 29 * j) % kN] = map[j].first;
          SCOPED_TRACE("first key at " + std::to_string(p));
          ExpectKernelMatches(*kernel, dir, in, Reference(dir, in));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// The target varies fastest, so each reference is computed once for all targets
// (kernels_test_util.h, ReferenceCache).
INSTANTIATE_TEST_SUITE_P(AllSources, KernelMapMatchesReference,
                         ::testing::Combine(::testing::ValuesIn(kAllDataTypes),
                                            ::testing::ValuesIn(CompiledSimdTargets())),
                         [](const auto& info) {
                           return std::string(SimdTargetName(std::get<1>(info.param))) + "_" +
                                  std::string(DataTypeName(std::get<0>(info.param)));
                         });

}  // namespace
}  // namespace zcast::internal
