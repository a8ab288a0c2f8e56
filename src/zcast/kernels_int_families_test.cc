// The integer and 8-bit kernel families (src/zcast/kernels/int_lanes.cc, int8_lanes.cc,
// table8.cc, table8_to16.cc, float8_to_half.cc, int8_to_half.cc) against the reference path, once per compiled
// SIMD target (the target's name is in the test name; a target the CPU lacks is reported as
// "NOT RUN: <target> (CPU lacks it)"):
// every pair the families take, on every encoding of the <= 16-bit sources (for the 1-byte
// sources all 256 bytes, so the sub-byte types' ignored upper bits too), boundaries and seeded
// random values of int32; tails 0..40 and around the blocks of the widest vectors, unaligned
// buffers; a failing element in every position of two blocks; scalar maps larger than the inline
// ones; a non-default FP environment. kernels_test.cc runs the whole selection the same way; the
// tests here first check that the family under test is the one selected, so they cannot pass on a
// fallback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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
using kernel_test::Table8KernelName;

bool IsFamilyKernel(const char* name) {
  for (const char* n : {"int-lanes-to-int", "int-lanes-to-float32", "int-lanes-float8-to-float32",
                        "float8-to-half-lanes", "int8-to-half-lanes",
                        "int8-lanes-to-int", "table8-permute", "table8-signed", "table8-full",
                        "table8-direct", "table8-tbl", "table8-to16-permute", "table8-to16-gather",
                        "table8-to16-loads"}) {
    if (std::strcmp(name, n) == 0) return true;
  }
  return false;
}

// Every encoding of a <= 16-bit source as stored (1-byte types: every byte), or int32 boundaries
// (powers of two and their neighbours, both signs, the type's extremes) and seeded random values.
std::vector<std::uint64_t> RawInputs(DataType src) {
  const TypeInfo& s = Info(src);
  std::vector<std::uint64_t> v;
  if (s.size <= 2) {
    for (std::uint64_t b = 0; b < (1ull << (8 * s.size)); ++b) v.push_back(b);
    return v;
  }
  for (int e = 0; e < 32; ++e) {
    for (int d = -2; d <= 2; ++d) {
      const std::uint32_t p = (1u << e) + static_cast<std::uint32_t>(d);
      v.push_back(p);
      v.push_back(static_cast<std::uint32_t>(0u - p));
    }
  }
  std::mt19937_64 rng(4321);
  for (int i = 0; i < 20000; ++i) v.push_back(static_cast<std::uint32_t>(rng()));
  return v;
}

// The sources these families take.
std::vector<DataType> FamilySources() {
  std::vector<DataType> v;
  for (DataType t : kAllDataTypes) {
    const TypeInfo& s = Info(t);
    if (s.size == 1 || t == DataType::uint16 || t == DataType::int16 || t == DataType::int32) v.push_back(t);
  }
  return v;
}

class IntFamilies : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override {
    ZCAST_SKIP_UNLESS_SUPPORTED(GetParam());
  }
  std::int64_t target() const { return GetParam(); }
  bool highway() const { return target() != kBaselineTarget; }
};

// The families are the ones selected, on every Highway target (vpermi2b on AVX3_DL).
TEST_P(IntFamilies, AreSelected) {
  if (!highway()) GTEST_SKIP() << "NOT RUN: baseline has no Highway kernels";
  struct Want {
    DataType src, dst;
    OutOfRange oor;
    const char* name;
  };
  const std::string name = SimdTargetName(target());
  const bool dl = name == "AVX3_DL", scalar = name == "SCALAR";
  // The 1-byte tables (table8.cc): signed plans and full ones look up alike on AVX3_DL, SCALAR and
  // where NEON's TBL/TBX runs.
  const char* table8_signed = dl ? "table8-permute" : scalar ? "table8-direct" : Table8KernelName(name, "table8-signed");
  const char* table8_full = dl ? "table8-permute" : scalar ? "table8-direct" : Table8KernelName(name, "table8-full");
  const Want wants[] = {
      {DataType::uint8, DataType::int8, OutOfRange::kClamp, "int8-lanes-to-int"},
      {DataType::uint8, DataType::uint4, OutOfRange::kClamp, "int8-lanes-to-int"},
      {DataType::int2, DataType::uint8, OutOfRange::kUnset, "int8-lanes-to-int"},
      {DataType::float8_e4m3, DataType::float8_e5m2, OutOfRange::kUnset, table8_signed},
      {DataType::float8_e5m2, DataType::float8_e4m3fnuz, OutOfRange::kClamp, table8_signed},
      {DataType::float8_e4m3, DataType::float4_e2m1fn, OutOfRange::kClamp, table8_signed},
      {DataType::uint8, DataType::float8_e8m0fnu, OutOfRange::kClamp, table8_full},
      {DataType::uint8, DataType::float32, OutOfRange::kUnset, "int-lanes-to-float32"},
      {DataType::int32, DataType::uint8, OutOfRange::kClamp, "int-lanes-to-int"},
      {DataType::int16, DataType::int32, OutOfRange::kWrap, "int-lanes-to-int"},
      {DataType::float8_e4m3fnuz, DataType::float32, OutOfRange::kUnset, "int-lanes-float8-to-float32"},
      {DataType::float4_e2m1fn, DataType::float32, OutOfRange::kUnset, "int-lanes-float8-to-float32"},
  };
  for (const Want& w : wants) {
    Direction dir{w.src, w.dst, Rounding::kNearestEven, w.oor, {}};
    EXPECT_STREQ(SelectKernelFor(dir, target())->name(), w.name) << Describe(dir);
  }
  // The 1-byte -> 2-byte tables on x86 (table8_to16.cc): vpermi2b on AVX3_DL, where the gather
  // was 0.26 of the ceiling on an AMD EPYC; integer sources into float16 take F16C from AVX2 up.
  const char* to16 = dl                                  ? "table8-to16-permute"
                     : name == "AVX2" || name == "AVX3" ? "table8-to16-gather"
                     : name == "SSE4"                   ? "table8-to16-loads"
                                                        : nullptr;
  // float8/6/4 -> float16 and bfloat16: the 16-bit lanes (float8_to_half.cc) everywhere but
  // AVX3_DL; with a scalar_map, the table where there is one, else the float lanes (ARM, EMU128,
  // SCALAR).
  for (auto [s, d] : {std::pair{DataType::float8_e4m3, DataType::float16}, {DataType::float8_e5m2, DataType::bfloat16},
                      {DataType::float4_e2m1fn, DataType::float16}, {DataType::float6_e3m2fn, DataType::bfloat16}}) {
    Direction dir{s, d, Rounding::kNearestEven, OutOfRange::kUnset, {}};
    EXPECT_STREQ(SelectKernelFor(dir, target())->name(), dl ? to16 : "float8-to-half-lanes") << Describe(dir);
    if (Info(s).bits != 8) continue;
    dir.map = {{0x38, 0x1234}};
    const std::string with_map = SelectKernelFor(dir, target())->name();
    if (to16 != nullptr) EXPECT_EQ(with_map, to16) << Describe(dir);
    else EXPECT_EQ(with_map.rfind("float-lanes-", 0), 0u) << Describe(dir) << ": " << with_map;
  }
  // int8 / uint8 -> bfloat16 and float16: the int8-to-half lanes (int8_to_half.cc), but for
  // AVX3_DL's table and, into float16, F16C from AVX2 up; with a scalar_map, the table.
  const bool f16c = name == "AVX2" || name == "AVX3" || dl;
  Direction i8{DataType::int8, DataType::bfloat16, Rounding::kNearestEven, OutOfRange::kUnset, {}};
  EXPECT_STREQ(SelectKernelFor(i8, target())->name(), dl ? to16 : "int8-to-half-lanes");
  Direction u8{DataType::uint8, DataType::float16, Rounding::kNearestEven, OutOfRange::kUnset, {}};
  EXPECT_STREQ(SelectKernelFor(u8, target())->name(), f16c ? "float-lanes-int-to-float16-f16c" : "int8-to-half-lanes");
  if (to16 == nullptr) return;
  u8.map = {{7, 0x1234}};
  EXPECT_STREQ(SelectKernelFor(u8, target())->name(), f16c ? "float-lanes-int-to-float16-f16c" : to16);
  Direction u4{DataType::uint4, DataType::float16, Rounding::kNearestEven, OutOfRange::kUnset, {}};
  EXPECT_STREQ(SelectKernelFor(u4, target())->name(), f16c ? "float-lanes-to-float16-f16c" : to16);
  // Integer sources into 16-bit integers: the int lanes below AVX3_DL (3-5x the table in cache).
  for (auto [s, d] : {std::pair{DataType::uint8, DataType::int16}, {DataType::int4, DataType::uint16}}) {
    Direction dir{s, d, Rounding::kNearestEven, OutOfRange::kClamp, {}};
    EXPECT_STREQ(SelectKernelFor(dir, target())->name(), dl ? "table8-to16-permute" : "int-lanes-to-int") << Describe(dir);
  }
}

// Every pair, mode and out_of_range the families take, against the reference on every encoding.
TEST_P(IntFamilies, EveryPairMatchesReference) {
  int covered = 0;
  for (DataType src : FamilySources()) {
    const std::vector<std::uint64_t> inputs = RawInputs(src);
    for (DataType dst : kAllDataTypes) {
      for (int r = 0; r < 5; ++r) {
        for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
          Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
          auto kernel = SelectKernelFor(dir, target());
          if (!IsFamilyKernel(kernel->name())) continue;
          ++covered;
          SCOPED_TRACE(Describe(dir));
          ExpectKernelMatches(*kernel, dir, inputs, covered % 3, covered % 5);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  if (highway()) EXPECT_GT(covered, 1000);
}

// float8/6/4 -> float16 and bfloat16 by the 16-bit lanes (float8_to_half.cc), whether or not this
// target selects them (AVX3_DL takes the table): every encoding, mode and out_of_range, on every
// Highway target; with a scalar_map the family declines (the table or the float lanes take it).
TEST_P(IntFamilies, Float8ToHalfMatchesReferenceOnEveryTarget) {
  if (!highway()) GTEST_SKIP() << "NOT RUN: baseline has no Highway kernels";
  int covered = 0;
  for (DataType src : kAllDataTypes) {
    const TypeInfo& s = Info(src);
    if (s.kind != Kind::Float || s.size != 1 || s.special == Special::E8m0) continue;
    const std::vector<std::uint64_t> inputs = RawInputs(src);
    for (DataType dst : {DataType::float16, DataType::bfloat16}) {
      for (int r = 0; r < 5; ++r) {
        for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
          Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
          SCOPED_TRACE(Describe(dir));
          auto kernel = SelectFloat8ToHalf(dir, target());
          ASSERT_NE(kernel, nullptr);
          EXPECT_STREQ(kernel->name(), "float8-to-half-lanes");
          ++covered;
          ExpectKernelMatches(*kernel, dir, inputs, covered % 3, covered % 5);
          if (HasFatalFailure()) return;
        }
      }
      Direction mapped{src, dst, Rounding::kNearestEven, OutOfRange::kUnset, {{0x01, 0xBEEF}}};
      EXPECT_EQ(SelectFloat8ToHalf(mapped, target()), nullptr) << Describe(mapped);
    }
  }
  EXPECT_EQ(covered, 9 * 2 * 5 * 3);  // 9 sources (float8/6/4 but e8m0), 2 destinations, 5 modes, 3 settings
}

// int8 / uint8 -> float16 and bfloat16 by the int8-to-half lanes (int8_to_half.cc), whether or
// not this target selects them (AVX3_DL takes the table; AVX2 and AVX3 F16C into float16): every
// byte, mode and out_of_range, on every Highway target; with a scalar_map the family declines.
TEST_P(IntFamilies, Int8ToHalfMatchesReferenceOnEveryTarget) {
  if (!highway()) GTEST_SKIP() << "NOT RUN: baseline has no Highway kernels";
  const std::string name = SimdTargetName(target());
  int covered = 0;
  for (DataType src : {DataType::int8, DataType::uint8}) {
    const std::vector<std::uint64_t> inputs = RawInputs(src);
    for (DataType dst : {DataType::float16, DataType::bfloat16}) {
      const bool declined = name == "AVX3_DL" || (dst == DataType::float16 && (name == "AVX2" || name == "AVX3"));
      for (int r = 0; r < 5; ++r) {
        for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
          Direction dir{src, dst, static_cast<Rounding>(r), oor, {}};
          SCOPED_TRACE(Describe(dir));
          auto kernel = SelectInt8ToHalf(dir, target());
          if (declined) {
            EXPECT_EQ(kernel, nullptr);
            continue;
          }
          ASSERT_NE(kernel, nullptr);
          EXPECT_STREQ(kernel->name(), "int8-to-half-lanes");
          ++covered;
          ExpectKernelMatches(*kernel, dir, inputs, covered % 3, covered % 5);
          if (HasFatalFailure()) return;
        }
      }
      Direction mapped{src, dst, Rounding::kNearestEven, OutOfRange::kUnset, {{0x01, 0xBEEF}}};
      EXPECT_EQ(SelectInt8ToHalf(mapped, target()), nullptr) << Describe(mapped);
    }
  }
  // 2 sources, 2 destinations (1 where F16C takes float16, none on AVX3_DL), 5 modes, 3 settings.
  const int dsts = name == "AVX3_DL" ? 0 : (name == "AVX2" || name == "AVX3") ? 1 : 2;
  EXPECT_EQ(covered, 2 * dsts * 5 * 3);
}

// Tails of every length 0..40 and around one and two blocks of the widest vectors (a byte block
// is one vector: 64 lanes on AVX-512, up to 256 on SVE), unaligned, with failing elements.
TEST_P(IntFamilies, TailsAndUnalignedBuffers) {
  const Direction dirs[] = {
      {DataType::uint8, DataType::int8, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::int4, DataType::uint2, Rounding::kNearestEven, OutOfRange::kClamp, {}},
      {DataType::float8_e5m2, DataType::float8_e4m3, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float8_e4m3, DataType::uint8, Rounding::kTowardsPositive, OutOfRange::kUnset, {}},
      {DataType::int32, DataType::uint8, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::int16, DataType::uint16, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::int32, DataType::float32, Rounding::kTowardsNegative, OutOfRange::kUnset, {}},
      {DataType::float8_e5m2, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float8_e4m3, DataType::float16, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float6_e3m2fn, DataType::bfloat16, Rounding::kTowardsZero, OutOfRange::kClamp, {}},
      {DataType::int8, DataType::bfloat16, Rounding::kTowardsNegative, OutOfRange::kClamp, {}},
  };
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 40; ++n) lengths.push_back(n);
  for (std::size_t b : {64, 128, 256, 512}) {
    for (std::size_t n : {b - 1, b, b + 1, 2 * b + 7}) lengths.push_back(n);
  }
  std::mt19937_64 rng(77);
  for (const Direction& dir : dirs) {
    SCOPED_TRACE(Describe(dir));
    auto kernel = SelectKernelFor(dir, target());
    if (highway()) EXPECT_TRUE(IsFamilyKernel(kernel->name())) << kernel->name();
    const std::vector<std::uint64_t> all = RawInputs(dir.src);
    for (std::size_t n : lengths) {
      std::vector<std::uint64_t> in(n);
      for (auto& b : in) b = all[rng() % all.size()];
      for (std::size_t off : {0, 1, 3}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(off));
        ExpectKernelMatches(*kernel, dir, in, off, (off * 5) % 4);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// One failing (or, for int32 -> float32 nearest-away, declined: 2^24 + 1) element at every
// position of two blocks plus a tail, among elements that convert: the index reported must be the
// reference's, and every element before it written.
TEST_P(IntFamilies, FailingElementInEveryPosition) {
  struct Case {
    Direction dir;
    std::uint64_t good, bad;
  };
  const Case cases[] = {
      {{DataType::uint8, DataType::int8, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 5, 200},
      {{DataType::uint4, DataType::int2, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 1, 0xF3},
      {{DataType::float8_e5m2, DataType::float8_e4m3, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 0x3C, 0x5C},
      {{DataType::float8_e4m3, DataType::float8_e5m2fnuz, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 0xB8, 0xF8},
      {{DataType::int32, DataType::uint16, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 7, 0xFFFFFFFFu},
      {{DataType::int32, DataType::int16, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 7, 70000},
      {{DataType::int16, DataType::uint8, Rounding::kNearestEven, OutOfRange::kUnset, {}}, 7, 0x8000},
      {{DataType::int32, DataType::float32, Rounding::kNearestAway, OutOfRange::kUnset, {}}, 7, 0x01000001u},
  };
  constexpr std::size_t kN = 2 * 256 + 9;
  for (const Case& c : cases) {
    SCOPED_TRACE(Describe(c.dir));
    auto kernel = SelectKernelFor(c.dir, target());
    if (highway()) EXPECT_TRUE(IsFamilyKernel(kernel->name())) << kernel->name();
    for (std::size_t p = 0; p < kN; p += (p < 140 ? 1 : 37)) {
      std::vector<std::uint64_t> in(kN, c.good);
      in[p] = c.bad;
      in[(p * 7 + 3) % kN] = c.bad;
      SCOPED_TRACE("failing element at " + std::to_string(p));
      ExpectKernelMatches(*kernel, c.dir, in);
      if (HasFatalFailure()) return;
    }
  }
}

// scalar_map in the vector: keys win over every rule (R10), the first occurrence of a key wins,
// out-of-range keys are mapped rather than failed; maps longer than the inline four.
TEST_P(IntFamilies, ScalarMapKeys) {
  for (DataType src : FamilySources()) {
    const TypeInfo& s = Info(src);
    const std::vector<std::uint64_t> inputs = RawInputs(src);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> map;
    for (int k = 0; k < 7; ++k) map.emplace_back(inputs[(inputs.size() * (2 * k + 1)) / 16], k);
    map.emplace_back(inputs[inputs.size() / 16], 9);  // a repeated key: the first one wins
    if (s.has_nan()) map.emplace_back(s.canonical_nan(), 1);
    for (DataType dst : {DataType::uint8, DataType::int4, DataType::int16, DataType::uint32, DataType::float32,
                         DataType::float8_e4m3fnuz, DataType::float4_e2m1fn}) {
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        Direction dir{src, dst, Rounding::kTowardsZero, oor, map};
        if (Info(dst).kind == Kind::Float && oor == OutOfRange::kWrap) continue;
        auto kernel = SelectKernelFor(dir, target());
        SCOPED_TRACE(Describe(dir) + ", kernel " + kernel->name());
        ExpectKernelMatches(*kernel, dir, inputs, 1, 2);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A caller's non-default FP environment (flush-to-zero, denormals-are-zero, rounding towards zero)
// changes nothing: the run sets its own and restores the caller's.
TEST_P(IntFamilies, NonDefaultFloatingPointEnvironment) {
  const std::uint64_t odd = NonDefaultFpControlForTest();
  if (odd == 0) GTEST_SKIP() << "NOT RUN: no FP control register on this architecture";
  const Direction dirs[] = {
      {DataType::int32, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::int32, DataType::float32, Rounding::kTowardsPositive, OutOfRange::kUnset, {}},
      {DataType::float8_e5m2, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float8_e4m3b11fnuz, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float6_e3m2fn, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float8_e5m2fnuz, DataType::float16, Rounding::kNearestEven, OutOfRange::kUnset, {}},
      {DataType::float8_e4m3, DataType::float8_e5m2, Rounding::kNearestEven, OutOfRange::kUnset, {}},
  };
  for (const Direction& dir : dirs) {
    SCOPED_TRACE(Describe(dir));
    auto kernel = SelectKernelFor(dir, target());
    const std::vector<std::uint64_t> inputs = RawInputs(dir.src);
    const std::uint64_t saved = FpControlForTest();
    SetFpControlForTest(odd);
    ExpectKernelMatches(*kernel, dir, inputs);
    const std::uint64_t after = FpControlForTest();
    SetFpControlForTest(saved);
    EXPECT_EQ(after, odd) << "the caller's FP environment was not restored";
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, IntFamilies, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const auto& info) { return std::string(SimdTargetName(info.param)); });

}  // namespace
}  // namespace zcast::internal
