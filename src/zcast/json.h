// A small strict JSON reader and writer for codec metadata. Numbers keep their lexeme so that
// int64/uint64 extremes and decimal fractions can be converted exactly into any of the 26 types
// (semantics.md, JSON scalars); objects keep document order.
#ifndef ZCAST_SRC_JSON_H_
#define ZCAST_SRC_JSON_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcast/zcast.hpp"

namespace zcast::internal {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  std::string text;  // kNumber: the lexeme exactly as written; kString: the decoded UTF-8 string
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // document order, keys unique

  // Declared here and defaulted in json.cc, where JsonValue is complete: the members above are
  // containers of JsonValue itself, and with libstdc++ 12 clang instantiates the implicit special
  // members of std::pair<std::string, JsonValue> while JsonValue is still incomplete.
  JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;
  ~JsonValue();

  const JsonValue* Find(std::string_view key) const;  // nullptr when absent
  // Compact serialization (numbers written as their lexeme), e.g. {"a":[1,"NaN"]}.
  std::string Dump() const;
};

// "object", "array", "string", "number", "boolean", "null": for error messages.
std::string_view JsonTypeName(JsonValue::Type type);

// Parses one JSON document (RFC 8259; surrounding whitespace allowed). Duplicate object keys are
// rejected. Errors are kInvalidMetadata: "invalid JSON at offset N: <what>".
Result<JsonValue> ParseJson(std::string_view text);

// A JSON string literal with the required escapes, e.g. "a\"b".
std::string JsonQuote(std::string_view s);

// Input quoted in an error message, bounded (R34): text of at most kBriefMaxBytes bytes is
// returned as is; longer text as its first bytes (never cutting a UTF-8 sequence or an escape),
// "..." and its total length, e.g. "aaaa..."... (10485762 bytes). The one helper every message
// that quotes metadata goes through; BriefQuote and BriefJson below are its two forms.
inline constexpr std::size_t kBriefMaxBytes = 64;
std::string Brief(std::string_view serialized);
// JsonQuote(raw), bounded: NUL and other control characters come out escaped ("\u0000"), so
// a C string carrying the message is never cut short.
std::string BriefQuote(std::string_view raw);
// v.Dump(), bounded.
std::string BriefJson(const JsonValue& v);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_JSON_H_
