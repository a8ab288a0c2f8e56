// The C API: a thin shim over the C++ API (cast_value, scale_offset, the chain). Arguments are
// checked first, every call is wrapped in a catch-all so that no exception crosses into C, and
// failures leave their message in a thread-local buffer for zcast_last_error().
#include "zcast/zcast.h"

#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "zcast/json.h"
#include "zcast/metadata.h"
#include "zcast/zcast.hpp"

// A codec handle holds either codec; zcast_codec_create dispatches on the metadata's "name".
struct zcast_codec {
  std::variant<zcast::CastValueCodec, zcast::ScaleOffsetCodec> codec;
  std::string encoded_data_type_json;
};

struct zcast_chain {
  zcast::Chain chain;
  std::string encoded_data_type_json;
  std::string decoded_data_type_json;
  std::optional<std::string> next_codec_json;  // codecs[first_unowned_index], compact JSON
};

namespace {

thread_local std::string g_last_error;
thread_local std::optional<std::size_t> g_last_element;  // Status::failing_element() of it

zcast_status Fail(zcast_status code, std::string message) {
  g_last_error = std::move(message);
  g_last_element.reset();
  return code;
}

zcast_status FromStatus(const zcast::Status& st) {
  if (st.ok()) return ZCAST_OK;
  zcast_status code = Fail(static_cast<zcast_status>(st.code()), st.message());
  g_last_element = st.failing_element();
  return code;
}

// Runs `body` (returning zcast_status) and converts any escaping exception.
template <typename F>
zcast_status Guard(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(ZCAST_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return Fail(ZCAST_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(ZCAST_INTERNAL, "internal error: unknown exception");
  }
}

// The "name" of codec metadata that is an object with a string name, else nullopt (malformed
// metadata is then reported by the cast_value parser, which names what is wrong with it).
std::optional<std::string> CodecName(const char* codec_json) {
  auto doc = zcast::internal::ParseJson(codec_json);
  if (!doc.ok() || doc->type != zcast::internal::JsonValue::Type::kObject) return std::nullopt;
  const auto* name = doc->Find("name");
  if (!name || name->type != zcast::internal::JsonValue::Type::kString) return std::nullopt;
  return name->text;
}

// The array's side of both create calls: its data type as JSON (R12) and its optional fill value.
struct ArrayArgs {
  zcast::DataType type;
  std::optional<std::string_view> fill;
};

zcast::Result<ArrayArgs> ParseArrayArgs(const char* array_data_type_json,
                                        const char* fill_value_json) {
  auto doc = zcast::internal::ParseJson(array_data_type_json);
  if (!doc.ok())
    return zcast::Status(zcast::StatusCode::kInvalidMetadata,
                         "array data_type: " + doc.status().message());
  auto type = zcast::internal::ParseDataTypeJson(*doc, "array data_type");
  if (!type.ok()) return type.status();
  ArrayArgs args{*type, std::nullopt};
  if (fill_value_json) args.fill = fill_value_json;
  return args;
}

zcast_status NewChain(zcast::Result<zcast::Chain> chain, zcast_chain** out) {
  if (!chain.ok()) return FromStatus(chain.status());
  std::optional<std::string> next;
  auto rest = zcast::internal::ParseJson(chain->remaining_codecs_json());
  if (rest.ok() && !rest->array.empty()) next = rest->array.front().Dump();
  std::string encoded = zcast::internal::JsonQuote(zcast::DataTypeName(chain->encoded_type()));
  std::string decoded = zcast::internal::JsonQuote(zcast::DataTypeName(chain->decoded_type()));
  *out = new zcast_chain{std::move(chain).value(), std::move(encoded), std::move(decoded),
                         std::move(next)};
  return ZCAST_OK;
}

std::string JoinNames(const std::vector<std::string_view>& names) {
  std::string s;
  for (std::string_view n : names) {
    if (!s.empty()) s += ' ';
    s.append(n);
  }
  return s;
}
}  // namespace

extern "C" {

zcast_status zcast_codec_create(const char* codec_json, const char* array_data_type_json,
                                const char* fill_value_json, zcast_codec** out) {
  if (!out) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_codec_create: out is NULL");
  *out = nullptr;
  if (!codec_json) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_codec_create: codec_json is NULL");
  if (!array_data_type_json)
    return Fail(ZCAST_INVALID_ARGUMENT, "zcast_codec_create: array_data_type_json is NULL");
  return Guard([&]() -> zcast_status {
    auto array = ParseArrayArgs(array_data_type_json, fill_value_json);
    if (!array.ok()) return FromStatus(array.status());
    // Dispatch on "name". Any other codec (bytes, a compressor, sharding) is the reader's: the
    // message names both codecs this call binds and points at the chain, which takes them all.
    std::optional<std::string> name = CodecName(codec_json);
    if (name && *name != "cast_value" && *name != "scale_offset")
      return Fail(ZCAST_INVALID_METADATA,
                  "codec \"name\" must be \"cast_value\" or \"scale_offset\", got " +
                      zcast::internal::BriefQuote(*name) +
                      " (other codecs are the reader's; zcast_chain_create takes a whole "
                      "zarr.json and reports the codecs it leaves)");
    auto bind = [&]<typename Spec, typename Codec>() -> zcast_status {
      auto spec = Spec::FromJson(codec_json);
      if (!spec.ok()) return FromStatus(spec.status());
      auto codec = Codec::Bind(*spec, array->type, array->fill);
      if (!codec.ok()) return FromStatus(codec.status());
      std::string type_json =
          zcast::internal::JsonQuote(zcast::DataTypeName(codec->encoded_type()));
      *out = new zcast_codec{std::move(codec).value(), std::move(type_json)};
      return ZCAST_OK;
    };
    if (name == "scale_offset")
      return bind.template operator()<zcast::ScaleOffsetSpec, zcast::ScaleOffsetCodec>();
    return bind.template operator()<zcast::CastValueSpec, zcast::CastValueCodec>();
  });
}

zcast_status zcast_encode(const zcast_codec* codec, const void* in, size_t n, void* out) {
  if (!codec) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_encode: codec is NULL");
  return Guard([&] {
    return FromStatus(
        std::visit([&](const auto& c) { return c.Encode(in, n, out); }, codec->codec));
  });
}

zcast_status zcast_decode(const zcast_codec* codec, const void* in, size_t n, void* out) {
  if (!codec) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_decode: codec is NULL");
  return Guard([&] {
    return FromStatus(
        std::visit([&](const auto& c) { return c.Decode(in, n, out); }, codec->codec));
  });
}

const char* zcast_codec_encoded_data_type(const zcast_codec* codec) {
  return codec ? codec->encoded_data_type_json.c_str() : nullptr;
}

const char* zcast_codec_encoded_fill_value(const zcast_codec* codec) {
  if (!codec) return nullptr;
  const auto& fill =
      std::visit([](const auto& c) -> const std::optional<std::string>& {
        return c.encoded_fill_value_json();
      }, codec->codec);
  return fill ? fill->c_str() : nullptr;
}

zcast_status zcast_chain_create(const char* array_metadata_json, zcast_chain** out) {
  if (!out) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_create: out is NULL");
  *out = nullptr;
  if (!array_metadata_json)
    return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_create: array_metadata_json is NULL");
  return Guard([&] { return NewChain(zcast::Chain::FromArrayMetadata(array_metadata_json), out); });
}

zcast_status zcast_chain_create_from_codecs(const char* codecs_json,
                                            const char* array_data_type_json,
                                            const char* fill_value_json, zcast_chain** out) {
  if (!out) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_create_from_codecs: out is NULL");
  *out = nullptr;
  if (!codecs_json)
    return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_create_from_codecs: codecs_json is NULL");
  if (!array_data_type_json)
    return Fail(ZCAST_INVALID_ARGUMENT,
                "zcast_chain_create_from_codecs: array_data_type_json is NULL");
  return Guard([&]() -> zcast_status {
    auto array = ParseArrayArgs(array_data_type_json, fill_value_json);
    if (!array.ok()) return FromStatus(array.status());
    return NewChain(zcast::Chain::FromCodecs(array->type, array->fill, codecs_json), out);
  });
}

zcast_status zcast_chain_encode(const zcast_chain* chain, const void* in, size_t n, void* out) {
  if (!chain) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_encode: chain is NULL");
  return Guard([&] { return FromStatus(chain->chain.Encode(in, n, out)); });
}

zcast_status zcast_chain_decode(const zcast_chain* chain, const void* in, size_t n, void* out) {
  if (!chain) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_chain_decode: chain is NULL");
  return Guard([&] { return FromStatus(chain->chain.Decode(in, n, out)); });
}

const char* zcast_chain_encoded_data_type(const zcast_chain* chain) {
  return chain ? chain->encoded_data_type_json.c_str() : nullptr;
}

const char* zcast_chain_encoded_fill_value(const zcast_chain* chain) {
  if (!chain) return nullptr;
  const auto& fill = chain->chain.encoded_fill_value_json();
  return fill ? fill->c_str() : nullptr;
}

const char* zcast_chain_decoded_data_type(const zcast_chain* chain) {
  return chain ? chain->decoded_data_type_json.c_str() : nullptr;
}

size_t zcast_chain_encoded_element_size(const zcast_chain* chain) {
  return chain ? zcast::DataTypeSize(chain->chain.encoded_type()) : 0;
}

size_t zcast_chain_decoded_element_size(const zcast_chain* chain) {
  return chain ? zcast::DataTypeSize(chain->chain.decoded_type()) : 0;
}

const char* zcast_chain_next_codec(const zcast_chain* chain, size_t* index) {
  if (!chain) return nullptr;
  if (index) *index = chain->chain.first_unowned_index();
  return chain->next_codec_json ? chain->next_codec_json->c_str() : nullptr;
}

const char* zcast_chain_remaining_codecs(const zcast_chain* chain) {
  return chain ? chain->chain.remaining_codecs_json().c_str() : nullptr;
}

void zcast_chain_destroy(zcast_chain* chain) { delete chain; }

const char* zcast_last_error(void) { return g_last_error.c_str(); }

int zcast_last_error_element(size_t* index) {
  if (!g_last_element) return 0;
  if (index) *index = *g_last_element;
  return 1;
}

void zcast_codec_destroy(zcast_codec* codec) { delete codec; }

const char* zcast_version(void) { return ZCAST_VERSION_STRING; }

const char* zcast_simd_target(void) {
  return zcast::SimdTarget().data();  // a string literal: NUL-terminated
}
const char* zcast_simd_targets_compiled(void) {
  static const std::string names = JoinNames(zcast::SimdTargetsCompiled());
  return names.c_str();
}
const char* zcast_simd_targets_supported(void) {
  static const std::string names = JoinNames(zcast::SimdTargetsSupported());
  return names.c_str();
}

}  // extern "C"
