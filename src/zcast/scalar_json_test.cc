#include "zcast/scalar_json.h"

#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/json.h"

namespace zcast::internal {
namespace {

using DT = DataType;

Result<std::uint64_t> Parse(std::string_view json, DataType type) {
  Result<JsonValue> v = ParseJson(json);
  if (!v.ok()) return v.status();
  return ParseJsonScalar(*v, type);
}

// The encoding, or a marker that no encoding of any type has, so a failure cannot pass by accident.
constexpr std::uint64_t kFailed = 0xDEADBEEFDEADBEEFull;

std::uint64_t ParseOk(std::string_view json, DataType type) {
  Result<std::uint64_t> r = Parse(json, type);
  EXPECT_TRUE(r.ok()) << json << " as " << DataTypeName(type) << ": " << r.status().message();
  return r.ok() ? *r : kFailed;
}

void ExpectInvalid(std::string_view json, DataType type, std::string_view substring) {
  Result<std::uint64_t> r = Parse(json, type);
  ASSERT_FALSE(r.ok()) << json << " accepted as " << DataTypeName(type) << ": " << *r;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidMetadata);
  EXPECT_NE(r.status().message().find(substring), std::string::npos)
      << "message: " << r.status().message() << "\nexpected substring: " << substring;
}

// ---- integers -----------------------------------------------------------------------------------

TEST(ParseJsonScalarTest, IntegerExtremesAreExact) {
  EXPECT_EQ(ParseOk("-9223372036854775808", DT::int64), 0x8000000000000000ull);
  EXPECT_EQ(ParseOk("9223372036854775807", DT::int64), 0x7FFFFFFFFFFFFFFFull);
  // 2^53 + 1 would become 2^53 through a double.
  EXPECT_EQ(ParseOk("9007199254740993", DT::int64), 9007199254740993ull);
  EXPECT_EQ(ParseOk("-9007199254740993", DT::int64), static_cast<std::uint64_t>(-9007199254740993ll));
  EXPECT_EQ(ParseOk("18446744073709551615", DT::uint64), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(ParseOk("18446744073709551614", DT::uint64), 0xFFFFFFFFFFFFFFFEull);
  ExpectInvalid("18446744073709551616", DT::uint64,
                "18446744073709551616 is not a valid uint64 scalar: out of range");
  ExpectInvalid("9223372036854775808", DT::int64, "out of range");
  ExpectInvalid("-9223372036854775809", DT::int64, "out of range");
  ExpectInvalid("123456789012345678901234567890", DT::int64, "out of range");
  EXPECT_EQ(ParseOk("-2147483648", DT::int32), 0x80000000ull);
  EXPECT_EQ(ParseOk("4294967295", DT::uint32), 0xFFFFFFFFull);
  ExpectInvalid("4294967296", DT::uint32, "out of range");
}

TEST(ParseJsonScalarTest, SmallIntegerRanges) {
  EXPECT_EQ(ParseOk("-2", DT::int2), 0x2u);
  EXPECT_EQ(ParseOk("-1", DT::int2), 0x3u);
  EXPECT_EQ(ParseOk("1", DT::int2), 0x1u);
  ExpectInvalid("2", DT::int2, "out of range");
  ExpectInvalid("-3", DT::int2, "out of range");
  EXPECT_EQ(ParseOk("-8", DT::int4), 0x8u);
  EXPECT_EQ(ParseOk("7", DT::int4), 0x7u);
  ExpectInvalid("8", DT::int4, "out of range");
  EXPECT_EQ(ParseOk("3", DT::uint2), 0x3u);
  ExpectInvalid("4", DT::uint2, "out of range");
  EXPECT_EQ(ParseOk("15", DT::uint4), 0xFu);
  ExpectInvalid("16", DT::uint4, "out of range");
  EXPECT_EQ(ParseOk("-128", DT::int8), 0x80u);
  EXPECT_EQ(ParseOk("127", DT::int8), 0x7Fu);
  ExpectInvalid("128", DT::int8, "out of range");
  EXPECT_EQ(ParseOk("255", DT::uint8), 0xFFu);
  ExpectInvalid("300", DT::uint8, "300 is not a valid uint8 scalar: out of range");
  ExpectInvalid("-1", DT::uint8, "-1 is not a valid uint8 scalar: out of range");
  EXPECT_EQ(ParseOk("-32768", DT::int16), 0x8000u);
  EXPECT_EQ(ParseOk("65535", DT::uint16), 0xFFFFu);
  // -0 is 0, including for unsigned types.
  EXPECT_EQ(ParseOk("-0", DT::uint8), 0u);
  EXPECT_EQ(ParseOk("-0", DT::int8), 0u);
}

TEST(ParseJsonScalarTest, IntegersTakeOnlyPlainJsonIntegers) {
  ExpectInvalid("1.0", DT::int8, "1.0 is not a valid int8 scalar: integers take JSON numbers");
  ExpectInvalid("1e2", DT::int32, "without fraction or exponent");
  ExpectInvalid("1E2", DT::uint16, "without fraction or exponent");
  ExpectInvalid("0.0", DT::uint8, "without fraction or exponent");
  ExpectInvalid("\"1\"", DT::int8, "\"1\" is not a valid int8 scalar: integers take JSON numbers");
  ExpectInvalid("\"NaN\"", DT::int8, "\"NaN\" is not a valid int8 scalar: integers take JSON numbers");
  ExpectInvalid("\"0x1FF\"", DT::uint8, "integers take JSON numbers");
  ExpectInvalid("\"0x01\"", DT::uint8, "integers take JSON numbers");
  ExpectInvalid("true", DT::int8, "true is not a valid int8 scalar");
  ExpectInvalid("null", DT::uint64, "null is not a valid uint64 scalar");
  ExpectInvalid("[1]", DT::int16, "[1] is not a valid int16 scalar");
  // A hand-built value with a lexeme the JSON grammar forbids is rejected too.
  JsonValue bad;
  bad.type = JsonValue::Type::kNumber;
  bad.text = "01";
  EXPECT_FALSE(ParseJsonScalar(bad, DT::int8).ok());
  bad.text = "1x";
  EXPECT_FALSE(ParseJsonScalar(bad, DT::uint8).ok());
}

// ---- floats: one rounding from the exact decimal -------------------------------------------------

TEST(ParseJsonScalarTest, Float16Basics) {
  EXPECT_EQ(ParseOk("0.1", DT::float16), 0x2E66u);
  EXPECT_EQ(ParseOk("1", DT::float16), 0x3C00u);
  EXPECT_EQ(ParseOk("-2.5", DT::float16), 0xC100u);
  EXPECT_EQ(ParseOk("65504", DT::float16), 0x7BFFu);
  EXPECT_EQ(ParseOk("6.103515625e-05", DT::float16), 0x0400u);  // min normal 2^-14
  EXPECT_EQ(ParseOk("5.960464477539063e-08", DT::float16), 0x0001u);  // min subnormal
  EXPECT_EQ(ParseOk("0", DT::float16), 0x0000u);
  EXPECT_EQ(ParseOk("0.0", DT::float16), 0x0000u);
  EXPECT_EQ(ParseOk("-0.0", DT::float16), 0x8000u);
  EXPECT_EQ(ParseOk("-0", DT::float16), 0x8000u);
  EXPECT_EQ(ParseOk("-0e10", DT::float16), 0x8000u);
  EXPECT_EQ(ParseOk("0.00000e-99999999999999999", DT::float16), 0x0000u);
}

TEST(ParseJsonScalarTest, Float16TiesAndNearTies) {
  // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10.
  EXPECT_EQ(ParseOk("1.00048828125", DT::float16), 0x3C00u);
  EXPECT_EQ(ParseOk("1.00048828125000000000000001", DT::float16), 0x3C01u);
  EXPECT_EQ(ParseOk("1.00048828124999999999999999", DT::float16), 0x3C00u);
  // Through a double, 1.000488281250000000001 would become exactly the tie and round to 0x3C00:
  // the one-rounding rule must see that it is above.
  EXPECT_EQ(ParseOk("1.000488281250000000001", DT::float16), 0x3C01u);
  // 1 + 3*2^-11 is halfway between 0x3C01 (odd) and 0x3C02 (even).
  EXPECT_EQ(ParseOk("1.00146484375", DT::float16), 0x3C02u);
  EXPECT_EQ(ParseOk("1.00146484374999999", DT::float16), 0x3C01u);
  // Ties in the subnormal range: 2^-25 is halfway between 0 and the smallest subnormal.
  EXPECT_EQ(ParseOk("2.98023223876953125e-8", DT::float16), 0x0000u);
  EXPECT_EQ(ParseOk("2.98023223876953126e-8", DT::float16), 0x0001u);
  EXPECT_EQ(ParseOk("-2.98023223876953126e-8", DT::float16), 0x8001u);
  // 3 * 2^-25 is halfway between subnormals 1 and 2: to even.
  EXPECT_EQ(ParseOk("8.94069671630859375e-8", DT::float16), 0x0002u);
  // The same tie written with 900 more digits: all-zero tail keeps the tie, any nonzero digit in
  // it breaks the tie upwards.
  std::string tie = "1.00048828125" + std::string(900, '0');
  EXPECT_EQ(ParseOk(tie, DT::float16), 0x3C00u);
  EXPECT_EQ(ParseOk(tie + "1", DT::float16), 0x3C01u);
  EXPECT_EQ(ParseOk(tie + "1e0", DT::float16), 0x3C01u);
  std::string below = "1.00048828124" + std::string(900, '9');
  EXPECT_EQ(ParseOk(below, DT::float16), 0x3C00u);
  // Integer-form and exponent-form of the same value agree.
  EXPECT_EQ(ParseOk("100048828125e-11", DT::float16), 0x3C00u);
  EXPECT_EQ(ParseOk("100048828125000001e-17", DT::float16), 0x3C01u);
}

TEST(ParseJsonScalarTest, Float16OverflowAndUnderflow) {
  EXPECT_EQ(ParseOk("65519.99999", DT::float16), 0x7BFFu);
  EXPECT_EQ(ParseOk("65520", DT::float16), 0x7C00u);  // tie at overflow goes to even: Inf
  EXPECT_EQ(ParseOk("-65520", DT::float16), 0xFC00u);
  EXPECT_EQ(ParseOk("1e6", DT::float16), 0x7C00u);
  EXPECT_EQ(ParseOk("1e6000", DT::float16), 0x7C00u);
  EXPECT_EQ(ParseOk("-1e999999999999999999999", DT::float16), 0xFC00u);
  EXPECT_EQ(ParseOk("1e-8", DT::float16), 0x0000u);
  EXPECT_EQ(ParseOk("-1e-8", DT::float16), 0x8000u);
  EXPECT_EQ(ParseOk("1e-6000", DT::float16), 0x0000u);
  EXPECT_EQ(ParseOk("-1e-6000", DT::float16), 0x8000u);
  EXPECT_EQ(ParseOk("1e-99999999999999999999", DT::float16), 0x0000u);
  // Large integer lexemes with no exponent.
  EXPECT_EQ(ParseOk("1" + std::string(500, '0'), DT::float16), 0x7C00u);
  EXPECT_EQ(ParseOk("0." + std::string(500, '0') + "1", DT::float16), 0x0000u);
}

TEST(ParseJsonScalarTest, Float64) {
  EXPECT_EQ(ParseOk("0.1", DT::float64), 0x3FB999999999999Aull);
  EXPECT_EQ(ParseOk("-1.5", DT::float64), 0xBFF8000000000000ull);
  EXPECT_EQ(ParseOk("9007199254740993", DT::float64), 0x4340000000000000ull);  // tie -> even
  EXPECT_EQ(ParseOk("9007199254740993.0000000001", DT::float64), 0x4340000000000001ull);
  EXPECT_EQ(ParseOk("9007199254740995", DT::float64), 0x4340000000000002ull);  // tie -> even
  EXPECT_EQ(ParseOk("1.7976931348623157e308", DT::float64), 0x7FEFFFFFFFFFFFFFull);
  EXPECT_EQ(ParseOk("1.7976931348623158e308", DT::float64), 0x7FEFFFFFFFFFFFFFull);
  EXPECT_EQ(ParseOk("1.7976931348623159e308", DT::float64), 0x7FF0000000000000ull);
  EXPECT_EQ(ParseOk("1e400", DT::float64), 0x7FF0000000000000ull);
  EXPECT_EQ(ParseOk("-1e400", DT::float64), 0xFFF0000000000000ull);
  EXPECT_EQ(ParseOk("5e-324", DT::float64), 0x1ull);
  EXPECT_EQ(ParseOk("4.9406564584124654e-324", DT::float64), 0x1ull);
  EXPECT_EQ(ParseOk("2.2250738585072014e-308", DT::float64), 0x0010000000000000ull);
  // 2^-1075 = 2.4703282292062327208...e-324 is the tie between 0 and the smallest subnormal.
  EXPECT_EQ(ParseOk("2.4703282292062327e-324", DT::float64), 0x0ull);
  EXPECT_EQ(ParseOk("2.4703282292062328e-324", DT::float64), 0x1ull);
  EXPECT_EQ(ParseOk("-2.4703282292062328e-324", DT::float64), 0x8000000000000001ull);
  EXPECT_EQ(ParseOk("1e-400", DT::float64), 0x0ull);
  EXPECT_EQ(ParseOk("123456789012345678901234567890", DT::float64),
            std::bit_cast<std::uint64_t>(123456789012345678901234567890.0));
  EXPECT_EQ(ParseOk("-0.0", DT::float64), 0x8000000000000000ull);
}

TEST(ParseJsonScalarTest, Float32AndBfloat16) {
  EXPECT_EQ(ParseOk("0.1", DT::float32), 0x3DCCCCCDu);
  EXPECT_EQ(ParseOk("16777217", DT::float32), 0x4B800000u);      // tie -> even
  EXPECT_EQ(ParseOk("16777217.001", DT::float32), 0x4B800001u);
  EXPECT_EQ(ParseOk("3.4028235e38", DT::float32), 0x7F7FFFFFu);
  EXPECT_EQ(ParseOk("3.5e38", DT::float32), 0x7F800000u);
  EXPECT_EQ(ParseOk("1e-46", DT::float32), 0x0u);
  EXPECT_EQ(ParseOk("1.401298464324817e-45", DT::float32), 0x1u);
  EXPECT_EQ(ParseOk("0.1", DT::bfloat16), 0x3DCDu);
  EXPECT_EQ(ParseOk("1.00390625", DT::bfloat16), 0x3F80u);  // 1 + 2^-8: tie -> even
  EXPECT_EQ(ParseOk("1.0039062500001", DT::bfloat16), 0x3F81u);
  EXPECT_EQ(ParseOk("-1e39", DT::bfloat16), 0x8000u | 0x7F80u);  // beyond 3.39e38
  EXPECT_EQ(ParseOk("3.3895313892515355e38", DT::bfloat16), 0x7F7Fu);
}

TEST(ParseJsonScalarTest, Float8AndSmallerNumbers) {
  // float8_e4m3 (IEEE-like): max 240 = 0x77, 248 is the tie with 256 -> Inf.
  EXPECT_EQ(ParseOk("240", DT::float8_e4m3), 0x77u);
  EXPECT_EQ(ParseOk("244", DT::float8_e4m3), 0x77u);
  EXPECT_EQ(ParseOk("248", DT::float8_e4m3), 0x78u);
  EXPECT_EQ(ParseOk("-1e6", DT::float8_e4m3), 0xF8u);
  EXPECT_EQ(ParseOk("0.001953125", DT::float8_e4m3), 0x01u);  // 2^-9
  // float8_e5m2: max 57344 = 0x7B; 61440 is the tie with 65536 -> Inf.
  EXPECT_EQ(ParseOk("57344", DT::float8_e5m2), 0x7Bu);
  EXPECT_EQ(ParseOk("61439.9", DT::float8_e5m2), 0x7Bu);
  EXPECT_EQ(ParseOk("61440", DT::float8_e5m2), 0x7Cu);
  // float8_e3m4: max 15.5.
  EXPECT_EQ(ParseOk("15.5", DT::float8_e3m4), 0x6Fu);
  EXPECT_EQ(ParseOk("16", DT::float8_e3m4), 0x70u);
  // fnuz types: no -0, the exponent field of all ones is a normal binade.
  EXPECT_EQ(ParseOk("-0.0", DT::float8_e4m3fnuz), 0x00u);
  EXPECT_EQ(ParseOk("-1e-30", DT::float8_e4m3fnuz), 0x00u);  // R8: tiny negative -> +0
  EXPECT_EQ(ParseOk("240", DT::float8_e4m3fnuz), 0x7Fu);
  EXPECT_EQ(ParseOk("-240", DT::float8_e4m3fnuz), 0xFFu);
  EXPECT_EQ(ParseOk("247.99", DT::float8_e4m3fnuz), 0x7Fu);
  ExpectInvalid("248", DT::float8_e4m3fnuz,
                "248 is not a valid float8_e4m3fnuz scalar: out of range and float8_e4m3fnuz has "
                "no infinity");
  ExpectInvalid("1e6", DT::float8_e4m3fnuz,
                "1e6 is not a valid float8_e4m3fnuz scalar: out of range and float8_e4m3fnuz has "
                "no infinity");
  ExpectInvalid("-1e6000", DT::float8_e4m3fnuz, "out of range");
  // A pathological lexeme is shortened in the message.
  ExpectInvalid("1" + std::string(500, '0'), DT::float8_e4m3fnuz,
                std::string(48, '0').replace(0, 1, "1") +
                    "... (501 bytes) is not a valid float8_e4m3fnuz scalar");  // R34
  EXPECT_EQ(ParseOk("30", DT::float8_e4m3b11fnuz), 0x7Fu);
  ExpectInvalid("32", DT::float8_e4m3b11fnuz, "out of range");
  EXPECT_EQ(ParseOk("57344", DT::float8_e5m2fnuz), 0x7Fu);
  EXPECT_EQ(ParseOk("-0.0", DT::float8_e5m2fnuz), 0x00u);
  // float4_e2m1fn: grid 0, 0.5, 1, 1.5, 2, 3, 4, 6; 7 is the tie between 6 (odd) and 8 (even).
  EXPECT_EQ(ParseOk("6", DT::float4_e2m1fn), 0x7u);
  EXPECT_EQ(ParseOk("6.99", DT::float4_e2m1fn), 0x7u);
  EXPECT_EQ(ParseOk("-0.0", DT::float4_e2m1fn), 0x8u);
  EXPECT_EQ(ParseOk("2.5", DT::float4_e2m1fn), 0x4u);   // tie between 2 (even) and 3
  EXPECT_EQ(ParseOk("0.25", DT::float4_e2m1fn), 0x0u);  // tie between 0 and 0.5
  EXPECT_EQ(ParseOk("-0.26", DT::float4_e2m1fn), 0x9u);
  ExpectInvalid("7", DT::float4_e2m1fn, "out of range and float4_e2m1fn has no infinity");
  EXPECT_EQ(ParseOk("7.5", DT::float6_e2m3fn), 0x1Fu);
  EXPECT_EQ(ParseOk("-7.5", DT::float6_e2m3fn), 0x3Fu);
  EXPECT_EQ(ParseOk("28", DT::float6_e3m2fn), 0x1Fu);
  ExpectInvalid("30", DT::float6_e3m2fn, "out of range");
}

TEST(ParseJsonScalarTest, Float8E8m0) {
  EXPECT_EQ(ParseOk("1", DT::float8_e8m0fnu), 0x7Fu);
  EXPECT_EQ(ParseOk("2", DT::float8_e8m0fnu), 0x80u);
  EXPECT_EQ(ParseOk("0.5", DT::float8_e8m0fnu), 0x7Eu);
  // R6: 1.5 * 2^e rounds up to 2^(e+1); 0.75 = 1.5 * 2^-1 -> 2^0.
  EXPECT_EQ(ParseOk("0.75", DT::float8_e8m0fnu), 0x7Fu);
  EXPECT_EQ(ParseOk("0.7499999", DT::float8_e8m0fnu), 0x7Eu);
  EXPECT_EQ(ParseOk("1.5", DT::float8_e8m0fnu), 0x80u);
  EXPECT_EQ(ParseOk("1.4999", DT::float8_e8m0fnu), 0x7Fu);
  EXPECT_EQ(ParseOk("1.7014118346046923e38", DT::float8_e8m0fnu), 0xFEu);  // 2^127
  EXPECT_EQ(ParseOk("5.877471754111438e-39", DT::float8_e8m0fnu), 0x00u);  // 2^-127
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e8m0fnu), 0xFFu);
  EXPECT_EQ(ParseOk("\"0xfe\"", DT::float8_e8m0fnu), 0xFEu);
  ExpectInvalid("0", DT::float8_e8m0fnu, "0 is not a valid float8_e8m0fnu scalar: out of range");
  ExpectInvalid("-0.0", DT::float8_e8m0fnu, "no zero");
  ExpectInvalid("-1", DT::float8_e8m0fnu, "out of range");
  ExpectInvalid("1e-40", DT::float8_e8m0fnu, "out of range");
  ExpectInvalid("1e-6000", DT::float8_e8m0fnu, "out of range");
  ExpectInvalid("1e39", DT::float8_e8m0fnu, "has no infinity");
  ExpectInvalid("\"Infinity\"", DT::float8_e8m0fnu, "has no infinity");
}

// ---- floats: strings ----------------------------------------------------------------------------

TEST(ParseJsonScalarTest, NaNAndInfinityStrings) {
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float16), 0x7E00u);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::bfloat16), 0x7FC0u);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float32), 0x7FC00000u);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float64), 0x7FF8000000000000ull);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e4m3), 0x7Cu);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e3m4), 0x78u);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e5m2), 0x7Eu);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e4m3fnuz), 0x80u);
  EXPECT_EQ(ParseOk("\"NaN\"", DT::float8_e5m2fnuz), 0x80u);
  EXPECT_EQ(ParseOk("\"Infinity\"", DT::float16), 0x7C00u);
  EXPECT_EQ(ParseOk("\"+Infinity\"", DT::float16), 0x7C00u);
  EXPECT_EQ(ParseOk("\"-Infinity\"", DT::float16), 0xFC00u);
  EXPECT_EQ(ParseOk("\"-Infinity\"", DT::float64), 0xFFF0000000000000ull);
  EXPECT_EQ(ParseOk("\"Infinity\"", DT::float8_e4m3), 0x78u);
  EXPECT_EQ(ParseOk("\"-Infinity\"", DT::float8_e3m4), 0xF0u);
  ExpectInvalid("\"Infinity\"", DT::float8_e4m3fnuz,
                "\"Infinity\" is not a valid float8_e4m3fnuz scalar: float8_e4m3fnuz has no "
                "infinity");
  ExpectInvalid("\"-Infinity\"", DT::float4_e2m1fn, "has no infinity");
  ExpectInvalid("\"NaN\"", DT::float4_e2m1fn,
                "\"NaN\" is not a valid float4_e2m1fn scalar: float4_e2m1fn has no NaN");
  ExpectInvalid("\"NaN\"", DT::float6_e3m2fn, "has no NaN");
  for (const char* s : {"\"nan\"", "\"-NaN\"", "\"inf\"", "\"Inf\"", "\"infinity\"", "\"1.0\"",
                        "\"\"", "\" NaN\""}) {
    ExpectInvalid(s, DT::float32, "is not a valid float32 scalar");
  }
  ExpectInvalid("true", DT::float32, "true is not a valid float32 scalar: floats take JSON numbers");
  ExpectInvalid("null", DT::float16, "floats take JSON numbers");
  ExpectInvalid("{}", DT::float16, "floats take JSON numbers");
}

TEST(ParseJsonScalarTest, HexRawBits) {
  EXPECT_EQ(ParseOk("\"0x7e00\"", DT::float16), 0x7E00u);
  EXPECT_EQ(ParseOk("\"0x7E01\"", DT::float16), 0x7E01u);
  EXPECT_EQ(ParseOk("\"0x1\"", DT::float16), 0x0001u);  // fewer digits accepted
  EXPECT_EQ(ParseOk("\"0x3c00\"", DT::float16), 0x3C00u);
  EXPECT_EQ(ParseOk("\"0xfff8000000000001\"", DT::float64), 0xFFF8000000000001ull);
  EXPECT_EQ(ParseOk("\"0x7fc00001\"", DT::float32), 0x7FC00001u);
  EXPECT_EQ(ParseOk("\"0xF\"", DT::float4_e2m1fn), 0xFu);
  EXPECT_EQ(ParseOk("\"0x3F\"", DT::float6_e2m3fn), 0x3Fu);
  EXPECT_EQ(ParseOk("\"0xff\"", DT::float8_e4m3), 0xFFu);
  ExpectInvalid("\"0x10\"", DT::float4_e2m1fn, "do not fit the 4-bit type");
  ExpectInvalid("\"0x40\"", DT::float6_e3m2fn, "do not fit the 6-bit type");
  ExpectInvalid("\"0x1FF\"", DT::float8_e4m3, "1 to 2 hex digits");
  ExpectInvalid("\"0x00000\"", DT::float16, "1 to 4 hex digits");
  ExpectInvalid("\"0x\"", DT::float16, "hex digits");
  ExpectInvalid("\"0xg\"", DT::float16, "invalid hex digit");
  ExpectInvalid("\"0x-1\"", DT::float16, "invalid hex digit");
  ExpectInvalid("\"0X7e00\"", DT::float16, "is not a valid float16 scalar");
}

// ---- formatting ---------------------------------------------------------------------------------

TEST(FormatJsonScalarTest, Integers) {
  EXPECT_EQ(FormatJsonScalar(DT::int8, 0x80), "-128");
  EXPECT_EQ(FormatJsonScalar(DT::int8, 0x7F), "127");
  EXPECT_EQ(FormatJsonScalar(DT::int2, 0x2), "-2");
  EXPECT_EQ(FormatJsonScalar(DT::int4, 0xF), "-1");
  EXPECT_EQ(FormatJsonScalar(DT::uint4, 0xF), "15");
  EXPECT_EQ(FormatJsonScalar(DT::int16, 0xFFFF), "-1");
  EXPECT_EQ(FormatJsonScalar(DT::int64, 0x8000000000000000ull), "-9223372036854775808");
  EXPECT_EQ(FormatJsonScalar(DT::uint64, ~0ull), "18446744073709551615");
  EXPECT_EQ(FormatJsonScalar(DT::uint32, 0xFFFFFFFFull), "4294967295");
  // Bits above the type's width are ignored.
  EXPECT_EQ(FormatJsonScalar(DT::int4, 0xF7), "7");
}

TEST(FormatJsonScalarTest, SpecialFloats) {
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x7E00), "\"NaN\"");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x7E01), "\"0x7e01\"");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0xFE00), "\"0xfe00\"");  // sign is part of the bits
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x7C00), "\"Infinity\"");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0xFC00), "\"-Infinity\"");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x7FF8000000000000ull), "\"NaN\"");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x7FF0000000000001ull), "\"0x7ff0000000000001\"");
  EXPECT_EQ(FormatJsonScalar(DT::float32, 0xFFC00000u), "\"0xffc00000\"");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e4m3, 0x7D), "\"0x7d\"");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e4m3fnuz, 0x80), "\"NaN\"");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e8m0fnu, 0xFF), "\"NaN\"");
  EXPECT_EQ(FormatJsonScalar(DT::bfloat16, 0x7FC0), "\"NaN\"");
  EXPECT_EQ(FormatJsonScalar(DT::bfloat16, 0xFF80), "\"-Infinity\"");
}

TEST(FormatJsonScalarTest, FiniteFloatsArePythonReprStyle) {
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x0000), "0.0");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x8000), "-0.0");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x3C00), "1.0");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x2E66), "0.1");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x3C01), "1.001");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x3555), "0.3333");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0xC100), "-2.5");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x7BFF), "65500.0");  // shortest that parses to 65504
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x0001), "6e-08");
  EXPECT_EQ(FormatJsonScalar(DT::float16, 0x0400), "6.104e-05");
  EXPECT_EQ(FormatJsonScalar(DT::bfloat16, 0x3DCD), "0.1");
  EXPECT_EQ(FormatJsonScalar(DT::float32, 0x3DCCCCCDu), "0.1");
  EXPECT_EQ(FormatJsonScalar(DT::float32, 0x4B800000u), "16777216.0");
  EXPECT_EQ(FormatJsonScalar(DT::float32, 0x7F7FFFFFu), "3.4028235e+38");
  EXPECT_EQ(FormatJsonScalar(DT::float32, 0x80000001u), "-1e-45");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x3FB999999999999Aull), "0.1");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x4059000000000000ull), "100.0");
  EXPECT_EQ(FormatJsonScalar(DT::float64, std::bit_cast<std::uint64_t>(1e16)), "1e+16");
  EXPECT_EQ(FormatJsonScalar(DT::float64, std::bit_cast<std::uint64_t>(1234567890123456.0)),
            "1234567890123456.0");
  EXPECT_EQ(FormatJsonScalar(DT::float64, std::bit_cast<std::uint64_t>(0.0001)), "0.0001");
  EXPECT_EQ(FormatJsonScalar(DT::float64, std::bit_cast<std::uint64_t>(0.00001)), "1e-05");
  EXPECT_EQ(FormatJsonScalar(DT::float64, std::bit_cast<std::uint64_t>(-1.5e-300)), "-1.5e-300");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x1ull), "5e-324");
  EXPECT_EQ(FormatJsonScalar(DT::float64, 0x7FEFFFFFFFFFFFFFull), "1.7976931348623157e+308");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e4m3, 0x77), "240.0");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e4m3fnuz, 0xFF), "-240.0");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e8m0fnu, 0x7F), "1.0");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e8m0fnu, 0xFE), "2e+38");
  EXPECT_EQ(FormatJsonScalar(DT::float8_e8m0fnu, 0x00), "6e-39");
  EXPECT_EQ(FormatJsonScalar(DT::float4_e2m1fn, 0x7), "6.0");
  EXPECT_EQ(FormatJsonScalar(DT::float4_e2m1fn, 0xF), "-6.0");
  EXPECT_EQ(FormatJsonScalar(DT::float4_e2m1fn, 0x1), "0.5");
  EXPECT_EQ(FormatJsonScalar(DT::float4_e2m1fn, 0x8), "-0.0");
  EXPECT_EQ(FormatJsonScalar(DT::float6_e3m2fn, 0x01), "0.06");  // 0.0625: 0.06 is nearer than 0.07
}

// ---- round trips --------------------------------------------------------------------------------

// FormatJsonScalar -> ParseJson -> ParseJsonScalar gives the same scalar; non-NaN encodings come
// back bit for bit (NaN payloads too, through hex, but SameScalar is the contract).
void ExpectRoundTrip(DataType type, std::uint64_t bits) {
  std::string text = FormatJsonScalar(type, bits);
  Result<JsonValue> json = ParseJson(text);
  ASSERT_TRUE(json.ok()) << DataTypeName(type) << " " << bits << " -> " << text;
  Result<std::uint64_t> back = ParseJsonScalar(*json, type);
  ASSERT_TRUE(back.ok()) << DataTypeName(type) << " " << bits << " -> " << text << ": "
                         << back.status().message();
  EXPECT_TRUE(SameScalar(type, bits, *back)) << DataTypeName(type) << " " << bits << " -> "
                                              << text << " -> " << *back;
  EXPECT_EQ(*back, bits) << DataTypeName(type) << " " << bits << " -> " << text;
}

TEST(RoundTripTest, EveryEncodingOfSmallTypes) {
  for (DataType type : kAllDataTypes) {
    const TypeInfo& t = Info(type);
    if (t.bits > 16) continue;
    SCOPED_TRACE(std::string(DataTypeName(type)));
    for (std::uint64_t bits = 0; bits <= t.value_mask(); ++bits) {
      ExpectRoundTrip(type, bits);
      if (HasFailure()) return;  // the first failure says enough
    }
  }
}

TEST(RoundTripTest, RandomWideEncodings) {
  std::mt19937_64 rng(20240607);
  for (DataType type : {DT::float32, DT::float64, DT::int32, DT::uint32, DT::int64, DT::uint64}) {
    SCOPED_TRACE(std::string(DataTypeName(type)));
    const std::uint64_t mask = Info(type).value_mask();
    for (int i = 0; i < 4000; ++i) {
      ExpectRoundTrip(type, rng() & mask);
      if (HasFailure()) return;
    }
    // Sweep the specials and the edges too.
    for (std::uint64_t bits : {std::uint64_t{0}, std::uint64_t{1}, mask, mask >> 1, mask ^ (mask >> 1),
                               (mask >> 1) - 1}) {
      ExpectRoundTrip(type, bits);
    }
  }
}

// The sign is the only difference between x and -x (this also guards the shortest-digit search
// for negative values, which must not fall back to a longer form).
TEST(RoundTripTest, NegativeIsMirrorImage) {
  for (DataType type : kAllDataTypes) {
    const TypeInfo& t = Info(type);
    if (t.is_int() || t.bits > 16 || !t.sign_bit() || t.special == Special::Fnuz) continue;
    SCOPED_TRACE(std::string(DataTypeName(type)));
    for (std::uint64_t bits = 0; bits < t.sign_bit(); ++bits) {
      ExactValue v = DecodeBits(type, bits);
      if (v.cls != ValueClass::kFinite) continue;
      ASSERT_EQ(FormatJsonScalar(type, bits | t.sign_bit()), "-" + FormatJsonScalar(type, bits));
    }
  }
  // fnuz: no -0, and 0x80 is NaN, so mirror only the nonzero values.
  for (std::uint64_t bits = 1; bits < 0x80; ++bits) {
    ASSERT_EQ(FormatJsonScalar(DT::float8_e4m3fnuz, bits | 0x80),
              "-" + FormatJsonScalar(DT::float8_e4m3fnuz, bits));
  }
}

// "Shortest": for every finite encoding of the float types of at most 16 bits, neither decimal
// with one significant digit fewer that brackets the output (truncated, and truncated + 1 unit)
// parses back to the same encoding. Since the values that round to an encoding form an interval,
// no shorter decimal round-trips at all.
TEST(RoundTripTest, FloatOutputIsShortest) {
  for (DataType type : kAllDataTypes) {
    const TypeInfo& t = Info(type);
    if (t.is_int() || t.bits > 16) continue;
    SCOPED_TRACE(std::string(DataTypeName(type)));
    for (std::uint64_t bits = 0; bits <= t.value_mask(); ++bits) {
      if (DecodeBits(type, bits).cls != ValueClass::kFinite) continue;
      std::string text = FormatJsonScalar(type, bits);
      // text = [-]mantissa[e exponent] -> value = digits * 10^k with `digits` an integer.
      bool negative = text[0] == '-';
      std::string body = negative ? text.substr(1) : text;
      std::size_t e = body.find('e');
      std::string mantissa = body.substr(0, e);
      long long k = e == std::string::npos ? 0 : std::stoll(body.substr(e + 1));
      std::size_t point = mantissa.find('.');
      if (point != std::string::npos) {
        k -= static_cast<long long>(mantissa.size() - point - 1);
        mantissa.erase(point, 1);
      }
      std::uint64_t digits = std::stoull(mantissa);
      if (digits == 0) continue;
      while (digits % 10 == 0) {
        digits /= 10;
        ++k;
      }
      if (digits < 10) continue;  // one significant digit cannot be shortened
      for (std::uint64_t shorter : {digits / 10, digits / 10 + 1}) {
        if (shorter == 0) continue;
        std::string candidate =
            (negative ? "-" : "") + std::to_string(shorter) + "e" + std::to_string(k + 1);
        Result<std::uint64_t> r = Parse(candidate, type);
        ASSERT_TRUE(!r.ok() || *r != bits) << text << " could be written " << candidate;
      }
    }
  }
}

}  // namespace
}  // namespace zcast::internal
