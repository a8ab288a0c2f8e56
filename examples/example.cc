// A small end-to-end use of the C++ API: store a float32 field with NaN no-data as uint8 and read
// it back. Prints what each step produced; exits non-zero if the round trip is not as expected.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "zcast/zcast.hpp"

int main() {
  auto spec = zcast::CastValueSpec::FromJson(R"({
    "name": "cast_value",
    "configuration": {
      "data_type": "uint8",
      "rounding": "nearest-even",
      "out_of_range": "clamp",
      "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
    }})");
  if (!spec.ok()) return std::fprintf(stderr, "%s\n", spec.status().message().c_str()), 1;
  auto codec = zcast::CastValueCodec::Bind(*spec, zcast::DataType::float32, "\"NaN\"");
  if (!codec.ok()) return std::fprintf(stderr, "%s\n", codec.status().message().c_str()), 1;

  std::vector<float> field = {NAN, 0.4f, 1.5f, 2.5f, 99.7f, 254.5f, 1000.0f, -5.0f};
  std::vector<std::uint8_t> stored(field.size());
  std::vector<float> back(field.size());
  if (!codec->Encode(field.data(), field.size(), stored.data()).ok()) return 1;
  if (!codec->Decode(stored.data(), stored.size(), back.data()).ok()) return 1;
  std::printf("metadata: %s\nencoded fill value: %s\n", spec->ToJson().c_str(),
              codec->encoded_fill_value_json()->c_str());
  for (std::size_t i = 0; i < field.size(); ++i)
    std::printf("%10g -> %3u -> %g\n", field[i], stored[i], back[i]);
  const std::uint8_t expected[] = {0, 0, 2, 2, 100, 254, 255, 0};
  for (std::size_t i = 0; i < field.size(); ++i) if (stored[i] != expected[i]) return 2;

  // Without clamp, 1000 has no uint8 value: the error names the element, value, types, reason.
  auto strict = zcast::CastValueSpec::FromJson(
      R"({"name": "cast_value", "configuration": {"data_type": "uint8"}})");
  auto strict_codec = zcast::CastValueCodec::Bind(*strict, zcast::DataType::float32, std::nullopt);
  float bad[] = {1.0f, 1000.0f};
  zcast::Status st = strict_codec->Encode(bad, 2, stored.data());
  std::printf("strict: %s\n", st.message().c_str());
  return st.code() == zcast::StatusCode::kCastFailed ? 0 : 3;
}
