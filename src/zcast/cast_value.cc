// cast_value: metadata (spec), binding to an array (codec state) and the buffer entry points.
#include <string>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/json.h"
#include "zcast/element_error.h"
#include "zcast/kernels.h"
#include "zcast/metadata.h"
#include "zcast/scalar_json.h"
#include "zcast/zcast.hpp"

namespace zcast {

using internal::ConvertScalar;
using internal::Direction;
using internal::Info;
using internal::BriefJson;
using internal::JsonQuote;
using internal::JsonValue;

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidMetadata, "invalid cast_value metadata: " + std::move(message));
}

std::string Quoted(std::string_view key) { return internal::BriefQuote(key); }

constexpr Rounding kAllRoundings[] = {Rounding::kNearestEven, Rounding::kNearestAway,
                                      Rounding::kTowardsZero, Rounding::kTowardsPositive,
                                      Rounding::kTowardsNegative};

}  // namespace

namespace internal {

// R12: "X", {"name": "X"} or {"name": "X", "configuration": {}}. Shared with the C API, which
// receives the array's data type in the same form. `where` names the key for messages.
Result<DataType> ParseDataTypeJson(const JsonValue& v, std::string_view where) {
  const JsonValue* name = &v;
  if (v.type == JsonValue::Type::kObject) {
    for (const auto& [key, member] : v.object) {
      if (key == "configuration") {
        if (member.type != JsonValue::Type::kObject || !member.object.empty())
          return Status(StatusCode::kInvalidMetadata,
                        std::string(where) + ".configuration must be {} for " +
                            "the data types zcast supports, got " + BriefJson(member) + " (R12)");
      } else if (key != "name") {
        return Status(StatusCode::kInvalidMetadata, "unknown key " + Quoted(key) + " in " +
                                                        std::string(where) + " (R12)");
      }
    }
    name = v.Find("name");
    if (!name)
      return Status(StatusCode::kInvalidMetadata,
                    std::string(where) + " object lacks \"name\" (R12)");
  }
  if (name->type != JsonValue::Type::kString)
    return Status(StatusCode::kInvalidMetadata,
                  std::string(where) + " must be a data type name string or object, got " +
                      BriefJson(v));
  auto type = DataTypeFromName(name->text);
  if (!type)
    return Status(StatusCode::kInvalidMetadata, std::string(where) + " " + Quoted(name->text) +
                                                    " is not one of the 26 supported data types");
  return *type;
}

}  // namespace internal

namespace {

// Parses scalar_map.encode or .decode: an array of [input, output] arrays (R11, R13).
Status ParseMapEntries(const JsonValue& v, std::string_view which,
                       std::vector<std::pair<std::string, std::string>>* out) {
  std::string where = "scalar_map." + std::string(which);
  if (v.type != JsonValue::Type::kArray)
    return Invalid(where + " must be an array of [input, output] pairs, got " + BriefJson(v));
  for (std::size_t i = 0; i < v.array.size(); ++i) {
    const JsonValue& pair = v.array[i];
    if (pair.type != JsonValue::Type::kArray || pair.array.size() != 2)
      return Invalid(where + "[" + std::to_string(i) + "] must be a two-element array, got " +
                     BriefJson(pair));
    out->emplace_back(pair.array[0].Dump(), pair.array[1].Dump());
  }
  return Status();
}

}  // namespace

Result<CastValueSpec> CastValueSpec::FromJson(std::string_view codec_json) {
  auto doc = internal::ParseJson(codec_json);
  if (!doc.ok()) return Invalid(doc.status().message());
  const JsonValue& root = *doc;
  if (root.type != JsonValue::Type::kObject)
    return Invalid("codec metadata must be a JSON object, got " + BriefJson(root));
  for (const auto& [key, member] : root.object) {
    if (key != "name" && key != "configuration")
      return Invalid("unknown key " + Quoted(key) + " in codec metadata (R13)");
  }
  const JsonValue* name = root.Find("name");
  if (!name) return Invalid("missing required key \"name\"");
  if (name->type != JsonValue::Type::kString || name->text != "cast_value")
    return Invalid("\"name\" must be \"cast_value\", got " + BriefJson(*name));
  const JsonValue* config = root.Find("configuration");
  if (!config) return Invalid("missing required key \"configuration\"");
  if (config->type != JsonValue::Type::kObject)
    return Invalid("\"configuration\" must be an object, got " + BriefJson(*config));

  CastValueSpec spec;
  bool has_data_type = false;
  for (const auto& [key, v] : config->object) {
    if (key == "data_type") {
      auto t = internal::ParseDataTypeJson(v, "data_type");
      if (!t.ok()) return Invalid(t.status().message());
      spec.data_type = *t;
      has_data_type = true;
    } else if (key == "rounding") {
      bool found = false;
      if (v.type == JsonValue::Type::kString) {
        for (Rounding r : kAllRoundings) {
          if (RoundingName(r) == v.text) { spec.rounding = r; found = true; }
        }
      }
      if (!found)
        return Invalid("\"rounding\" " + BriefJson(v) +
                       " is not one of \"nearest-even\", \"nearest-away\", \"towards-zero\", "
                       "\"towards-positive\", \"towards-negative\"");
    } else if (key == "out_of_range") {
      if (v.type == JsonValue::Type::kString && v.text == "clamp") {
        spec.out_of_range = OutOfRange::kClamp;
      } else if (v.type == JsonValue::Type::kString && v.text == "wrap") {
        spec.out_of_range = OutOfRange::kWrap;
      } else {
        return Invalid("\"out_of_range\" " + BriefJson(v) + " is not one of \"clamp\", \"wrap\"");
      }
    } else if (key == "scalar_map") {
      if (v.type != JsonValue::Type::kObject)
        return Invalid("\"scalar_map\" must be an object, got " + BriefJson(v));
      spec.has_scalar_map = true;
      for (const auto& [mkey, entries] : v.object) {
        std::vector<std::pair<std::string, std::string>>* target;
        if (mkey == "encode") target = &spec.encode_map.emplace();
        else if (mkey == "decode") target = &spec.decode_map.emplace();
        else return Invalid("unknown key " + Quoted(mkey) + " in \"scalar_map\" (R13)");
        if (Status st = ParseMapEntries(entries, mkey, target); !st.ok()) return st;
      }
    } else {
      return Invalid("unknown key " + Quoted(key) + " in \"configuration\" (R13)");
    }
  }
  if (!has_data_type) return Invalid("missing required key \"data_type\" in \"configuration\"");
  if (spec.out_of_range == OutOfRange::kWrap && !Info(spec.data_type).is_int())
    return Invalid("\"out_of_range\": \"wrap\" requires an integer data_type, got " +
                   Quoted(DataTypeName(spec.data_type)) + " (R4)");
  return spec;
}

std::string CastValueSpec::ToJson() const {
  std::string c = "{\"data_type\":" + JsonQuote(DataTypeName(data_type));
  if (rounding) c += ",\"rounding\":" + JsonQuote(RoundingName(*rounding));
  if (out_of_range != OutOfRange::kUnset)
    c += ",\"out_of_range\":" + JsonQuote(OutOfRangeName(out_of_range));
  if (has_scalar_map) {
    c += ",\"scalar_map\":{";
    auto write = [&c](std::string_view key, const auto& entries, bool first) {
      if (!first) c += ",";
      c += JsonQuote(key) + ":[";
      for (std::size_t i = 0; i < entries.size(); ++i) {
        c += (i ? ",[" : "[") + entries[i].first + "," + entries[i].second + "]";
      }
      c += "]";
    };
    if (encode_map) write("encode", *encode_map, true);
    if (decode_map) write("decode", *decode_map, !encode_map);
    c += "}";
  }
  return "{\"name\":\"cast_value\",\"configuration\":" + c + "}}";
}

struct CastValueCodec::State {
  CastValueSpec spec;
  Direction encode, decode;
  std::unique_ptr<const internal::Kernel> encode_kernel, decode_kernel;
  std::optional<std::string> encoded_fill;
};

namespace {

// Parses one JSON scalar text of `type`; `where` prefixes the message (e.g. "fill_value").
Result<std::uint64_t> ParseScalarText(std::string_view text, DataType type, const std::string& where) {
  auto v = internal::ParseJson(text);
  if (!v.ok()) return Invalid(where + ": " + v.status().message());
  auto bits = internal::ParseJsonScalar(*v, type);
  if (!bits.ok()) return Invalid(where + ": " + bits.status().message() + " (R11)");
  return *bits;
}

// Builds the typed scalar map of one direction, keeping only a key's first occurrence (R10).
Status BindMap(const std::optional<std::vector<std::pair<std::string, std::string>>>& entries,
               std::string_view which, Direction* dir) {
  if (!entries) return Status();
  for (std::size_t i = 0; i < entries->size(); ++i) {
    std::string where = "scalar_map." + std::string(which) + "[" + std::to_string(i) + "]";
    auto key = ParseScalarText((*entries)[i].first, dir->src, where + "[0]");
    if (!key.ok()) return key.status();
    auto value = ParseScalarText((*entries)[i].second, dir->dst, where + "[1]");
    if (!value.ok()) return value.status();
    bool repeated = false;
    for (const auto& [k, v] : dir->map) repeated |= internal::SameScalar(dir->src, k, *key);
    if (!repeated) dir->map.emplace_back(*key, *value);
  }
  return Status();
}

std::string DescribeFailure(const Direction& dir, std::uint64_t bits) {
  internal::CastOutcome r = ConvertScalar(dir, bits);
  return internal::DescribeError(r.error, dir.src, bits, dir.dst, dir.out_of_range);
}

Status Run(const Direction& dir, const internal::Kernel& kernel, const void* in, std::size_t n,
           void* out) {
  return internal::RunElementKernel(kernel, dir.src, in, n, out, [&dir](std::uint64_t bits) {
    return DescribeFailure(dir, bits);
  });
}

}  // namespace

Result<CastValueCodec> CastValueCodec::Bind(const CastValueSpec& spec, DataType array_type,
                                            std::optional<std::string_view> fill_value_json) {
  auto state = std::make_shared<State>();
  state->spec = spec;
  // Direction.out_of_range keeps "wrap" even when decoding into a float array: the engine treats
  // it as unset there (R4) and the error message can say why.
  state->encode = {array_type, spec.data_type, spec.effective_rounding(), spec.out_of_range, {}};
  state->decode = {spec.data_type, array_type, spec.effective_rounding(), spec.out_of_range, {}};
  if (Status st = BindMap(spec.encode_map, "encode", &state->encode); !st.ok()) return st;
  if (Status st = BindMap(spec.decode_map, "decode", &state->decode); !st.ok()) return st;

  if (fill_value_json) {
    // R9: decode(encode(fill)) must give the fill back (any NaN for NaN; else value and sign).
    auto fill = ParseScalarText(*fill_value_json, array_type, "fill_value");
    if (!fill.ok()) return fill.status();
    std::string fill_text = internal::DescribeBits(array_type, *fill);
    internal::CastOutcome enc = ConvertScalar(state->encode, *fill);
    if (enc.error != internal::CastError::kNone)
      return Invalid("fill_value " + fill_text + " cannot be encoded: " +
                     DescribeFailure(state->encode, *fill) + " (R9)");
    internal::CastOutcome dec = ConvertScalar(state->decode, enc.bits);
    if (dec.error != internal::CastError::kNone)
      return Invalid("fill_value " + fill_text + " encodes to " +
                     internal::DescribeBits(spec.data_type, enc.bits) + " which cannot be decoded: " +
                     DescribeFailure(state->decode, enc.bits) + " (R9)");
    if (!internal::SameScalar(array_type, *fill, dec.bits))
      return Invalid("fill_value " + fill_text + " does not survive the round trip: it encodes to " +
                     internal::DescribeBits(spec.data_type, enc.bits) + " and decodes to " +
                     internal::DescribeBits(array_type, dec.bits) + " (R9)");
    state->encoded_fill = internal::FormatJsonScalar(spec.data_type, enc.bits);
  }
  state->encode_kernel = internal::SelectKernel(state->encode);
  state->decode_kernel = internal::SelectKernel(state->decode);
  return CastValueCodec(std::move(state));
}

const CastValueSpec& CastValueCodec::spec() const { return state_->spec; }
DataType CastValueCodec::decoded_type() const { return state_->encode.src; }
DataType CastValueCodec::encoded_type() const { return state_->encode.dst; }
const std::optional<std::string>& CastValueCodec::encoded_fill_value_json() const {
  return state_->encoded_fill;
}

Status CastValueCodec::Encode(const void* in, std::size_t n, void* out) const {
  return Run(state_->encode, *state_->encode_kernel, in, n, out);
}

Status CastValueCodec::Decode(const void* in, std::size_t n, void* out) const {
  return Run(state_->decode, *state_->decode_kernel, in, n, out);
}

}  // namespace zcast
