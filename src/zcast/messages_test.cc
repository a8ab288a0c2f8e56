// R34: text quoted from the input into an error message is bounded (a prefix, "..." and the
// total length) and escaped (a NUL cannot cut the message short), wherever it is quoted.
#include <gtest/gtest.h>

#include <string>

#include "zcast/json.h"
#include "zcast/zcast.hpp"

namespace zcast {
namespace {

constexpr std::size_t kTenMb = 10 * 1000 * 1000;

TEST(Brief, ShortTextIsUnchanged) {
  EXPECT_EQ(internal::Brief("\"uint8\""), "\"uint8\"");
  EXPECT_EQ(internal::Brief(std::string(64, 'a')), std::string(64, 'a'));
  EXPECT_EQ(internal::BriefQuote(std::string("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(Brief, LongTextKeepsAPrefixAndItsLength) {
  EXPECT_EQ(internal::Brief(std::string(65, 'a')), std::string(48, 'a') + "... (65 bytes)");
  // Never inside a UTF-8 sequence ("é" is 2 bytes: 47 'a' then its first byte at offset 47)...
  std::string utf8 = std::string(47, 'a') + "\xC3\xA9" + std::string(40, 'b');
  EXPECT_EQ(internal::Brief(utf8), std::string(47, 'a') + "... (89 bytes)");
  // ... nor inside an escape.
  std::string escaped = std::string(45, 'a') + "\\u0000" + std::string(40, 'b');
  EXPECT_EQ(internal::Brief(escaped), std::string(45, 'a') + "... (91 bytes)");
}

void ExpectBounded(const Status& st, const std::string& substring) {
  EXPECT_FALSE(st.ok());
  EXPECT_LT(st.message().size(), 400u) << st.message().substr(0, 1000);
  EXPECT_NE(st.message().find(substring), std::string::npos) << st.message().substr(0, 1000);
}

TEST(Messages, TenMegabytesAreNotEchoed) {
  std::string big(kTenMb, 'a');
  std::string total = "(" + std::to_string(kTenMb + 2) + " bytes)";
  // A type name, an unknown key, a rounding value, a scale_offset value, a zarr.json member.
  ExpectBounded(CastValueSpec::FromJson(R"({"name":"cast_value","configuration":{"data_type":")" +
                                        big + "\"}}").status(),
                "data_type \"aaaa");
  ExpectBounded(CastValueSpec::FromJson(R"({"name":"cast_value","configuration":{")" + big +
                                        R"(":1,"data_type":"uint8"}})").status(),
                total);
  ExpectBounded(CastValueSpec::FromJson(R"({"name":"cast_value","configuration":{"data_type":)"
                                        R"("uint8","rounding":")" + big + "\"}}").status(),
                total);
  auto spec = ScaleOffsetSpec::FromJson(R"({"name":"scale_offset","configuration":{"offset":")" +
                                        big + "\"}}");
  ASSERT_TRUE(spec.ok());
  ExpectBounded(ScaleOffsetCodec::Bind(*spec, DataType::float32, std::nullopt).status(), "aaaa");
  ExpectBounded(Chain::FromArrayMetadata(R"({"data_type":"float32","codecs":[],"zarr_format":")" +
                                         big + "\"}").status(),
                total);
  ExpectBounded(Chain::FromArrayMetadata(R"({"data_type":"float32","codecs":")" + big + "\"}")
                    .status(),
                "\"codecs\" must be an array, got \"aaaa");
  // A duplicate key, reported by the JSON parser.
  ExpectBounded(Chain::FromArrayMetadata("{\"" + big + "\":1,\"" + big + "\":2}").status(),
                "duplicate key \"aaaa");
  // A 5000-digit fill value.
  ExpectBounded(Chain::FromArrayMetadata(R"({"data_type":"int8","codecs":[],"fill_value":)" +
                                         std::string(5000, '9') + "}")
                    .status(),
                "(5000 bytes)");
}

TEST(Messages, NulInATypeNameIsEscaped) {
  Status st = CastValueSpec::FromJson(
                  R"({"name":"cast_value","configuration":{"data_type":"uint8\u0000evil"}})")
                  .status();
  EXPECT_NE(st.message().find("\"uint8\\u0000evil\" is not one of the 26"), std::string::npos)
      << st.message();
  EXPECT_EQ(st.message().find('\0'), std::string::npos);
  st = Chain::FromArrayMetadata(R"({"data_type":"float32\u0000","codecs":[]})").status();
  EXPECT_NE(st.message().find("\"float32\\u0000\" is not one of the 26"), std::string::npos)
      << st.message();
  EXPECT_EQ(st.message().find('\0'), std::string::npos);
}

}  // namespace
}  // namespace zcast
