// The hand-written families of the conformance vectors (conformance/README.md): the named
// examples of the specification and of the rules, scalar_map, fill value (R9), metadata validity
// (R11-R14, each invalid form beside a valid neighbour). Each case states what the rules give
// (`Must`, written here from the rule text, not computed by zcast); the generator stops if zcast
// disagrees. scale_offset and the chain are in generate_chain.cc.
#include <bit>
#include <cmath>
#include <cstring>

#include "generate.h"

namespace zcast_conformance {

using zcast::DataType;

std::uint64_t F64(double v) { return std::bit_cast<std::uint64_t>(v); }
std::uint64_t F32(float v) { return std::bit_cast<std::uint32_t>(v); }

void AddHand(Files& files, const std::string& file, const Hand& h) {
  Case c;
  c.id = h.id;
  c.category = h.category;
  c.rules = h.rules;
  c.data_type_json = Quote(zcast::DataTypeName(h.array));
  c.fill_json = h.fill;
  c.codecs_json = h.codecs;
  c.decode = h.decode;
  c.input = Bytes(h.in_type, h.in);
  Must must{h.outcome, Bytes(h.out_type, h.out), h.index};
  ComputeAndCheck(c, must);
  files[file].push_back(ToJsonLine(c));
}

namespace {

using zcast::OutOfRange;
using zcast::Rounding;
using D = DataType;
constexpr Outcome kOk = Outcome::kOk, kFail = Outcome::kCastFailure, kBad = Outcome::kInvalidMetadata;

std::string Cv(const std::string& config) {
  return "[{\"name\":\"cast_value\",\"configuration\":" + config + "}]";
}

// Encode-direction element cases of one configuration.
Hand Enc(std::string id, std::string cat, std::vector<std::string> rules, D array, D codec,
         std::string config, std::vector<std::uint64_t> in, Outcome outcome,
         std::vector<std::uint64_t> out = {}, std::size_t index = 0) {
  return Hand{std::move(id), std::move(cat), std::move(rules), array, std::nullopt,
              Cv(config), false, array, std::move(in), codec, outcome, std::move(out), index};
}

void Named(Files& f) {
  const std::string file = "named.jsonl";
  auto add = [&](const Hand& h) { AddHand(f, file, h); };
  // The specification's own examples: 128.0 -> int8; int16 wrap.
  add(Enc("named/spec-128-int8-unset", "range", {"spec"}, D::float64, D::int8,
          R"({"data_type":"int8"})", {F64(1), F64(128)}, kFail, {}, 1));
  add(Enc("named/spec-128-int8-clamp", "range", {"spec", "R2"}, D::float64, D::int8,
          R"({"data_type":"int8","out_of_range":"clamp"})", {F64(128)}, kOk, {127}));
  add(Enc("named/spec-128-int8-wrap", "range", {"spec", "R5"}, D::float64, D::int8,
          R"({"data_type":"int8","out_of_range":"wrap"})", {F64(128)}, kOk, {0x80}));
  add(Enc("named/spec-int16-wrap", "range", {"spec", "R5"}, D::int32, D::int16,
          R"({"data_type":"int16","out_of_range":"wrap"})", {32768, 32769, 0xffff7fff}, kOk,
          {0x8000, 0x8001, 0x7fff}));
  // R5: wrap is exact.
  add(Enc("named/r5-1e300-int8", "range", {"R5"}, D::float64, D::int8,
          R"({"data_type":"int8","out_of_range":"wrap"})", {F64(1e300), F64(-1)}, kOk, {0, 0xff}));
  add(Enc("named/r5-2p60-int16", "range", {"R5"}, D::float64, D::int16,
          R"({"data_type":"int16","out_of_range":"wrap"})", {F64(std::ldexp(1.0, 60) + 256)}, kOk,
          {256}));
  add(Enc("named/r5-minus1-uint8", "range", {"R5", "R7"}, D::float64, D::uint8,
          R"({"data_type":"uint8","out_of_range":"wrap"})", {F64(-1)}, kOk, {255}));
  // R1: clamp into a type with Inf gives Inf in every mode; a value that rounds to max is in range.
  add(Enc("named/r1-1e6-e4m3-tz-clamp", "range", {"R1"}, D::float64, D::float8_e4m3,
          R"({"data_type":"float8_e4m3","rounding":"towards-zero","out_of_range":"clamp"})",
          {F64(1e6)}, kOk, {0x78}));
  add(Enc("named/r1-1e6-e4m3-tz-unset", "range", {"R1"}, D::float64, D::float8_e4m3,
          R"({"data_type":"float8_e4m3","rounding":"towards-zero"})", {F64(1e6)}, kFail, {}, 0));
  add(Enc("named/r1-244-e4m3", "range", {"R1"}, D::float64, D::float8_e4m3,
          R"({"data_type":"float8_e4m3"})", {F64(244)}, kOk, {0x77}));
  // Exact rounding, no intermediate type.
  add(Enc("named/nearest-away-0.49999999999999994", "rounding", {"rounding"}, D::float64, D::int32,
          R"({"data_type":"int32","rounding":"nearest-away"})", {F64(0.49999999999999994), F64(2.5)},
          kOk, {0, 3}));
  add(Enc("named/nearest-away-2p52+1", "rounding", {"rounding"}, D::float64, D::int64,
          R"({"data_type":"int64","rounding":"nearest-away"})", {F64(std::ldexp(1.0, 52) + 1)}, kOk,
          {(1ull << 52) + 1}));
  add(Enc("named/f64-f16-double-rounding", "rounding", {"rounding"}, D::float64, D::float16,
          R"({"data_type":"float16"})", {F64(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))}, kOk,
          {0x3c01}));
  add(Enc("named/f64-bf16-double-rounding", "rounding", {"rounding"}, D::float64, D::bfloat16,
          R"({"data_type":"bfloat16"})", {F64(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40))}, kOk,
          {0x3f81}));
  add(Enc("named/int64-f32-double-rounding", "rounding", {"rounding"}, D::int64, D::float32,
          R"({"data_type":"float32"})", {(1ull << 60) + (1ull << 36) + 1}, kOk, {0x5d800001}));
  add(Enc("named/uint64-max-f64-towards-zero", "rounding", {"rounding"}, D::uint64, D::float64,
          R"({"data_type":"float64","rounding":"towards-zero"})", {~0ull}, kOk,
          {0x43efffffffffffffull}));
  add(Enc("named/r7-minus0.4-uint8", "signed-zero", {"R7", "R8"}, D::float64, D::uint8,
          R"({"data_type":"uint8"})", {F64(-0.4)}, kOk, {0}));
  // R3: NaN/Inf into types without them, even with clamp; NaN into the NaN-only types.
  add(Enc("named/r3-inf-int32-clamp", "nan-inf", {"R3"}, D::float64, D::int32,
          R"({"data_type":"int32","out_of_range":"clamp"})", {F64(1), F64(INFINITY)}, kFail, {}, 1));
  add(Enc("named/r3-nan-fnuz", "nan-inf", {"R3"}, D::float32, D::float8_e4m3fnuz,
          R"({"data_type":"float8_e4m3fnuz"})", {F32(NAN), F32(-NAN)}, kOk, {0x80, 0x80}));
  add(Enc("named/r3-nan-e8m0", "nan-inf", {"R3", "R6"}, D::float32, D::float8_e8m0fnu,
          R"({"data_type":"float8_e8m0fnu"})", {F32(NAN)}, kOk, {0xff}));
  add(Enc("named/r3-negative-nan-f16", "nan-inf", {"R3"}, D::float64, D::float16,
          R"({"data_type":"float16"})", {0xfff8000000000001ull, 0x7ff0000000000001ull}, kOk,
          {0xfe00, 0x7e00}));
  add(Enc("named/r19-fnuz-nan-f16", "nan-inf", {"R19"}, D::float8_e4m3fnuz, D::float16,
          R"({"data_type":"float16"})", {0x80}, kOk, {0x7e00}));
  add(Enc("named/r3-inf-e4m3fn-clamp", "nan-inf", {"R3"}, D::float32, D::float6_e2m3fn,
          R"({"data_type":"float6_e2m3fn","out_of_range":"clamp"})", {F32(-INFINITY)}, kFail, {}, 0));
  // R6: float8_e8m0fnu.
  add(Enc("named/r6-e8m0-ties", "rounding", {"R6"}, D::float32, D::float8_e8m0fnu,
          R"({"data_type":"float8_e8m0fnu"})", {F32(1.5f), F32(3.0f), F32(0.75f)}, kOk,
          {128, 129, 127}));
  add(Enc("named/r6-e8m0-zero-clamp", "range", {"R6"}, D::float32, D::float8_e8m0fnu,
          R"({"data_type":"float8_e8m0fnu","out_of_range":"clamp"})", {F32(0), F32(-2)}, kOk,
          {0, 0}));
  add(Enc("named/r6-e8m0-zero-unset", "range", {"R6"}, D::float32, D::float8_e8m0fnu,
          R"({"data_type":"float8_e8m0fnu"})", {F32(1), F32(0)}, kFail, {}, 1));
  // R8: signed zero.
  add(Enc("named/r8-minus0-f16", "signed-zero", {"R8"}, D::float64, D::float16,
          R"({"data_type":"float16"})", {F64(-0.0), F64(-1e-300)}, kOk, {0x8000, 0x8000}));
  add(Enc("named/r8-minus0-fnuz", "signed-zero", {"R8"}, D::float64, D::float8_e5m2fnuz,
          R"({"data_type":"float8_e5m2fnuz"})", {F64(-0.0), F64(-1e-300)}, kOk, {0, 0}));
  add(Enc("named/r8-minus0-float4", "signed-zero", {"R8"}, D::float64, D::float4_e2m1fn,
          R"({"data_type":"float4_e2m1fn"})", {F64(-0.0), F64(-0.2)}, kOk, {0x8, 0x8}));
  add(Enc("named/r8-minus0-int8", "signed-zero", {"R8"}, D::float64, D::int8,
          R"({"data_type":"int8"})", {F64(-0.0), F64(-0.3)}, kOk, {0, 0}));
}

void ScalarMaps(Files& f) {
  const std::string file = "scalar_map.jsonl";
  auto add = [&](const Hand& h) { AddHand(f, file, h); };
  std::vector<std::string> r10 = {"R10"};
  add(Enc("scalar_map/first-wins-float", "scalar-map", r10, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[[1.0,2],[1.0,3]]}})", {F64(1), F64(4)}, kOk,
          {2, 4}));
  add(Enc("scalar_map/first-wins-int", "scalar-map", r10, D::int16, D::int8,
          R"({"data_type":"int8","scalar_map":{"encode":[[7,1],[7,2]]}})", {7, 8}, kOk, {1, 8}));
  add(Hand{"scalar_map/first-wins-decode", "scalar-map", r10, D::float64, std::nullopt,
           Cv(R"({"data_type":"uint8","scalar_map":{"decode":[[5,1.5],[5,2.5]]}})"), true, D::uint8,
           {5, 6}, D::float64, kOk, {F64(1.5), F64(6)}, 0});
  add(Enc("scalar_map/nan-key-every-nan", "scalar-map", r10, D::float32, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0]]}})",
          {0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc00001, F32(1)}, kOk, {0, 0, 0, 0, 1}));
  add(Enc("scalar_map/nan-key-int-clamp", "scalar-map", {"R10", "R3"}, D::float64, D::int16,
          R"({"data_type":"int16","out_of_range":"clamp","scalar_map":{"encode":[["NaN",-1]]}})",
          {F64(NAN), F64(1e9)}, kOk, {0xffff, 0x7fff}));
  add(Enc("scalar_map/minus-zero-key", "scalar-map", {"R10", "R8"}, D::float64, D::int8,
          R"({"data_type":"int8","scalar_map":{"encode":[[-0.0,5]]}})", {F64(-0.0), F64(0.0)}, kOk,
          {5, 0}));
  add(Enc("scalar_map/plus-zero-key", "scalar-map", {"R10", "R8"}, D::float64, D::int8,
          R"({"data_type":"int8","scalar_map":{"encode":[[0.0,7]]}})", {F64(-0.0), F64(0.0)}, kOk,
          {0, 7}));
  add(Enc("scalar_map/no-chaining", "scalar-map", r10, D::int8, D::int8,
          R"({"data_type":"int8","scalar_map":{"encode":[[1,2],[2,3]]}})", {1, 2, 3}, kOk, {2, 3, 3}));
  add(Enc("scalar_map/map-before-range", "scalar-map", {"R10", "spec"}, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[[300.0,255]]}})", {F64(300), F64(3)}, kOk,
          {255, 3}));
  add(Enc("scalar_map/map-before-range-unmapped", "scalar-map", r10, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[[300.0,255]]}})", {F64(3), F64(301)}, kFail,
          {}, 1));
  add(Enc("scalar_map/map-before-exact", "scalar-map", r10, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[[1.0,9]]}})", {F64(1), F64(2)}, kOk, {9, 2}));
  add(Enc("scalar_map/infinities", "scalar-map", {"R10", "R3"}, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[["Infinity",0],["-Infinity",1]]}})",
          {F64(INFINITY), F64(-INFINITY)}, kOk, {0, 1}));
  add(Enc("scalar_map/plus-infinity-alias", "scalar-map", {"R11"}, D::float64, D::uint8,
          R"({"data_type":"uint8","scalar_map":{"encode":[["+Infinity",7]]}})", {F64(INFINITY)}, kOk,
          {7}));
  add(Enc("scalar_map/int64-exact-key", "scalar-map", {"R10", "R11"}, D::int64, D::float64,
          R"({"data_type":"float64","scalar_map":{"encode":[[9007199254740993,0.5]]}})",
          {(1ull << 53) + 1, 1ull << 53}, kOk, {F64(0.5), F64(std::ldexp(1.0, 53))}));
  add(Enc("scalar_map/value-emitted-as-is", "scalar-map", r10, D::float32, D::float16,
          R"({"data_type":"float16","scalar_map":{"encode":[["NaN","0x7e01"]]}})", {F32(NAN)}, kOk,
          {0x7e01}));
  add(Enc("scalar_map/spec-numpy-example", "scalar-map", {"spec", "R5", "R10"}, D::float64, D::uint8,
          R"({"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap","scalar_map":)"
          R"({"encode":[["NaN",0],["Infinity",0],["-Infinity",0]]}})",
          {F64(NAN), F64(INFINITY), F64(-INFINITY), F64(300.7), F64(-1.5), F64(2.9)}, kOk,
          {0, 0, 0, 44, 255, 2}));
  add(Hand{"scalar_map/decode-nan", "scalar-map", r10, D::float32, std::nullopt,
           Cv(R"({"data_type":"uint16","scalar_map":{"decode":[[0,"NaN"]]}})"), true, D::uint16,
           {0, 1}, D::float32, kOk, {0x7fc00000, F32(1)}, 0});
  add(Hand{"scalar_map/encode-map-not-on-decode", "scalar-map", r10, D::float64, std::nullopt,
           Cv(R"({"data_type":"uint8","scalar_map":{"encode":[[1.5,3]]}})"), true, D::uint8, {3},
           D::float64, kOk, {F64(3)}, 0});
}

void FillValues(Files& f) {
  const std::string file = "fill_value.jsonl";
  std::vector<std::string> r9 = {"R9"};
  auto add = [&](std::string id, D array, std::string fill, std::string config, Outcome outcome,
                 D codec, std::vector<std::uint64_t> in, std::vector<std::uint64_t> out) {
    AddHand(f, file, Hand{"fill_value/" + id, "fill-value", r9, array, fill, Cv(config), false,
                          array, in, codec, outcome, out, 0});
  };
  const std::string u8 = R"({"data_type":"uint8"})";
  add("1.5-uint8", D::float64, "1.5", u8, kBad, D::uint8, {F64(1)}, {});
  add("2-uint8", D::float64, "2.0", u8, kOk, D::uint8, {F64(1)}, {1});
  add("nan-uint8-no-map", D::float32, "\"NaN\"", u8, kBad, D::uint8, {F32(1)}, {});
  add("nan-uint8-map", D::float32, "\"NaN\"",
      R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}})", kOk,
      D::uint8, {F32(1), F32(NAN)}, {1, 0});
  add("nan-uint8-encode-map-only", D::float32, "\"NaN\"",
      R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0]]}})", kBad, D::uint8, {F32(1)}, {});
  add("minus0-int8", D::float64, "-0.0", R"({"data_type":"int8"})", kBad, D::int8, {F64(1)}, {});
  add("0-int8", D::float64, "0.0", R"({"data_type":"int8"})", kOk, D::int8, {F64(1)}, {1});
  add("minus0-float16", D::float64, "-0.0", R"({"data_type":"float16"})", kOk, D::float16,
      {F64(1)}, {0x3c00});
  add("300-uint8-clamp", D::float64, "300.0", R"({"data_type":"uint8","out_of_range":"clamp"})",
      kBad, D::uint8, {F64(1)}, {});
  add("255-uint8-clamp", D::float64, "255.0", R"({"data_type":"uint8","out_of_range":"clamp"})",
      kOk, D::uint8, {F64(1)}, {1});
  add("tiny-float16", D::float64, "1e-10", R"({"data_type":"float16"})", kBad, D::float16,
      {F64(1)}, {});
  add("0-e8m0", D::float32, "0.0", R"({"data_type":"float8_e8m0fnu"})", kBad, D::float8_e8m0fnu,
      {F32(1)}, {});
  add("1-e8m0", D::float32, "1.0", R"({"data_type":"float8_e8m0fnu"})", kOk, D::float8_e8m0fnu,
      {F32(2)}, {128});
  add("1000-int8-wrap", D::int16, "1000", R"({"data_type":"int8","out_of_range":"wrap"})", kBad,
      D::int8, {1}, {});
  add("minus1-uint8-wrap", D::int8, "-1", R"({"data_type":"uint8","out_of_range":"wrap"})", kOk,
      D::uint8, {0xff}, {0xff});
  add("minus1-uint8-unset", D::int8, "-1", u8, kBad, D::uint8, {1}, {});
  add("inf-float16", D::float32, "\"Infinity\"", R"({"data_type":"float16"})", kOk, D::float16,
      {F32(1)}, {0x3c00});
  add("inf-fnuz", D::float32, "\"Infinity\"", R"({"data_type":"float8_e4m3fnuz"})", kBad,
      D::float8_e4m3fnuz, {F32(1)}, {});
  add("mapped-both-ways", D::float32, "0.5",
      R"({"data_type":"uint16","scalar_map":{"encode":[[0.5,7]],"decode":[[7,0.5]]}})", kOk,
      D::uint16, {F32(0.5), F32(2)}, {7, 2});
  add("mapped-one-way", D::float32, "0.5",
      R"({"data_type":"uint16","scalar_map":{"encode":[[0.5,7]]}})", kBad, D::uint16, {F32(2)}, {});
}

void Metadata(Files& f) {
  const std::string file = "metadata.jsonl";
  // Array float32, input 2.5 and 1: the valid neighbours give uint8 2 and 1 (nearest-even).
  auto add = [&](std::string id, std::vector<std::string> rules, std::string codec, bool valid) {
    AddHand(f, file, Hand{"metadata/" + id + (valid ? "/valid" : "/invalid"), "metadata", rules,
                          D::float32, std::nullopt, "[" + codec + "]", false, D::float32,
                          {F32(2.5f), F32(1)}, D::uint8, valid ? kOk : kBad,
                          valid ? std::vector<std::uint64_t>{2, 1} : std::vector<std::uint64_t>{}, 0});
  };
  auto cv = [](const std::string& config) {
    return "{\"name\":\"cast_value\",\"configuration\":" + config + "}";
  };
  add("data-type-string", {"R12"}, cv(R"({"data_type":"uint8"})"), true);
  add("data-type-missing", {"R13"}, cv(R"({"rounding":"nearest-even"})"), false);
  add("data-type-object", {"R12"}, cv(R"({"data_type":{"name":"uint8"}})"), true);
  add("data-type-object-empty-config", {"R12"},
      cv(R"({"data_type":{"name":"uint8","configuration":{}}})"), true);
  add("data-type-object-config", {"R12"},
      cv(R"({"data_type":{"name":"uint8","configuration":{"endian":"little"}}})"), false);
  add("data-type-object-extra-key", {"R12"},
      cv(R"({"data_type":{"name":"uint8","must_understand":false}})"), false);
  add("data-type-unsupported", {"R13"}, cv(R"({"data_type":"bool"})"), false);
  add("data-type-wrong-json-type", {"R13"}, cv(R"({"data_type":8})"), false);
  add("unknown-config-key", {"R13", "spec"}, cv(R"({"data_type":"uint8","foo":1})"), false);
  add("rounding-explicit", {"R13"}, cv(R"({"data_type":"uint8","rounding":"nearest-even"})"), true);
  add("rounding-unknown", {"R13"}, cv(R"({"data_type":"uint8","rounding":"nearest-up"})"), false);
  add("rounding-wrong-json-type", {"R13"}, cv(R"({"data_type":"uint8","rounding":1})"), false);
  add("out-of-range-unknown", {"R13"}, cv(R"({"data_type":"uint8","out_of_range":"saturate"})"),
      false);
  add("out-of-range-null", {"R13"}, cv(R"({"data_type":"uint8","out_of_range":null})"), false);
  add("out-of-range-wrap-int", {"R4"}, cv(R"({"data_type":"uint8","out_of_range":"wrap"})"), true);
  add("configuration-missing", {"R14"}, R"({"name":"cast_value"})", false);
  add("configuration-not-object", {"R14"}, R"({"name":"cast_value","configuration":[]})", false);
  add("codec-extra-member", {"R14"},
      R"({"name":"cast_value","configuration":{"data_type":"uint8"},"must_understand":false})",
      false);
  add("scalar-map-empty", {"R16"}, cv(R"({"data_type":"uint8","scalar_map":{}})"), true);
  add("scalar-map-unknown-key", {"R13"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[],"other":[]}})"), false);
  add("scalar-map-not-object", {"R13"}, cv(R"({"data_type":"uint8","scalar_map":[]})"), false);
  add("scalar-map-encode-not-list", {"R13"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":{}}})"), false);
  add("scalar-map-entry-pair", {"R13"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,7]]}})"), true);
  add("scalar-map-entry-short", {"R13"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0]]}})"), false);
  add("scalar-map-entry-long", {"R13"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,7,7]]}})"), false);
  add("scalar-map-value-in-range", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,255]]}})"), true);
  add("scalar-map-value-300-uint8", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,300]]}})"), false);
  add("scalar-map-value-1.0-uint8", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,1.0]]}})"), false);
  add("scalar-map-value-string-uint8", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,"1"]]}})"), false);
  add("scalar-map-value-bool-uint8", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,true]]}})"), false);
  add("scalar-map-value-nan-uint8", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[[7.0,"NaN"]]}})"), false);
  add("scalar-map-key-nan-float32", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",0]]}})"), true);
  add("scalar-map-key-hex-float32", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[["0x7fc00000",0]]}})"), true);
  add("scalar-map-key-bad-string", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"encode":[["nan",0]]}})"), false);
  add("scalar-map-decode-key-300", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"decode":[[300,0.0]]}})"), false);
  add("scalar-map-decode-key-255", {"R11"},
      cv(R"({"data_type":"uint8","scalar_map":{"decode":[[255,0.0]]}})"), true);
  add("scalar-map-decode-value-overflow-float32", {"R11", "R18"},
      cv(R"({"data_type":"uint8","scalar_map":{"decode":[[255,1e39]]}})"), true);

  // Keys and values of other types: an int8 array, uint8 or float8 codecs (input 1 and 2).
  auto add_typed = [&](std::string id, std::vector<std::string> rules, D array, D codec,
                       std::string config, bool valid, std::vector<std::uint64_t> in,
                       std::vector<std::uint64_t> out) {
    AddHand(f, file, Hand{"metadata/" + id + (valid ? "/valid" : "/invalid"), "metadata", rules,
                          array, std::nullopt, Cv(config), false, array, in, codec,
                          valid ? kOk : kBad, valid ? out : std::vector<std::uint64_t>{}, 0});
  };
  add_typed("int8-key-1", {"R11"}, D::int8, D::uint8,
            R"({"data_type":"uint8","scalar_map":{"encode":[[1,9]]}})", true, {1, 2}, {9, 2});
  add_typed("int8-key-1.5", {"R11"}, D::int8, D::uint8,
            R"({"data_type":"uint8","scalar_map":{"encode":[[1.5,9]]}})", false, {}, {});
  add_typed("int8-key-1.0", {"R11"}, D::int8, D::uint8,
            R"({"data_type":"uint8","scalar_map":{"encode":[[1.0,9]]}})", false, {}, {});
  add_typed("int8-key-nan", {"R11"}, D::int8, D::uint8,
            R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",9]]}})", false, {}, {});
  add_typed("fnuz-value-infinity", {"R11"}, D::int8, D::float8_e4m3fnuz,
            R"({"data_type":"float8_e4m3fnuz","scalar_map":{"encode":[[1,"Infinity"]]}})", false,
            {}, {});
  add_typed("e4m3-value-infinity", {"R11"}, D::int8, D::float8_e4m3,
            R"({"data_type":"float8_e4m3","scalar_map":{"encode":[[1,"Infinity"]]}})", true,
            {1, 2}, {0x78, 0x40});
  add_typed("fnuz-value-1000", {"R11"}, D::int8, D::float8_e4m3fnuz,
            R"({"data_type":"float8_e4m3fnuz","scalar_map":{"encode":[[1,1000]]}})", false, {}, {});
  add_typed("fnuz-value-240", {"R11"}, D::int8, D::float8_e4m3fnuz,
            R"({"data_type":"float8_e4m3fnuz","scalar_map":{"encode":[[1,240]]}})", true, {1, 2},
            {0x7f, 0x48});
  add_typed("wrap-float-target", {"R4"}, D::int8, D::float16,
            R"({"data_type":"float16","out_of_range":"wrap"})", false, {}, {});
  add_typed("clamp-float-target", {"R4"}, D::int8, D::float16,
            R"({"data_type":"float16","out_of_range":"clamp"})", true, {1, 2}, {0x3c00, 0x4000});
}

}  // namespace

void GenerateNamedFamilies(Files& files) {
  Named(files);
  ScalarMaps(files);
  FillValues(files);
  Metadata(files);
  GenerateChainFamilies(files);
}

}  // namespace zcast_conformance
