// zcast_conformance_generate: writes the conformance vectors (conformance/README.md), or with
// --check compares a directory with what it would write, byte for byte.
//
//   zcast_conformance_generate conformance/vectors          (re)write its **/*.jsonl
//   zcast_conformance_generate --check conformance/vectors  exit 1 naming the first difference
//
// Everything is deterministic: fixed iteration order, seeded std::mt19937_64 raw output (the
// standard fixes its sequence; no distribution objects, whose results are implementation-defined)
// and one canonical JSON formatting (ToJsonLine).
#include "generate.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace zcast_conformance {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string Hex(const std::vector<std::uint8_t>& bytes) {
  std::string s;
  s.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

[[noreturn]] void Die(const std::string& what) {
  std::cerr << "zcast_conformance_generate: " << what << "\n";
  std::exit(2);
}

std::string Describe(const Case& c) {
  std::ostringstream s;
  switch (c.outcome) {
    case Outcome::kOk: s << "ok " << Hex(c.expected); break;
    case Outcome::kCastFailure: s << "cast-failure at " << c.failing_index; break;
    case Outcome::kInvalidMetadata: s << "invalid-metadata"; break;
  }
  return s.str();
}

}  // namespace

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string CastCodec(zcast::DataType dst, std::optional<zcast::Rounding> rounding,
                      zcast::OutOfRange oor, const std::string& scalar_map_json) {
  std::string s = "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":" +
                  Quote(zcast::DataTypeName(dst));
  if (rounding) s += ",\"rounding\":" + Quote(zcast::RoundingName(*rounding));
  if (oor != zcast::OutOfRange::kUnset) s += ",\"out_of_range\":" + Quote(zcast::OutOfRangeName(oor));
  if (!scalar_map_json.empty()) s += ",\"scalar_map\":" + scalar_map_json;
  return s + "}}";
}

void PutBits(std::vector<std::uint8_t>& out, std::size_t size, std::uint64_t bits) {
  for (std::size_t i = 0; i < size; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

std::vector<std::uint8_t> Bytes(zcast::DataType type, const std::vector<std::uint64_t>& bits) {
  std::vector<std::uint8_t> out;
  for (std::uint64_t b : bits) PutBits(out, zcast::DataTypeSize(type), b);
  return out;
}

void Compute(Case& c) {
  std::string dt = c.data_type_json;
  // The array data type is given as JSON; the chain API takes the enum (a string name here:
  // the vectors never use another form for the array's own type).
  auto type = zcast::DataTypeFromName(dt.size() >= 2 ? dt.substr(1, dt.size() - 2) : dt);
  if (!type) Die(c.id + ": unknown array data type " + dt);
  std::optional<std::string_view> fill;
  if (c.fill_json) fill = *c.fill_json;
  // Binding builds the kernels' tables (65536 entries for a 16-bit source): once per
  // configuration, not per case.
  static std::map<std::string, zcast::Result<zcast::Chain>> cache;
  std::string key = dt + "\n" + c.fill_json.value_or("") + "\n" + c.codecs_json;
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() > 64) cache.clear();
    it = cache.emplace(key, zcast::Chain::FromCodecs(*type, fill, c.codecs_json)).first;
  }
  const auto& chain = it->second;
  c.expected.clear();
  c.encoded_fill_json.reset();
  if (!chain.ok()) {
    if (chain.status().code() != zcast::StatusCode::kInvalidMetadata) {
      Die(c.id + ": unexpected status " + chain.status().message());
    }
    c.outcome = Outcome::kInvalidMetadata;
    return;
  }
  std::size_t in_size = zcast::DataTypeSize(c.decode ? chain->encoded_type() : chain->decoded_type());
  std::size_t out_size = zcast::DataTypeSize(c.decode ? chain->decoded_type() : chain->encoded_type());
  if (c.input.size() % in_size) Die(c.id + ": input is not a whole number of elements");
  std::size_t n = c.input.size() / in_size;
  std::vector<std::uint8_t> out(n * out_size + 1);
  zcast::Status st = c.decode ? chain->Decode(c.input.data(), n, out.data())
                              : chain->Encode(c.input.data(), n, out.data());
  if (st.ok()) {
    out.resize(n * out_size);
    c.outcome = Outcome::kOk;
    c.expected = std::move(out);
    if (chain->encoded_fill_value_json()) c.encoded_fill_json = *chain->encoded_fill_value_json();
    return;
  }
  const std::string& msg = st.message();
  if (st.code() != zcast::StatusCode::kCastFailed || msg.rfind("element ", 0) != 0) {
    Die(c.id + ": unexpected status " + msg);
  }
  c.outcome = Outcome::kCastFailure;
  c.failing_index = std::strtoull(msg.c_str() + 8, nullptr, 10);
}

void ComputeAndCheck(Case& c, const Must& must) {
  Compute(c);
  bool same = c.outcome == must.outcome &&
              (must.outcome != Outcome::kOk || c.expected == must.expected) &&
              (must.outcome != Outcome::kCastFailure || c.failing_index == must.index);
  if (!same) {
    Case want = c;
    want.outcome = must.outcome;
    want.expected = must.expected;
    want.failing_index = must.index;
    Die(c.id + ": zcast gives " + Describe(c) + ", the rules say " + Describe(want));
  }
}

std::string ToJsonLine(const Case& c) {
  std::string s = "{\"id\":" + Quote(c.id) + ",\"category\":" + Quote(c.category) + ",\"rules\":[";
  for (std::size_t i = 0; i < c.rules.size(); ++i) s += (i ? "," : "") + Quote(c.rules[i]);
  s += "],\"data_type\":" + c.data_type_json + ",\"fill_value\":" + c.fill_json.value_or("null") +
       ",\"codecs\":" + c.codecs_json + ",\"direction\":" + (c.decode ? "\"decode\"" : "\"encode\"") +
       ",\"input\":\"" + Hex(c.input) + "\"";
  switch (c.outcome) {
    case Outcome::kOk:
      s += ",\"expected\":\"" + Hex(c.expected) + "\"";
      if (c.encoded_fill_json) s += ",\"encoded_fill_value\":" + *c.encoded_fill_json;
      break;
    case Outcome::kCastFailure:
      s += ",\"error\":{\"class\":\"cast-failure\",\"index\":" + std::to_string(c.failing_index) + "}";
      break;
    case Outcome::kInvalidMetadata:
      s += ",\"error\":{\"class\":\"invalid-metadata\"}";
      break;
  }
  return s + "}";
}

}  // namespace zcast_conformance

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using zcast_conformance::Files;
  bool check = argc == 3 && std::string(argv[1]) == "--check";
  if (argc != 2 && !check) {
    std::cerr << "usage: zcast_conformance_generate [--check] DIR   (DIR: conformance/vectors)\n";
    return 2;
  }
  fs::path dir = argv[argc - 1];
  // The vectors sit in conformance/vectors/, beside the tools: writing into conformance/ itself
  // would leave a second, stray copy that every recursive reader then loads twice.
  if (fs::is_directory(dir / "vectors")) {
    std::cerr << "zcast_conformance_generate: " << dir.string() << " holds vectors/; the vectors "
              << "are written there: zcast_conformance_generate " << (check ? "--check " : "")
              << (dir / "vectors").string() << "\n";
    return 2;
  }
  Files files;
  zcast_conformance::GenerateCastFamilies(files);
  zcast_conformance::GenerateNamedFamilies(files);

  std::set<std::string> ids;
  std::size_t cases = 0, bytes = 0;
  for (auto& [name, lines] : files) {
    for (const std::string& line : lines) {
      // The id is the line's first member: "{"id":"<id>",...
      std::string id = line.substr(7, line.find('"', 7) - 7);
      if (!ids.insert(id).second) {
        std::cerr << "duplicate case id " << id << "\n";
        return 2;
      }
      bytes += line.size() + 1;
    }
    cases += lines.size();
  }
  int differences = 0;
  for (auto& [name, lines] : files) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    fs::path path = dir / name;
    if (check) {
      std::ifstream in(path, std::ios::binary);
      std::stringstream have;
      have << in.rdbuf();
      if (!in || have.str() != text) {
        std::cerr << "differs from the generator's output: " << path.string() << "\n";
        ++differences;
      }
    } else {
      fs::create_directories(path.parent_path());
      std::ofstream out(path, std::ios::binary);
      out << text;
      if (!out) {
        std::cerr << "cannot write " << path.string() << "\n";
        return 2;
      }
    }
  }
  if (check) {  // files the generator would not write are stale
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.path().extension() != ".jsonl") continue;
      std::string rel = fs::relative(entry.path(), dir).generic_string();
      if (!files.count(rel)) {
        std::cerr << "not written by the generator (stale): " << entry.path().string() << "\n";
        ++differences;
      }
    }
    if (differences) {
      std::cerr << differences << " file(s) differ; regenerate with: zcast_conformance_generate "
                << dir.string() << "\n";
      return 1;
    }
  }
  std::cout << (check ? "identical: " : "wrote ") << files.size() << " files, " << cases
            << " cases, " << bytes << " bytes in " << dir.string() << "\n";
  return 0;
}
