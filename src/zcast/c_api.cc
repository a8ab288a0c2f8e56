// The C API: a thin shim over the C++ API. Arguments are checked first, every call is wrapped in
// a catch-all so that no exception crosses into C, and failures leave their message in a
// thread-local buffer for zcast_last_error().
#include "zcast/zcast.h"

#include <exception>
#include <new>
#include <string>

#include "zcast/json.h"
#include "zcast/metadata.h"
#include "zcast/zcast.hpp"

struct zcast_codec {
  zcast::CastValueCodec codec;
  std::string encoded_data_type_json;
};

namespace {

thread_local std::string g_last_error;

zcast_status Fail(zcast_status code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

zcast_status FromStatus(const zcast::Status& st) {
  if (st.ok()) return ZCAST_OK;
  return Fail(static_cast<zcast_status>(st.code()), st.message());
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
    auto type_doc = zcast::internal::ParseJson(array_data_type_json);
    if (!type_doc.ok())
      return Fail(ZCAST_INVALID_METADATA, "array data_type: " + type_doc.status().message());
    auto array_type = zcast::internal::ParseDataTypeJson(*type_doc, "array data_type");
    if (!array_type.ok()) return FromStatus(array_type.status());
    auto spec = zcast::CastValueSpec::FromJson(codec_json);
    if (!spec.ok()) return FromStatus(spec.status());
    std::optional<std::string_view> fill;
    if (fill_value_json) fill = fill_value_json;
    auto codec = zcast::CastValueCodec::Bind(*spec, *array_type, fill);
    if (!codec.ok()) return FromStatus(codec.status());
    std::string type_json = zcast::internal::JsonQuote(zcast::DataTypeName(codec->encoded_type()));
    *out = new zcast_codec{std::move(codec).value(), std::move(type_json)};
    return ZCAST_OK;
  });
}

zcast_status zcast_encode(const zcast_codec* codec, const void* in, size_t n, void* out) {
  if (!codec) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_encode: codec is NULL");
  return Guard([&] { return FromStatus(codec->codec.Encode(in, n, out)); });
}

zcast_status zcast_decode(const zcast_codec* codec, const void* in, size_t n, void* out) {
  if (!codec) return Fail(ZCAST_INVALID_ARGUMENT, "zcast_decode: codec is NULL");
  return Guard([&] { return FromStatus(codec->codec.Decode(in, n, out)); });
}

const char* zcast_codec_encoded_data_type(const zcast_codec* codec) {
  return codec ? codec->encoded_data_type_json.c_str() : nullptr;
}

const char* zcast_codec_encoded_fill_value(const zcast_codec* codec) {
  if (!codec) return nullptr;
  const auto& fill = codec->codec.encoded_fill_value_json();
  return fill ? fill->c_str() : nullptr;
}

const char* zcast_last_error(void) { return g_last_error.c_str(); }

void zcast_codec_destroy(zcast_codec* codec) { delete codec; }

const char* zcast_version(void) { return ZCAST_VERSION_STRING; }

}  // extern "C"
