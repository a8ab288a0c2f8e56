// scale_offset's metadata (ScaleOffsetSpec: JSON in and out) and its binding to an array
// (ScaleOffsetCodec: parameters of the array's type, the fill value, the kernels chosen). The
// arithmetic, exact path and kernels are in scale_offset.cc; semantics.md "scale_offset" and rules
// R20-R24.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "zcast/element_error.h"
#include "zcast/exact.h"
#include "zcast/json.h"
#include "zcast/scalar_json.h"
#include "zcast/scale_offset.h"
#include "zcast/zcast.hpp"

namespace zcast {

using internal::JsonValue;

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidMetadata,
                "invalid scale_offset metadata: " + std::move(message));
}

// Parses one JSON scalar text as a value of `type`; `where` names it in messages.
Result<std::uint64_t> ParseScalarText(const std::string& text, DataType type,
                                      const std::string& where) {
  auto v = internal::ParseJson(text);
  if (!v.ok()) return Invalid(where + ": " + v.status().message());
  auto bits = internal::ParseJsonScalar(*v, type);
  if (!bits.ok()) return Invalid(where + ": " + bits.status().message());
  return *bits;
}

// R22: offset and scale are finite scalars of the array type, and scale is not zero.
Result<std::uint64_t> ParseParameter(const std::string& text, DataType type, bool is_scale) {
  const char* key = is_scale ? "scale" : "offset";
  auto bits = ParseScalarText(text, type, std::string("\"") + key + "\"");
  if (!bits.ok()) return bits.status();
  internal::ExactValue v = internal::DecodeBits(type, *bits);
  if (v.cls != internal::ValueClass::kFinite)
    return Invalid(std::string("\"") + key + "\" " + internal::Brief(text) + " must be finite (R22)");
  if (is_scale && v.mag == 0)
    return Invalid("\"scale\" " + internal::Brief(text) + " is zero as a " + std::string(DataTypeName(type)) +
                   " value; decoding divides by scale (R22)");
  return *bits;
}

Status Run(const internal::ScaleOffsetParams& p, bool encode, const internal::Kernel& kernel,
           const void* in, std::size_t n, void* out) {
  return internal::RunElementKernel(kernel, p.type, in, n, out, [&p, encode](std::uint64_t bits) {
    return std::string("scale_offset ") + (encode ? "encode" : "decode") + " of " +
           internal::DescribeScaleOffsetFailure(p, encode, bits);
  });
}

}  // namespace

Result<ScaleOffsetSpec> ScaleOffsetSpec::FromJson(std::string_view codec_json) {
  auto doc = internal::ParseJson(codec_json);
  if (!doc.ok()) return Invalid(doc.status().message());
  const JsonValue& root = *doc;
  if (root.type != JsonValue::Type::kObject)
    return Invalid("codec metadata must be a JSON object, got " + internal::BriefJson(root));
  for (const auto& [key, member] : root.object) {
    if (key != "name" && key != "configuration")
      return Invalid("unknown key " + internal::BriefQuote(key) + " in codec metadata (R13)");
  }
  const JsonValue* name = root.Find("name");
  if (!name) return Invalid("missing required key \"name\"");
  if (name->type != JsonValue::Type::kString || name->text != "scale_offset")
    return Invalid("\"name\" must be \"scale_offset\", got " + internal::BriefJson(*name));
  ScaleOffsetSpec spec;
  const JsonValue* config = root.Find("configuration");
  if (!config) {  // R21: {"name": "scale_offset"} is the identity, as zarr-python writes it
    spec.has_configuration = false;
    return spec;
  }
  if (config->type != JsonValue::Type::kObject)
    return Invalid("\"configuration\" must be an object, got " + internal::BriefJson(*config));
  for (const auto& [key, v] : config->object) {
    std::optional<std::string>* target;
    if (key == "offset") target = &spec.offset;
    else if (key == "scale") target = &spec.scale;
    else return Invalid("unknown key " + internal::BriefQuote(key) + " in \"configuration\" (R13)");
    // A JSON scalar (semantics.md): a number or a string ("NaN", "0x..."); null, booleans,
    // arrays and objects are wrong JSON types (R13). The value itself is checked by Bind.
    if (v.type != JsonValue::Type::kNumber && v.type != JsonValue::Type::kString)
      return Invalid(internal::BriefQuote(key) + " must be a JSON number or string scalar, got " +
                     internal::BriefJson(v) + " (R13)");
    *target = v.Dump();
  }
  return spec;
}

std::string ScaleOffsetSpec::ToJson() const {
  if (!has_configuration) return R"({"name":"scale_offset"})";
  std::string c;
  if (offset) c += "\"offset\":" + *offset;
  if (scale) c += std::string(c.empty() ? "" : ",") + "\"scale\":" + *scale;
  return R"({"name":"scale_offset","configuration":{)" + c + "}}";
}

struct ScaleOffsetCodec::State {
  ScaleOffsetSpec spec;
  internal::ScaleOffsetParams params;
  std::unique_ptr<const internal::Kernel> encode_kernel, decode_kernel;
  std::optional<std::string> encoded_fill;
};

Result<ScaleOffsetCodec> ScaleOffsetCodec::Bind(const ScaleOffsetSpec& spec, DataType array_type,
                                                std::optional<std::string_view> fill_value_json) {
  auto state = std::make_shared<State>();
  state->spec = spec;
  internal::ScaleOffsetParams& p = state->params;
  p.type = array_type;
  if (spec.offset) {
    auto bits = ParseParameter(*spec.offset, array_type, false);
    if (!bits.ok()) return bits.status();
    p.offset = *bits;
  }
  if (spec.scale) {
    auto bits = ParseParameter(*spec.scale, array_type, true);
    if (!bits.ok()) return bits.status();
    p.scale = *bits;
  }
  if (fill_value_json) {
    // R20: the fill value goes through the encode formula (its result is the next codec's fill
    // value), and that must decode again; exact round trip is not required, since scale_offset
    // is lossy by design for floats.
    auto fill = ParseScalarText(std::string(*fill_value_json), array_type, "fill_value");
    if (!fill.ok()) return fill.status();
    internal::ArithOutcome enc = internal::ScaleOffsetScalar(p, true, *fill);
    if (enc.error != internal::ArithError::kNone)
      return Invalid("fill_value cannot be encoded: " +
                     internal::DescribeScaleOffsetFailure(p, true, *fill) + " (R20)");
    internal::ArithOutcome dec = internal::ScaleOffsetScalar(p, false, enc.bits);
    if (dec.error != internal::ArithError::kNone)
      return Invalid("fill_value " + internal::DescribeBits(array_type, *fill) + " encodes to " +
                     internal::DescribeBits(array_type, enc.bits) +
                     ", which cannot be decoded: " +
                     internal::DescribeScaleOffsetFailure(p, false, enc.bits) + " (R20)");
    state->encoded_fill = internal::FormatJsonScalar(array_type, enc.bits);
  }
  state->encode_kernel = internal::SelectScaleOffsetKernel(p, true);
  state->decode_kernel = internal::SelectScaleOffsetKernel(p, false);
  return ScaleOffsetCodec(std::move(state));
}

const ScaleOffsetSpec& ScaleOffsetCodec::spec() const { return state_->spec; }
DataType ScaleOffsetCodec::decoded_type() const { return state_->params.type; }
DataType ScaleOffsetCodec::encoded_type() const { return state_->params.type; }
const std::optional<std::string>& ScaleOffsetCodec::encoded_fill_value_json() const {
  return state_->encoded_fill;
}

Status ScaleOffsetCodec::Encode(const void* in, std::size_t n, void* out) const {
  return Run(state_->params, true, *state_->encode_kernel, in, n, out);
}

Status ScaleOffsetCodec::Decode(const void* in, std::size_t n, void* out) const {
  return Run(state_->params, false, *state_->decode_kernel, in, n, out);
}

}  // namespace zcast
