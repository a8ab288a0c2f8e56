// The internals of zcast::Chain shared by its three files: chain.cc (resolving an array's
// metadata into bound codecs), chain_run.cc (running them block by block, R32-R33) and
// chain_decode_check.cc (deciding at bind time whether the chain's decode can fail, R32).
#ifndef ZCAST_SRC_CHAIN_STATE_H_
#define ZCAST_SRC_CHAIN_STATE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "zcast/zcast.hpp"

namespace zcast {

struct Chain::State {
  std::vector<Step> steps;
  // types[k] is the input type of steps[k] in the encode direction; types.back() is the encoded
  // type (types.size() == steps.size() + 1).
  std::vector<DataType> types;
  std::optional<std::string> encoded_fill;
  std::size_t first_unowned_index = 0;
  std::string first_unowned_name;
  std::string remaining_codecs_json = "[]";
  // R32: some stored value exists that the chain cannot decode, so Encode decodes what it wrote
  // (block by block) and refuses an element whose stored value does not decode.
  bool verify_encode = false;
};

namespace internal {

// Chain::Encode / Chain::Decode (chain_run.cc).
Status RunChain(const Chain::State& s, bool encode, const void* in, std::size_t n, void* out);

// False only when no stored value of s.types.back() can fail the chain's decode (R32): an
// exhaustive run over every encoding of a 1- or 2-byte encoded type, otherwise a proof from
// each step's extremes (chain_decode_check.cc). Call once the steps and types are set.
bool ChainDecodeCanFail(const Chain::State& s);

}  // namespace internal
}  // namespace zcast

#endif  // ZCAST_SRC_CHAIN_STATE_H_
