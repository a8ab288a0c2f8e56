// libFuzzer target: a chain over a whole buffer equals the same chain one element at a time
// (R33, R32; fuzz/README.md).
//
// The input is text, so that the seed corpus is readable:
//   line 1  the array's data type name, optionally followed by its fill value as JSON
//           ("float64 \"NaN\"")
//   line 2  the codecs, a JSON array ([{"name":"scale_offset",...}, {"name":"cast_value",...}])
//   line 3  "encode" or "decode"
//   rest    the elements of the input side, whitespace separated: a JSON scalar of the input type
//           (1.5, -3, "NaN", "0x7e01"), "*N" to repeat the previous element N more times (to
//           cross the chain's 1024-element blocks), or anything else, hashed into raw bits.
// Checked, for the whole buffer against each element alone: the status code, the failing index
// (the first element whose own call fails; Status::failing_element()), the reason text (equal up
// to the index), and on success every output byte; and that whatever encodes, decodes (R32).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/json.h"
#include "zcast/scalar_json.h"
#include "zcast/zcast.hpp"

namespace {

constexpr std::size_t kMaxElements = 5000;

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "chain_differential_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

std::string Reason(const zcast::Status& st) {
  std::string prefix = "element " + std::to_string(st.failing_element().value_or(0)) + ": ";
  if (!st.failing_element() || st.message().rfind(prefix, 0) != 0)
    Fail("a cast failure without its index or prefix", st.message());
  return st.message().substr(prefix.size());
}

std::uint64_t Hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream lines(text);
  std::string type_line, codecs, direction;
  if (!std::getline(lines, type_line) || !std::getline(lines, codecs) ||
      !std::getline(lines, direction))
    return 0;
  std::string type_name = type_line.substr(0, type_line.find(' '));
  std::optional<std::string> fill;
  if (type_line.size() > type_name.size() + 1) fill = type_line.substr(type_name.size() + 1);
  auto type = zcast::DataTypeFromName(type_name);
  if (!type) return 0;
  auto chain = zcast::Chain::FromCodecs(*type, fill, codecs);
  if (!chain.ok()) return 0;
  const bool encode = direction == "encode";
  if (!encode && direction != "decode") return 0;

  const zcast::DataType in_type = encode ? chain->decoded_type() : chain->encoded_type();
  const zcast::DataType out_type = encode ? chain->encoded_type() : chain->decoded_type();
  const std::size_t in_size = zcast::DataTypeSize(in_type);
  const std::size_t out_size = zcast::DataTypeSize(out_type);
  std::vector<std::uint64_t> elements;
  std::string token;
  while (lines >> token && elements.size() < kMaxElements) {
    if (token[0] == '*' && !elements.empty()) {
      std::size_t count = std::strtoul(token.c_str() + 1, nullptr, 10);
      count = std::min(count, kMaxElements - elements.size());
      elements.insert(elements.end(), count, elements.back());
      continue;
    }
    std::uint64_t bits = Hash(token);
    if (auto doc = zcast::internal::ParseJson(token); doc.ok()) {
      if (auto b = zcast::internal::ParseJsonScalar(*doc, in_type); b.ok()) bits = *b;
    }
    elements.push_back(bits & zcast::internal::Info(in_type).value_mask());
  }
  const std::size_t n = elements.size();
  std::vector<unsigned char> in(n * in_size + 1), whole(n * out_size + 1), single(n * out_size + 1);
  for (std::size_t i = 0; i < n; ++i) zcast::internal::StoreBits(&in[i * in_size], in_size, elements[i]);

  auto run = [&](const unsigned char* src, std::size_t count, unsigned char* dst) {
    return encode ? chain->Encode(src, count, dst) : chain->Decode(src, count, dst);
  };
  zcast::Status all = run(in.data(), n, whole.data());
  // One element at a time: the first one that fails is the expected failure.
  std::optional<std::size_t> first;
  zcast::Status first_status;
  for (std::size_t i = 0; i < n && !first; ++i) {
    zcast::Status one = run(&in[i * in_size], 1, &single[i * out_size]);
    if (!one.ok()) {
      first = i;
      first_status = one;
    }
  }
  std::string where = "type " + type_line + ", codecs " + codecs + ", " + direction + ", n " +
                      std::to_string(n);
  if (all.ok() != !first)
    Fail("whole buffer and one at a time disagree on success",
         where + "\nwhole: " + all.message() + "\nsingle: " + first_status.message());
  if (first) {
    if (all.code() != first_status.code())
      Fail("status codes differ", where + "\n" + all.message() + "\n" + first_status.message());
    if (all.failing_element() != first)
      Fail("first failing index differs",
           where + "\nwhole: " + all.message() + "\nexpected element " + std::to_string(*first));
    if (Reason(all) != Reason(first_status))
      Fail("reasons differ", where + "\nwhole: " + all.message() + "\nsingle: " +
                                 first_status.message());
    return 0;
  }
  if (std::memcmp(whole.data(), single.data(), n * out_size) != 0)
    Fail("outputs differ", where);
  if (encode && chain->steps().size() > 1) {
    // R32: what a chain of two or more codecs wrote, it reads back (one codec is the codec).
    std::vector<unsigned char> back(n * in_size + 1);
    zcast::Status dec = chain->Decode(whole.data(), n, back.data());
    if (!dec.ok()) Fail("R32: an encoded buffer does not decode", where + "\n" + dec.message());
  }
  return 0;
}
