// zcast_conformance_verify: confirms the committed conformance vectors independently of zcast's
// engine. The vectors were computed by the exact engine; here every element of
// every case whose codecs are a single cast_value without scalar_map (the cast/, decode/ and most
// named/ cases) is recomputed from the .jsonl text by
//   - LLVM APFloat (tests/apfloat_model.h) for the 24 targets it decides (all but float8_e3m4 and
//     float8_e8m0fnu; the range rules R1-R7 are applied on top of APFloat's rounding, because
//     APFloat's own overflow rules are IEEE's, not cast_value's), and
//   - the reference model (tests/reference_model.h): the target's values enumerated (every float
//     type of <= 16 bits) or computed as multiples of the quantum (wider ones and the integers),
//     and the input placed between its two neighbours by exact __float128 comparison;
// and the test fails on any disagreement with the vector. Neither oracle calls zcast's engine;
// they use only zcast's public enums. The hand-written families (scalar_map, fill value, metadata,
// scale_offset, chain) are checked against rule-derived expectations in the generator instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "jsonl.h"
}
#include "apfloat_model.h"
#include "reference_model.h"

#ifndef ZCAST_CONFORMANCE_DIR
#error "ZCAST_CONFORMANCE_DIR must name the vector directory"
#endif

namespace zcast_test {
namespace {

std::string Str(jsonl_span v) { return {v.begin, v.end}; }

std::optional<std::string> StringMember(jsonl_span obj, const char* key) {
  jsonl_span v, s;
  if (!jsonl_member(obj.begin, obj.end, key, &v) || !jsonl_string(v, &s)) return std::nullopt;
  return Str(s);
}

std::vector<std::uint64_t> Elements(const std::string& hex, std::size_t size) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i + 2 * size <= hex.size(); i += 2 * size) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < size; ++b) {
      v |= std::stoull(hex.substr(i + 2 * b, 2), nullptr, 16) << (8 * b);
    }
    out.push_back(v);
  }
  return out;
}

std::optional<DataType> TypeByName(const std::string& name) {
  for (int i = 0; i < 26; ++i) {
    if (name == kRefTypes[i].name) return static_cast<DataType>(i);
  }
  return std::nullopt;
}

std::size_t StorageSize(DataType t) {
  int bits = Ref(t).bits;
  return bits <= 8 ? 1 : bits / 8;
}

std::optional<Rounding> RoundingByName(const std::string& s) {
  const std::map<std::string, Rounding> m = {
      {"nearest-even", Rounding::kNearestEven}, {"nearest-away", Rounding::kNearestAway},
      {"towards-zero", Rounding::kTowardsZero}, {"towards-positive", Rounding::kTowardsPositive},
      {"towards-negative", Rounding::kTowardsNegative}};
  auto it = m.find(s);
  return it == m.end() ? std::nullopt : std::optional<Rounding>(it->second);
}

struct Counts {
  long cases = 0, elements = 0, by_apfloat = 0, by_reference = 0, not_ours = 0, mismatches = 0;
};

std::string Show(const RefOutcome& o) {
  char buf[64];
  if (o.error == RefError::kNone) std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)o.bits);
  else std::snprintf(buf, sizeof buf, "error %d", static_cast<int>(o.error));
  return buf;
}

// ---- scale_offset, recomputed in __float128 ----
//
// semantics.md: each operation is the exact result rounded once (nearest-even) into the array's
// type; a finite input whose result overflows, an integer step out of range, an inexact integer
// division are errors (R24); NaN passes with its encoding unchanged (R23). Every product and
// quotient of two values of the 26 types (at most 64 significant bits each) is exact in
// __float128, and so is each difference that matters: where x - offset is not exact in 113 bits
// it is too far from the type's midpoints for the quad rounding to change the final one. The
// rounding into the type and the range decision are the reference model's (R1-R8 with
// out_of_range unset), which is what R24 asks of each step.

f128 ToF128(const RefValue& r) {
  f128 inf = Pow2(16000) * Pow2(16000);
  f128 v = r.cls == RefValue::Cls::kInf ? inf : r.mag;
  return r.neg ? -v : v;
}

// One operation's exact result into `type`; nullopt when it has no result (R24).
std::optional<std::uint64_t> Step(DataType type, f128 exact) {
  RefValue v;
  f128 mag = exact < 0 ? -exact : exact;
  v.neg = exact < 0 || (exact == 0 && 1 / exact < 0);
  if (mag - mag != 0) {  // +-Inf: only from an infinite input, kept where the type has Inf
    if (Ref(type).form != Form::kIeee) return std::nullopt;
    v.cls = RefValue::Cls::kInf;
  } else {
    v.mag = mag;
  }
  if (IsIntForm(Ref(type).form) && static_cast<f128>(static_cast<__int128>(exact)) != exact) {
    return std::nullopt;  // integer arithmetic is exact: a division with a remainder fails
  }
  RefOutcome o = RefCastValue(v, type, Rounding::kNearestEven, OutOfRange::kUnset);
  if (o.error != RefError::kNone) return std::nullopt;
  return o.bits;
}

// A parameter's JSON number as a value of `type`, when it is one exactly (else nullopt: the
// case is left to the generator's checks).
std::optional<f128> Param(jsonl_span config, const char* key, DataType type, bool* present) {
  jsonl_span v;
  *present = jsonl_member(config.begin, config.end, key, &v);
  if (!*present || *v.begin == '"') return std::nullopt;
  long double d = std::strtold(Str(v).c_str(), nullptr);
  auto bits = Step(type, static_cast<f128>(d));
  if (!bits || ToF128(RefDecode(type, *bits)) != static_cast<f128>(d)) return std::nullopt;
  return static_cast<f128>(d);
}

void VerifyScaleOffset(jsonl_span all, jsonl_span codec, const std::string& id,
                       const std::string& array, bool decode, const std::string& input,
                       Counts& n) {
  jsonl_span config{nullptr, nullptr}, error;
  auto type = TypeByName(array);
  bool has_config = jsonl_member(codec.begin, codec.end, "configuration", &config);
  bool is_error = jsonl_member(all.begin, all.end, "error", &error);
  auto error_class = is_error ? StringMember(error, "class") : std::nullopt;
  bool has_offset = false, has_scale = false;
  std::optional<f128> offset, scale;
  if (type && has_config) {
    offset = Param(config, "offset", *type, &has_offset);
    scale = Param(config, "scale", *type, &has_scale);
  }
  if (!type || (error_class && *error_class != "cast-failure") || (has_offset && !offset) ||
      (has_scale && !scale) || (scale && *scale == 0)) {
    // Only the metadata cases (invalid parameters) may be left to the generator.
    EXPECT_NE(id.find("/metadata/"), std::string::npos) << id << ": not verified";
    ++n.not_ours;
    return;
  }
  const DataType t = type.value_or(DataType::int8);
  std::vector<std::uint64_t> in = Elements(input, StorageSize(t)), want;
  std::size_t fail_at = in.size();
  if (is_error) {
    jsonl_span idx;
    ASSERT_TRUE(jsonl_member(error.begin, error.end, "index", &idx)) << id;
    fail_at = std::stoul(Str(idx));
  } else {
    want = Elements(StringMember(all, "expected").value_or(""), StorageSize(t));
  }
  ++n.cases;
  for (std::size_t i = 0; i < in.size() && i <= fail_at; ++i) {
    ++n.elements;
    ++n.by_reference;
    RefValue x = RefDecode(t, in[i]);
    std::optional<std::uint64_t> got = in[i];  // NaN: unchanged (R23)
    if (x.cls != RefValue::Cls::kNaN) {
      auto apply = [&](bool present, auto op) {
        if (present && got) got = Step(t, op(ToF128(RefDecode(t, *got))));
      };
      if (decode) {
        apply(has_scale, [&](f128 v) { return v / *scale; });
        apply(has_offset, [&](f128 v) { return v + *offset; });
      } else {
        apply(has_offset, [&](f128 v) { return v - *offset; });
        apply(has_scale, [&](f128 v) { return v * *scale; });
      }
    }
    bool agrees = i == fail_at ? !got : got && (want.empty() || *got == want[i]);
    if (!agrees) {
      ++n.mismatches;
      RefOutcome vec, ref;
      if (i == fail_at) vec.error = RefError::kOutOfRange;
      else vec.bits = want.empty() ? 0 : want[i];
      if (got) ref.bits = *got;
      else ref.error = RefError::kOutOfRange;
      ADD_FAILURE() << id << " element " << i << " (0x" << std::hex << in[i] << std::dec
                    << "): vector says " << Show(vec) << ", reference model " << Show(ref);
    }
  }
}

// One line; a case that is neither a plain cast nor a single scale_offset is counted in
// not_ours.
void VerifyLine(const std::string& line, const std::string& where, Counts& n) {
  jsonl_span all{line.data(), line.data() + line.size()};
  jsonl_span codecs, config, error;
  auto id = StringMember(all, "id");
  auto array = StringMember(all, "data_type");
  auto direction = StringMember(all, "direction");
  auto input = StringMember(all, "input");
  if (!id || !array || !direction || !input || !jsonl_member(all.begin, all.end, "codecs", &codecs)) {
    ADD_FAILURE() << where << ": not a conformance case";
    return;
  }
  // A single cast_value codec: "[{...}]".
  jsonl_span codec{jsonl_skip_ws(codecs.begin + 1, codecs.end), nullptr};
  codec.end = jsonl_skip_value(codec.begin, codecs.end);
  auto name = codec.end ? StringMember(codec, "name") : std::nullopt;
  bool single = codec.end && *jsonl_skip_ws(codec.end, codecs.end) == ']';
  if (single && name && *name == "scale_offset") {
    VerifyScaleOffset(all, codec, *id, *array, *direction == "decode", *input, n);
    return;
  }
  if (!single || !name || *name != "cast_value" ||
      !jsonl_member(codec.begin, codec.end, "configuration", &config)) {
    ++n.not_ours;
    return;
  }
  jsonl_span unused;
  auto target = StringMember(config, "data_type");
  auto src_type = TypeByName(*array);
  auto dst_type = target ? TypeByName(*target) : std::nullopt;
  if (jsonl_member(config.begin, config.end, "scalar_map", &unused) || !src_type || !dst_type) {
    ++n.not_ours;
    return;
  }
  const DataType array_t = src_type.value_or(DataType::int8);
  const DataType codec_t = dst_type.value_or(DataType::int8);
  auto rounding = RoundingByName(StringMember(config, "rounding").value_or("nearest-even"));
  auto oor_name = StringMember(config, "out_of_range");
  bool is_error = jsonl_member(all.begin, all.end, "error", &error);
  auto error_class = is_error ? StringMember(error, "class") : std::nullopt;
  bool wrap = oor_name && *oor_name == "wrap";
  bool dst_int = IsIntForm(Ref(codec_t).form);
  if (wrap && !dst_int) {  // R4: wrap needs an integer data_type
    ++n.cases;
    EXPECT_TRUE(error_class && *error_class == "invalid-metadata") << *id << ": R4 says invalid";
    return;
  }
  if (!rounding || (oor_name && *oor_name != "clamp" && !wrap) ||
      (error_class && *error_class != "cast-failure")) {
    ++n.not_ours;  // the metadata family's invalid forms
    return;
  }
  bool decode = *direction == "decode";
  DataType from = decode ? codec_t : array_t, to = decode ? array_t : codec_t;
  OutOfRange oor = !oor_name ? OutOfRange::kUnset : wrap ? OutOfRange::kWrap : OutOfRange::kClamp;
  if (oor == OutOfRange::kWrap && !IsIntForm(Ref(to).form)) oor = OutOfRange::kUnset;  // R4, R15
  std::vector<std::uint64_t> in = Elements(*input, StorageSize(from));
  std::vector<std::uint64_t> want;
  std::size_t fail_at = in.size();
  if (is_error) {
    jsonl_span idx;
    ASSERT_TRUE(jsonl_member(error.begin, error.end, "index", &idx)) << *id;
    fail_at = std::stoul(Str(idx));
  } else {
    want = Elements(StringMember(all, "expected").value_or(""), StorageSize(to));
    ASSERT_EQ(want.size(), in.size()) << *id;
  }
  ++n.cases;
  bool ap = HasApOracle(to);
  for (std::size_t i = 0; i < in.size() && i <= fail_at; ++i) {
    ++n.elements;
    RefOutcome expect;
    if (i == fail_at) expect.error = RefError::kOutOfRange;  // any error class
    else expect.bits = want.empty() ? 0 : want[i];
    auto agrees = [&](const RefOutcome& got) {
      if (i == fail_at) return got.error != RefError::kNone;
      return got.error == RefError::kNone && (want.empty() || got.bits == expect.bits);
    };
    auto check = [&](const char* oracle, const RefOutcome& got) {
      if (agrees(got)) return;
      ++n.mismatches;
      ADD_FAILURE() << *id << " element " << i << " (0x" << std::hex << in[i] << std::dec
                    << "): vector says " << (i == fail_at ? "failure" : Show(expect)) << ", "
                    << oracle << " " << Show(got);
    };
    check("reference model", RefCast(from, in[i], to, *rounding, oor));
    ++n.by_reference;
    if (ap) {
      check("APFloat", ApFinish(to, ApRound(ApSourceQuad(from, in[i]), to, *rounding), oor));
      ++n.by_apfloat;
    }
  }
  if (is_error) {
    EXPECT_LT(fail_at, in.size()) << *id << ": failing index past the input";
  }
}

TEST(ConformanceVectors, AgreeWithApFloatAndReferenceModel) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(ZCAST_CONFORMANCE_DIR)) {
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no vectors in " << ZCAST_CONFORMANCE_DIR;
  Counts n;
  std::map<std::string, long> cases_per_file, unverified_per_file;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string line;
    long line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      long before = n.cases, skipped = n.not_ours;
      VerifyLine(line, f.string() + ":" + std::to_string(line_no), n);
      std::string rel = fs::relative(f, ZCAST_CONFORMANCE_DIR).string();
      cases_per_file[rel] += n.cases - before;
      unverified_per_file[rel] += n.not_ours - skipped;
      if (n.mismatches > 50) FAIL() << "too many mismatches, stopping";
    }
  }
  std::printf("verified %ld cases, %ld elements: %ld by the reference model, %ld by APFloat "
              "(targets float8_e3m4 and float8_e8m0fnu, and scale_offset: reference model "
              "only); %ld cases are neither plain casts nor a single scale_offset (checked by "
              "the generator's rule-derived expectations)\n",
              n.cases, n.elements, n.by_reference, n.by_apfloat, n.not_ours);
  // Every case of the element-cast families must have been verified, none silently skipped.
  for (const auto& [file, count] : cases_per_file) {
    if (file.rfind("cast_value", 0) != 0) continue;
    EXPECT_GT(count, 0) << file;
    EXPECT_EQ(unverified_per_file[file], 0) << file << ": cases the oracles did not check";
  }
  EXPECT_EQ(n.mismatches, 0);
}

}  // namespace
}  // namespace zcast_test
