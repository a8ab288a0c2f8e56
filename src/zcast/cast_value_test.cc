// cast_value metadata (R4, R9-R13), binding and the buffer API, through the public C++ API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "zcast/zcast.hpp"

namespace zcast {
namespace {

std::string Codec(const std::string& configuration) {
  return R"({"name":"cast_value","configuration":)" + configuration + "}";
}

Result<CastValueCodec> Make(const std::string& configuration, DataType array_type,
                            std::optional<std::string_view> fill = std::nullopt) {
  auto spec = CastValueSpec::FromJson(Codec(configuration));
  if (!spec.ok()) return spec.status();
  return CastValueCodec::Bind(*spec, array_type, fill);
}

// Encodes one value; returns the status and the output through `out`.
template <typename In, typename Out>
Status EncodeOne(const std::string& configuration, DataType array_type, In in, Out* out) {
  auto codec = Make(configuration, array_type);
  if (!codec.ok()) return codec.status();
  return codec->Encode(&in, 1, out);
}

// ---- metadata round trip: what was read is written back, defaults stay omitted (R13) ----

TEST(CastValueSpec, RoundTripKeepsMeaningAndOmitsDefaults) {
  const char* cases[][2] = {
      {R"({"data_type":"uint8"})", R"({"data_type":"uint8"})"},
      {R"({"data_type":{"name":"int16"}})", R"({"data_type":"int16"})"},
      {R"({"data_type":{"name":"int16","configuration":{}}})", R"({"data_type":"int16"})"},
      {R"({"data_type":"float8_e4m3","rounding":"nearest-even"})",
       R"({"data_type":"float8_e4m3","rounding":"nearest-even"})"},
      {R"({"out_of_range":"wrap","data_type":"uint8","rounding":"towards-zero"})",
       R"({"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap"})"},
      {R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0],["Infinity",0]]}})",
       R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0],["Infinity",0]]}})"},
      {R"({"data_type":"uint8","scalar_map":{"decode":[[0, "NaN"]],"encode":[]}})",
       R"({"data_type":"uint8","scalar_map":{"encode":[],"decode":[[0,"NaN"]]}})"},
  };
  for (const auto& c : cases) {
    auto spec = CastValueSpec::FromJson(Codec(c[0]));
    ASSERT_TRUE(spec.ok()) << c[0] << ": " << spec.status().message();
    EXPECT_EQ(spec->ToJson(), Codec(c[1]));
    auto again = CastValueSpec::FromJson(spec->ToJson());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->ToJson(), spec->ToJson());
  }
}

// ---- invalid metadata: rejected at construction, naming the key and value ----

struct InvalidCase {
  const char* json;       // the whole codec metadata
  const char* substring;  // must appear in the message
};

TEST(CastValueSpec, RejectsInvalidMetadata) {
  const InvalidCase cases[] = {
      {R"([1])", "must be a JSON object"},
      {R"({"name":"cast_value"})", "\"configuration\""},
      {R"({"name":"cast","configuration":{"data_type":"uint8"}})", "\"cast\""},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8"},"x":1})", "\"x\""},
      {R"({"name":"cast_value","configuration":{}})", "\"data_type\""},
      {R"({"name":"cast_value","configuration":{"data_type":"complex64"}})", "complex64"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","extra":true}})", "\"extra\""},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","rounding":"up"}})", "\"up\""},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","rounding":1}})", "rounding"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"saturate"}})",
       "\"saturate\""},
      {R"({"name":"cast_value","configuration":{"data_type":"float16","out_of_range":"wrap"}})",
       "float16"},
      {R"({"name":"cast_value","configuration":{"data_type":{"name":"uint8","configuration":{"a":1}}}})",
       "configuration"},
      {R"({"name":"cast_value","configuration":{"data_type":{"name":"uint8","endian":"little"}}})",
       "\"endian\""},
      {R"({"name":"cast_value","configuration":{"data_type":7}})", "data_type"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":[]}})",
       "scalar_map"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":{"both":[]}}})",
       "\"both\""},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":{"encode":[[1]]}}})",
       "scalar_map.encode[0]"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":{"encode":{}}}})",
       "scalar_map.encode"},
      {R"({"name":"cast_value","configuration":{"data_type":"uint8",)", "invalid JSON"},
  };
  for (const auto& c : cases) {
    auto spec = CastValueSpec::FromJson(c.json);
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidMetadata) << c.json;
    EXPECT_NE(spec.status().message().find(c.substring), std::string::npos)
        << c.json << " -> " << spec.status().message();
  }
}

// R11: scalar_map entries must be valid scalars of their types; checked at bind time because
// the encode keys are of the array's type.
TEST(CastValueCodec, RejectsInvalidScalarMapEntries) {
  struct Case { const char* config; DataType array; const char* substring; };
  const Case cases[] = {
      {R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",300]]}})", DataType::float32, "300"},
      {R"({"data_type":"int8","scalar_map":{"encode":[["NaN",1.5]]}})", DataType::float32, "1.5"},
      {R"({"data_type":"int8","scalar_map":{"encode":[["NaN","NaN"]]}})", DataType::float32,
       "scalar_map.encode[0][1]"},
      {R"({"data_type":"float8_e4m3fnuz","scalar_map":{"encode":[[1,"Infinity"]]}})",
       DataType::float32, "Infinity"},
      {R"({"data_type":"float8_e4m3fnuz","scalar_map":{"encode":[[1,1000]]}})", DataType::float32,
       "1000"},
      {R"({"data_type":"float32","scalar_map":{"encode":[["NaN",0]]}})", DataType::int32,
       "scalar_map.encode[0][0]"},
      {R"({"data_type":"float32","scalar_map":{"decode":[[0,"NaN"]]}})", DataType::uint16,
       "scalar_map.decode[0][1]"},
  };
  for (const auto& c : cases) {
    auto codec = Make(c.config, c.array);
    ASSERT_FALSE(codec.ok()) << c.config;
    EXPECT_EQ(codec.status().code(), StatusCode::kInvalidMetadata);
    EXPECT_NE(codec.status().message().find(c.substring), std::string::npos)
        << c.config << " -> " << codec.status().message();
  }
}

// ---- R9: the fill value must survive encode then decode ----

TEST(CastValueCodec, FillValueRoundTrip) {
  auto ok = Make(R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}})",
                 DataType::float32, "\"NaN\"");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*ok->encoded_fill_value_json(), "0");

  auto nan_unmapped = Make(R"({"data_type":"uint8"})", DataType::float32, "\"NaN\"");
  ASSERT_FALSE(nan_unmapped.ok());
  EXPECT_NE(nan_unmapped.status().message().find("R9"), std::string::npos);

  // 0.1 rounds to 0 and decodes to 0.0: not the same scalar.
  auto lossy = Make(R"({"data_type":"uint8","out_of_range":"clamp"})", DataType::float64, "0.1");
  ASSERT_FALSE(lossy.ok());
  EXPECT_NE(lossy.status().message().find("does not survive"), std::string::npos)
      << lossy.status().message();

  // -0.0 into an int decodes to +0.0: the sign bit differs (R9: equal value *and* sign).
  auto neg_zero = Make(R"({"data_type":"int8"})", DataType::float32, "-0.0");
  ASSERT_FALSE(neg_zero.ok());
  auto neg_zero_f16 = Make(R"({"data_type":"float16"})", DataType::float32, "-0.0");
  ASSERT_TRUE(neg_zero_f16.ok());
  EXPECT_EQ(*neg_zero_f16->encoded_fill_value_json(), "-0.0");

  auto bad_fill = Make(R"({"data_type":"uint8"})", DataType::int16, "\"x\"");
  ASSERT_FALSE(bad_fill.ok());
  EXPECT_NE(bad_fill.status().message().find("fill_value"), std::string::npos);

  auto no_fill = Make(R"({"data_type":"uint8"})", DataType::int16);
  ASSERT_TRUE(no_fill.ok());
  EXPECT_FALSE(no_fill->encoded_fill_value_json().has_value());
}

// ---- the specification's examples ----

TEST(CastValueCodec, SpecExample128ToInt8) {
  std::int8_t out = 0;
  Status unset = EncodeOne(R"({"data_type":"int8"})", DataType::float64, 128.0, &out);
  EXPECT_EQ(unset.code(), StatusCode::kCastFailed);
  ASSERT_TRUE(EncodeOne(R"({"data_type":"int8","out_of_range":"clamp"})", DataType::float64,
                        128.0, &out).ok());
  EXPECT_EQ(out, 127);
  ASSERT_TRUE(EncodeOne(R"({"data_type":"int8","out_of_range":"wrap"})", DataType::float64,
                        128.0, &out).ok());
  EXPECT_EQ(out, -128);
}

TEST(CastValueCodec, SpecExampleInt16Wrap) {
  auto codec = Make(R"({"data_type":"int16","out_of_range":"wrap"})", DataType::int32);
  ASSERT_TRUE(codec.ok());
  std::int32_t in[] = {32768, 32769, -32769, 65536 + 5};
  std::int16_t out[4];
  ASSERT_TRUE(codec->Encode(in, 4, out).ok());
  EXPECT_EQ(out[0], -32768);
  EXPECT_EQ(out[1], -32767);
  EXPECT_EQ(out[2], 32767);
  EXPECT_EQ(out[3], 5);
}

TEST(CastValueCodec, SpecExampleNumpyCompatibility) {
  auto codec = Make(R"({"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap",
      "scalar_map":{"encode":[["NaN",0],["Infinity",0],["-Infinity",0]]}})", DataType::float64);
  ASSERT_TRUE(codec.ok()) << codec.status().message();
  const double inf = std::numeric_limits<double>::infinity();
  double in[] = {std::nan(""), inf, -inf, 3.9, -1.0, 256.5, 1e300, -0.0};
  std::uint8_t out[8];
  ASSERT_TRUE(codec->Encode(in, 8, out).ok());
  const std::uint8_t want[] = {0, 0, 0, 3, 255, 0, 0, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], want[i]) << "element " << i;
}

// ---- R10: first occurrence wins, one pass, -0.0 and 0.0 are different keys ----

TEST(CastValueCodec, ScalarMapSemantics) {
  auto codec = Make(R"({"data_type":"int8","scalar_map":{"encode":[[1,2],[2,3],[1,9],[-0.0,7]]}})",
                    DataType::float32);
  ASSERT_TRUE(codec.ok()) << codec.status().message();
  float in[] = {1.0f, 2.0f, -0.0f, 0.0f};
  std::int8_t out[4];
  ASSERT_TRUE(codec->Encode(in, 4, out).ok());
  EXPECT_EQ(out[0], 2);  // first occurrence, no chaining to 3
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 7);  // -0.0 key
  EXPECT_EQ(out[3], 0);  // +0.0 is not the -0.0 key
}

// "+Infinity" is read as an alias of "Infinity" (R11), as in the spec's earlier example.
TEST(CastValueCodec, PlusInfinityAlias) {
  auto codec = Make(R"({"data_type":"uint8","scalar_map":{"encode":[["+Infinity",7]]}})",
                    DataType::float32);
  ASSERT_TRUE(codec.ok()) << codec.status().message();
  float in = std::numeric_limits<float>::infinity();
  std::uint8_t out;
  ASSERT_TRUE(codec->Encode(&in, 1, &out).ok());
  EXPECT_EQ(out, 7);
}

// ---- errors name the element's index, value, types and reason ----

TEST(CastValueCodec, ErrorNamesElement) {
  auto codec = Make(R"({"data_type":"uint8"})", DataType::float32);
  ASSERT_TRUE(codec.ok());
  std::vector<float> in(40, 1.0f);
  in[17] = std::nanf("");
  in[30] = 1000.0f;
  std::vector<std::uint8_t> out(in.size());
  Status st = codec->Encode(in.data(), in.size(), out.data());
  EXPECT_EQ(st.code(), StatusCode::kCastFailed);
  EXPECT_EQ(st.message(),
            "element 17: float32 value NaN has no representation in uint8 and scalar_map does not "
            "map it");
  in[17] = 2.0f;
  st = codec->Encode(in.data(), in.size(), out.data());
  EXPECT_NE(st.message().find("element 30: float32 value 1000"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("out_of_range is not set"), std::string::npos) << st.message();
}

// R4: wrap decoding into a float array type acts as unset.
TEST(CastValueCodec, WrapDecodingIntoFloatIsUnset) {
  auto codec = Make(R"({"data_type":"int8","out_of_range":"wrap"})", DataType::float8_e4m3fnuz);
  ASSERT_TRUE(codec.ok());
  std::int8_t in = 127;
  std::uint8_t out;
  Status st = codec->Decode(&in, 1, &out);  // 127 rounds to 128, inside e4m3fnuz's range
  EXPECT_TRUE(st.ok());
  auto to_e4m3b11 = Make(R"({"data_type":"int8","out_of_range":"wrap"})",
                         DataType::float8_e4m3b11fnuz);
  ASSERT_TRUE(to_e4m3b11.ok());
  st = to_e4m3b11->Decode(&in, 1, &out);  // 127 > 30, the type's max
  EXPECT_EQ(st.code(), StatusCode::kCastFailed);
  EXPECT_NE(st.message().find("R4"), std::string::npos) << st.message();
}

TEST(CastValueCodec, NullBuffers) {
  auto codec = Make(R"({"data_type":"uint8"})", DataType::float32);
  ASSERT_TRUE(codec.ok());
  EXPECT_TRUE(codec->Encode(nullptr, 0, nullptr).ok());
  EXPECT_EQ(codec->Encode(nullptr, 3, nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(DataTypes, NamesAndSizes) {
  EXPECT_EQ(DataTypeName(DataType::float8_e4m3b11fnuz), "float8_e4m3b11fnuz");
  EXPECT_EQ(DataTypeFromName("bfloat16"), DataType::bfloat16);
  EXPECT_FALSE(DataTypeFromName("float8_e4m3fn").has_value());
  EXPECT_EQ(DataTypeSize(DataType::int2), 1u);
  EXPECT_EQ(DataTypeSize(DataType::uint64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::bfloat16), 2u);
}

}  // namespace
}  // namespace zcast
