// Oracle tests of the exact scalar engine (src/zcast/exact.cc) against two independent oracles:
//
//  1. LLVM APFloat (llvm-19): sources are converted exactly into IEEE quad, then rounded into the
//     target with APFloat's own convert / roundToIntegral in the requested mode. APFloat follows
//     IEEE 754 overflow (directed modes give +-max, fnuz formats overflow to NaN, the fn formats
//     saturate, NaN/Inf into the fn formats give garbage), so the range decision (R1-R7) is made
//     here on top of it, in quad: a value up to the target's max is converted by APFloat; a value
//     between max and max + ulp(max) is rounded by APFloat's roundToIntegral on the ulp(max)
//     grid; beyond that it is out of range in every mode. APFloat 19 has no float8_e3m4 and no
//     float8_e8m0fnu: those two targets are checked by the reference alone, and as sources their
//     exact value comes from the reference's decoder (APFloat still does the rounding).
//  2. reference_model.h: enumerated target grids and exact __float128 nearest-grid search.
//
// Every case compares the engine's bits and error outcome with both oracles (APFloat where it has
// the target). Coverage: every encoding of every source type of at most 16 bits into all 26
// targets x 5 roundings x 3 out_of_range settings; boundary sweeps and seeded random encodings for
// the wider sources; and the named examples of the spec and of semantics.md.
//
// This file: the oracles' self-checks, every encoding of the sources of at most 16 bits, and the
// wide sources' boundary sweeps and seeded random encodings. The named examples of the spec and
// of semantics.md are in oracle_rules_test.cc; the driver both use is oracle_driver.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "oracle_driver.h"

namespace zcast_test {
namespace {

// ---- sanity of the oracles themselves ----

TEST(OracleSelfCheck, TypeTableMatchesEngineAndSemantics) {
  // The reference's table is transcribed from semantics.md independently of the X-macro; any
  // difference is a bug in one of them.
  for (DataType t : zcast::internal::kAllDataTypes) {
    const RefType& r = Ref(t);
    const zcast::internal::TypeInfo& e = zcast::internal::Info(t);
    EXPECT_EQ(std::string(r.name), std::string(zcast::DataTypeName(t)));
    EXPECT_EQ(r.bits, e.bits) << r.name;
    if (!IsIntForm(r.form)) {
      EXPECT_EQ(r.e, e.exp_bits) << r.name;
      EXPECT_EQ(r.m, e.mant_bits) << r.name;
      EXPECT_EQ(r.bias, e.bias) << r.name;
    }
  }
  // "max finite" column of the semantics.md table.
  const std::map<DataType, double> kMax = {
      {DataType::float4_e2m1fn, 6},       {DataType::float6_e2m3fn, 7.5},
      {DataType::float6_e3m2fn, 28},      {DataType::float8_e3m4, 15.5},
      {DataType::float8_e4m3, 240},       {DataType::float8_e4m3b11fnuz, 30},
      {DataType::float8_e4m3fnuz, 240},   {DataType::float8_e5m2, 57344},
      {DataType::float8_e5m2fnuz, 57344}, {DataType::float16, 65504},
      {DataType::bfloat16, 0x1.fep127},   {DataType::float32, 0x1.fffffep127},
      {DataType::float64, 0x1.fffffffffffffp1023}};
  for (const auto& [t, max] : kMax) {
    EXPECT_TRUE(MaxFinite(Ref(t)) == static_cast<f128>(max)) << TypeName(t);
    if (Ref(t).bits <= 16) {
      EXPECT_TRUE(Grid(t).back() == static_cast<f128>(max)) << TypeName(t);
    }
  }
}

TEST(OracleSelfCheck, ReferenceDecodingAgreesWithApFloat) {
  // Every encoding of every <=16-bit type APFloat knows decodes to the same value (and class).
  for (DataType t : zcast::internal::kAllDataTypes) {
    const RefType& rt = Ref(t);
    if (rt.bits > 16) continue;
    if (!IsIntForm(rt.form) && !ApSemantics(t)) continue;
    for (std::uint64_t b = 0; b <= Mask(rt.bits); ++b) {
      RefValue v = RefDecode(t, b);
      APFloat q = ApSourceQuad(t, b);
      if (v.cls == RefValue::Cls::kNaN) {
        EXPECT_TRUE(q.isNaN()) << rt.name << " " << Hex(b);
      } else if (v.cls == RefValue::Cls::kInf) {
        EXPECT_TRUE(q.isInfinity() && q.isNegative() == v.neg) << rt.name << " " << Hex(b);
      } else {
        APFloat mine = QuadFromF128(v.neg ? -v.mag : v.mag);
        EXPECT_TRUE(q.bitwiseIsEqual(mine)) << rt.name << " " << Hex(b);
      }
    }
  }
}

TEST(OracleSelfCheck, TableGridAgreesWithComputedGrid) {
  // The enumerated grids (used for <=16-bit targets) and the computed grid (used for float32 and
  // float64) must place every point and every midpoint the same way.
  for (DataType t : zcast::internal::kAllDataTypes) {
    const RefType& rt = Ref(t);
    if (rt.bits > 16 || IsIntForm(rt.form) || rt.form == Form::kE8m0) continue;
    const std::vector<f128>& g = Grid(t);
    f128 cont = g.back() + (g.back() - g[g.size() - 2]);
    std::vector<f128> probes;
    for (std::size_t i = 1; i < g.size(); ++i) {
      probes.push_back(g[i]);
      probes.push_back((g[i - 1] + g[i]) / 2);
      probes.push_back(g[i - 1] + (g[i] - g[i - 1]) / 4);
    }
    probes.push_back((g.back() + cont) / 2);
    probes.push_back(g.back() + (cont - g.back()) / 4);
    probes.push_back(cont);
    probes.push_back(cont * 3);
    for (f128 x : probes) {
      Neighbors a = TableNeighbors(t, x), b = ComputedNeighbors(rt, x);
      for (MagDir d : {MagDir::kDown, MagDir::kUp, MagDir::kNearEven, MagDir::kNearAway}) {
        const Candidate& ca = Pick(a, x, d);
        const Candidate& cb = Pick(b, x, d);
        ASSERT_EQ(ca.above, cb.above) << rt.name << " " << F128ToString(x);
        if (!ca.above) {
          ASSERT_TRUE(ca.mag == cb.mag) << rt.name << " " << F128ToString(x);
          ASSERT_EQ(ca.code, cb.code) << rt.name << " " << F128ToString(x);
        }
      }
    }
  }
}

// ---- exhaustive: every encoding of every source of at most 16 bits ----

std::vector<DataType> SmallTypes() {
  std::vector<DataType> v;
  for (DataType t : zcast::internal::kAllDataTypes) {
    if (Ref(t).bits <= 16) v.push_back(t);
  }
  return v;
}

// One test per source type (all 26 targets inside): 20 processes under ctest rather than 520
// keeps the per-process start-up of libLLVM out of the run time.
class ExhaustiveSmallSource : public ::testing::TestWithParam<DataType> {};

TEST_P(ExhaustiveSmallSource, AllEncodingsAllTargetsAllConfigs) {
  DataType src = GetParam();
  std::int64_t calls = 0;
  for (DataType dst : zcast::internal::kAllDataTypes) {
    SCOPED_TRACE(TypeName(src) + " -> " + TypeName(dst));
    Mismatches mm;
    for (std::uint64_t b = 0; b <= Mask(Ref(src).bits); ++b) {
      calls += CheckAllConfigs(src, b, dst, mm);
    }
    EXPECT_EQ(mm.total(), 0) << mm.Summary();
  }
  RecordProperty("cases", std::to_string(calls));
}

std::string SourceName(const ::testing::TestParamInfo<DataType>& info) {
  return TypeName(info.param);
}

INSTANTIATE_TEST_SUITE_P(All, ExhaustiveSmallSource, ::testing::ValuesIn(SmallTypes()),
                         SourceName);

TEST(SubByteSources, UpperBitsAreIgnored) {
  // Sub-byte values sit in the low bits of a byte and the upper bits are ignored on read.
  for (DataType src : SmallTypes()) {
    int bits = Ref(src).bits;
    if (bits >= 8) continue;
    for (std::uint64_t b = 0; b < 256; ++b) {
      for (DataType dst : zcast::internal::kAllDataTypes) {
        for (Rounding r : kModes) {
          for (OutOfRange o : kRanges) {
            ASSERT_EQ(Engine(src, b, dst, r, o), Engine(src, b & Mask(bits), dst, r, o))
                << TypeName(src) << " " << Hex(b) << " -> " << TypeName(dst);
          }
        }
      }
    }
  }
}

// ---- wide sources: boundary sweeps and random encodings ----

std::vector<DataType> WideTypes() {
  return {DataType::int32, DataType::uint32, DataType::int64,
          DataType::uint64, DataType::float32, DataType::float64};
}

// Value order of the encodings of a float32/float64 source: negative values get negative keys.
std::int64_t FloatKey(const RefType& t, std::uint64_t bits) {
  std::uint64_t sign = 1ull << (t.bits - 1);
  std::int64_t mag = static_cast<std::int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag : mag;
}
std::uint64_t FloatFromKey(const RefType& t, std::int64_t key) {
  std::uint64_t sign = 1ull << (t.bits - 1);
  return key < 0 ? (sign | static_cast<std::uint64_t>(-key)) : static_cast<std::uint64_t>(key);
}

// The encodings of a wide source nearest to the exact value c, `radius` steps either side in
// value order (clipped to the finite values for floats and to the range for integers).
void AddNearbyEncodings(DataType src, f128 c, int radius, std::set<std::uint64_t>& out) {
  const RefType& t = Ref(src);
  if (IsIntForm(t.form)) {
    __int128 lo = t.form == Form::kInt ? -(static_cast<__int128>(1) << (t.bits - 1)) : 0;
    __int128 hi = t.form == Form::kInt ? (static_cast<__int128>(1) << (t.bits - 1)) - 1
                                       : (static_cast<__int128>(1) << t.bits) - 1;
    __int128 n;
    if (c >= static_cast<f128>(hi)) {
      n = hi;
    } else if (c <= static_cast<f128>(lo)) {
      n = lo;
    } else {
      n = c < 0 ? -static_cast<__int128>(FloorToU64(-c)) : FloorToU64(c);  // towards zero
    }
    for (int d = -radius; d <= radius; ++d) {
      __int128 v = n + d;
      if (v < lo || v > hi) continue;
      out.insert(static_cast<std::uint64_t>(v) & Mask(t.bits));
    }
    return;
  }
  std::uint64_t near;
  if (t.bits == 32) {
    float f = static_cast<float>(c);  // nearest-even; overflow gives Inf, stepped down below
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    near = u;
  } else {
    double d = static_cast<double>(c);
    std::memcpy(&near, &d, 8);
  }
  std::int64_t inf_key = static_cast<std::int64_t>(Mask(t.e) << t.m);
  std::int64_t key = FloatKey(t, near);
  for (int d = -radius; d <= radius; ++d) {
    std::int64_t k = key + d;
    if (k > inf_key || k < -inf_key) continue;  // Inf itself is included; NaNs are tested apart
    out.insert(FloatFromKey(t, k));
  }
}

// Exact values where `dst` changes behaviour, plus general traps; both signs.
std::vector<f128> BoundaryValues(DataType dst) {
  const RefType& t = Ref(dst);
  std::vector<f128> v;
  auto both = [&v](f128 x) {
    v.push_back(x);
    v.push_back(-x);
  };
  // General traps, for every target.
  for (int k : {0, 1, 2, 7, 8, 15, 16, 23, 24, 25, 31, 32, 33, 52, 53, 54, 62, 63, 64, 65, 127,
                128, 129, 1000, 1023, 1024}) {
    both(Pow2(k));
    both(Pow2(k) + 1);
    both(Pow2(k) - 1);
    both(Pow2(k) + Pow2(k - 1));
  }
  for (int k : {-1, -2, -24, -25, -126, -127, -128, -129, -133, -134, -149, -150, -1022, -1074}) {
    both(Pow2(k));
    both(Pow2(k) * 3 / 2);
  }
  for (double d : {1e300, 1e6, 244.0, 128.0, 32768.0, 32769.0, 65504.0, 65520.0, 0.4,
                   0.49999999999999994, 0.5, 1.5, 2.5, 3.5}) {
    both(d);
  }
  both(Pow2(60) + 256);
  both(Pow2(62) + Pow2(38) + 1);
  both(Pow2(53) + 1);
  both(Pow2(52) + 1);
  both(Pow2(52) + Pow2(-1));
  if (IsIntForm(t.form)) {
    f128 max = t.form == Form::kInt ? Pow2(t.bits - 1) - 1 : Pow2(t.bits) - 1;
    f128 min = t.form == Form::kInt ? -Pow2(t.bits - 1) : 0;
    for (f128 base : {max, min, Pow2(t.bits), -Pow2(t.bits)}) {
      for (f128 off : {-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}) v.push_back(base + off);
    }
    return v;
  }
  if (t.form == Form::kE8m0) {
    for (int e = -135; e <= 135; ++e) {
      for (f128 f : {1.0, 1.25, 1.5, 1.75}) both(Pow2(e) * f);
    }
    return v;
  }
  // Float targets: grid points, midpoints (ties), subnormal edges, max and the continued grid.
  f128 max = MaxFinite(t);
  f128 ulp_max = Pow2(FloorLog2(max) - t.m);
  for (f128 x : {max, max - ulp_max / 2, max + ulp_max / 4, max + ulp_max / 2,
                 max + ulp_max * 3 / 4, max + ulp_max, max + ulp_max * 3 / 2, max * 2}) {
    both(x);
  }
  int qmin = 1 - t.bias - t.m;
  for (f128 f : {0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5}) both(Pow2(qmin) * f);
  if (t.bits <= 16) {
    const std::vector<f128>& g = Grid(dst);
    // All 8-bit grids completely; 16-bit grids at each binade's ends and on a prime stride.
    for (std::size_t i = 1; i < g.size(); ++i) {
      std::size_t mant = i & Mask(t.m);
      bool take = t.bits <= 8 || mant <= 1 || mant >= Mask(t.m) - 1 || i % 61 == 0;
      if (!take) continue;
      both(g[i]);
      both((g[i - 1] + g[i]) / 2);
    }
    return v;
  }
  // float32 / float64: each binade's first point, its first midpoint, its last midpoint.
  int emin = 1 - t.bias, emax = FloorLog2(max);
  for (int e = emin; e <= emax; ++e) {
    bool take = t.bits == 32 || e - emin < 80 || emax - e < 80 || e % 13 == 0;
    if (!take) continue;
    f128 q = Pow2(e - t.m);
    both(Pow2(e));
    both(Pow2(e) + q / 2);
    both(Pow2(e) + q + q / 2);
    both(Pow2(e + 1) - q / 2);
  }
  return v;
}

class WideSourceBoundaries : public ::testing::TestWithParam<DataType> {};

TEST_P(WideSourceBoundaries, SweepsAroundEveryTargetsEdges) {
  DataType src = GetParam();
  const RefType& st = Ref(src);
  std::int64_t calls = 0;
  for (DataType dst : zcast::internal::kAllDataTypes) {
    SCOPED_TRACE(TypeName(src) + " -> " + TypeName(dst));
    std::set<std::uint64_t> encodings;
    for (f128 c : BoundaryValues(dst)) AddNearbyEncodings(src, c, 3, encodings);
    if (!IsIntForm(st.form)) {  // zeros, infinities and a few NaNs (quiet, signalling, signed)
      std::uint64_t sign = 1ull << (st.bits - 1), inf = Mask(st.e) << st.m;
      for (std::uint64_t b : {std::uint64_t{0}, sign, inf, sign | inf, inf | 1,
                              inf | (std::uint64_t{1} << (st.m - 1)), sign | inf | 1,
                              Mask(st.bits)}) {
        encodings.insert(b);
      }
    }
    Mismatches mm;
    for (std::uint64_t b : encodings) calls += CheckAllConfigs(src, b, dst, mm);
    EXPECT_EQ(mm.total(), 0) << mm.Summary();
  }
  RecordProperty("cases", std::to_string(calls));
}

INSTANTIATE_TEST_SUITE_P(All, WideSourceBoundaries, ::testing::ValuesIn(WideTypes()), SourceName);

// Random encodings, drawn so that a good share lands where narrow targets are interesting: the
// exponent near the small types' ranges and significands with few bits set (exact ties).
std::uint64_t RandomEncoding(DataType src, std::mt19937_64& rng) {
  const RefType& t = Ref(src);
  std::uint64_t r = rng();
  int kind = static_cast<int>(rng() % 4);
  if (IsIntForm(t.form)) {
    if (kind == 0) return r & Mask(t.bits);
    int width = 1 + static_cast<int>(rng() % t.bits);
    std::uint64_t v = r & Mask(width);
    if (kind == 2) v &= rng() & rng();  // sparse bits
    if (kind == 3) v |= 1ull << (width - 1);
    if (t.form == Form::kInt && (rng() & 1)) v = ~v + 1;
    return v & Mask(t.bits);
  }
  if (kind == 0) return r & Mask(t.bits);
  int exp = static_cast<int>(rng() % 300) - 160;  // 2^-160 .. 2^139
  if (kind == 3) exp = static_cast<int>(rng() % (2 * t.bias + 1)) - t.bias;
  std::uint64_t mant = r & Mask(t.m);
  if (kind == 2) {
    mant = 0;
    for (int i = static_cast<int>(rng() % 4); i > 0; --i) mant |= 1ull << (rng() % t.m);
  }
  std::uint64_t biased = static_cast<std::uint64_t>(std::clamp(exp + t.bias, 0, t.bias * 2));
  std::uint64_t sign = (rng() & 1) ? 1ull << (t.bits - 1) : 0;
  return sign | biased << t.m | mant;
}

constexpr int kRandomShards = 4;
constexpr int kRandomPerShard = 12500;  // x 4 shards x 6 sources = 300000 encodings, x 26 targets

class WideSourceRandom : public ::testing::TestWithParam<std::tuple<DataType, int>> {};

TEST_P(WideSourceRandom, SeededEncodingsAllTargets) {
  auto [src, shard] = GetParam();
  std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(src) * 131u + shard);
  Mismatches mm;
  std::int64_t calls = 0;
  for (int i = 0; i < kRandomPerShard; ++i) {
    std::uint64_t b = RandomEncoding(src, rng);
    for (DataType dst : zcast::internal::kAllDataTypes) calls += CheckAllConfigs(src, b, dst, mm);
  }
  RecordProperty("cases", std::to_string(calls));
  EXPECT_EQ(mm.total(), 0) << mm.Summary() << " of " << calls << " cases";
}

INSTANTIATE_TEST_SUITE_P(
    All, WideSourceRandom,
    ::testing::Combine(::testing::ValuesIn(WideTypes()), ::testing::Range(0, kRandomShards)),
    [](const ::testing::TestParamInfo<std::tuple<DataType, int>>& info) {
      return TypeName(std::get<0>(info.param)) + "_shard" + std::to_string(std::get<1>(info.param));
    });

}  // namespace
}  // namespace zcast_test
