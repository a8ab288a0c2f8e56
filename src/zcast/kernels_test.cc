// Every kernel SelectKernelFor picks, on every SIMD target compiled, must agree with the
// reference path (ConvertScalar on each element): the same output bytes and the same first failing
// index, for every type pair, rounding and out_of_range, in both directions (a decode is just
// another Direction). Sources of <= 16 bits are run on every encoding; wider ones on boundary
// values, ties of the narrower types and seeded random bit patterns. The vector kernels get
// targeted tests too: a declined lane (NaN, Inf, out of range, scalar_map key) in every position
// of a block and of a tail, tails of every length 0..40, unaligned buffers, a non-default FP
// environment. Each comparison is a test per compiled target (the target's name is in the test
// name); a target the CPU lacks is reported as "NOT RUN: <target> (CPU lacks it)".
// tests/exhaustive_f32.cc checks every float32 input for the <= 16-bit targets (not run in CI).
#include "zcast/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <tuple>

#include "zcast/dtype.h"
#include "zcast/kernels/fp_env.h"
#include "zcast/kernels_test_util.h"

namespace zcast::internal {
namespace {

using kernel_test::Describe;
using kernel_test::ExpectKernelMatches;
using kernel_test::Expected;
using kernel_test::F32Bits;
using kernel_test::F64Bits;
using kernel_test::Reference;


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
  std::mt19937_64 rng(12345 + static_cast<int>(src));
  if (src == DataType::float32 || src == DataType::float64) {
    // Every float value of the small targets' neighbourhoods: +-k/16 * 2^e for a range of e.
    for (int e = -140; e <= 140; e += 1) {
      for (int k = 8; k <= 40; ++k) {
        double x = std::ldexp(k / 16.0, e);
        for (double sgn : {1.0, -1.0}) {
          if (src == DataType::float32) {
            std::uint32_t b = F32Bits(static_cast<float>(sgn * x));
            for (int d = -1; d <= 1; ++d) v.push_back(static_cast<std::uint32_t>(b + d));
          } else {
            std::uint64_t b = F64Bits(sgn * x);
            for (int d = -1; d <= 1; ++d) v.push_back(b + d);
          }
        }
      }
    }
  }
  if (src == DataType::float32) {
    // Exact ties and their neighbours for float16 (13 dropped bits), bfloat16 (16) and float16
    // subnormals (more), around every exponent.
    for (int i = 0; i < 4000; ++i) {
      std::uint32_t hi = static_cast<std::uint32_t>(rng()) & 0xFFFF0000u;
      std::uint32_t mid = static_cast<std::uint32_t>(rng()) & 0xFFFFE000u;
      for (std::uint32_t low : {0x8000u, 0x7FFFu, 0x8001u}) v.push_back(hi | low);
      for (std::uint32_t low : {0x1000u, 0x0FFFu, 0x1001u}) v.push_back(mid | low);
    }
  }
  if (src == DataType::float64) {
    // float64 -> float32 ties: a float32 value plus half its ulp, and one float64 ulp either side,
    // across the whole float32 range (subnormals included) and just beyond it.
    for (int i = 0; i < 6000; ++i) {
      std::uint32_t fb = static_cast<std::uint32_t>(rng());
      if ((fb & 0x7F800000u) == 0x7F800000u) fb &= 0xBFFFFFFFu;
      float f;
      std::memcpy(&f, &fb, 4);
      double x = f;
      double next = std::nextafter(f, f < 0 ? -INFINITY : INFINITY);
      double half = std::isinf(next) ? std::ldexp(1.0, 103) : (next - x) / 2;
      std::uint64_t b = F64Bits(x + half);
      for (int d = -1; d <= 1; ++d) v.push_back(b + d);
    }
  }
  for (int i = 0; i < 20000; ++i) v.push_back(rng());
  for (auto& b : v) b &= s.value_mask();
  return v;
}

// The target's kernel for `dir` against the reference. Where a SIMD target has no kernel of its
// own for `dir`, SelectKernelFor gives the baseline kernel, which the baseline instance of the same
// test checks: it is not checked again once per target.
void ExpectSame(const Direction& dir, const std::vector<std::uint64_t>& inputs, std::int64_t target) {
  auto kernel = target == kBaselineTarget ? SelectKernelFor(dir, target)
                                          : SelectSimdKernelFor(dir, target);
  // No kernel of the target's own, or (baseline, wide sources without a fast loop) the reference
  // path itself, ConvertScalar per element: compared with ConvertScalar it would prove nothing.
  if (!kernel || std::string_view(kernel->name()) == "reference") return;
  const Expected& want = Reference(dir, inputs);
  SCOPED_TRACE(std::string("target ") + SimdTargetName(target) + ", kernel " + kernel->name());
  ExpectKernelMatches(*kernel, dir, inputs, want);
}

std::string TargetParamName(std::int64_t target) { return SimdTargetName(target); }

class KernelMatchesReference : public ::testing::TestWithParam<std::tuple<DataType, std::int64_t>> {
 protected:
  void SetUp() override { ZCAST_SKIP_UNLESS_SUPPORTED(target()); }
  DataType source() const { return std::get<0>(GetParam()); }
  std::int64_t target() const { return std::get<1>(GetParam()); }
};

TEST_P(KernelMatchesReference, AllModesAndRanges) {
  DataType src = source();
  auto inputs = Inputs(src);
  for (DataType dst : kAllDataTypes) {
    for (int r = 0; r < 5; ++r) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
        SCOPED_TRACE(Describe(dir));
        ExpectSame(dir, inputs, target());
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A scalar_map goes through the kernels' cold path or their in-vector blend: keys must win over
// every other rule (R10).
TEST_P(KernelMatchesReference, WithScalarMap) {
  DataType src = source();
  const TypeInfo& s = Info(src);
  auto inputs = Inputs(src);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> map;
  if (s.has_nan()) map.emplace_back(s.canonical_nan(), 0);
  if (s.has_inf()) map.emplace_back(s.positive_inf(), 1);
  map.emplace_back(inputs[inputs.size() / 2], 1);
  map.emplace_back(inputs.back(), 0);
  for (DataType dst : {DataType::uint8, DataType::int16, DataType::float8_e4m3fnuz, DataType::int4,
                       DataType::float32, DataType::float16, DataType::int64}) {
    for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
      Direction dir{src, dst, Rounding::kNearestEven, oor, map};
      SCOPED_TRACE(Describe(dir));
      ExpectSame(dir, inputs, target());
      if (HasFatalFailure()) return;
    }
  }
}

// The target varies fastest: a source's references are computed once for all targets
// (kernels_test_util.h, ReferenceCache). The names keep the target first.
INSTANTIATE_TEST_SUITE_P(AllSources, KernelMatchesReference,
                         ::testing::Combine(::testing::ValuesIn(kAllDataTypes),
                                            ::testing::ValuesIn(CompiledSimdTargets())),
                         [](const auto& info) {
                           return TargetParamName(std::get<1>(info.param)) + "_" +
                                  std::string(DataTypeName(std::get<0>(info.param)));
                         });

// The block-structure tests below, once per compiled target.
class VectorBlocks : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override { ZCAST_SKIP_UNLESS_SUPPORTED(GetParam()); }
};

// ---- targeted tests of the block structure ----

// Source encodings of ordinary values (exactly representable, in range for most targets), and of
// values a vector kernel declines or treats specially.
std::uint64_t FromDouble(DataType t, double x) {
  return CastBits(DataType::float64, F64Bits(x), t, Rounding::kNearestEven, OutOfRange::kClamp).bits;
}
std::vector<std::uint64_t> Ordinary(DataType src, std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = FromDouble(src, static_cast<double>(i % 7) * 0.75 + (i % 3));
  return v;
}
std::vector<std::uint64_t> Specials(DataType src) {
  const TypeInfo& s = Info(src);
  std::vector<std::uint64_t> v;
  if (s.has_nan()) {
    v.push_back(s.canonical_nan());
    if (s.special == Special::Ieee) v.push_back(s.canonical_nan() | s.sign_bit() | 1);  // -NaN, payload
  }
  if (s.has_inf()) {
    v.push_back(s.positive_inf());
    v.push_back(s.positive_inf() | s.sign_bit());
  }
  for (double x : {1e30, -1e30, 300.0, -1.0, 70000.0, -129.5, 2.5, 1e-30}) v.push_back(FromDouble(src, x));
  return v;
}

const DataType kVectorSources[] = {DataType::float32, DataType::float64, DataType::float16,
                                   DataType::bfloat16, DataType::int64, DataType::uint64,
                                   DataType::int32, DataType::uint32, DataType::int16,
                                   DataType::uint16, DataType::uint8, DataType::int8,
                                   DataType::int4, DataType::uint2, DataType::float8_e4m3,
                                   DataType::float8_e5m2fnuz, DataType::float4_e2m1fn};

// One special value at every position of a 40-element buffer (a full block, then a tail of 8):
// the declined lane must come out exactly as the reference has it, including the first failure.
TEST_P(VectorBlocks, DeclinedLaneInEveryPosition) {
  constexpr std::size_t kN = 40;
  for (DataType src : kVectorSources) {
    const std::vector<std::uint64_t> base = Ordinary(src, kN);
    for (DataType dst : kAllDataTypes) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{src, dst, static_cast<Rounding>((static_cast<int>(dst) + static_cast<int>(oor)) % 5), oor, {}};
        SCOPED_TRACE(Describe(dir));
        auto kernel = SelectKernelFor(dir, GetParam());
        for (std::uint64_t special : Specials(src)) {
          for (std::size_t p = 0; p < kN; ++p) {
            std::vector<std::uint64_t> in = base;
            in[p] = special;
            SCOPED_TRACE("special 0x" + std::to_string(special) + " at " + std::to_string(p));
            ExpectKernelMatches(*kernel, dir, in, Reference(dir, in));
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// A declined (here: failing) element alone in a full block, at every lane of the widest vectors:
// the 40 elements above are a full block only for 32-bit lanes of at most 256 bits, and a block
// whose common-case pass (FastBlock) drops a lane's declined bit shows only where the block is
// full and that lane alone is declined. SVE_256's byte-lane blocks lost lanes 16-31 that way
// (block-inl.h, MaskOr8) with this suite's other tests passing, their failures sorted into the
// first lanes. One pair per float family; kernels_int_families_test.cc has the integer ones.
// Under unset the element fails; under clamp the same value is clamped (NaN into an integer
// still fails, R3): a lane a kernel declines or fixes up without a failure, alone in the block.
TEST_P(VectorBlocks, SpecialElementAloneInFullBlocks) {
  struct Case {
    DataType src, dst;
    double good, bad;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Case cases[] = {
      {DataType::float32, DataType::uint8, 3.0, nan},       {DataType::float16, DataType::int16, 3.0, inf},
      {DataType::bfloat16, DataType::uint8, 3.0, nan},      {DataType::float32, DataType::float16, 3.0, 1e10},
      {DataType::float32, DataType::float8_e4m3, 3.0, 1e10}, {DataType::float32, DataType::bfloat16, 3.0, 3.4028234663852886e38},
      {DataType::float64, DataType::float32, 3.0, 1e300},   {DataType::float64, DataType::int32, 3.0, 1e300},
      {DataType::float64, DataType::float16, 3.0, 1e300},   {DataType::float64, DataType::int64, 3.0, nan},
      {DataType::float8_e5m2, DataType::uint8, 3.0, -2.0},  {DataType::int64, DataType::int16, 3.0, 1e9},
      // The signed tables' range check (table8-inl.h's RangeLanes) in full 64-byte blocks, and
      // float16 -> 8-bit integers' Inf/NaN test on the float16 bits (float_to_int.cc).
      {DataType::float8_e5m2, DataType::float8_e4m3fnuz, 3.0, inf},
      {DataType::float8_e4m3, DataType::float4_e2m1fn, 3.0, nan},
      {DataType::float16, DataType::uint8, 3.0, nan},
  };
  constexpr std::size_t kN = 2 * 256 + 9;  // two blocks of 64 bytes of byte lanes x 4, and a tail
  for (const Case& c : cases) {
    for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
      const Direction dir{c.src, c.dst, Rounding::kNearestEven, oor, {}};
      SCOPED_TRACE(Describe(dir));
      auto kernel = SelectKernelFor(dir, GetParam());
      for (std::size_t p = 0; p < kN; p += (p < 140 ? 1 : 37)) {
        std::vector<std::uint64_t> in(kN, FromDouble(c.src, c.good));
        in[p] = FromDouble(c.src, c.bad);
        in[(p * 7 + 3) % kN] = in[p];
        SCOPED_TRACE("special element at " + std::to_string(p));
        const Expected& want = Reference(dir, in);
        if (oor == OutOfRange::kUnset) ASSERT_TRUE(want.fails[p]) << "the case must fail in the reference";
        ExpectKernelMatches(*kernel, dir, in, want);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// scalar_map keys blended in the vector (float32 -> uint8 with NaN -> 0, +-Inf -> 255 / 0, and a
// finite key), in every position, with and without other declined lanes.
TEST_P(VectorBlocks, ScalarMapKeysInEveryPosition) {
  constexpr std::size_t kN = 45;
  const std::uint64_t nan = 0x7FC00000u, inf = 0x7F800000u, ninf = 0xFF800000u;
  const std::uint64_t key = F32Bits(7.0f), neg_nan = 0xFFC00001u, big = F32Bits(1e9f);
  for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
    for (int r = 0; r < 5; ++r) {
      Direction dir{DataType::float32, DataType::uint8, static_cast<Rounding>(r), oor,
                    {{nan, 0}, {inf, 255}, {ninf, 0}, {key, 42}}};
      SCOPED_TRACE(Describe(dir));
      std::vector<std::uint64_t> base(kN);
      for (std::size_t i = 0; i < kN; ++i) base[i] = F32Bits(static_cast<float>(i) * 1.25f);
      auto kernel = SelectKernelFor(dir, GetParam());
      // The map goes in the vector on every Highway target.
      if (GetParam() != kBaselineTarget) EXPECT_STREQ(kernel->name(), "float-lanes-to-int");
      for (std::uint64_t special : {nan, inf, ninf, key, neg_nan, big}) {
        for (std::size_t p = 0; p < kN; ++p) {
          std::vector<std::uint64_t> in = base;
          in[p] = special;
          in[(p * 7 + 3) % kN] = nan;
          SCOPED_TRACE("special at " + std::to_string(p));
          ExpectKernelMatches(*kernel, dir, in, Reference(dir, in));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// Every length 0..40, and around one and two blocks of the widest vectors (4 x 16 lanes on AVX3,
// up to 4 x 64 on SVE).
std::vector<std::size_t> TailLengths() {
  std::vector<std::size_t> n;
  for (std::size_t i = 0; i <= 40; ++i) n.push_back(i);
  for (std::size_t b : {64, 128, 256}) {
    for (std::size_t d : {b - 1, b, b + 1, 2 * b - 1, 2 * b + 7}) n.push_back(d);
  }
  return n;
}

// Tails of every length 0..40 (a partial block alone, a block and a partial one), from unaligned
// buffers, for every source a vector kernel takes and every destination.
TEST_P(VectorBlocks, TailsAndUnalignedBuffers) {
  for (DataType src : kVectorSources) {
    auto all = Inputs(src);
    std::mt19937_64 rng(99 + static_cast<int>(src));
    for (DataType dst : kAllDataTypes) {
      Direction dir{src, dst, static_cast<Rounding>(static_cast<int>(dst) % 5), OutOfRange::kClamp, {}};
      SCOPED_TRACE(Describe(dir));
      auto kernel = SelectKernelFor(dir, GetParam());
      // Up to two blocks and a tail on every target (SVE at 2048 bits: 4 x 64 lanes).
      for (std::size_t n : TailLengths()) {
        std::vector<std::uint64_t> in(n);
        for (auto& b : in) b = all[rng() % all.size()];
        const Expected& want = Reference(dir, in);
        for (std::size_t off : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
          SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(off));
          ExpectKernelMatches(*kernel, dir, in, want, off, (off * 5) % 4);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// The baseline kernels (tables, fast paths, the reference loop) for every source, from and into
// buffers one byte off their natural alignment: the C API and Python pass any address, and a
// kernel must not dereference a typed pointer there (the UBSan build checks this test).
TEST(BaselineKernels, UnalignedBuffers) {
  for (DataType src : kAllDataTypes) {
    auto all = Inputs(src);
    all.resize(std::min<std::size_t>(all.size(), 3000));
    for (DataType dst : kAllDataTypes) {
      const int k = static_cast<int>(dst);
      Direction dir{src, dst, static_cast<Rounding>(k % 5),
                    k % 2 ? OutOfRange::kUnset : OutOfRange::kClamp, {}};
      if (k % 3 == 0) dir.map.emplace_back(all[all.size() / 2], 1);
      SCOPED_TRACE(Describe(dir));
      auto kernel = SelectKernelFor(dir, kBaselineTarget);
      ExpectKernelMatches(*kernel, dir, all, Reference(dir, all), 1, 1);
      if (HasFatalFailure()) return;
    }
  }
}

// A host application may run with flush-to-zero, denormals-are-zero and another rounding mode
// (MXCSR on x86, FPCR on aarch64): results must not change, and the caller's environment must be
// back afterwards. Each rounding mode sees a different quarter of the inputs (every 4th, from its
// own offset), so every input runs in the odd environment in some mode and every mode meets ties,
// subnormals and specials: whether a kernel sets its own environment shows on any of them, and
// AllModesAndRanges has every input in every mode in the default one. All inputs in all modes
// would cost 44-62 s per SVE target under qemu; a quarter of them cost a quarter of that.
TEST_P(VectorBlocks, NonDefaultFloatingPointEnvironment) {
  const std::uint64_t odd = NonDefaultFpControlForTest();
  if (odd == 0) GTEST_SKIP() << "NOT RUN: no FP control register known on this architecture";
  const std::uint64_t saved = FpControlForTest();
  std::vector<std::uint64_t> in32 = Inputs(DataType::float32), in64 = Inputs(DataType::float64);
  for (DataType src : {DataType::float32, DataType::float64, DataType::float16, DataType::bfloat16}) {
    auto inputs = src == DataType::float32 ? in32 : (src == DataType::float64 ? in64 : Inputs(src));
    std::vector<std::uint64_t> quarters[4];
    for (std::size_t i = 0; i < inputs.size(); ++i) quarters[i % 4].push_back(inputs[i]);
    for (DataType dst : {DataType::float16, DataType::float32, DataType::bfloat16, DataType::int32,
                         DataType::uint8, DataType::int16, DataType::float8_e4m3,
                         DataType::float8_e8m0fnu, DataType::int64}) {
      for (int r = 0; r < 5; ++r) {
        const std::vector<std::uint64_t>& quarter = quarters[r % 4];
        for (OutOfRange oor : {OutOfRange::kClamp, OutOfRange::kUnset, OutOfRange::kWrap}) {
          Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
          SCOPED_TRACE(Describe(dir));
          const Expected& want = Reference(dir, quarter);
          auto kernel = SelectKernelFor(dir, GetParam());
          SetFpControlForTest(odd);
          const std::uint64_t set = FpControlForTest();  // bits the CPU lacks (FZ16) read as 0
          ExpectKernelMatches(*kernel, dir, quarter, want);
          const std::uint64_t after = FpControlForTest();
          SetFpControlForTest(saved);
          EXPECT_NE(set, saved) << "the non-default FP environment did not take";
          EXPECT_EQ(after, set) << "FP environment not restored by " << kernel->name();
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, VectorBlocks, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const auto& info) { return TargetParamName(info.param); });

TEST(KernelSelection, Targets) {
  const auto& compiled = CompiledSimdTargets();
  const auto& supported = SupportedSimdTargets();
  ASSERT_GE(compiled.size(), 2u) << "no Highway target compiled";
  EXPECT_EQ(compiled.front(), kBaselineTarget);
  EXPECT_EQ(supported.front(), kBaselineTarget);
  for (std::size_t i = 1; i < compiled.size(); ++i) EXPECT_TRUE(SimdTargetBetter(compiled[i], compiled[i - 1]));
  for (std::int64_t t : supported) {
    EXPECT_NE(std::find(compiled.begin(), compiled.end(), t), compiled.end()) << SimdTargetName(t);
  }
  EXPECT_TRUE(IsSupportedSimdTarget(BestSimdTarget()));
  for (std::int64_t t : compiled) {
    std::string name = SimdTargetName(t), lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(SimdTargetFromName(name), t);
    EXPECT_EQ(SimdTargetFromName(lower), t);
    // Capping to a target gives it when the CPU has it, else the best supported one below it.
    std::int64_t at_most = SupportedSimdTargetAtMost(t);
    EXPECT_TRUE(IsSupportedSimdTarget(at_most));
    EXPECT_FALSE(SimdTargetBetter(at_most, t));
    if (IsSupportedSimdTarget(t)) EXPECT_EQ(at_most, t);
  }
  EXPECT_EQ(SimdTargetFromName("no-such-target"), -1);
  EXPECT_STREQ(SimdTargetName(kBaselineTarget), "baseline");
  // A target the CPU lacks is never used: SelectKernelFor falls back to one it has.
  Direction dir{DataType::float32, DataType::uint8, Rounding::kNearestEven, OutOfRange::kClamp, {}};
  for (std::int64_t t : compiled) EXPECT_NE(SelectKernelFor(dir, t), nullptr);
}

// Names of the Highway families' kernels start with the family (kernels/families.h).
bool IsHighwayKernel(const std::string& name) {
  for (const char* prefix : {"float-lanes-", "float64-lanes-", "int-lanes-", "int8-lanes-", "table8-", "float8-to-half-", "int8-to-half-"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The float-lane family (float32, float16, bfloat16 sources) serves its pairs on every Highway
// target, in every mode.
class FloatLanesChosen : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override {
    ZCAST_SKIP_UNLESS_SUPPORTED(GetParam());
  }
};
TEST_P(FloatLanesChosen, ForEveryModeAndSetting) {
  struct Want {
    DataType s, d;
    const char* name;
  };
  const Want wants[] = {
      {DataType::float32, DataType::uint8, "float-lanes-to-int"},
      {DataType::float32, DataType::int8, "float-lanes-to-int"},
      {DataType::float32, DataType::int16, "float-lanes-to-int"},
      {DataType::float32, DataType::uint16, "float-lanes-to-int"},
      {DataType::float32, DataType::int32, "float-lanes-to-int"},
      {DataType::float32, DataType::int4, "float-lanes-to-int"},
      {DataType::float16, DataType::uint8, "float-lanes-to-int"},
      {DataType::bfloat16, DataType::int16, "float-lanes-to-int"},
      {DataType::float32, DataType::float32, "float-lanes-to-float32"},
      {DataType::float16, DataType::float32, "float-lanes-to-float32"},
      {DataType::bfloat16, DataType::float32, "float-lanes-to-float32"},
      {DataType::float32, DataType::float16, "float-lanes-to-narrow-float"},
      {DataType::bfloat16, DataType::float16, "float-lanes-to-narrow-float"},
      {DataType::float32, DataType::float8_e4m3, "float-lanes-to-narrow-float"},
      {DataType::float32, DataType::float8_e5m2fnuz, "float-lanes-to-narrow-float"},
      {DataType::float32, DataType::float4_e2m1fn, "float-lanes-to-narrow-float"},
      {DataType::float16, DataType::float8_e4m3fnuz, "float-lanes-to-narrow-float"},
      {DataType::bfloat16, DataType::float6_e3m2fn, "float-lanes-to-narrow-float"},
      // The integer sources of 16 and 32 bits have a common block of their own (IntSourceLanes).
      {DataType::int16, DataType::float8_e4m3, "float-lanes-int-to-narrow-float"},
      {DataType::uint16, DataType::float6_e2m3fn, "float-lanes-int-to-narrow-float"},
      {DataType::int16, DataType::float16, "float-lanes-int-to-narrow-float"},
      {DataType::int32, DataType::float16, "float-lanes-int-to-narrow-float"},
      {DataType::int32, DataType::float8_e5m2fnuz, "float-lanes-int-to-narrow-float"},
      {DataType::float32, DataType::bfloat16, "float-lanes-to-bfloat16"},
      {DataType::float16, DataType::bfloat16, "float-lanes-to-bfloat16"},
      {DataType::float32, DataType::float8_e8m0fnu, "float-lanes-to-e8m0"},
      {DataType::float16, DataType::float8_e8m0fnu, "float-lanes-to-e8m0"},
  };
  for (const Want& w : wants) {
    for (int r = 0; r < 5; ++r) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{w.s, w.d, static_cast<Rounding>(r), oor, {}};
        // x86 targets with F16C convert to float16 with it (float_to_narrow.cc).
        const bool f16c = w.d == DataType::float16 && SimdTargetIncludesAvx2(GetParam());
        const char* f16c_name = Info(w.s).is_int() ? "float-lanes-int-to-float16-f16c" : "float-lanes-to-float16-f16c";
        EXPECT_STREQ(SelectKernelFor(dir, GetParam())->name(), f16c ? f16c_name : w.name) << Describe(dir);
      }
    }
  }
}
// Every compiled target but baseline (which has no Highway kernels by definition).
std::vector<std::int64_t> HighwayTargets() {
  std::vector<std::int64_t> t = CompiledSimdTargets();
  t.erase(t.begin());
  return t;
}
INSTANTIATE_TEST_SUITE_P(Targets, FloatLanesChosen, ::testing::ValuesIn(HighwayTargets()),
                         [](const auto& info) { return TargetParamName(info.param); });

TEST(KernelSelection, BaselineFastPathsAreChosen) {
  auto name = [](DataType s, DataType d, Rounding r) {
    return std::string(SelectKernelFor({s, d, r, OutOfRange::kClamp, {}}, kBaselineTarget)->name());
  };
  EXPECT_EQ(name(DataType::float32, DataType::uint8, Rounding::kNearestEven), "float-to-int");
  EXPECT_EQ(name(DataType::float64, DataType::float32, Rounding::kNearestEven), "hardware-to-float");
  EXPECT_EQ(name(DataType::float32, DataType::bfloat16, Rounding::kNearestEven), "float32-to-bfloat16");
  EXPECT_EQ(name(DataType::uint8, DataType::float32, Rounding::kTowardsZero), "table");
  EXPECT_EQ(name(DataType::float16, DataType::float32, Rounding::kTowardsZero), "table");
  EXPECT_EQ(name(DataType::int32, DataType::uint8, Rounding::kNearestEven), "int-to-int");
}

// The pairs of the speed targets (docs/performance.md) and the other common pairs run a Highway
// family's kernel on every supported Highway target, in every mode.
TEST(KernelSelection, HighwayKernelsServeSpeedTargetPairs) {
  const std::pair<DataType, DataType> pairs[] = {
      {DataType::float32, DataType::uint8},      {DataType::float32, DataType::int8},
      {DataType::float32, DataType::int16},      {DataType::float32, DataType::uint16},
      {DataType::float32, DataType::int32},      {DataType::float64, DataType::int32},
      {DataType::float64, DataType::int64},      {DataType::float32, DataType::uint64},
      {DataType::float32, DataType::float64},    {DataType::float64, DataType::float64},
      {DataType::int32, DataType::float64},      {DataType::int64, DataType::float64},
      {DataType::uint64, DataType::float32},     {DataType::float64, DataType::float16},
      {DataType::float64, DataType::bfloat16},   {DataType::float64, DataType::float8_e5m2},
      {DataType::float16, DataType::float8_e4m3fnuz}, {DataType::bfloat16, DataType::float16},
      {DataType::float8_e5m2, DataType::float16}, {DataType::float4_e2m1fn, DataType::bfloat16},
      {DataType::uint8, DataType::bfloat16},     {DataType::int4, DataType::float32},
      {DataType::uint2, DataType::int16},        {DataType::float64, DataType::float32},
      {DataType::float32, DataType::float16},    {DataType::float32, DataType::bfloat16},
      {DataType::uint8, DataType::float32},      {DataType::int8, DataType::float32},
      {DataType::int16, DataType::float32},      {DataType::uint16, DataType::float32},
      {DataType::int32, DataType::float32},      {DataType::int32, DataType::uint8},
      {DataType::float16, DataType::float32},    {DataType::float16, DataType::uint8},
      {DataType::float8_e4m3, DataType::float32}, {DataType::float8_e5m2fnuz, DataType::float32},
      {DataType::float32, DataType::float8_e4m3}, {DataType::float32, DataType::float8_e8m0fnu},
      {DataType::float8_e4m3, DataType::int8},   {DataType::uint8, DataType::int8},
      {DataType::int4, DataType::uint8},         {DataType::int8, DataType::uint2},
      {DataType::int16, DataType::float8_e4m3},  {DataType::int32, DataType::float16},
  };
  int checked = 0;
  for (std::int64_t t : SupportedSimdTargets()) {
    if (t == kBaselineTarget) continue;
    for (auto [s, d] : pairs) {
      for (int r = 0; r < 5; ++r) {
        for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
          Direction dir{s, d, static_cast<Rounding>(r), oor, {}};
          const std::string name = SelectKernelFor(dir, t)->name();
          EXPECT_TRUE(IsHighwayKernel(name)) << Describe(dir) << " on " << SimdTargetName(t) << ": " << name;
          ++checked;
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "NOT RUN: the CPU supports no Highway target";
}

// float8 -> float8/6/4 tables look up one half and derive the other from the sign (up to a few
// fixes: fnuz's NaN and missing -0, R8, R19) when rounding to nearest; a directed mode rounds the
// two halves' magnitudes differently, so both halves are looked up. AVX3_DL looks the whole table
// up with vpermi2b, NEON (and SVE up to 256 bits) with four-register TBL/TBX, and SCALAR indexes it
// directly (table8.cc).
TEST(KernelSelection, SignedTable8IsChosen) {
  const std::pair<DataType, DataType> pairs[] = {
      {DataType::float8_e4m3, DataType::float8_e5m2},
      {DataType::float8_e5m2, DataType::float8_e4m3fnuz},
      {DataType::float8_e4m3fnuz, DataType::float8_e5m2},
      {DataType::float8_e5m2fnuz, DataType::float8_e4m3b11fnuz},
      {DataType::float8_e4m3, DataType::float4_e2m1fn},
      {DataType::float8_e3m4, DataType::float6_e3m2fn},
  };
  int checked = 0;
  for (std::int64_t t : SupportedSimdTargets()) {
    const std::string target = SimdTargetName(t);
    if (t == kBaselineTarget || target == "AVX3_DL" || target == "SCALAR") continue;
    if (std::strcmp(kernel_test::Table8KernelName(target, "table8-signed"), "table8-signed") != 0) continue;
    for (auto [s, d] : pairs) {
      for (Rounding r : {Rounding::kNearestEven, Rounding::kNearestAway}) {
        for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp}) {
          Direction dir{s, d, r, oor, {}};
          EXPECT_STREQ(SelectKernelFor(dir, t)->name(), "table8-signed") << Describe(dir) << " on " << target;
          ++checked;
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "NOT RUN: no target with the signed table (only baseline, SCALAR, AVX3_DL, TBL/TBX)";
}

}  // namespace
}  // namespace zcast::internal
