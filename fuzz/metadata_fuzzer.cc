// libFuzzer target: metadata text into every constructor (fuzz/README.md).
//
// The input is up to three lines: codec metadata, the array's data type JSON, its fill value
// JSON (absent or empty: none). It goes to CastValueSpec / ScaleOffsetSpec::FromJson and Bind,
// Chain::FromCodecs and Chain::FromArrayMetadata (the whole input as a zarr.json too), and the
// same through the C API. Besides crashes and sanitizer reports it checks:
//   - every error message is bounded (R34: quoted input is cut to a prefix) and holds no NUL,
//     and the C API's zcast_last_error() is the whole message;
//   - a parsed spec written back with ToJson parses again to the same ToJson (R13);
//   - a bound codec or chain encodes and decodes a few elements without crashing, and whatever a
//     chain encodes, it decodes (R32).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "zcast/json.h"
#include "zcast/metadata.h"
#include "zcast/zcast.h"
#include "zcast/zcast.hpp"

namespace {

// Longer than any message zcast writes with R34-bounded quotes (several quotes and the fixed text).
constexpr std::size_t kMaxMessage = 2048;

void Check(bool ok, const char* what, const std::string& detail) {
  if (ok) return;
  std::fprintf(stderr, "metadata_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void CheckMessage(const zcast::Status& st) {
  if (st.ok()) return;
  Check(st.message().size() <= kMaxMessage, "unbounded error message", st.message().substr(0, 4096));
  Check(st.message().find('\0') == std::string::npos, "NUL in an error message", st.message());
}

void CheckCMessage(zcast_status code) {
  if (code == ZCAST_OK) return;
  std::size_t len = std::strlen(zcast_last_error());
  Check(len > 0 && len <= kMaxMessage, "C API message empty or unbounded", zcast_last_error());
}

// A few elements of each side through a bound codec or chain: must not crash; R32 for chains.
template <typename Codec>
void Exercise(const Codec& codec, std::string_view bytes) {
  unsigned char in[64] = {}, out[64], back[64];
  std::size_t n = std::min<std::size_t>(8, bytes.size() / 8 + 1);
  std::memcpy(in, bytes.data(), std::min(bytes.size(), sizeof in));
  zcast::Status enc = codec.Encode(in, n, out);
  CheckMessage(enc);
  CheckMessage(codec.Decode(in, n, back));
  if constexpr (std::is_same_v<Codec, zcast::Chain>) {
    if (enc.ok() && codec.steps().size() > 1) {  // R32 binds chains of two or more codecs
      zcast::Status dec = codec.Decode(out, n, back);
      Check(dec.ok(), "R32: a chain decodes what it encoded", dec.message());
    }
  }
}

template <typename Spec>
void RoundTripSpec(const Spec& spec) {
  std::string json = spec.ToJson();
  auto again = Spec::FromJson(json);
  Check(again.ok(), "ToJson output does not parse", json + "\n" + again.status().message());
  Check(again->ToJson() == json, "ToJson is not stable", json + "\n" + again->ToJson());
}

// One codec's three stages: FromJson, ToJson stability, Bind, then a few elements.
template <typename Spec, typename Codec>
void SpecAndBind(const std::string& codec_json, zcast::DataType type,
                 std::optional<std::string_view> fill, std::string_view text) {
  auto spec = Spec::FromJson(codec_json);
  CheckMessage(spec.status());
  if (!spec.ok()) return;
  RoundTripSpec(*spec);
  auto codec = Codec::Bind(*spec, type, fill);
  CheckMessage(codec.status());
  if (codec.ok()) Exercise(*codec, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string lines[3];
  {
    std::size_t start = 0;
    for (int i = 0; i < 3 && start <= text.size(); ++i) {
      std::size_t end = i < 2 ? text.find('\n', start) : std::string_view::npos;
      if (end == std::string_view::npos) end = text.size();
      lines[i] = std::string(text.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string& codec_json = lines[0];
  std::optional<std::string> fill;
  if (!lines[2].empty()) fill = lines[2];
  std::optional<std::string_view> fill_view;
  if (fill) fill_view = *fill;

  // The array's data type (float64 when the second line is not one).
  zcast::DataType type = zcast::DataType::float64;
  if (auto doc = zcast::internal::ParseJson(lines[1]); doc.ok()) {
    auto t = zcast::internal::ParseDataTypeJson(*doc, "data_type");
    CheckMessage(t.status());
    if (t.ok()) type = *t;
  } else {
    CheckMessage(doc.status());
  }

  SpecAndBind<zcast::CastValueSpec, zcast::CastValueCodec>(codec_json, type, fill_view, text);
  SpecAndBind<zcast::ScaleOffsetSpec, zcast::ScaleOffsetCodec>(codec_json, type, fill_view, text);
  // The first line as a codecs array, and as a whole zarr.json; the whole input as one too.
  for (const std::string& json : {codec_json, "[" + codec_json + "]"}) {
    auto chain = zcast::Chain::FromCodecs(type, fill_view, json);
    CheckMessage(chain.status());
    if (chain.ok()) Exercise(*chain, text);
  }
  for (std::string_view json : {std::string_view(codec_json), text}) {
    auto chain = zcast::Chain::FromArrayMetadata(json);
    CheckMessage(chain.status());
    if (chain.ok()) Exercise(*chain, text);
  }

  // The C API (C strings: an embedded NUL ends them, as it would for a C caller).
  const char* c_fill = fill ? fill->c_str() : nullptr;
  zcast_codec* codec = nullptr;
  zcast_status st = zcast_codec_create(codec_json.c_str(), lines[1].c_str(), c_fill, &codec);
  CheckCMessage(st);
  Check((st == ZCAST_OK) == (codec != nullptr), "zcast_codec_create: status and handle disagree",
        zcast_last_error());
  if (codec) {
    unsigned char in[64] = {}, out[64];
    std::memcpy(in, text.data(), std::min(text.size(), sizeof in));
    CheckCMessage(zcast_encode(codec, in, 8, out));
    CheckCMessage(zcast_decode(codec, in, 8, out));
    zcast_codec_destroy(codec);
  }
  std::string whole(text);
  for (int variant = 0; variant < 2; ++variant) {
    zcast_chain* chain = nullptr;
    st = variant == 0 ? zcast_chain_create(whole.c_str(), &chain)
                      : zcast_chain_create_from_codecs(codec_json.c_str(), lines[1].c_str(),
                                                       c_fill, &chain);
    CheckCMessage(st);
    Check((st == ZCAST_OK) == (chain != nullptr), "zcast_chain_create: status and handle disagree",
          zcast_last_error());
    if (chain) {
      unsigned char in[64] = {}, out[64];
      std::memcpy(in, text.data(), std::min(text.size(), sizeof in));
      CheckCMessage(zcast_chain_encode(chain, in, 8, out));
      CheckCMessage(zcast_chain_decode(chain, in, 8, out));
      zcast_chain_destroy(chain);
    }
  }
  return 0;
}
