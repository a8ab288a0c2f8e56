// The array -> array chain: resolves the leading codecs that zcast owns from an array's metadata
// (zcast.hpp, Chain). Rules R25-R26 (new; see docs) come from this file; running the codecs is
// chain_run.cc (R32-R33), the bind-time R32 decision chain_decode_check.cc.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcast/chain_state.h"
#include "zcast/dtype.h"
#include "zcast/json.h"
#include "zcast/metadata.h"
#include "zcast/scalar_json.h"
#include "zcast/zcast.hpp"

namespace zcast {

using internal::BriefJson;
using internal::BriefQuote;
using internal::JsonQuote;
using internal::JsonValue;

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
                 BriefJson(c));
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
      return Invalid(where + ": unknown key " + BriefQuote(key) + " (R13)");
  }
  const JsonValue *offset = nullptr, *scale = nullptr, *dtype = nullptr, *astype = nullptr;
  for (const auto& [key, v] : config->object) {
    if (key == "offset") offset = &v;
    else if (key == "scale") scale = &v;
    else if (key == "dtype") dtype = &v;
    else if (key == "astype") astype = &v;
    else if (key == "id" && v.type == JsonValue::Type::kString && v.text == "fixedscaleoffset")
      continue;  // R25: the numcodecs v2 "id" member, when a v2 config was carried over as is
    else return Invalid(where + ": unknown key " + BriefQuote(key) + " in \"configuration\" (R13)");
  }
  for (auto [key, v] : {std::pair{"offset", offset}, std::pair{"scale", scale}}) {
    if (!v) return Invalid(where + ": missing required key \"" + key + "\"");
    if (v->type != JsonValue::Type::kNumber)
      return Invalid(where + ": \"" + key + "\" must be a JSON number, got " + BriefJson(*v));
  }
  if (!dtype) return Invalid(where + ": missing required key \"dtype\"");
  auto parse_type = [&](const JsonValue* v, const char* key) -> Result<DataType> {
    std::optional<DataType> t;
    if (v->type == JsonValue::Type::kString) t = V2DataType(v->text);
    if (!t)
      return Invalid(where + ": \"" + key + "\" " + BriefJson(*v) +
                     " is not a supported numeric data type");
    return *t;
  };
  auto dtype_type = parse_type(dtype, "dtype");
  if (!dtype_type.ok()) return dtype_type.status();
  if (*dtype_type != input)
    return Invalid(where + ": \"dtype\" " + BriefJson(*dtype) + " is " +
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
    return Invalid("\"codecs\" must be an array, got " + BriefJson(codecs));
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
  state.verify_encode = internal::ChainDecodeCanFail(state);  // R32
  return state;
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
    return Invalid("zarr.json must be a JSON object, got " + BriefJson(root));
  if (const JsonValue* f = root.Find("zarr_format");
      f && !(f->type == JsonValue::Type::kNumber && f->text == "3"))
    return Invalid("\"zarr_format\" must be 3, got " + BriefJson(*f));
  if (const JsonValue* t = root.Find("node_type");
      t && !(t->type == JsonValue::Type::kString && t->text == "array"))
    return Invalid("\"node_type\" must be \"array\", got " + BriefJson(*t));
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
bool Chain::encode_verifies_decode() const { return state_->verify_encode; }

Status Chain::Encode(const void* in, std::size_t n, void* out) const {
  return internal::RunChain(*state_, /*encode=*/true, in, n, out);
}

Status Chain::Decode(const void* in, std::size_t n, void* out) const {
  return internal::RunChain(*state_, /*encode=*/false, in, n, out);
}

}  // namespace zcast
