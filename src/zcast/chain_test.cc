// The array -> array chain: metadata resolution (R25, R26), the legacy numcodecs codec, the
// spec family's examples and a Sentinel-2-like product. Running the chain (R32, R33) is tested
// in chain_run_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/zcast.hpp"

namespace zcast {
namespace {

std::string Array(const std::string& data_type, const std::string& fill, const std::string& codecs) {
  return R"({"zarr_format":3,"node_type":"array","shape":[100],"data_type":)" + data_type +
         (fill.empty() ? "" : R"(,"fill_value":)" + fill) + R"(,"codecs":)" + codecs +
         R"(,"attributes":{"anything":[1,2]}})";
}

std::string StepJson(const Chain::Step& step) {
  return std::visit([](const auto& c) { return c.spec().ToJson(); }, step);
}

// ---- metadata ----------------------------------------------------------------------------------

// A Sentinel-2 L2A-like band: reflectance float64 with NaN no-data, stored as uint16 digital
// numbers DN = reflectance * 10000 + 1000 (scale_offset offset -0.1, scale 10000), DN 0 = no data.
const char* kSentinel2 = R"({
  "zarr_format": 3, "node_type": "array", "shape": [10980, 10980], "data_type": "float64",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1830, 1830]}},
  "chunk_key_encoding": {"name": "default"},
  "fill_value": "NaN",
  "codecs": [
    {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
    {"name": "cast_value", "configuration": {"data_type": "uint16", "rounding": "nearest-even",
      "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "zstd", "configuration": {"level": 3, "checksum": false}}
  ],
  "attributes": {"long_name": "BOA reflectance B04"},
  "dimension_names": ["y", "x"]
})";

TEST(Chain, Sentinel2Reflectance) {
  auto chain = Chain::FromArrayMetadata(kSentinel2);
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain->decoded_type(), DataType::float64);
  EXPECT_EQ(chain->encoded_type(), DataType::uint16);
  EXPECT_EQ(*chain->encoded_fill_value_json(), "0");
  EXPECT_EQ(chain->steps().size(), 2u);
  EXPECT_EQ(chain->first_unowned_index(), 2u);
  EXPECT_EQ(chain->first_unowned_name(), "bytes");
  EXPECT_EQ(chain->remaining_codecs_json(),
            R"([{"name":"bytes","configuration":{"endian":"little"}},)"
            R"({"name":"zstd","configuration":{"level":3,"checksum":false}}])");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> reflectance = {nan, 0.0, 0.0234, 1.0, -0.0999, 6.4535, 0.12345, -0.1};
  std::vector<std::uint16_t> dn(reflectance.size());
  ASSERT_TRUE(chain->Encode(reflectance.data(), reflectance.size(), dn.data()).ok());
  const std::uint16_t want[] = {0, 1000, 1234, 11000, 1, 65535, 2234, 0};
  for (std::size_t i = 0; i < dn.size(); ++i) EXPECT_EQ(dn[i], want[i]) << i;
  // -0.1 encodes to DN 0, which decodes as no data: the product's own collision, kept as is.
  std::vector<double> back(dn.size());
  ASSERT_TRUE(chain->Decode(dn.data(), dn.size(), back.data()).ok());
  EXPECT_TRUE(std::isnan(back[0]));
  EXPECT_EQ(back[1], 0.0);
  EXPECT_EQ(back[3], 1.0);
  EXPECT_EQ(back[2], 1234.0 / 10000.0 + -0.1);  // float64 arithmetic, each step rounded
  EXPECT_TRUE(std::isnan(back[7]));
  // Out of uint16's range without out_of_range: an error naming the element, the caller's value
  // and the intermediate one that cast_value saw after scale_offset.
  std::vector<double> bad = {0.5, 6.6};
  Status st = chain->Encode(bad.data(), bad.size(), dn.data());
  EXPECT_EQ(st.code(), StatusCode::kCastFailed);
  EXPECT_EQ(st.message(),
            "element 1: float64 value 67000.0 is out of the range of uint16 and out_of_range is "
            "not set (intermediate value after scale_offset encode; input element: float64 value "
            "6.6)");
}

// A codec after the first sees intermediate values: its error names the caller's element too,
// in both directions, after every earlier codec; the first codec's error is left as it is.
TEST(Chain, LaterCodecErrorsNameTheInputElement) {
  auto chain = Chain::FromCodecs(DataType::float64, std::nullopt, R"([
      {"name":"scale_offset","configuration":{"offset":3,"scale":0.5}},
      {"name":"cast_value","configuration":{"data_type":"float32"}},
      {"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"clamp"}},
      {"name":"scale_offset","configuration":{"scale":2}}])");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  // The message of encoding 3000 elements (past the fused blocks) with `x` at index 2500; the
  // others, 103, go 50 -> 50.0f -> 50 -> 100 without error.
  auto encode_error = [&](double x) {
    std::vector<double> in(3000, 103.0);
    in[2500] = x;
    std::vector<std::int8_t> enc(in.size());
    Status st = chain->Encode(in.data(), in.size(), enc.data());
    EXPECT_EQ(st.code(), StatusCode::kCastFailed);
    return st.message();
  };
  // 1e300 -> 5e299 after scale_offset: beyond float32.
  EXPECT_EQ(encode_error(1e300),
            "element 2500: float64 value 5e+299 is out of the range of float32 and out_of_range "
            "is not set (intermediate value after scale_offset encode; input element: float64 "
            "value 1e+300)");
  // 203 -> 100 -> 100.0f -> 100 -> 200: the last scale_offset overflows int8.
  std::string message = encode_error(203.0);
  EXPECT_EQ(message.rfind("element 2500: scale_offset encode of int8 value 100: ", 0), 0u)
      << message;
  EXPECT_TRUE(message.ends_with(
      " (intermediate value after scale_offset encode, cast_value encode, cast_value encode; "
      "input element: float64 value 203.0)"))
      << message;
  // Decode runs the int8 scale_offset first: an odd encoding fails there, reported as is.
  std::vector<std::int8_t> codes(10, 8);
  std::vector<double> back(codes.size());
  codes[7] = 5;
  message = chain->Decode(codes.data(), codes.size(), back.data()).message();
  EXPECT_EQ(message.rfind("element 7: scale_offset decode of int8 value 5: ", 0), 0u) << message;
  EXPECT_EQ(message.find("input element"), std::string::npos) << message;
}

// zarr-extensions scale_offset README, "Example": float32 with offset 5 and scale 0.1, followed
// by "bytes" (a bare name), no fill_value in the snippet.
TEST(Chain, ReadmeScaleOffsetExample) {
  auto chain = Chain::FromArrayMetadata(R"({
    "data_type": "float32",
    "codecs": [{"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}}, "bytes"]
  })");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain->encoded_type(), DataType::float32);
  EXPECT_FALSE(chain->encoded_fill_value_json().has_value());
  EXPECT_EQ(chain->first_unowned_index(), 1u);
  EXPECT_EQ(chain->first_unowned_name(), "bytes");
  EXPECT_EQ(chain->remaining_codecs_json(), R"(["bytes"])");
  std::vector<float> in = {5.0f, 15.0f, 105.0f, -5.0f}, out(4), back(4);
  ASSERT_TRUE(chain->Encode(in.data(), 4, out.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{0.0f, 1.0f, 10.0f, -1.0f}));
  ASSERT_TRUE(chain->Decode(out.data(), 4, back.data()).ok());
  EXPECT_EQ(back, in);
}

// zarr-extensions scale_offset README, "Conversion example": numcodecs.fixedscaleoffset
// {astype uint8, dtype float32, scale 0.1, offset 10} is [scale_offset{scale 0.1, offset 10},
// cast_value{data_type uint8, out_of_range wrap}].
TEST(Chain, ReadmeFixedScaleOffsetConversion) {
  auto legacy = Chain::FromArrayMetadata(Array("\"float32\"", "10", R"([
    {"name": "numcodecs.fixedscaleoffset",
     "configuration": {"astype": "uint8", "dtype": "float32", "scale": 0.1, "offset": 10}},
    {"name": "bytes"}])"));
  ASSERT_TRUE(legacy.ok()) << legacy.status().message();
  ASSERT_EQ(legacy->steps().size(), 2u);
  EXPECT_EQ(StepJson(legacy->steps()[0]),
            R"({"name":"scale_offset","configuration":{"offset":10,"scale":0.1}})");
  EXPECT_EQ(StepJson(legacy->steps()[1]),
            R"({"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"wrap"}})");
  EXPECT_EQ(legacy->first_unowned_index(), 1u);  // one codec in the metadata
  EXPECT_EQ(*legacy->encoded_fill_value_json(), "0");
  auto modern = Chain::FromArrayMetadata(Array("\"float32\"", "10", R"([
    {"name": "scale_offset", "configuration": {"scale": 0.1, "offset": 10}},
    {"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "wrap"}},
    "bytes"])"));
  ASSERT_TRUE(modern.ok());
  // The numcodecs algorithm: (x - 10) * 0.1, round half to even, wrap modulo 256.
  std::vector<float> in = {10.0f, 20.0f, 35.0f, 45.0f, 2560.0f, 2570.0f, 0.0f, 12.0f};
  std::vector<std::uint8_t> a(in.size()), b(in.size());
  ASSERT_TRUE(legacy->Encode(in.data(), in.size(), a.data()).ok());
  ASSERT_TRUE(modern->Encode(in.data(), in.size(), b.data()).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::uint8_t>{0, 1, 2, 4, 255, 0, 255, 0}));
  std::vector<float> back(in.size());
  ASSERT_TRUE(legacy->Decode(a.data(), a.size(), back.data()).ok());
  EXPECT_EQ(back[1], 20.0f);
  EXPECT_EQ(back[4], 255.0f / 0.1f + 10.0f);
}

// The fixedscaleoffset configuration example of the zarrs documentation (numcodecs v2 dtypes):
// {"offset": 1000, "scale": 10, "dtype": "f8", "astype": "u1"}.
TEST(Chain, FixedScaleOffsetNumcodecsDtypes) {
  auto chain = Chain::FromCodecs(DataType::float64, std::nullopt, R"([
    {"name": "numcodecs.fixedscaleoffset",
     "configuration": {"offset": 1000, "scale": 10, "dtype": "f8", "astype": "u1"}}])");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain->encoded_type(), DataType::uint8);
  EXPECT_EQ(chain->first_unowned_index(), 1u);
  EXPECT_EQ(chain->first_unowned_name(), "");
  EXPECT_EQ(chain->remaining_codecs_json(), "[]");
  std::vector<double> in = {1000.0, 1012.34, 1025.5, 1025.6, 999.9,
                            1000.05, 1000.15, 1000.25, 1000.75};
  std::vector<std::uint8_t> out(in.size());
  ASSERT_TRUE(chain->Encode(in.data(), in.size(), out.data()).ok());
  // float64 steps, then round half to even and wrap, as numpy computes
  // np.around((x - 1000) * 10).astype(int) % 256: 123.40000000000032 -> 123; 255;
  // 255.9999999999991 -> 256 -> 0; -1.0000000000002274 -> -1 -> 255; 0.49999999999954525 -> 0;
  // 1.4999999999997726 -> 1; 2.5 -> 2; 7.5 -> 8.
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0, 123, 255, 0, 255, 0, 1, 2, 8}));
  std::vector<double> back(out.size());
  ASSERT_TRUE(chain->Decode(out.data(), out.size(), back.data()).ok());
  EXPECT_EQ(back[1], 1012.3);
  // Little-endian, big-endian and byte-order-free spellings, and Zarr v3 names, all read.
  for (const char* dt : {"\"<f4\"", "\">f4\"", "\"f4\"", "\"=f4\"", "\"float32\""}) {
    auto c = Chain::FromCodecs(DataType::float32, std::nullopt,
                               std::string(R"([{"name":"numcodecs.fixedscaleoffset","configuration":)"
                                           R"({"offset":0,"scale":1,"dtype":)") +
                                   dt + R"(,"astype":"|i2","id":"fixedscaleoffset"}}])");
    ASSERT_TRUE(c.ok()) << dt << ": " << c.status().message();
    EXPECT_EQ(c->encoded_type(), DataType::int16);
  }
  // astype omitted: numcodecs' default is dtype, here an integer type.
  auto same = Chain::FromCodecs(DataType::int32, "7", R"([{"name":"numcodecs.fixedscaleoffset",
      "configuration":{"offset":1,"scale":2,"dtype":"<i4"}}])");
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->encoded_type(), DataType::int32);
  EXPECT_EQ(*same->encoded_fill_value_json(), "12");
}

TEST(Chain, RejectsInvalidMetadata) {
  const struct {
    std::string json;
    const char* substring;
  } cases[] = {
      {"[]", "must be a JSON object"},
      {"{", "invalid JSON"},
      {R"({"zarr_format":2,"data_type":"float32","codecs":[]})", "\"zarr_format\" must be 3"},
      {R"({"node_type":"group","data_type":"float32","codecs":[]})", "\"node_type\""},
      {R"({"codecs":[]})", "\"data_type\""},
      {R"({"data_type":"complex64","codecs":[]})", "complex64"},
      {R"({"data_type":"float32"})", "\"codecs\""},
      {R"({"data_type":"float32","codecs":{}})", "\"codecs\" must be an array"},
      {R"({"data_type":"float32","codecs":[5]})", "codecs[0] must be a codec name"},
      {R"({"data_type":"float32","codecs":[{"configuration":{}}]})", "codecs[0]"},
      {R"({"data_type":"uint8","fill_value":300,"codecs":[]})", "fill_value: 300"},
      {Array("\"float32\"", "0", R"(["scale_offset",{"name":"cast_value"}])"),
       "codecs[1]: invalid cast_value metadata: missing required key \"configuration\""},
      {Array("\"float32\"", "0", R"(["cast_value"])"), "codecs[0]: invalid cast_value metadata"},
      {Array("\"float32\"", "0", R"([{"name":"scale_offset","configuration":{"bias":1}}])"),
       "codecs[0]: invalid scale_offset metadata: unknown key \"bias\""},
      {Array("\"int8\"", "0", R"([{"name":"scale_offset","configuration":{"scale":0.5}}])"),
       "codecs[0]: invalid scale_offset metadata: \"scale\": 0.5"},
      // R9 of the cast_value after scale_offset, on the transformed fill value (-1 * 1000).
      {Array("\"float32\"", "-1", R"([{"name":"scale_offset","configuration":{"scale":1000}},
          {"name":"cast_value","configuration":{"data_type":"uint8"}}])"),
       "codecs[1]: invalid cast_value metadata: fill_value -1000.0 cannot be encoded"},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":0,"scale":1,"dtype":"<f8","astype":"<f4"}}])"),
       "\"astype\" float32 is not an integer type"},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":0,"scale":1,"dtype":"<f4","astype":"u1"}}])"),
       "\"dtype\" \"<f4\" is float32, but the codec's input is float64"},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":0,"dtype":"<f8","astype":"u1"}}])"),
       "missing required key \"scale\""},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":"0","scale":1,"dtype":"<f8","astype":"u1"}}])"),
       "\"offset\" must be a JSON number"},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":0,"scale":1,"dtype":"<f8","astype":"u1","elementsize":8}}])"),
       "unknown key \"elementsize\""},
      {Array("\"float64\"", "0", R"([{"name":"numcodecs.fixedscaleoffset","configuration":
          {"offset":0,"scale":1,"dtype":"<c16","astype":"u1"}}])"),
       "\"dtype\" \"<c16\" is not a supported numeric data type"},
      {Array("\"float64\"", "0", R"(["numcodecs.fixedscaleoffset"])"),
       "needs a \"configuration\" object"},
  };
  for (const auto& c : cases) {
    auto chain = Chain::FromArrayMetadata(c.json);
    ASSERT_FALSE(chain.ok()) << c.json;
    EXPECT_EQ(chain.status().code(), StatusCode::kInvalidMetadata);
    EXPECT_NE(chain.status().message().find(c.substring), std::string::npos)
        << c.json << "\n -> " << chain.status().message();
    EXPECT_EQ(chain.status().message().rfind("invalid array metadata: ", 0), 0u);
  }
}

// R26: the chain owns only the leading run of its codecs; a fill_value that is missing or null
// means no fill value; bare names stand for codecs without configuration.
TEST(Chain, OwnsOnlyTheLeadingRun) {
  auto none = Chain::FromArrayMetadata(Array("\"float16\"", "1e0", R"(["bytes"])"));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->steps().empty());
  EXPECT_EQ(none->encoded_type(), DataType::float16);
  EXPECT_EQ(*none->encoded_fill_value_json(), "1.0");  // validated and written canonically
  EXPECT_EQ(none->first_unowned_index(), 0u);
  std::uint16_t in[3] = {1, 2, 0x7e00}, out[3];
  ASSERT_TRUE(none->Encode(in, 3, out).ok());
  EXPECT_EQ(0, std::memcmp(in, out, sizeof in));

  auto transposed = Chain::FromArrayMetadata(Array("\"float32\"", "0", R"([
      {"name":"transpose","configuration":{"order":[0]}}, "scale_offset", "bytes"])"));
  ASSERT_TRUE(transposed.ok());
  EXPECT_EQ(transposed->first_unowned_index(), 0u);
  EXPECT_EQ(transposed->first_unowned_name(), "transpose");
  EXPECT_TRUE(transposed->steps().empty());

  auto bare = Chain::FromArrayMetadata(Array("\"int8\"", "null", R"(["scale_offset",
      {"name":"sharding_indexed","configuration":{"chunk_shape":[10],"codecs":["bytes"]}}])"));
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ(bare->steps().size(), 1u);
  EXPECT_FALSE(bare->encoded_fill_value_json().has_value());
  EXPECT_EQ(bare->first_unowned_name(), "sharding_indexed");
  EXPECT_EQ(StepJson(bare->steps()[0]), R"({"name":"scale_offset"})");

  auto no_fill = Chain::FromArrayMetadata(R"({"data_type":"uint8","codecs":[]})");
  ASSERT_TRUE(no_fill.ok());
  EXPECT_EQ(no_fill->first_unowned_index(), 0u);
  EXPECT_EQ(no_fill->first_unowned_name(), "");
}

// cast_value before scale_offset: the scale_offset then works in the cast's type.
TEST(Chain, CastThenScaleOffset) {
  auto chain = Chain::FromCodecs(DataType::float64, "1.5", R"([
      {"name":"cast_value","configuration":{"data_type":"float16"}},
      {"name":"scale_offset","configuration":{"offset":1,"scale":"0x4000"}}, "bytes"])");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain->encoded_type(), DataType::float16);
  EXPECT_EQ(*chain->encoded_fill_value_json(), "1.0");  // (1.5 - 1) * 2
  double in[2] = {3.0, 70000.0};
  std::uint16_t out[2];
  Status st = chain->Encode(in, 2, out);
  EXPECT_NE(st.message().find("element 1: float64 value 70000.0 is out of the range of float16"),
            std::string::npos)
      << st.message();
  ASSERT_TRUE(chain->Encode(in, 1, out).ok());
  EXPECT_EQ(out[0], 0x4400u);  // (3 - 1) * 2 = 4
}

// The sharding case: the inner codecs of sharding_indexed hold the array -> array codecs.
TEST(Chain, FromCodecsForShardInnerCodecs) {
  auto chain = Chain::FromCodecs(DataType::float32, "\"NaN\"", R"([
      {"name":"scale_offset","configuration":{"offset":0,"scale":100}},
      {"name":"cast_value","configuration":{"data_type":"int16","out_of_range":"clamp",
        "scalar_map":{"encode":[["NaN",-32768]],"decode":[[-32768,"NaN"]]}}},
      {"name":"bytes","configuration":{"endian":"little"}}])");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(*chain->encoded_fill_value_json(), "-32768");
  auto bad = Chain::FromCodecs(DataType::float32, std::nullopt, "{}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"codecs\" must be an array"), std::string::npos);
}

TEST(Chain, NullBuffers) {
  auto chain = Chain::FromArrayMetadata(kSentinel2);
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->Encode(nullptr, 0, nullptr).ok());
  EXPECT_EQ(chain->Decode(nullptr, 1, nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace zcast
