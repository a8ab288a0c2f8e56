// scale_offset: metadata (R13, R21, R22), binding and fill value (R20), the arithmetic by hand
// (the zarr-extensions example, NaN and infinity, signed zeros, rounding at each step), errors
// with messages (R23, R24), and integers at their boundaries. Every type against an independent
// oracle, and every kernel against the reference path: scale_offset_oracle_test.cc.
#include "zcast/scale_offset.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/scale_offset_test_util.h"
#include "zcast/zcast.hpp"

namespace zcast {
namespace {

// The engine's internals and the codec helper: scale_offset_test_util.h.
using namespace scale_offset_test;  // NOLINT(build/namespaces)

// ---- metadata ----------------------------------------------------------------------------------

TEST(ScaleOffsetSpec, RoundTripKeepsWhatWasRead) {
  const char* cases[][2] = {
      {R"({"name":"scale_offset","configuration":{"offset":5,"scale":0.1}})",
       R"({"name":"scale_offset","configuration":{"offset":5,"scale":0.1}})"},
      {R"({"configuration":{"scale":0.1,"offset":-5e3},"name":"scale_offset"})",
       R"({"name":"scale_offset","configuration":{"offset":-5e3,"scale":0.1}})"},
      {R"({"name":"scale_offset","configuration":{"offset":"NaN"}})",  // rejected by Bind, not here
       R"({"name":"scale_offset","configuration":{"offset":"NaN"}})"},
      {R"({"name":"scale_offset","configuration":{"scale":"0x3c00"}})",
       R"({"name":"scale_offset","configuration":{"scale":"0x3c00"}})"},
      {R"({"name":"scale_offset","configuration":{}})",
       R"({"name":"scale_offset","configuration":{}})"},
      {R"({"name":"scale_offset"})", R"({"name":"scale_offset"})"},  // R21
  };
  for (const auto& c : cases) {
    auto spec = ScaleOffsetSpec::FromJson(c[0]);
    ASSERT_TRUE(spec.ok()) << c[0] << ": " << spec.status().message();
    EXPECT_EQ(spec->ToJson(), c[1]);
    auto again = ScaleOffsetSpec::FromJson(spec->ToJson());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->ToJson(), spec->ToJson());
  }
}

TEST(ScaleOffsetSpec, RejectsInvalidMetadata) {
  const struct {
    const char* json;
    const char* substring;
  } cases[] = {
      {R"([1])", "must be a JSON object"},
      {R"({"configuration":{}})", "\"name\""},
      {R"({"name":"scale-offset","configuration":{}})", "\"scale-offset\""},
      {R"({"name":"scale_offset","configuration":{},"must_understand":false})",
       "\"must_understand\""},
      {R"({"name":"scale_offset","configuration":{"offset":1,"astype":"uint8"}})", "\"astype\""},
      {R"({"name":"scale_offset","configuration":{"Scale":2}})", "\"Scale\""},
      {R"({"name":"scale_offset","configuration":[]})", "\"configuration\" must be an object"},
      {R"({"name":"scale_offset","configuration":{"offset":null}})", "\"offset\""},
      {R"({"name":"scale_offset","configuration":{"scale":[1]}})", "\"scale\""},
      {R"({"name":"scale_offset","configuration":{"scale":true}})", "true"},
      {R"({"name":"scale_offset","configuration":{"scale":{}}})", "\"scale\""},
      {R"({"name":"scale_offset","configuration":{"scale":1,"scale":2}})", "duplicate key"},
      {R"({"name":"scale_offset","configuration":{"scale":1)", "invalid JSON"},
  };
  for (const auto& c : cases) {
    auto spec = ScaleOffsetSpec::FromJson(c.json);
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidMetadata);
    EXPECT_NE(spec.status().message().find(c.substring), std::string::npos)
        << c.json << " -> " << spec.status().message();
    EXPECT_EQ(spec.status().message().rfind("invalid scale_offset metadata: ", 0), 0u);
  }
}

// offset and scale are scalars of the array's type (semantics.md JSON scalars), finite, and scale
// is not zero (R22).
TEST(ScaleOffsetCodec, RejectsInvalidParameters) {
  const struct {
    const char* config;
    DataType type;
    const char* substring;
  } cases[] = {
      {R"({"offset":1.5})", DataType::int32, "\"offset\": 1.5"},
      {R"({"scale":0.5})", DataType::int32, "\"scale\": 0.5"},
      {R"({"offset":"NaN"})", DataType::int16, "\"offset\": \"NaN\""},
      {R"({"offset":300})", DataType::uint8, "300"},
      {R"({"offset":-1})", DataType::uint16, "-1"},
      {R"({"offset":2})", DataType::int2, "2"},
      {R"({"scale":0})", DataType::int8, "zero"},
      {R"({"scale":0})", DataType::float32, "zero"},
      {R"({"scale":-0.0})", DataType::float64, "zero"},
      {R"({"scale":1e-50})", DataType::float16, "is zero as a float16 value"},  // rounds to 0
      {R"({"scale":"0x0000"})", DataType::bfloat16, "zero"},
      {R"({"offset":"NaN"})", DataType::float32, "must be finite"},
      {R"({"scale":"Infinity"})", DataType::float64, "must be finite"},
      {R"({"offset":1e6})", DataType::float64, ""},  // valid: the control case
      {R"({"offset":1e300})", DataType::float32, "must be finite"},  // overflows to Inf
      {R"({"offset":1000})", DataType::float8_e4m3fnuz, "1000"},  // no Inf: invalid scalar
      {R"({"offset":0})", DataType::float8_e8m0fnu, "no zero"},
      {R"({"scale":"NaN"})", DataType::float8_e8m0fnu, "must be finite"},
      {R"({"offset":"x"})", DataType::float32, "\"offset\""},
  };
  for (const auto& c : cases) {
    auto codec = Make(c.config, c.type);
    if (std::string(c.substring).empty()) {
      EXPECT_TRUE(codec.ok()) << c.config << ": " << codec.status().message();
      continue;
    }
    ASSERT_FALSE(codec.ok()) << c.config << " " << DataTypeName(c.type);
    EXPECT_EQ(codec.status().code(), StatusCode::kInvalidMetadata);
    EXPECT_NE(codec.status().message().find(c.substring), std::string::npos)
        << c.config << " -> " << codec.status().message();
  }
}

// ---- fill value (R20) ----------------------------------------------------------------------------

TEST(ScaleOffsetCodec, FillValueIsTransformed) {
  // zarr-python's own case: float64, offset 5, scale 2, fill 10 -> (10 - 5) * 2 = 10.
  auto codec = Make(R"({"offset":5,"scale":2})", DataType::float64, "10.0");
  ASSERT_TRUE(codec.ok()) << codec.status().message();
  EXPECT_EQ(*codec->encoded_fill_value_json(), "10.0");
  EXPECT_EQ(codec->encoded_type(), DataType::float64);

  auto nan = Make(R"({"offset":-0.1,"scale":10000})", DataType::float64, "\"NaN\"");
  ASSERT_TRUE(nan.ok());
  EXPECT_EQ(*nan->encoded_fill_value_json(), "\"NaN\"");  // R23: NaN passes through

  auto ints = Make(R"({"offset":1,"scale":-3})", DataType::int16, "-7");
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(*ints->encoded_fill_value_json(), "24");

  // R20: a lossy round trip is accepted (0.1 * 3 / 3 is not 0.1 in float64 arithmetic).
  auto lossy = Make(R"({"scale":3})", DataType::float64, "0.1");
  ASSERT_TRUE(lossy.ok()) << lossy.status().message();
  EXPECT_EQ(*lossy->encoded_fill_value_json(), "0.30000000000000004");

  auto overflow = Make(R"({"offset":-100})", DataType::int8, "100");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(),
            "invalid scale_offset metadata: fill_value cannot be encoded: int8 value 100: "
            "x - offset = 100 - (-100) = 200 is out of the range of int8 (R20)");

  auto inf = Make(R"({"scale":4})", DataType::float16, "60000");
  ASSERT_FALSE(inf.ok());
  EXPECT_NE(inf.status().message().find("overflows float16"), std::string::npos)
      << inf.status().message();

  auto bad = Make(R"({"scale":4})", DataType::uint8, "1.5");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fill_value"), std::string::npos);

  auto none = Make(R"({"scale":4})", DataType::uint8);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->encoded_fill_value_json().has_value());
}

// ---- the arithmetic, by hand -------------------------------------------------------------------

template <typename T>
std::vector<T> EncodeAll(const ScaleOffsetCodec& c, const std::vector<T>& in, Status* st) {
  std::vector<T> out(in.size());
  *st = c.Encode(in.data(), in.size(), out.data());
  return out;
}
template <typename T>
std::vector<T> DecodeAll(const ScaleOffsetCodec& c, const std::vector<T>& in, Status* st) {
  std::vector<T> out(in.size());
  *st = c.Decode(in.data(), in.size(), out.data());
  return out;
}

// The zarr-extensions README example: float32 array, offset 5, scale 0.1; float32 arithmetic
// throughout (0.1 is the float32 nearest 0.1; each operation rounds to float32).
TEST(ScaleOffsetCodec, ReadmeExampleFloat32) {
  auto codec = Make(R"({"offset":5,"scale":0.1})", DataType::float32);
  ASSERT_TRUE(codec.ok());
  std::vector<float> in = {5.0f, 15.0f, 105.0f, -5.0f, 5.5f, 1e30f, -0.0f};
  Status st;
  auto enc = EncodeAll(*codec, in, &st);
  ASSERT_TRUE(st.ok()) << st.message();
  for (std::size_t i = 0; i < in.size(); ++i) {
    volatile float d = in[i] - 5.0f;  // volatile: one float32 rounding per operation
    volatile float want = d * 0.1f;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(enc[i]), std::bit_cast<std::uint32_t>(float(want)))
        << in[i];
  }
  EXPECT_EQ(enc[1], 1.0f);
  EXPECT_EQ(enc[2], 10.0f);
  EXPECT_EQ(enc[3], -1.0f);
  auto dec = DecodeAll(*codec, enc, &st);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(dec[0], 5.0f);
  EXPECT_EQ(dec[1], 15.0f);
  EXPECT_EQ(dec[2], 105.0f);
  EXPECT_EQ(dec[3], -5.0f);
  // float64 arithmetic would differ: the float32 result is not the float64 one rounded.
  auto f64 = Make(R"({"offset":5,"scale":0.1})", DataType::float64);
  std::vector<double> in64 = {15.0};
  auto enc64 = EncodeAll(*f64, in64, &st);
  EXPECT_EQ(enc64[0], 1.0);  // 10 * 0.1 = 1.0000000000000000555 -> 1.0
}

TEST(ScaleOffsetCodec, NaNPassesThroughInfPropagates) {
  auto codec = Make(R"({"offset":1,"scale":-2})", DataType::float32);
  ASSERT_TRUE(codec.ok());
  const std::uint32_t snan = 0x7f800001u, neg_qnan_payload = 0xffc01234u;
  std::vector<float> in = {std::bit_cast<float>(snan), std::bit_cast<float>(neg_qnan_payload),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity()};
  Status st;
  auto enc = EncodeAll(*codec, in, &st);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(std::bit_cast<std::uint32_t>(enc[0]), snan);  // R23: not even quieted
  EXPECT_EQ(std::bit_cast<std::uint32_t>(enc[1]), neg_qnan_payload);
  EXPECT_EQ(enc[2], -std::numeric_limits<float>::infinity());  // scale < 0 flips the sign
  EXPECT_EQ(enc[3], std::numeric_limits<float>::infinity());
  auto dec = DecodeAll(*codec, enc, &st);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(std::bit_cast<std::uint32_t>(dec[0]), snan);
  EXPECT_EQ(dec[2], std::numeric_limits<float>::infinity());

  // fnuz and e8m0 NaNs pass through too.
  ScaleOffsetParams fnuz{DataType::float8_e4m3fnuz, 0x38, 0x40};  // offset 0.5, scale 1
  EXPECT_EQ(ScaleOffsetScalar(fnuz, true, 0x80).bits, 0x80u);
  ScaleOffsetParams e8m0{DataType::float8_e8m0fnu, std::nullopt, 0x80};  // scale 2
  EXPECT_EQ(ScaleOffsetScalar(e8m0, true, 0xFF).bits, 0xFFu);
  EXPECT_EQ(ScaleOffsetScalar(e8m0, true, 127).bits, 128u);  // 1 * 2 = 2
}

// IEEE 754 round-to-nearest zero signs: x - x = +0; -0 - 0 = -0; an absent offset keeps -0
// (R21); a product or quotient of zero has the xor sign; tiny results underflow to a signed zero
// without error (R24); fnuz types have no -0.
TEST(ScaleOffsetCodec, SignedZeros) {
  auto bits = [](DataType t, std::optional<std::uint64_t> o, std::optional<std::uint64_t> s,
                 bool enc, std::uint64_t x) {
    ArithOutcome r = ScaleOffsetScalar({t, o, s}, enc, x);
    EXPECT_EQ(r.error, ArithError::kNone);
    return r.bits;
  };
  const DataType h = DataType::float16;
  EXPECT_EQ(bits(h, 0x3c00, std::nullopt, true, 0x3c00), 0x0000u);  // 1 - 1 = +0
  EXPECT_EQ(bits(h, 0x0000, std::nullopt, true, 0x8000), 0x8000u);  // -0 - 0 = -0
  EXPECT_EQ(bits(h, 0x8000, std::nullopt, true, 0x8000), 0x0000u);  // -0 - (-0) = +0
  EXPECT_EQ(bits(h, std::nullopt, std::nullopt, true, 0x8000), 0x8000u);  // identity
  EXPECT_EQ(bits(h, std::nullopt, std::nullopt, false, 0x8000), 0x8000u);
  EXPECT_EQ(bits(h, 0x0000, std::nullopt, false, 0x8000), 0x0000u);  // -0 + 0 = +0
  EXPECT_EQ(bits(h, std::nullopt, 0xbc00, true, 0x0000), 0x8000u);  // 0 * -1 = -0
  EXPECT_EQ(bits(h, std::nullopt, 0xbc00, false, 0x0000), 0x8000u);  // 0 / -1 = -0
  // 2^-24 * 0.5 = 2^-25: a tie between 0 and 2^-24, to even: +0; negative: -0.
  EXPECT_EQ(bits(h, std::nullopt, 0x3800, true, 0x0001), 0x0000u);
  EXPECT_EQ(bits(h, std::nullopt, 0x3800, true, 0x8001), 0x8000u);
  EXPECT_EQ(bits(h, std::nullopt, 0x3800, true, 0x0003), 0x0002u);  // 1.5 quanta -> 2 (even)
  // fnuz: -1 * 0 is +0 (0x00, never 0x80, which is NaN).
  EXPECT_EQ(bits(DataType::float8_e4m3fnuz, std::nullopt, 0xb8, true, 0x00), 0x00u);
  EXPECT_EQ(bits(DataType::float8_e5m2fnuz, 0x3c, std::nullopt, true, 0x3c), 0x00u);
  // float4_e2m1fn has -0 (0x08).
  EXPECT_EQ(bits(DataType::float4_e2m1fn, std::nullopt, 0x0a, true, 0x00), 0x08u);  // 0 * -1
}

// float16 arithmetic rounds each step: 2049 is not a float16, so x - offset with x = 2048 and
// offset = -1 rounds (a tie) to 2048; multiplying by 1 first would not matter. float8 likewise.
TEST(ScaleOffsetCodec, EachStepRoundsToTheType) {
  ScaleOffsetParams p{DataType::float16, 0xbc00, 0x4000};  // offset -1, scale 2
  // (2048 - (-1)) = 2049 -> tie between 2048 and 2050 -> 2048 (even); * 2 = 4096.
  EXPECT_EQ(ScaleOffsetScalar(p, true, 0x6800).bits, 0x6c00u);
  // bfloat16: 256 + 1 = 257 -> 256 (8 significant bits), then 256 * 2 = 512.
  ScaleOffsetParams b{DataType::bfloat16, 0xbf80, 0x4000};
  EXPECT_EQ(ScaleOffsetScalar(b, true, 0x4380).bits, 0x4400u);
  // bfloat16 sum of far-apart values: 2^100 - 2^-100 rounds back to 2^100 (sticky path).
  ScaleOffsetParams far{DataType::bfloat16, 0x0d80 /* 2^-100 */, std::nullopt};
  EXPECT_EQ(ScaleOffsetScalar(far, true, 0x7180 /* 2^100 */).bits, 0x7180u);
  // float8_e4m3: (13 - 0.5) = 12.5 -> tie between 12 and 13 -> 12 (even significand).
  ScaleOffsetParams e4m3{DataType::float8_e4m3, 0x30 /* 0.5 */, std::nullopt};
  EXPECT_EQ(ScaleOffsetScalar(e4m3, true, 0x55 /* 13 */).bits, 0x54u /* 12 */);
  // decode division: 1 / 3 in float8_e4m3 -> nearest of 0.3125 and 0.34375 is 0.34375.
  ScaleOffsetParams third{DataType::float8_e4m3, std::nullopt, 0x44 /* 3 */};
  EXPECT_EQ(ScaleOffsetScalar(third, false, 0x38 /* 1 */).bits, 0x2bu /* 0.34375 */);
}

// ---- errors name the element, value, type and reason (R24) -------------------------------------

TEST(ScaleOffsetCodec, ErrorMessages) {
  Status st;
  auto i8 = Make(R"({"offset":1,"scale":2})", DataType::int8);
  ASSERT_TRUE(i8.ok());
  std::vector<std::int8_t> in = {0, 1, 64, -100};
  EncodeAll(*i8, in, &st);
  EXPECT_EQ(st.code(), StatusCode::kCastFailed);
  EXPECT_EQ(st.message(),
            "element 3: scale_offset encode of int8 value -100: (x - offset) * scale = -101 * 2 = "
            "-202 is out of the range of int8");
  in = {0, 1, 65, -100};
  EncodeAll(*i8, in, &st);
  EXPECT_EQ(st.message(),
            "element 2: scale_offset encode of int8 value 65: (x - offset) * scale = 64 * 2 = 128 "
            "is out of the range of int8");
  in = {0, -128};
  EncodeAll(*i8, in, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset encode of int8 value -128: x - offset = -128 - 1 = -129 is "
            "out of the range of int8");

  // zarr-python's case: int8 [2, 3, 4] with scale 2 cannot be decoded.
  auto half = Make(R"({"offset":0,"scale":2})", DataType::int8);
  in = {2, 3, 4};
  DecodeAll(*half, in, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset decode of int8 value 3: x / scale = 3 / 2 is not an integer "
            "(inexact integer division)");
  // zarr-python's case: decoding 100 with offset 100 into int8 overflows on the addition.
  auto add = Make(R"({"offset":100,"scale":1})", DataType::int8);
  in = {0, 50, 100};
  DecodeAll(*add, in, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset decode of int8 value 50: x / scale + offset = 50 + 100 = 150 "
            "is out of the range of int8");
  // zarr-python's case: uint8 5 - 10 underflows.
  auto u8 = Make(R"({"offset":10,"scale":1})", DataType::uint8);
  std::vector<std::uint8_t> u = {10, 5, 20};
  EncodeAll(*u8, u, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset encode of uint8 value 5: x - offset = 5 - 10 = -5 is out of "
            "the range of uint8");

  auto f32 = Make(R"({"scale":1e30})", DataType::float32);
  std::vector<float> f = {1.0f, 1e9f};
  EncodeAll(*f32, f, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset encode of float32 value 1000000000.0: x * scale = "
            "1000000000.0 * 1e+30 overflows float32 (the result rounds to infinity)");

  auto fnuz = Make(R"({"offset":-200})", DataType::float8_e4m3fnuz);
  std::vector<std::uint8_t> b = {0x00, 0x7c /* 192 */};
  EncodeAll(*fnuz, b, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset encode of float8_e4m3fnuz value 200.0: x - offset = 200.0 - "
            "(-200.0) overflows float8_e4m3fnuz (the result rounds beyond its largest finite "
            "value)");  // 192 is written as its shortest round-trip decimal, 200.0

  auto e8m0 = Make(R"({"offset":1})", DataType::float8_e8m0fnu);
  std::vector<std::uint8_t> e = {128 /* 2 */, 127 /* 1 */};
  EncodeAll(*e8m0, e, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset encode of float8_e8m0fnu value 1.0: x - offset = 1.0 - 1.0 "
            "has no float8_e8m0fnu value (float8_e8m0fnu holds only positive powers of two from "
            "2^-127 to 2^127)");

  // A float decode that overflows.
  auto tiny = Make(R"({"scale":1e-300})", DataType::float64);
  std::vector<double> d = {1.0, 1e10};
  DecodeAll(*tiny, d, &st);
  EXPECT_EQ(st.message(),
            "element 1: scale_offset decode of float64 value 10000000000.0: x / scale = "
            "10000000000.0 / 1e-300 overflows float64 (the result rounds to infinity)");

  EXPECT_TRUE(i8->Encode(nullptr, 0, nullptr).ok());
  EXPECT_EQ(i8->Encode(nullptr, 2, nullptr).code(), StatusCode::kInvalidArgument);
}

// ---- integers at their boundaries --------------------------------------------------------------

TEST(ScaleOffsetScalar, IntegerBoundaries) {
  auto run = [](DataType t, std::optional<std::int64_t> o, std::optional<std::int64_t> s, bool enc,
                std::int64_t x) {
    std::uint64_t mask = Info(t).value_mask();
    ScaleOffsetParams p{t, std::nullopt, std::nullopt};
    if (o) p.offset = static_cast<std::uint64_t>(*o) & mask;
    if (s) p.scale = static_cast<std::uint64_t>(*s) & mask;
    return ScaleOffsetScalar(p, enc, static_cast<std::uint64_t>(x) & mask);
  };
  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // int64: x - INT64_MIN fits only for x < 0.
  EXPECT_EQ(run(DataType::int64, kMin, std::nullopt, true, -1).bits, static_cast<std::uint64_t>(kMax));
  EXPECT_EQ(run(DataType::int64, kMin, std::nullopt, true, 0).error, ArithError::kOverflow);
  // INT64_MIN / -1 overflows; INT64_MIN * -1 too; INT64_MAX * -1 does not.
  EXPECT_EQ(run(DataType::int64, std::nullopt, -1, false, kMin).error, ArithError::kOverflow);
  EXPECT_EQ(run(DataType::int64, std::nullopt, -1, true, kMin).error, ArithError::kOverflow);
  EXPECT_EQ(run(DataType::int64, std::nullopt, -1, true, kMax).bits,
            static_cast<std::uint64_t>(-kMax));
  // R24: each step is checked, even when the next step would bring the value back in range:
  // int8 (-100 - 28) = -128 fits, (-100 - 29) = -129 does not, whatever the scale.
  EXPECT_EQ(run(DataType::int8, 28, -1, true, -100).error, ArithError::kOverflow);  // 128 > 127
  EXPECT_EQ(run(DataType::int8, 29, -1, true, -100).error, ArithError::kOverflow);
  EXPECT_EQ(run(DataType::int8, 27, -1, true, -100).bits, 127u);
  // uint64: 2^64 - 1 is divisible by 3 and 5 but not 2.
  const std::int64_t all_ones = -1;  // as uint64: 2^64 - 1
  EXPECT_EQ(run(DataType::uint64, std::nullopt, 3, false, all_ones).bits, 6148914691236517205u);
  EXPECT_EQ(run(DataType::uint64, std::nullopt, 2, false, all_ones).error,
            ArithError::kInexactDivision);
  EXPECT_EQ(run(DataType::uint64, std::nullopt, 2, true, std::int64_t{1} << 62).bits,
            std::uint64_t{1} << 63);
  EXPECT_EQ(run(DataType::uint64, std::nullopt, 2, true, kMin /* 2^63 */).error,
            ArithError::kOverflow);
  EXPECT_EQ(run(DataType::uint64, 1, all_ones, true, 2).bits, ~std::uint64_t{0});
  // Sub-byte: int2 [-2, 1], uint2 [0, 3], int4 [-8, 7], uint4 [0, 15]; upper bits ignored.
  EXPECT_EQ(run(DataType::int2, -1, std::nullopt, true, 0).bits, 1u);
  EXPECT_EQ(run(DataType::int2, -1, std::nullopt, true, 1).error, ArithError::kOverflow);
  EXPECT_EQ(run(DataType::int2, std::nullopt, -1, true, -2).error, ArithError::kOverflow);
  EXPECT_EQ(ScaleOffsetScalar({DataType::uint2, 1, 3}, true, 0xF3).error, ArithError::kOverflow);
  EXPECT_EQ(ScaleOffsetScalar({DataType::uint2, 1, 3}, false, 0xF3).bits, 2u);  // 3 / 3 + 1
  EXPECT_EQ(run(DataType::int4, -8, -1, true, 7).error, ArithError::kOverflow);  // 15
  EXPECT_EQ(run(DataType::int4, -8, -1, true, -1).bits, 0x9u);  // 7 * -1 = -7 (0b1001)
  EXPECT_EQ(run(DataType::uint4, 5, 3, false, 15).bits, 10u);
  EXPECT_EQ(run(DataType::uint4, 5, 3, false, 14).error, ArithError::kInexactDivision);
  // The identity never fails.
  for (DataType t : internal::kAllDataTypes) {
    if (!Info(t).is_int()) continue;
    for (std::uint64_t x : {std::uint64_t{0}, Info(t).value_mask(), Info(t).sign_bit()}) {
      EXPECT_EQ(ScaleOffsetScalar({t, std::nullopt, std::nullopt}, true, x).bits, x);
      EXPECT_EQ(ScaleOffsetScalar({t, 0, 1}, false, x).bits, x);
    }
  }
}

}  // namespace
}  // namespace zcast
