// scale_offset in each of the 26 types, and scale_offset + cast_value chains including the real
// Sentinel-2 L2A configuration (the codecs of a published product's 10 m band): conformance/README.md, "scale_offset"
// and "chain". The per-type scale_offset cases take their expected values from zcast; the
// metadata and chain cases also state what the rules give (Must), the Sentinel-2 ones computed
// here with the hardware's own float32 / float64 operations (one IEEE rounding per operation, the
// arithmetic semantics.md prescribes), independently of zcast's kernels.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "generate.h"
#include "zcast/dtype.h"
#include "zcast/exact.h"

namespace zcast_conformance {
namespace {

using D = zcast::DataType;
using zcast::internal::Info;
constexpr Outcome kOk = Outcome::kOk, kFail = Outcome::kCastFailure, kBad = Outcome::kInvalidMetadata;

std::string So(const std::string& config) {
  return "{\"name\":\"scale_offset\",\"configuration\":" + config + "}";
}

// Elements run one at a time decide which succeed; the successes form one case per category,
// and the first and the last failure each a case after a succeeding element (index 1).
void EmitSplit(Files& files, const std::string& file, const std::string& id, D array,
               const std::string& codecs, bool decode, D in_type,
               const std::vector<std::uint64_t>& values, const std::vector<std::string>& rules) {
  Case base;
  base.data_type_json = Quote(zcast::DataTypeName(array));
  base.codecs_json = codecs;
  base.decode = decode;
  base.rules = rules;
  std::map<std::string, std::vector<std::uint64_t>> ok;
  std::vector<std::uint64_t> fails;
  for (std::uint64_t v : values) {
    Case one = base;
    one.input = Bytes(in_type, {v});
    Compute(one);
    if (one.outcome == Outcome::kInvalidMetadata) {
      std::fprintf(stderr, "%s: the codecs are invalid\n", id.c_str());
      std::exit(2);
    }
    if (one.outcome != Outcome::kOk) {
      fails.push_back(v);
      continue;
    }
    auto x = zcast::internal::DecodeBits(in_type, v);
    std::string cat = x.cls != zcast::internal::ValueClass::kFinite ? "nan-inf"
                      : x.mag == 0                                   ? "signed-zero"
                                                                     : "rounding";
    ok[cat].push_back(v);
  }
  std::uint64_t anchor = ok.count("rounding") ? ok["rounding"].front() : 0;
  for (auto& [cat, elems] : ok) {
    Case c = base;
    c.id = id + "/" + cat;
    c.category = cat;
    c.input = Bytes(in_type, elems);
    Compute(c);
    files[file].push_back(ToJsonLine(c));
  }
  for (std::size_t i = 0; i < fails.size() && i < 2; ++i) {
    Case c = base;
    c.id = id + (i ? "/fail-last" : "/fail-first");
    c.category = "range";
    c.input = Bytes(in_type, {anchor, i ? fails.back() : fails.front()});
    Must must{kFail, {}, 1};
    ComputeAndCheck(c, must);
    files[file].push_back(ToJsonLine(c));
    if (fails.size() == 1) break;
  }
}

std::string Params(D t) {
  const auto& info = Info(t);
  if (!info.is_int()) return R"({"offset":0.5,"scale":2.0})";
  return info.bits == 2 ? R"({"offset":1,"scale":1})" : R"({"offset":1,"scale":2})";
}

void ScaleOffsetPerType(Files& f) {
  const std::vector<std::string> rules = {"R20", "R21", "R22", "R23", "R24"};
  for (D t : zcast::internal::kAllDataTypes) {
    std::string name(zcast::DataTypeName(t));
    std::string codecs = "[" + So(Params(t)) + "]";
    std::vector<std::uint64_t> values = SourceValues(t, t);
    for (bool decode : {false, true}) {
      EmitSplit(f, "scale_offset.jsonl",
                "scale_offset/" + name + (decode ? "/decode" : "/encode"), t, codecs, decode, t,
                values, rules);
    }
  }
}

void ScaleOffsetMetadata(Files& f) {
  const std::string file = "scale_offset.jsonl";
  auto add = [&](std::string id, std::vector<std::string> rules, D array, std::string codec,
                 std::vector<std::uint64_t> in, Outcome outcome, std::vector<std::uint64_t> out,
                 std::optional<std::string> fill = std::nullopt) {
    AddHand(f, file, Hand{"scale_offset/metadata/" + id, "metadata",
                          rules, array, fill, "[" + codec + "]", false, array, in, array, outcome,
                          out, 0});
  };
  std::vector<std::uint64_t> in = {F32(2.5f), F32(1)};
  add("offset-1-scale-2/valid", {"R22"}, D::float32, So(R"({"offset":1.0,"scale":2.0})"), in, kOk,
      {F32(3), F32(0)});
  add("no-configuration/valid", {"R21"}, D::float32, R"({"name":"scale_offset"})", in, kOk, in);
  add("empty-configuration/valid", {"R21"}, D::float32, So("{}"), in, kOk, in);
  add("scale-0/invalid", {"R22"}, D::float32, So(R"({"scale":0})"), in, kBad, {});
  add("scale-minus-0/invalid", {"R22"}, D::float32, So(R"({"scale":-0.0})"), in, kBad, {});
  add("scale-rounds-to-0/invalid", {"R22"}, D::float32, So(R"({"scale":1e-50})"), in, kBad, {});
  add("scale-nan/invalid", {"R22"}, D::float32, So(R"({"scale":"NaN"})"), in, kBad, {});
  add("offset-infinity/invalid", {"R22"}, D::float32, So(R"({"offset":"Infinity"})"), in, kBad, {});
  add("offset-null/invalid", {"R22"}, D::float32, So(R"({"offset":null})"), in, kBad, {});
  add("unknown-key/invalid", {"R13"}, D::float32, So(R"({"offset":1.0,"shift":2})"), in, kBad, {});
  add("int8-offset-1.5/invalid", {"R22"}, D::int8, So(R"({"offset":1.5})"), {3}, kBad, {});
  add("int8-offset-1/valid", {"R22"}, D::int8, So(R"({"offset":1})"), {3}, kOk, {2});
  add("int8-fill-overflow/invalid", {"R20"}, D::int8, So(R"({"scale":2})"), {3}, kBad, {}, "100");
  add("int8-fill/valid", {"R20"}, D::int8, So(R"({"scale":2})"), {3}, kOk, {6}, "10");
  add("float32-fill-nan/valid", {"R20", "R23"}, D::float32, So(R"({"scale":2.0})"), in, kOk,
      {F32(5), F32(2)}, "\"NaN\"");
}

// The Sentinel-2 L2A reflectance chain, computed with native arithmetic in the array's type.
template <typename T>
void Sentinel(Files& f, D array, const std::string& tag) {
  const std::string file = "chain.jsonl";
  const std::string codecs =
      R"([{"name":"scale_offset","configuration":{"offset":-0.1,"scale":10000.0}},)"
      R"({"name":"cast_value","configuration":{"data_type":"uint16",)"
      R"("scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}}])";
  const T offset = static_cast<T>(-0.1), scale = static_cast<T>(10000.0);
  auto bits = [](T v) { return sizeof(T) == 4 ? F32(static_cast<float>(v)) : F64(static_cast<double>(v)); };
  volatile T sink;  // keep each operation rounded on its own (no contraction, no extra precision)
  auto encode = [&](T x) -> std::optional<std::uint64_t> {
    sink = x - offset;
    T d = sink;
    sink = d * scale;
    T y = sink;
    T r = std::nearbyint(y);  // nearest-even: the default rounding mode
    if (!(r >= 0 && r <= 65535)) return std::nullopt;
    return static_cast<std::uint64_t>(r);
  };
  std::vector<T> xs = {static_cast<T>(0.0), static_cast<T>(0.05), static_cast<T>(0.1234),
                       static_cast<T>(1.0), static_cast<T>(-0.1), static_cast<T>(6.4535),
                       static_cast<T>(0.00005), static_cast<T>(0.00015)};
  std::vector<std::uint64_t> in = {bits(NAN)}, out = {0};
  for (T x : xs) {
    in.push_back(bits(x));
    out.push_back(*encode(x));
  }
  std::vector<std::string> rules = {"R10", "R20", "R24", "R26"};
  AddHand(f, file, Hand{"chain/sentinel2-" + tag + "/encode", "rounding", rules, array, "\"NaN\"",
                        codecs, false, array, in, D::uint16, kOk, out, 0});
  for (T bad : {static_cast<T>(-0.2), static_cast<T>(7.0)}) {
    AddHand(f, file, Hand{"chain/sentinel2-" + tag + "/encode-fail-" + (bad < 0 ? "below" : "above"),
                          "range", rules, array, "\"NaN\"", codecs, false, array,
                          {bits(static_cast<T>(0.05)), bits(bad)}, D::uint16, kFail, {}, 1});
  }
  std::vector<std::uint64_t> stored = {0, 1, 1000, 1234, 12345, 65535};
  std::vector<std::uint64_t> back = {sizeof(T) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull};
  for (std::size_t i = 1; i < stored.size(); ++i) {
    sink = static_cast<T>(stored[i]) / scale;
    T q = sink;
    sink = q + offset;
    back.push_back(bits(sink));
  }
  AddHand(f, file, Hand{"chain/sentinel2-" + tag + "/decode", "rounding", rules, array, "\"NaN\"",
                        codecs, true, D::uint16, stored, array, kOk, back, 0});
}

void Chains(Files& f) {
  Sentinel<float>(f, D::float32, "float32");
  Sentinel<double>(f, D::float64, "float64");
  const std::string file = "chain.jsonl";
  // Two cast_value codecs round twice, correctly: each codec is one cast (compare
  // named/f64-f16-double-rounding, one codec, 0x3c01).
  AddHand(f, file, Hand{"chain/two-casts-round-twice", "rounding", {"R26"}, D::float64, std::nullopt,
                        R"([{"name":"cast_value","configuration":{"data_type":"float32"}},)"
                        R"({"name":"cast_value","configuration":{"data_type":"float16"}}])",
                        false, D::float64, {F64(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))},
                        D::float16, kOk, {0x3c00}, 0});
  // Integer scale_offset then wrap (what numcodecs.fixedscaleoffset means, R25), and its
  // decode, which must divide exactly (R24).
  const std::string wrap = R"([{"name":"scale_offset","configuration":{"offset":100,"scale":3}},)"
                           R"({"name":"cast_value","configuration":)"
                           R"({"data_type":"int8","out_of_range":"wrap"}}])";
  // 356: (356 - 100) * 3 = 768 wraps to 0. A wrap by a multiple of 3 * 256 keeps the stored
  // value a multiple of 3, so the chain can read it back; 200 would wrap to 44, which 44 / 3 cannot
  // decode, and zcast's chain refuses to write such a value (R32, a zcast rule beyond the spec:
  // the vectors hold only what the spec and R32 agree on).
  AddHand(f, file, Hand{"chain/int16-scale-offset-wrap/encode", "range", {"R5", "R24"}, D::int16,
                        std::nullopt, wrap, false, D::int16, {356, 101, 90}, D::int8, kOk,
                        {0, 3, 0xe2}, 0});
  AddHand(f, file, Hand{"chain/int16-scale-offset-wrap/decode", "rounding", {"R24"}, D::int16,
                        std::nullopt, wrap, true, D::int8, {3, 0xe2}, D::int16, kOk, {101, 90}, 0});
  AddHand(f, file, Hand{"chain/int16-scale-offset-wrap/decode-inexact", "range", {"R24"}, D::int16,
                        std::nullopt, wrap, true, D::int8, {3, 44}, D::int16, kFail, {}, 1});
}

}  // namespace

void GenerateChainFamilies(Files& files) {
  ScaleOffsetPerType(files);
  ScaleOffsetMetadata(files);
  Chains(files);
}

}  // namespace zcast_conformance
