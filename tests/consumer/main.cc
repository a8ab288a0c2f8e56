// Uses the installed headers and library: the C++ API and the C API must agree.
#include <zcast/zcast.h>

#include <cstdio>
#include <zcast/zcast.hpp>

int main() {
  auto spec = zcast::CastValueSpec::FromJson(
      R"({"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"clamp"}})");
  if (!spec.ok()) return 1;
  auto codec = zcast::CastValueCodec::Bind(*spec, zcast::DataType::float64, std::nullopt);
  if (!codec.ok()) return 2;
  double in[3] = {128.0, -1e9, 2.5};
  signed char out[3];
  if (!codec->Encode(in, 3, out).ok() || out[0] != 127 || out[1] != -128 || out[2] != 2) return 3;
  zcast_codec* c = nullptr;
  if (zcast_codec_create(spec->ToJson().c_str(), "\"float64\"", nullptr, &c) != ZCAST_OK) return 4;
  signed char out2[3];
  if (zcast_encode(c, in, 3, out2) != ZCAST_OK || out2[0] != 127 || out2[2] != 2) return 5;
  zcast_codec_destroy(c);
  std::printf("consumer OK, zcast %s\n", zcast_version());
  return 0;
}
