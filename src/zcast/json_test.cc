#include "zcast/json.h"

#include <string>

#include <gtest/gtest.h>

namespace zcast::internal {
namespace {

JsonValue ParseOk(std::string_view text) {
  Result<JsonValue> r = ParseJson(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : JsonValue{};
}

void ExpectInvalid(std::string_view text, std::string_view substring) {
  Result<JsonValue> r = ParseJson(text);
  ASSERT_FALSE(r.ok()) << "accepted: " << text;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidMetadata);
  const std::string& message = r.status().message();
  EXPECT_EQ(message.rfind("invalid JSON at offset ", 0), 0u) << message;
  EXPECT_NE(message.find(substring), std::string::npos) << text << ": " << message;
}

TEST(JsonTest, Literals) {
  EXPECT_EQ(ParseOk("null").type, JsonValue::Type::kNull);
  JsonValue t = ParseOk("true");
  EXPECT_EQ(t.type, JsonValue::Type::kBool);
  EXPECT_TRUE(t.boolean);
  JsonValue f = ParseOk(" \t\r\nfalse \n");
  EXPECT_EQ(f.type, JsonValue::Type::kBool);
  EXPECT_FALSE(f.boolean);
  ExpectInvalid("nul", "invalid literal nul");
  ExpectInvalid("True", "invalid literal True");
  ExpectInvalid("NaN", "invalid literal NaN");
  ExpectInvalid("Infinity", "invalid literal Infinity");
  ExpectInvalid("@", "unexpected character, expected a value");
}

// A bare word is most often a string typed without its quotes (a data type passed to the C API
// as float32 instead of "float32"): the message says how to write it.
TEST(JsonTest, BareWordNamesItselfAndTheQuotedForm) {
  Result<JsonValue> r = ParseJson("float32");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "invalid JSON at offset 0: invalid literal float32 (the literals are true, false and "
            "null; a string such as a data type name is quoted: \"float32\")");
  r = ParseJson("{\"data_type\": int16}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offset 14: invalid literal int16 ("), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("quoted: \"int16\""), std::string::npos);
}

TEST(JsonTest, NumbersKeepTheirLexeme) {
  for (const char* lexeme : {"0", "-0", "-0.0", "1.50E+03", "1e-5", "18446744073709551616",
                             "0.10000000000000000000000001", "123456789012345678901234567890"}) {
    JsonValue v = ParseOk(lexeme);
    EXPECT_EQ(v.type, JsonValue::Type::kNumber);
    EXPECT_EQ(v.text, lexeme);
  }
  ExpectInvalid("01", "leading zeros");
  ExpectInvalid("-01", "leading zeros");
  ExpectInvalid("+1", "unexpected character");
  ExpectInvalid(".5", "unexpected character");
  ExpectInvalid("1.", "after the decimal point");
  ExpectInvalid("1.e5", "after the decimal point");
  ExpectInvalid("1e", "exponent");
  ExpectInvalid("1e+", "exponent");
  ExpectInvalid("-", "expected a digit");
  ExpectInvalid("0x10", "trailing");
}

TEST(JsonTest, StringEscapes) {
  EXPECT_EQ(ParseOk(R"("a\"b\\c\/d\b\f\n\r\t")").text, "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(ParseOk(R"("\u0041\u00e9\u20AC")").text, "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(ParseOk(R"("\u0000")").text, std::string(1, '\0'));
  // U+1F600 as a surrogate pair becomes one 4-byte UTF-8 sequence.
  EXPECT_EQ(ParseOk(R"("\ud83d\ude00")").text, "\xF0\x9F\x98\x80");
  // Raw UTF-8 passes through.
  EXPECT_EQ(ParseOk("\"\xC3\xA9\xF0\x9F\x98\x80\"").text, "\xC3\xA9\xF0\x9F\x98\x80");
  ExpectInvalid(R"("\ud83d")", "unpaired high surrogate");
  ExpectInvalid(R"("\ud83dx")", "unpaired high surrogate");
  ExpectInvalid(R"("\ud83d\u0041")", "unpaired high surrogate");
  ExpectInvalid(R"("\ude00")", "unpaired low surrogate");
  ExpectInvalid(R"("\u12")", "\\u escape");
  ExpectInvalid(R"("\u12g4")", "invalid hex digit");
  ExpectInvalid(R"("\x41")", "invalid escape");
  ExpectInvalid(R"("\')", "invalid escape");
  ExpectInvalid("\"a\nb\"", "control character");
  ExpectInvalid("\"a\tb\"", "control character");
  ExpectInvalid("\"abc", "unterminated string");
  ExpectInvalid("\"abc\\", "unterminated");
}

TEST(JsonTest, RejectsInvalidUtf8) {
  ExpectInvalid("\"\xC3\"", "invalid UTF-8");              // truncated sequence
  ExpectInvalid("\"\xC0\xAF\"", "invalid UTF-8");          // overlong '/'
  ExpectInvalid("\"\xE0\x80\xAF\"", "invalid UTF-8");      // overlong, 3 bytes
  ExpectInvalid("\"\xED\xA0\x80\"", "invalid UTF-8");      // encoded surrogate U+D800
  ExpectInvalid("\"\xF4\x90\x80\x80\"", "invalid UTF-8");  // above U+10FFFF
  ExpectInvalid("\"\x80\"", "invalid UTF-8");              // stray continuation byte
  ExpectInvalid("\xEF\xBB\xBF{}", "unexpected character");  // no BOM in strict mode
}

TEST(JsonTest, ArraysAndObjectsKeepOrder) {
  JsonValue v = ParseOk(R"( { "z" : [1, "two", null, [ ], {}], "a": {"b": false} } )");
  ASSERT_EQ(v.type, JsonValue::Type::kObject);
  ASSERT_EQ(v.object.size(), 2u);
  EXPECT_EQ(v.object[0].first, "z");
  EXPECT_EQ(v.object[1].first, "a");
  const JsonValue* z = v.Find("z");
  ASSERT_NE(z, nullptr);
  ASSERT_EQ(z->array.size(), 5u);
  EXPECT_EQ(z->array[0].text, "1");
  EXPECT_EQ(z->array[1].text, "two");
  EXPECT_EQ(z->array[2].type, JsonValue::Type::kNull);
  EXPECT_EQ(z->array[3].type, JsonValue::Type::kArray);
  EXPECT_TRUE(z->array[3].array.empty());
  EXPECT_EQ(z->array[4].type, JsonValue::Type::kObject);
  EXPECT_EQ(v.Find("missing"), nullptr);
  ASSERT_NE(v.Find("a"), nullptr);
  ASSERT_NE(v.Find("a")->Find("b"), nullptr);
  EXPECT_FALSE(v.Find("a")->Find("b")->boolean);
}

TEST(JsonTest, StructuralErrors) {
  ExpectInvalid("", "unexpected end of input");
  ExpectInvalid("   ", "unexpected end of input");
  ExpectInvalid("[1,]", "unexpected character");
  ExpectInvalid("[1 2]", "expected ',' or ']'");
  ExpectInvalid("[1", "unexpected end of input in array");
  ExpectInvalid("{\"a\":1,}", "expected a string key");
  ExpectInvalid("{\"a\" 1}", "expected ':'");
  ExpectInvalid("{\"a\":1", "unexpected end of input in object");
  ExpectInvalid("{a:1}", "expected a string key");
  ExpectInvalid("{\"a\":1}}", "trailing");
  ExpectInvalid("1 2", "trailing");
  ExpectInvalid("[] x", "trailing");
  ExpectInvalid("// comment\n1", "unexpected character");
}

TEST(JsonTest, ErrorOffsetPointsAtTheProblem) {
  Result<JsonValue> r = ParseJson("[1, 2, x]");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "invalid JSON at offset 7: invalid literal x (the literals are true, false and null; a "
            "string such as a data type name is quoted: \"x\")");
  r = ParseJson("{\"a\": 1, \"a\": 2}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid JSON at offset 9: duplicate key \"a\"");
}

TEST(JsonTest, DuplicateKeysRejectedAfterDecoding) {
  ExpectInvalid(R"({"a": 1, "b": 2, "a": 3})", "duplicate key \"a\"");
  // "\u0061" is "a": the same key spelled differently.
  ExpectInvalid(R"({"a": 1, "\u0061": 2})", "duplicate key \"a\"");
  // The same key in different objects is fine.
  ParseOk(R"({"a": {"a": 1}, "b": {"a": 2}})");
}

TEST(JsonTest, DepthLimit) {
  std::string ok = std::string(64, '[') + std::string(64, ']');
  ParseOk(ok);
  std::string too_deep = std::string(65, '[') + std::string(65, ']');
  ExpectInvalid(too_deep, "nesting deeper than 64");
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"k\":";
  objects += "1" + std::string(65, '}');
  ExpectInvalid(objects, "nesting deeper than 64");
  // Far deeper input must fail cleanly, not overflow the stack.
  ExpectInvalid(std::string(100000, '['), "nesting deeper than 64");
}

TEST(JsonTest, DumpIsCompactAndRoundTrips) {
  const char* text = R"( {"name" : "cast_value", "configuration": {"data_type": "uint8",
      "scalar_map": {"encode": [["NaN", 0], [-0.0, 1E+2]]}, "x": [true, false, null, "a\"\n\u0001"]}})";
  JsonValue v = ParseOk(text);
  std::string dumped = v.Dump();
  EXPECT_EQ(dumped,
            R"({"name":"cast_value","configuration":{"data_type":"uint8",)"
            R"("scalar_map":{"encode":[["NaN",0],[-0.0,1E+2]]},"x":[true,false,null,"a\"\n\u0001"]}})");
  EXPECT_EQ(ParseOk(dumped).Dump(), dumped);
}

TEST(JsonTest, Quote) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonQuote("\n\t\r\b\f"), R"("\n\t\r\b\f")");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(JsonQuote(std::string(1, '\0')), R"("\u0000")");
  EXPECT_EQ(JsonQuote("\xC3\xA9/"), "\"\xC3\xA9/\"");
  // Every byte string made of valid UTF-8 survives quote -> parse.
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(ParseOk(JsonQuote(all)).text, all);
}

TEST(JsonTest, TypeNames) {
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kNull), "null");
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kBool), "boolean");
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kNumber), "number");
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kString), "string");
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kArray), "array");
  EXPECT_EQ(JsonTypeName(JsonValue::Type::kObject), "object");
}

}  // namespace
}  // namespace zcast::internal
