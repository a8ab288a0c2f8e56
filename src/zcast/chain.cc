// The array -> array chain: resolves the leading codecs that zcast owns from an array's metadata
// and runs them together (zcast.hpp, Chain). Rules R25-R26 (new; see docs) come from this file.
#include <charconv>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/json.h"
#include "zcast/metadata.h"
#include "zcast/scalar_json.h"
#include "zcast/zcast.hpp"

namespace zcast {

using internal::JsonQuote;
using internal::JsonValue;

struct Chain::State {
  std::vector<Step> steps;
  // types[k] is the input type of steps[k] in the encode direction; types.back() is the encoded
  // type (types.size() == steps.size() + 1).
  std::vector<DataType> types;
  std::optional<std::string> encoded_fill;
  std::size_t first_unowned_index = 0;
  std::string first_unowned_name;
  std::string remaining_codecs_json = "[]";
};

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidMetadata, "invalid array metadata: " + std::move(message));
}

std::string Where(std::size_t i) { return "codecs[" + std::to_string(i) + "]"; }

// A codec entry is {"name": ..., ...} or, for codecs without configuration, its bare name.
Result<std::string> CodecName(const JsonValue& c, std::size_t i) {
  if (c.type == JsonValue::Type::kString) return c.text;
  if (c.type == JsonValue::Type::kObject) {
    const JsonValue* name = c.Find("name");
    if (name && name->type == JsonValue::Type::kString) return name->text;
  }
  return Invalid(Where(i) + " must be a codec name or an object with a string \"name\", got " +
                 c.Dump());
}

// Zarr v2 data type metadata as numcodecs writes it ("<f8", "|u1", "f4"; byte order ignored: the
// array -> array codecs see native-endian elements), or a Zarr v3 name ("float32").
std::optional<DataType> V2DataType(std::string_view s) {
  if (auto t = DataTypeFromName(s)) return t;
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) s.remove_prefix(1);
  static constexpr std::pair<std::string_view, DataType> kNames[] = {
      {"i1", DataType::int8},    {"i2", DataType::int16},   {"i4", DataType::int32},
      {"i8", DataType::int64},   {"u1", DataType::uint8},   {"u2", DataType::uint16},
      {"u4", DataType::uint32},  {"u8", DataType::uint64},  {"f2", DataType::float16},
      {"f4", DataType::float32}, {"f8", DataType::float64},
  };
  for (const auto& [name, type] : kNames) {
    if (name == s) return type;
  }
  return std::nullopt;
}

// numcodecs.fixedscaleoffset {offset, scale, dtype, astype} read as
// [scale_offset{offset, scale}, cast_value{data_type: astype, out_of_range: "wrap"}]
// (semantics.md "scale_offset"; R25 for the open points).
Status ExpandFixedScaleOffset(const JsonValue& c, std::size_t i, DataType input,
                              std::string* scale_offset_json, std::string* cast_value_json) {
  std::string where = Where(i) + " (numcodecs.fixedscaleoffset)";
  const JsonValue* config = c.type == JsonValue::Type::kObject ? c.Find("configuration") : nullptr;
  if (!config || config->type != JsonValue::Type::kObject)
    return Invalid(where + " needs a \"configuration\" object");
  for (const auto& [key, member] : c.object) {
    if (key != "name" && key != "configuration")
      return Invalid(where + ": unknown key " + JsonQuote(key) + " (R13)");
  }
  const JsonValue *offset = nullptr, *scale = nullptr, *dtype = nullptr, *astype = nullptr;
  for (const auto& [key, v] : config->object) {
    if (key == "offset") offset = &v;
    else if (key == "scale") scale = &v;
    else if (key == "dtype") dtype = &v;
    else if (key == "astype") astype = &v;
    else if (key == "id" && v.type == JsonValue::Type::kString && v.text == "fixedscaleoffset")
      continue;  // R25: the numcodecs v2 "id" member, when a v2 config was carried over as is
    else return Invalid(where + ": unknown key " + JsonQuote(key) + " in \"configuration\" (R13)");
  }
  for (auto [key, v] : {std::pair{"offset", offset}, std::pair{"scale", scale}}) {
    if (!v) return Invalid(where + ": missing required key \"" + key + "\"");
    if (v->type != JsonValue::Type::kNumber)
      return Invalid(where + ": \"" + key + "\" must be a JSON number, got " + v->Dump());
  }
  if (!dtype) return Invalid(where + ": missing required key \"dtype\"");
  auto parse_type = [&](const JsonValue* v, const char* key) -> Result<DataType> {
    std::optional<DataType> t;
    if (v->type == JsonValue::Type::kString) t = V2DataType(v->text);
    if (!t)
      return Invalid(where + ": \"" + key + "\" " + v->Dump() +
                     " is not a supported numeric data type");
    return *t;
  };
  auto dtype_type = parse_type(dtype, "dtype");
  if (!dtype_type.ok()) return dtype_type.status();
  if (*dtype_type != input)
    return Invalid(where + ": \"dtype\" " + dtype->Dump() + " is " +
                   std::string(DataTypeName(*dtype_type)) + ", but the codec's input is " +
                   std::string(DataTypeName(input)));
  DataType astype_type = *dtype_type;  // R25: astype defaults to dtype, as in numcodecs
  if (astype) {
    auto t = parse_type(astype, "astype");
    if (!t.ok()) return t.status();
    astype_type = *t;
  }
  if (!internal::Info(astype_type).is_int())
    return Invalid(where + ": \"astype\" " + std::string(DataTypeName(astype_type)) +
                   " is not an integer type; the legacy codec rounds to integers and wraps, which "
                   "cast_value expresses only for integer types (R4, R25)");
  *scale_offset_json = R"({"name":"scale_offset","configuration":{"offset":)" + offset->Dump() +
                       ",\"scale\":" + scale->Dump() + "}}";
  *cast_value_json = R"({"name":"cast_value","configuration":{"data_type":)" +
                     JsonQuote(DataTypeName(astype_type)) + R"(,"out_of_range":"wrap"}})";
  return Status();
}

// Binds one owned codec (as JSON text) to the current type and fill, appending it to `state`.
template <typename Spec, typename Codec>
Status Append(const std::string& codec_json, std::size_t i, Chain::State* state,
              std::optional<std::string>* fill) {
  auto spec = Spec::FromJson(codec_json);
  if (!spec.ok()) return Invalid(Where(i) + ": " + spec.status().message());
  std::optional<std::string_view> fill_view;
  if (*fill) fill_view = **fill;
  auto codec = Codec::Bind(*spec, state->types.back(), fill_view);
  if (!codec.ok()) return Invalid(Where(i) + ": " + codec.status().message());
  *fill = codec->encoded_fill_value_json();
  state->types.push_back(codec->encoded_type());
  state->steps.emplace_back(std::move(codec).value());
  return Status();
}

Result<Chain::State> Build(DataType array_type, std::optional<std::string> fill,
                           const JsonValue& codecs) {
  if (codecs.type != JsonValue::Type::kArray)
    return Invalid("\"codecs\" must be an array, got " + codecs.Dump());
  Chain::State state;
  state.types.push_back(array_type);
  if (fill) {
    // The array's own fill value is validated (and canonicalized) even when no codec is owned.
    auto doc = internal::ParseJson(*fill);
    if (!doc.ok()) return Invalid("fill_value: " + doc.status().message());
    auto bits = internal::ParseJsonScalar(*doc, array_type);
    if (!bits.ok()) return Invalid("fill_value: " + bits.status().message());
    fill = internal::FormatJsonScalar(array_type, *bits);
  }
  std::size_t i = 0;
  for (; i < codecs.array.size(); ++i) {
    const JsonValue& c = codecs.array[i];
    auto name = CodecName(c, i);
    if (!name.ok()) return name.status();
    // A bare name stands for {"name": name} (R26).
    std::string json =
        c.type == JsonValue::Type::kString ? R"({"name":)" + c.Dump() + "}" : c.Dump();
    Status st;
    if (*name == "scale_offset") {
      st = Append<ScaleOffsetSpec, ScaleOffsetCodec>(json, i, &state, &fill);
    } else if (*name == "cast_value") {
      st = Append<CastValueSpec, CastValueCodec>(json, i, &state, &fill);
    } else if (*name == "numcodecs.fixedscaleoffset") {
      std::string so, cv;
      st = ExpandFixedScaleOffset(c, i, state.types.back(), &so, &cv);
      if (st.ok()) st = Append<ScaleOffsetSpec, ScaleOffsetCodec>(so, i, &state, &fill);
      if (st.ok()) st = Append<CastValueSpec, CastValueCodec>(cv, i, &state, &fill);
    } else {
      // R26: the chain owns only the leading run; everything from here is the reader's.
      state.first_unowned_name = *name;
      break;
    }
    if (!st.ok()) return st;
  }
  state.first_unowned_index = i;
  std::string rest = "[";
  for (std::size_t k = i; k < codecs.array.size(); ++k) {
    if (k > i) rest += ',';
    rest += codecs.array[k].Dump();
  }
  state.remaining_codecs_json = rest + "]";
  state.encoded_fill = std::move(fill);
  return state;
}

Status RunStep(const Chain::Step& step, bool encode, const void* in, std::size_t n, void* out) {
  return std::visit(
      [&](const auto& codec) {
        return encode ? codec.Encode(in, n, out) : codec.Decode(in, n, out);
      },
      step);
}

// The codecs name the failing element only in their message, "element N: reason" (spelled by
// internal::RunCodecKernel; the Python package parses it too), so N is read back from it.
std::optional<std::size_t> FailingElement(std::string_view message) {
  constexpr std::string_view kPrefix = "element ";
  if (!message.starts_with(kPrefix)) return std::nullopt;
  std::size_t index = 0;
  const char* end = message.data() + message.size();
  auto [rest, ec] = std::from_chars(message.data() + kPrefix.size(), end, index);
  if (ec != std::errc() || !std::string_view(rest, end - rest).starts_with(": "))
    return std::nullopt;
  return index;
}

// A codec after the first sees the previous codecs' output, so its message quotes an
// intermediate value the caller never wrote. The caller's element (its value as an R17 JSON
// scalar) is added, and the intermediate one labelled; the index stays first, and the same.
Status WithInputElement(const Chain::State& s, bool encode, std::size_t failed_run_step,
                        const void* in, Status st) {
  std::optional<std::size_t> index = FailingElement(st.message());
  if (!index) return st;
  std::size_t m = s.steps.size();
  std::string after;
  for (std::size_t k = 0; k < failed_run_step; ++k) {
    const Chain::Step& step = s.steps[encode ? k : m - 1 - k];
    after += std::string(k ? ", " : "") +
             (std::holds_alternative<ScaleOffsetCodec>(step) ? "scale_offset" : "cast_value") +
             (encode ? " encode" : " decode");
  }
  DataType in_type = encode ? s.types.front() : s.types.back();
  std::size_t size = DataTypeSize(in_type);
  std::uint64_t bits =
      internal::LoadBits(static_cast<const unsigned char*>(in) + *index * size, size);
  return Status(st.code(), st.message() + " (intermediate value after " + after +
                               "; input element: " + std::string(DataTypeName(in_type)) +
                               " value " + internal::DescribeBits(in_type, bits) + ")");
}

// The definition: each codec over the whole buffer, one after the other (decode in reverse).
Status RunUnfused(const Chain::State& s, bool encode, const void* in, std::size_t n, void* out) {
  std::size_t m = s.steps.size();
  std::vector<unsigned char> buffers[2];
  const void* src = in;
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t idx = encode ? k : m - 1 - k;
    DataType out_type = encode ? s.types[idx + 1] : s.types[idx];
    void* dst = out;
    if (k + 1 < m) {
      buffers[k % 2].resize(n * DataTypeSize(out_type));
      dst = buffers[k % 2].data();
    }
    if (Status st = RunStep(s.steps[idx], encode, src, n, dst); !st.ok())
      return k == 0 ? st : WithInputElement(s, encode, k, in, std::move(st));
    src = dst;
  }
  return Status();
}

// One pass over memory: blocks of kBlock elements go through every step via two small stack
// buffers (2 x 8 KiB). Any failure hands the whole call to RunUnfused, which reports exactly the
// error the unfused sequence reports (the first failing element of the first failing codec over
// the whole buffer), so fused and unfused agree on errors as well as on values.
Status Run(const Chain::State& s, bool encode, const void* in, std::size_t n, void* out) {
  if (n == 0) return Status();
  if (!in || !out) return Status(StatusCode::kInvalidArgument, "null buffer with n > 0");
  std::size_t m = s.steps.size();
  if (m == 0) {
    std::memcpy(out, in, n * DataTypeSize(s.types[0]));
    return Status();
  }
  if (m == 1) return RunStep(s.steps[0], encode, in, n, out);
  constexpr std::size_t kBlock = 1024;
  alignas(64) unsigned char buffers[2][kBlock * 8];
  std::size_t in_size = DataTypeSize(encode ? s.types.front() : s.types.back());
  std::size_t out_size = DataTypeSize(encode ? s.types.back() : s.types.front());
  for (std::size_t start = 0; start < n; start += kBlock) {
    std::size_t len = std::min(kBlock, n - start);
    const void* src = static_cast<const unsigned char*>(in) + start * in_size;
    for (std::size_t k = 0; k < m; ++k) {
      std::size_t idx = encode ? k : m - 1 - k;
      void* dst = k + 1 < m ? static_cast<void*>(buffers[k % 2])
                            : static_cast<unsigned char*>(out) + start * out_size;
      if (!RunStep(s.steps[idx], encode, src, len, dst).ok())
        return RunUnfused(s, encode, in, n, out);
      src = dst;
    }
  }
  return Status();
}

}  // namespace

Result<Chain> Chain::FromCodecs(DataType array_type,
                                std::optional<std::string_view> fill_value_json,
                                std::string_view codecs_json) {
  auto codecs = internal::ParseJson(codecs_json);
  if (!codecs.ok()) return Invalid("codecs: " + codecs.status().message());
  std::optional<std::string> fill;
  if (fill_value_json) fill = std::string(*fill_value_json);
  auto state = Build(array_type, std::move(fill), *codecs);
  if (!state.ok()) return state.status();
  return Chain(std::make_shared<const State>(std::move(state).value()));
}

Result<Chain> Chain::FromArrayMetadata(std::string_view zarr_json) {
  auto doc = internal::ParseJson(zarr_json);
  if (!doc.ok()) return Invalid(doc.status().message());
  const JsonValue& root = *doc;
  if (root.type != JsonValue::Type::kObject)
    return Invalid("zarr.json must be a JSON object, got " + root.Dump());
  if (const JsonValue* f = root.Find("zarr_format");
      f && !(f->type == JsonValue::Type::kNumber && f->text == "3"))
    return Invalid("\"zarr_format\" must be 3, got " + f->Dump());
  if (const JsonValue* t = root.Find("node_type");
      t && !(t->type == JsonValue::Type::kString && t->text == "array"))
    return Invalid("\"node_type\" must be \"array\", got " + t->Dump());
  const JsonValue* data_type = root.Find("data_type");
  if (!data_type) return Invalid("missing required key \"data_type\"");
  auto type = internal::ParseDataTypeJson(*data_type, "data_type");
  if (!type.ok()) return Invalid(type.status().message());
  // R26: a missing or null fill_value means "no fill value" (nothing to transform).
  std::optional<std::string> fill;
  if (const JsonValue* f = root.Find("fill_value"); f && f->type != JsonValue::Type::kNull)
    fill = f->Dump();
  const JsonValue* codecs = root.Find("codecs");
  if (!codecs) return Invalid("missing required key \"codecs\"");
  auto state = Build(*type, std::move(fill), *codecs);
  if (!state.ok()) return state.status();
  return Chain(std::make_shared<const State>(std::move(state).value()));
}

DataType Chain::decoded_type() const { return state_->types.front(); }
DataType Chain::encoded_type() const { return state_->types.back(); }
const std::optional<std::string>& Chain::encoded_fill_value_json() const {
  return state_->encoded_fill;
}
const std::vector<Chain::Step>& Chain::steps() const { return state_->steps; }
std::size_t Chain::first_unowned_index() const { return state_->first_unowned_index; }
const std::string& Chain::first_unowned_name() const { return state_->first_unowned_name; }
const std::string& Chain::remaining_codecs_json() const { return state_->remaining_codecs_json; }

Status Chain::Encode(const void* in, std::size_t n, void* out) const {
  return Run(*state_, true, in, n, out);
}

Status Chain::Decode(const void* in, std::size_t n, void* out) const {
  return Run(*state_, false, in, n, out);
}

}  // namespace zcast
