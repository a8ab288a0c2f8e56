// The conformance vector generator (conformance/README.md): shared declarations of generate.cc
// (case model, expected results, writing), generate_cast.cc (the element-cast families) and
// generate_named.cc (scalar_map, fill value, metadata, scale_offset and chain families).
//
// Expected results come from zcast itself: element casts from the exact engine (ConvertScalar,
// src/zcast/kernels.h), everything else from the public Chain API. The hand-written families also
// state what the rules say (`must`), and the generator stops if zcast disagrees; the element-cast
// families are confirmed independently of zcast by conformance/verify.cc (LLVM APFloat and the
// nearest-grid reference model).
#ifndef ZCAST_CONFORMANCE_GENERATE_H_
#define ZCAST_CONFORMANCE_GENERATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "zcast/zcast.hpp"

namespace zcast_conformance {

enum class Outcome { kOk, kCastFailure, kInvalidMetadata };

struct Case {
  std::string id;        // unique; also names the file's family by its first path component
  std::string category;  // rounding, range, nan-inf, signed-zero, scalar-map, fill-value, metadata
  std::vector<std::string> rules;
  std::string data_type_json;           // the array's data type, JSON
  std::optional<std::string> fill_json;  // the array's fill value, JSON; nullopt: none (null)
  std::string codecs_json;              // JSON array of codec metadata, as in zarr.json
  bool decode = false;
  std::vector<std::uint8_t> input;  // storage bytes, little-endian, one byte per sub-byte element
  // Filled by Compute (from zcast) and checked against `must` when that is set.
  Outcome outcome = Outcome::kOk;
  std::vector<std::uint8_t> expected;
  std::size_t failing_index = 0;
  std::optional<std::string> encoded_fill_json;
};

// What a hand-written case must give, stated from the rules (a second path next to zcast).
struct Must {
  Outcome outcome = Outcome::kOk;
  std::vector<std::uint8_t> expected;  // kOk
  std::size_t index = 0;               // kCastFailure
};

// Runs the case through zcast's public Chain API and stores the outcome; aborts the program on
// an unexpected status (neither success, invalid metadata nor a cast failure naming an index).
void Compute(Case& c);
// Compute, then check against `must`; aborts with both results shown if they differ.
void ComputeAndCheck(Case& c, const Must& must);

// The canonical JSON line of a case (fixed key order, no spaces, lower-case hex).
std::string ToJsonLine(const Case& c);

// Output files: path relative to the vector directory -> lines, in generation order.
using Files = std::map<std::string, std::vector<std::string>>;

void GenerateCastFamilies(Files& files);   // generate_cast.cc
void GenerateNamedFamilies(Files& files);  // generate_named.cc
void GenerateChainFamilies(Files& files);  // generate_chain.cc

// A hand-written case: elements as encodings of in_type, the expected ones of out_type.
struct Hand {
  std::string id, category;
  std::vector<std::string> rules;
  zcast::DataType array;
  std::optional<std::string> fill;
  std::string codecs;
  bool decode;
  zcast::DataType in_type;
  std::vector<std::uint64_t> in;
  zcast::DataType out_type;
  Outcome outcome;
  std::vector<std::uint64_t> out;
  std::size_t index;
};
void AddHand(Files& files, const std::string& file, const Hand& h);

// The source encodings a (src, dst) element list is made of (generate_cast.cc): every encoding
// of a source of at most 8 bits, else the deciding values of dst, the specials and seeded random.
std::vector<std::uint64_t> SourceValues(zcast::DataType src, zcast::DataType dst);

std::uint64_t F64(double v);
std::uint64_t F32(float v);

// Small helpers shared by the families.
std::string Quote(std::string_view s);
std::string CastCodec(zcast::DataType dst, std::optional<zcast::Rounding> rounding,
                      zcast::OutOfRange oor, const std::string& scalar_map_json = "");
void PutBits(std::vector<std::uint8_t>& out, std::size_t size, std::uint64_t bits);
std::vector<std::uint8_t> Bytes(zcast::DataType type, const std::vector<std::uint64_t>& bits);

}  // namespace zcast_conformance

#endif  // ZCAST_CONFORMANCE_GENERATE_H_
