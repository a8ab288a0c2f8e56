// Strict RFC 8259 reader and compact writer (json.h). Strict because codec metadata is a contract:
// anything a lenient parser would guess at (comments, trailing commas, NaN literals, duplicate
// keys, invalid UTF-8) is reported as invalid metadata instead of silently accepted.
#include "zcast/json.h"

#include <cstdint>
#include <string>
#include <unordered_set>

namespace zcast::internal {
namespace {

// Deep enough for any codec metadata, shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<JsonValue> ParseDocument() {
    SkipWhitespace();
    JsonValue value;
    if (!ParseValue(&value, 0)) return error_;
    SkipWhitespace();
    if (pos_ != s_.size()) {
      Fail(pos_, "unexpected trailing characters");
      return error_;
    }
    return value;
  }

 private:
  bool Fail(std::size_t offset, std::string_view what) {
    error_ = Status(StatusCode::kInvalidMetadata,
                    "invalid JSON at offset " + std::to_string(offset) + ": " + std::string(what));
    return false;
  }

  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return s_[pos_]; }

  void SkipWhitespace() {
    while (!AtEnd()) {
      char c = Peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool ParseValue(JsonValue* out, int depth) {
    if (AtEnd()) return Fail(pos_, "unexpected end of input, expected a value");
    char c = Peek();
    switch (c) {
      case '{': return ParseObject(out, depth + 1);
      case '[': return ParseArray(out, depth + 1);
      case '"':
        out->type = JsonValue::Type::kString;
        return ParseString(&out->text);
      case 't': return ParseLiteral("true", out, JsonValue::Type::kBool, true);
      case 'f': return ParseLiteral("false", out, JsonValue::Type::kBool, false);
      case 'n': return ParseLiteral("null", out, JsonValue::Type::kNull, false);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
        if (!BareWord().empty()) return FailBareWord();
        return Fail(pos_, "unexpected character, expected a value");
    }
  }

  // The run of letters, digits and '_' at pos_ that starts with a letter, e.g. float32 or NaN:
  // a data type or a JSON scalar string written without its quotes, the usual slip when metadata
  // is typed by hand into a C string.
  std::string_view BareWord() const {
    std::size_t end = pos_;
    auto word_char = [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_';
    };
    if (AtEnd() || !((Peek() >= 'a' && Peek() <= 'z') || (Peek() >= 'A' && Peek() <= 'Z')))
      return {};
    while (end < s_.size() && word_char(s_[end])) ++end;
    return s_.substr(pos_, end - pos_);
  }

  bool FailBareWord() {
    std::string word(BareWord().substr(0, 32));
    return Fail(pos_, "invalid literal " + word + " (the literals are true, false and null; a " +
                          "string such as a data type name is quoted: \"" + word + "\")");
  }

  bool ParseLiteral(std::string_view word, JsonValue* out, JsonValue::Type type, bool b) {
    if (s_.substr(pos_, word.size()) != word) return FailBareWord();
    pos_ += word.size();
    out->type = type;
    out->boolean = b;
    return true;
  }

  // number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ). The lexeme is kept
  // verbatim so that the scalar layer can convert it exactly (no double in between).
  bool ParseNumber(JsonValue* out) {
    std::size_t start = pos_;
    auto is_digit = [&] { return !AtEnd() && Peek() >= '0' && Peek() <= '9'; };
    if (Peek() == '-') ++pos_;
    if (!is_digit()) return Fail(pos_, "expected a digit");
    if (Peek() == '0') {
      ++pos_;
      if (is_digit()) return Fail(pos_, "leading zeros are not allowed");
    } else {
      while (is_digit()) ++pos_;
    }
    if (!AtEnd() && Peek() == '.') {
      ++pos_;
      if (!is_digit()) return Fail(pos_, "expected a digit after the decimal point");
      while (is_digit()) ++pos_;
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      ++pos_;
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) ++pos_;
      if (!is_digit()) return Fail(pos_, "expected a digit in the exponent");
      while (is_digit()) ++pos_;
    }
    out->type = JsonValue::Type::kNumber;
    out->text = std::string(s_.substr(start, pos_ - start));
    return true;
  }

  bool ParseHex4(std::uint32_t* out) {
    if (s_.size() - pos_ < 4) return Fail(pos_, "truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_ + i];
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return Fail(pos_ + i, "invalid hex digit in \\u escape");
      v = v << 4 | static_cast<std::uint32_t>(d);
    }
    pos_ += 4;
    *out = v;
    return true;
  }

  static void AppendUtf8(std::uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | cp >> 6));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | cp >> 12));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | cp >> 18));
      out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Validates one raw UTF-8 sequence starting at pos_ (first byte >= 0x80) and copies it. RFC 8259
  // requires UTF-8; overlong forms and encoded surrogates are rejected so that every accepted
  // string is well-formed Unicode, the same as strings built from \u escapes.
  bool CopyUtf8Sequence(std::string* out) {
    std::size_t start = pos_;
    auto b0 = static_cast<unsigned char>(s_[pos_]);
    int len;
    std::uint32_t cp;
    if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; cp = b0 & 0x1F; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) { len = 3; cp = b0 & 0x0F; }
    else if (b0 >= 0xF0 && b0 <= 0xF4) { len = 4; cp = b0 & 0x07; }
    else return Fail(start, "invalid UTF-8");
    if (s_.size() - pos_ < static_cast<std::size_t>(len)) return Fail(start, "invalid UTF-8");
    for (int i = 1; i < len; ++i) {
      auto b = static_cast<unsigned char>(s_[pos_ + i]);
      if ((b & 0xC0) != 0x80) return Fail(start, "invalid UTF-8");
      cp = cp << 6 | (b & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return Fail(start, "invalid UTF-8");
    }
    out->append(s_.substr(pos_, len));
    pos_ += len;
    return true;
  }

  bool ParseString(std::string* out) {
    std::size_t open = pos_;
    ++pos_;  // opening quote
    out->clear();
    while (true) {
      if (AtEnd()) return Fail(open, "unterminated string");
      auto c = static_cast<unsigned char>(Peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail(pos_, "unescaped control character in string");
      if (c >= 0x80) {
        if (!CopyUtf8Sequence(out)) return false;
        continue;
      }
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      std::size_t esc = pos_;
      ++pos_;
      if (AtEnd()) return Fail(esc, "unterminated escape");
      char e = Peek();
      ++pos_;
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!ParseHex4(&cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail(esc, "unpaired low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate is only meaningful with the low half right after it.
            if (s_.substr(pos_, 2) != "\\u") return Fail(esc, "unpaired high surrogate");
            pos_ += 2;
            std::uint32_t low = 0;
            if (!ParseHex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return Fail(esc, "unpaired high surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return Fail(esc, "invalid escape");
      }
    }
  }

  bool ParseArray(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Fail(pos_, "nesting deeper than 64");
    out->type = JsonValue::Type::kArray;
    ++pos_;  // '['
    SkipWhitespace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipWhitespace();
      JsonValue element;
      if (!ParseValue(&element, depth)) return false;
      out->array.push_back(std::move(element));
      SkipWhitespace();
      if (AtEnd()) return Fail(pos_, "unexpected end of input in array");
      char c = Peek();
      ++pos_;
      if (c == ']') return true;
      if (c != ',') return Fail(pos_ - 1, "expected ',' or ']'");
    }
  }

  bool ParseObject(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Fail(pos_, "nesting deeper than 64");
    out->type = JsonValue::Type::kObject;
    ++pos_;  // '{'
    SkipWhitespace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return true;
    }
    std::unordered_set<std::string> seen;
    while (true) {
      SkipWhitespace();
      if (AtEnd() || Peek() != '"') return Fail(pos_, "expected a string key");
      std::size_t key_offset = pos_;
      std::string key;
      if (!ParseString(&key)) return false;
      // Duplicate keys have no agreed meaning (RFC 8259 4: "SHOULD be unique"), so metadata that
      // contains them is ambiguous and rejected.
      if (!seen.insert(key).second) return Fail(key_offset, "duplicate key " + BriefQuote(key));
      SkipWhitespace();
      if (AtEnd() || Peek() != ':') return Fail(pos_, "expected ':'");
      ++pos_;
      SkipWhitespace();
      JsonValue member;
      if (!ParseValue(&member, depth)) return false;
      out->object.emplace_back(std::move(key), std::move(member));
      SkipWhitespace();
      if (AtEnd()) return Fail(pos_, "unexpected end of input in object");
      char c = Peek();
      ++pos_;
      if (c == '}') return true;
      if (c != ',') return Fail(pos_ - 1, "expected ',' or '}'");
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  Status error_;
};

void DumpTo(const JsonValue& v, std::string* out) {
  switch (v.type) {
    case JsonValue::Type::kNull: out->append("null"); break;
    case JsonValue::Type::kBool: out->append(v.boolean ? "true" : "false"); break;
    case JsonValue::Type::kNumber: out->append(v.text); break;
    case JsonValue::Type::kString: out->append(JsonQuote(v.text)); break;
    case JsonValue::Type::kArray:
      out->push_back('[');
      for (std::size_t i = 0; i < v.array.size(); ++i) {
        if (i) out->push_back(',');
        DumpTo(v.array[i], out);
      }
      out->push_back(']');
      break;
    case JsonValue::Type::kObject:
      out->push_back('{');
      for (std::size_t i = 0; i < v.object.size(); ++i) {
        if (i) out->push_back(',');
        out->append(JsonQuote(v.object[i].first));
        out->push_back(':');
        DumpTo(v.object[i].second, out);
      }
      out->push_back('}');
      break;
  }
}

}  // namespace

JsonValue::JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::~JsonValue() = default;

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [k, v] : object) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string JsonValue::Dump() const {
  std::string out;
  DumpTo(*this, &out);
  return out;
}

std::string_view JsonTypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull: return "null";
    case JsonValue::Type::kBool: return "boolean";
    case JsonValue::Type::kNumber: return "number";
    case JsonValue::Type::kString: return "string";
    case JsonValue::Type::kArray: return "array";
    case JsonValue::Type::kObject: return "object";
  }
  return "unknown";
}

Result<JsonValue> ParseJson(std::string_view text) { return Parser(text).ParseDocument(); }

std::string JsonQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (c < 0x20) {
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(ch);  // UTF-8 passes through unchanged
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string Brief(std::string_view serialized) {
  if (serialized.size() <= kBriefMaxBytes) return std::string(serialized);
  std::size_t cut = kBriefMaxBytes - 16;
  // Back off to the start of a UTF-8 sequence, then to before an escape it would split.
  while (cut > 0 && (static_cast<unsigned char>(serialized[cut]) & 0xC0) == 0x80) --cut;
  std::size_t backslash = serialized.substr(0, cut).rfind('\\');
  if (backslash != std::string_view::npos && cut - backslash < 6) cut = backslash;
  return std::string(serialized.substr(0, cut)) + "... (" + std::to_string(serialized.size()) +
         " bytes)";
}

std::string BriefQuote(std::string_view raw) { return Brief(JsonQuote(raw)); }

std::string BriefJson(const JsonValue& v) { return Brief(v.Dump()); }

}  // namespace zcast::internal
