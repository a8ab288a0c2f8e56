// Running a chain (chain_run.cc): the whole buffer, block by block, gives what running each
// element alone through the codecs one after the other gives: values, status, failing index and
// message, with R33 (the first failing element across steps) and R32 (Encode refuses an element
// whose stored value the chain cannot decode). The reference here is written from the rules,
// independently of chain_run.cc, and always checks the decode, so it also tests the bind-time
// decision (chain_decode_check.cc) that skips the check for chains whose decode cannot fail.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/zcast.hpp"

namespace zcast {
namespace {

// "element 0: reason" of a one-element call, as element i of a whole buffer.
std::string AsElement(const Status& one, std::size_t i, const std::string& suffix = "") {
  std::string reason = one.message().substr(std::string("element 0: ").size());
  return "element " + std::to_string(i) + ": " + reason + suffix;
}

const char* StepName(const Chain::Step& s) {
  return std::holds_alternative<ScaleOffsetCodec>(s) ? "scale_offset" : "cast_value";
}

// One element (8 bytes of storage at most) through the steps in running order; nullopt on
// success (the result in `out`), else the failing step's position and its one-element Status.
std::optional<std::pair<std::size_t, Status>> RunOne(const Chain& chain, bool encode,
                                                      const unsigned char* in, unsigned char* out) {
  const auto& steps = chain.steps();
  unsigned char cur[8], next[8];
  std::size_t in_size = DataTypeSize(encode ? chain.decoded_type() : chain.encoded_type());
  std::memcpy(cur, in, in_size);
  std::size_t size = in_size;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Chain::Step& s = steps[encode ? k : steps.size() - 1 - k];
    Status st = std::visit(
        [&](const auto& c) { return encode ? c.Encode(cur, 1, next) : c.Decode(cur, 1, next); }, s);
    if (!st.ok()) return std::pair{k, st};
    size = std::visit([&](const auto& c) {
      return DataTypeSize(encode ? c.encoded_type() : c.decoded_type());
    }, s);
    std::memcpy(cur, next, size);
  }
  std::memcpy(out, cur, size);
  return std::nullopt;
}

// The definition: each element alone, in order; the first that fails at any step (R33), or whose
// stored value does not decode (encode only, R32), is the error.
Status OneAtATime(const Chain& chain, bool encode, const unsigned char* in, std::size_t n,
                  unsigned char* out) {
  const auto& steps = chain.steps();
  const std::size_t m = steps.size();
  DataType in_type = encode ? chain.decoded_type() : chain.encoded_type();
  DataType out_type = encode ? chain.encoded_type() : chain.decoded_type();
  std::size_t in_size = DataTypeSize(in_type), out_size = DataTypeSize(out_type);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* x = in + i * in_size;
    unsigned char* y = out + i * out_size;
    if (auto failed = RunOne(chain, encode, x, y)) {
      auto [k, st] = *failed;
      if (k == 0) return Status(st.code(), AsElement(st, i), i);
      std::string after;
      for (std::size_t j = 0; j < k; ++j) {
        after += std::string(j ? ", " : "") + StepName(steps[encode ? j : m - 1 - j]) +
                 (encode ? " encode" : " decode");
      }
      std::string input = std::string(DataTypeName(in_type)) + " value " +
                          internal::DescribeBits(in_type, internal::LoadBits(x, in_size));
      return Status(st.code(),
                    AsElement(st, i, " (intermediate value after " + after +
                                         "; input element: " + input + ")"),
                    i);
    }
    unsigned char back[8];
    if (encode && m > 1) {  // R32 checks chains of two or more codecs
      if (auto failed = RunOne(chain, false, y, back)) {
        std::string reason = failed->second.message().substr(std::string("element 0: ").size());
        return Status(
            StatusCode::kCastFailed,
            "element " + std::to_string(i) + ": " + std::string(DataTypeName(in_type)) +
                " value " + internal::DescribeBits(in_type, internal::LoadBits(x, in_size)) +
                " encodes to " + std::string(DataTypeName(out_type)) + " value " +
                internal::DescribeBits(out_type, internal::LoadBits(y, out_size)) +
                ", which the chain cannot decode back, so it is not written (R32): " + reason,
            i);
      }
    }
  }
  return Status();
}


// Encodings of `type` for values spread over [lo, hi] (through cast_value's engine, clamped), plus
// the given extra encodings.
std::vector<std::uint64_t> Values(DataType type, double lo, double hi, std::size_t n,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<std::uint64_t> v;
  for (std::size_t i = 0; i < n; ++i) {
    double x = dist(rng);
    auto r = internal::CastBits(DataType::float64, std::bit_cast<std::uint64_t>(x), type,
                                Rounding::kNearestEven, OutOfRange::kClamp);
    v.push_back(r.bits);
  }
  return v;
}

std::vector<unsigned char> Pack(DataType type, const std::vector<std::uint64_t>& bits) {
  std::size_t size = DataTypeSize(type);
  std::vector<unsigned char> buf(bits.size() * size + 1);
  for (std::size_t i = 0; i < bits.size(); ++i) internal::StoreBits(&buf[i * size], size, bits[i]);
  return buf;
}

struct FusedCase {
  const char* name;
  DataType array_type;
  std::string codecs;  // JSON array
  double lo, hi;       // a range of array values that mostly encodes without error
};

class WholeBufferMatchesOneAtATime : public ::testing::TestWithParam<FusedCase> {};

void ExpectSame(const Chain& chain, bool encode, const std::vector<unsigned char>& in,
                std::size_t n, const std::string& what) {
  std::size_t out_size = DataTypeSize(encode ? chain.encoded_type() : chain.decoded_type());
  std::vector<unsigned char> whole(n * out_size + 1, 0xAB), single(n * out_size + 1, 0xCD);
  Status a = encode ? chain.Encode(in.data(), n, whole.data()) : chain.Decode(in.data(), n, whole.data());
  Status b = OneAtATime(chain, encode, in.data(), n, single.data());
  ASSERT_EQ(a.code(), b.code()) << what << ": " << a.message() << " | " << b.message();
  ASSERT_EQ(a.message(), b.message()) << what;
  ASSERT_EQ(a.failing_element(), b.failing_element()) << what << ": " << a.message();
  if (a.ok()) {
    ASSERT_EQ(0, std::memcmp(whole.data(), single.data(), n * out_size)) << what;
  }
}

TEST_P(WholeBufferMatchesOneAtATime, RandomAndBoundaryData) {
  const FusedCase& c = GetParam();
  auto chain = Chain::FromCodecs(c.array_type, std::nullopt, c.codecs);
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  ASSERT_GE(chain->steps().size(), 2u);
  const DataType in_type = c.array_type, enc_type = chain->encoded_type();
  const internal::TypeInfo& ti = internal::Info(in_type);
  const internal::TypeInfo& te = internal::Info(enc_type);

  // Boundary encodings of the array type: zeros, extremes, specials, powers of two.
  std::vector<std::uint64_t> boundary = {0, ti.value_mask(), ti.sign_bit(), ti.sign_bit() - 1, 1};
  if (!ti.is_int()) {
    boundary.push_back(ti.canonical_nan());
    if (ti.has_inf()) {
      boundary.push_back(ti.positive_inf());
      boundary.push_back(ti.positive_inf() | ti.sign_bit());
    }
  }
  for (int e = 0; e < 8 * static_cast<int>(ti.size); ++e) boundary.push_back((1ull << e) & ti.value_mask());

  std::mt19937_64 rng(2024);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1023}, std::size_t{1024},
                        std::size_t{1025}, std::size_t{5000}}) {
    // 1. Clean values: the whole buffer succeeds through the blocks.
    auto clean = Values(in_type, c.lo, c.hi, n, rng());
    {
      std::vector<unsigned char> o(n * te.size + 1);
      EXPECT_TRUE(chain->Encode(Pack(in_type, clean).data(), n, o.data()).ok()) << "clean data";
    }
    ExpectSame(*chain, true, Pack(in_type, clean), n, std::string(c.name) + " clean n=" + std::to_string(n));
    // 2. Raw random bit patterns with boundary values mixed in (errors likely).
    std::vector<std::uint64_t> raw(n);
    for (std::size_t i = 0; i < n; ++i)
      raw[i] = (i % 7 == 0 ? boundary[rng() % boundary.size()] : rng()) & ti.value_mask();
    ExpectSame(*chain, true, Pack(in_type, raw), n, std::string(c.name) + " raw n=" + std::to_string(n));
    // 3. Decoding: raw encodings, and the encodings of the clean values.
    std::vector<std::uint64_t> enc_raw(n);
    for (auto& b : enc_raw) b = rng() & te.value_mask();
    ExpectSame(*chain, false, Pack(enc_type, enc_raw), n, std::string(c.name) + " decode raw");
    std::vector<unsigned char> encoded(n * te.size + 1);
    auto clean_in = Pack(in_type, clean);
    if (chain->Encode(clean_in.data(), n, encoded.data()).ok())
      ExpectSame(*chain, false, encoded, n, std::string(c.name) + " decode clean");
  }

  // 4. Error precedence (R33): a value only the later codec rejects and a value the first codec
  // rejects, each once early and once late in the buffer: the earlier element is the error.
  std::vector<std::uint64_t> first_bad, second_bad;
  const auto& first = chain->steps()[0];
  for (int i = 0; i < 200000 && (first_bad.empty() || second_bad.empty()); ++i) {
    std::uint64_t x = (i < static_cast<int>(boundary.size()) ? boundary[i] : rng()) & ti.value_mask();
    std::vector<unsigned char> one = Pack(in_type, {x});
    std::vector<unsigned char> tmp(16), out(16);
    Status s1 = std::visit([&](const auto& codec) { return codec.Encode(one.data(), 1, tmp.data()); }, first);
    if (!s1.ok()) {
      first_bad.push_back(x);
    } else if (!chain->Encode(one.data(), 1, out.data()).ok()) {
      second_bad.push_back(x);
    }
  }
  auto clean = Values(in_type, c.lo, c.hi, 5000, 7);
  for (bool first_early : {true, false}) {
    auto data = clean;
    if (!second_bad.empty()) data[first_early ? 4000 : 100] = second_bad[0];
    if (!first_bad.empty()) data[first_early ? 100 : 4000] = first_bad[0];
    ExpectSame(*chain, true, Pack(in_type, data), data.size(),
               std::string(c.name) + " precedence " + (first_early ? "first early" : "first late"));
  }
}

const FusedCase kFusedCases[] = {
    {"sentinel2_f64_u16", DataType::float64,
     R"([{"name":"scale_offset","configuration":{"offset":-0.1,"scale":10000}},
         {"name":"cast_value","configuration":{"data_type":"uint16",
          "scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}}])",
     -0.09, 6.4},
    {"f32_u8_clamp", DataType::float32,
     R"([{"name":"scale_offset","configuration":{"offset":5,"scale":0.1}},
         {"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp",
          "scalar_map":{"encode":[["NaN",0]]}}}])",
     -100, 3000},
    {"f32_i16_wrap_towards_zero", DataType::float32,
     R"([{"name":"scale_offset","configuration":{"scale":100}},
         {"name":"cast_value","configuration":{"data_type":"int16","rounding":"towards-zero",
          "out_of_range":"wrap"}}])",
     -1000, 1000},
    {"f16_e4m3_clamp", DataType::float16,
     R"([{"name":"scale_offset","configuration":{"offset":1,"scale":4}},
         {"name":"cast_value","configuration":{"data_type":"float8_e4m3","out_of_range":"clamp"}}])",
     -50, 50},
    {"i32_i8_wrap", DataType::int32,
     R"([{"name":"scale_offset","configuration":{"offset":1000}},
         {"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"wrap"}}])",
     -1e6, 1e6},
    // R32: wrapping modulo 256 loses the multiple of 3 that decoding divides by, so only values
    // whose (x - 1000) * 3 fits int8 are written; the others are refused.
    {"i32_i8_wrap_scale3_refused", DataType::int32,
     R"([{"name":"scale_offset","configuration":{"offset":1000,"scale":3}},
         {"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"wrap"}}])",
     958, 1042},
    {"f64_f32_strict", DataType::float64,
     R"([{"name":"scale_offset","configuration":{"scale":1e-3}},
         {"name":"cast_value","configuration":{"data_type":"float32"}}])",
     -1e30, 1e30},
    {"bf16_u8_strict", DataType::bfloat16,
     R"([{"name":"scale_offset","configuration":{"offset":-1}},
         {"name":"cast_value","configuration":{"data_type":"uint8"}}])",
     -1, 250},
    {"u16_e5m2_away", DataType::uint16,
     R"([{"name":"scale_offset","configuration":{"offset":100}},
         {"name":"cast_value","configuration":{"data_type":"float8_e5m2",
          "rounding":"nearest-away","out_of_range":"clamp"}}])",
     100, 50000},  // above, clamp gives Infinity (R1), which uint16 cannot decode: refused (R32)
    {"i64_u32_clamp", DataType::int64,
     R"([{"name":"scale_offset","configuration":{"scale":-1}},
         {"name":"cast_value","configuration":{"data_type":"uint32","out_of_range":"clamp"}}])",
     -1e12, 1e12},
    {"legacy_f8_u1", DataType::float64,
     R"([{"name":"numcodecs.fixedscaleoffset",
          "configuration":{"offset":1000,"scale":10,"dtype":"<f8","astype":"|u1"}}])",
     990, 1030},
    {"three_steps_f64_f32_bf16", DataType::float64,
     R"([{"name":"scale_offset","configuration":{"offset":3,"scale":0.5}},
         {"name":"cast_value","configuration":{"data_type":"float32"}},
         {"name":"cast_value","configuration":{"data_type":"bfloat16","rounding":"towards-zero"}}])",
     -1e9, 1e9},
    {"cast_then_scale_f32_f16", DataType::float32,
     R"([{"name":"cast_value","configuration":{"data_type":"float16","out_of_range":"clamp"}},
         {"name":"scale_offset","configuration":{"offset":-2,"scale":"0xc000"}}])",
     -16000, 16000},
};

INSTANTIATE_TEST_SUITE_P(Pairs, WholeBufferMatchesOneAtATime, ::testing::ValuesIn(kFusedCases),
                         [](const auto& info) { return std::string(info.param.name); });


}  // namespace
}  // namespace zcast

namespace zcast {
namespace {

// R33, the issue's case: element 0 fails the cast (1e30 is beyond uint8) although element 1
// fails earlier in the chain (1e10 * 1e30 overflows in scale_offset).
TEST(ChainRun, FirstFailingElementAcrossSteps) {
  const char* codecs = R"([{"name":"scale_offset","configuration":{"scale":1e30}},
                           {"name":"cast_value","configuration":{"data_type":"uint8"}}])";
  for (DataType t : {DataType::float32, DataType::float64}) {
    auto chain = Chain::FromCodecs(t, std::nullopt, codecs);
    ASSERT_TRUE(chain.ok()) << chain.status().message();
    unsigned char in[16], out[2];
    if (t == DataType::float32) {
      float v[2] = {1.0f, 1e10f};
      std::memcpy(in, v, sizeof v);
    } else {
      double v[2] = {1.0, 1e10};
      std::memcpy(in, v, sizeof v);
    }
    Status st = chain->Encode(in, 2, out);
    ASSERT_EQ(st.code(), StatusCode::kCastFailed);
    EXPECT_EQ(st.failing_element(), std::optional<std::size_t>(0));
    EXPECT_EQ(st.message().rfind("element 0: " + std::string(DataTypeName(t)) + " value 1e+30 is "
                                 "out of the range of uint8", 0), 0u) << st.message();
    EXPECT_NE(st.message().find("input element: " + std::string(DataTypeName(t)) + " value 1.0)"),
              std::string::npos) << st.message();
  }
}

// R33 across blocks: the later step's failure in the second block wins over the first step's in
// the third; and the index is structured (failing_element), equal to the one in the text.
TEST(ChainRun, FirstFailingElementAcrossBlocks) {
  auto chain = Chain::FromCodecs(DataType::float64, std::nullopt, R"([
      {"name":"scale_offset","configuration":{"scale":2}},
      {"name":"cast_value","configuration":{"data_type":"int8"}}])");
  ASSERT_TRUE(chain.ok());
  std::vector<double> in(5000, 1.0);
  in[1500] = 100.0;   // 200: beyond int8 (cast_value, step 1)
  in[3000] = 1e308;   // overflows float64 in scale_offset (step 0)
  std::vector<std::int8_t> out(in.size());
  Status st = chain->Encode(in.data(), in.size(), out.data());
  EXPECT_EQ(st.failing_element(), std::optional<std::size_t>(1500));
  EXPECT_EQ(st.message().rfind("element 1500: float64 value 200.0 is out of the range of int8", 0),
            0u) << st.message();
  in[1500] = 1.0;
  st = chain->Encode(in.data(), in.size(), out.data());
  EXPECT_EQ(st.failing_element(), std::optional<std::size_t>(3000));
  EXPECT_EQ(st.message().rfind("element 3000: scale_offset encode of float64 value 1e+308", 0), 0u)
      << st.message();
}

// R32, the issue's case: clamping 100000 to 32767 stores a value that 32767 / 2 cannot decode.
TEST(ChainRun, EncodeRefusesWhatCannotBeDecoded) {
  auto chain = Chain::FromCodecs(DataType::int32, std::nullopt, R"([
      {"name":"scale_offset","configuration":{"scale":2}},
      {"name":"cast_value","configuration":{"data_type":"int16","out_of_range":"clamp"}}])");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_TRUE(chain->encode_verifies_decode());
  std::int32_t in[4] = {1, 2, 100000, 3};
  std::int16_t out[4];
  Status st = chain->Encode(in, 4, out);
  ASSERT_EQ(st.code(), StatusCode::kCastFailed);
  EXPECT_EQ(st.failing_element(), std::optional<std::size_t>(2));
  EXPECT_EQ(st.message(),
            "element 2: int32 value 100000 encodes to int16 value 32767, which the chain cannot "
            "decode back, so it is not written (R32): scale_offset decode of int32 value 32767: "
            "x / scale = 32767 / 2 is not an integer (inexact integer division)");
  // Without the element the data round-trips.
  ASSERT_TRUE(chain->Encode(in, 2, out).ok());
  std::int32_t back[2];
  ASSERT_TRUE(chain->Decode(out, 2, back).ok());
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[1], 2);
}

// R32 is decided at bind time: chains whose decode cannot fail skip the check.
TEST(ChainRun, OnlyChainsWhoseDecodeCanFailVerify) {
  struct Case {
    DataType type;
    const char* codecs;
    bool verifies;
  } cases[] = {
      // A chain of one codec is that codec and never verifies (R32 guards the interplay of
      // steps); the cases below put an identity scale_offset (R21) first to test the decision.
      {DataType::int8, R"([{"name":"cast_value","configuration":{"data_type":"int16",
          "scalar_map":{"encode":[[1,1000]]}}}])", false},
      // Sentinel-2: every uint16 decodes (exhaustive).
      {DataType::float64, R"([{"name":"scale_offset","configuration":{"offset":-0.1,"scale":10000}},
          {"name":"cast_value","configuration":{"data_type":"uint16",
           "scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}}])", false},
      {DataType::float32, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"uint8",
          "out_of_range":"clamp"}}])", false},
      // int16 -> int32 + 5 never overflows (exhaustive over int16).
      {DataType::int32, R"([{"name":"scale_offset","configuration":{"offset":5}},
          {"name":"cast_value","configuration":{"data_type":"int16","out_of_range":"clamp"}}])",
       false},
      // An encode map can store 1000, which int16 -> int8 cannot decode (exhaustive).
      {DataType::int8, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"int16",
          "scalar_map":{"encode":[[1,1000]]}}}])", true},
      // Wide encoded types, step by step: float64 -> float32 fails beyond float32's range,
      // unless clamped (to Infinity, R1)...
      {DataType::float32, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"float64"}}])",
       true},
      {DataType::float32, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"float64",
          "out_of_range":"clamp"}}])", false},
      {DataType::float64, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"int64"}}])",
       false},
      // ... int64 -> int32 does not (no out_of_range) ...
      {DataType::int32, R"([{"name":"scale_offset"}, {"name":"cast_value","configuration":{"data_type":"int64"}}])", true},
      // ... nor float64 x / 0.5 near the maximum.
      {DataType::float64, R"([{"name":"scale_offset"}, {"name":"scale_offset","configuration":{"scale":0.5}}])", true},
      {DataType::float64, R"([{"name":"scale_offset"}, {"name":"scale_offset","configuration":{"scale":4}}])", false},
      {DataType::int64, R"([{"name":"scale_offset"}, {"name":"scale_offset","configuration":{"scale":3}}])", true},
  };
  for (const Case& c : cases) {
    auto chain = Chain::FromCodecs(c.type, std::nullopt, c.codecs);
    ASSERT_TRUE(chain.ok()) << c.codecs << ": " << chain.status().message();
    EXPECT_EQ(chain->encode_verifies_decode(), c.verifies) << c.codecs;
  }
}

}  // namespace
}  // namespace zcast
