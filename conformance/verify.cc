// zcast_conformance_verify: confirms the committed conformance vectors independently of zcast's
// engine (issue 13, item 2). The vectors were computed by the exact engine; here every element of
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

// One line; a case that is not a plain cast is counted in not_ours.
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
  if (!name || *name != "cast_value" || *jsonl_skip_ws(codec.end, codecs.end) != ']' ||
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
              "(targets float8_e3m4 and float8_e8m0fnu: reference model only); %ld cases are "
              "not plain casts (checked by the generator's rule-derived expectations)\n",
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
