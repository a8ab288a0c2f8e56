// Running a chain's codecs (zcast.hpp, Chain::Encode / Decode): block by block through small
// stack buffers, one pass over memory. Two rules shape the loop (docs/semantics-additions.md):
//   R33  the error names the first failing element across all steps, not the first element the
//        first failing codec rejects;
//   R32  where the chain's decode can fail at all (decided at bind time), Encode decodes each
//        block it wrote while the block is in cache and refuses an element whose stored value
//        does not decode back.
#include <algorithm>
#include <cstring>
#include <string>
#include <variant>

#include "zcast/chain_state.h"
#include "zcast/dtype.h"
#include "zcast/element_error.h"
#include "zcast/exact.h"

namespace zcast::internal {
namespace {

constexpr std::size_t kBlock = 1024;
constexpr std::size_t kMaxElementSize = 8;

struct alignas(64) Buffers {
  unsigned char data[2][kBlock * kMaxElementSize];
};

const char* StepName(const Chain::Step& step) {
  return std::holds_alternative<ScaleOffsetCodec>(step) ? "scale_offset" : "cast_value";
}

Status RunStep(const Chain::Step& step, bool encode, const void* in, std::size_t n, void* out) {
  return std::visit(
      [&](const auto& codec) {
        return encode ? codec.Encode(in, n, out) : codec.Decode(in, n, out);
      },
      step);
}

// What a run of every step over a block did.
struct BlockResult {
  std::size_t done;  // leading elements that went through every step (their results are in out)
  Status status;     // ok when done == n; else the failing codec's own Status (index `done`,
                     // relative to the block) or a failure that names no element
  std::size_t step;  // the failing codec's position in running order
};

// Every step in running order over the n <= kBlock elements at `in`, the last one into `out`.
// R33: when step k fails at element j, the elements before j still go through the later steps,
// whose first failure, if any, lies before j and wins. A codec's output is unspecified after a
// failure, so step k is run again on the elements before j (which then all succeed).
BlockResult RunBlock(const Chain::State& s, bool encode, const void* in, std::size_t n, void* out,
                     Buffers* buffers) {
  const std::size_t m = s.steps.size();
  BlockResult r{n, Status(), 0};
  const void* src = in;
  for (std::size_t k = 0; k < m && r.done > 0; ++k) {
    const Chain::Step& step = s.steps[encode ? k : m - 1 - k];
    void* dst = k + 1 < m ? static_cast<void*>(buffers->data[k % 2]) : out;
    for (;;) {
      Status st = RunStep(step, encode, src, r.done, dst);
      if (st.ok()) break;
      if (!st.failing_element()) return {0, std::move(st), k};
      r = {*st.failing_element(), std::move(st), k};
      if (r.done == 0) break;
    }
    src = dst;
  }
  return r;
}

// The Status of a failing block, its index moved to the caller's buffer. A codec after the first
// sees the previous codecs' output, so its message quotes an intermediate value the caller never
// wrote: the caller's element (its value as an R17 JSON scalar) is added, the other labelled.
Status BlockFailure(const Chain::State& s, bool encode, const void* in, std::size_t start,
                    const BlockResult& r) {
  if (!r.status.failing_element()) return r.status;
  if (r.step == 0) return ShiftElement(r.status, start);
  const std::size_t m = s.steps.size();
  std::string after;
  for (std::size_t k = 0; k < r.step; ++k) {
    after += std::string(k ? ", " : "") + StepName(s.steps[encode ? k : m - 1 - k]) +
             (encode ? " encode" : " decode");
  }
  DataType in_type = encode ? s.types.front() : s.types.back();
  std::size_t size = DataTypeSize(in_type);
  std::size_t index = start + r.done;
  std::uint64_t bits = LoadBits(static_cast<const unsigned char*>(in) + index * size, size);
  return ShiftElement(r.status, start,
                      " (intermediate value after " + after + "; input element: " +
                          std::string(DataTypeName(in_type)) + " value " +
                          DescribeBits(in_type, bits) + ")");
}

// R32: element `index` encoded without error, but the chain cannot decode what it stored.
Status NotDecodable(const Chain::State& s, const void* in, const void* stored, std::size_t index,
                    std::size_t block_index, const BlockResult& back) {
  DataType in_type = s.types.front(), enc_type = s.types.back();
  std::uint64_t x = LoadBits(static_cast<const unsigned char*>(in) + index * DataTypeSize(in_type),
                             DataTypeSize(in_type));
  std::uint64_t y = LoadBits(
      static_cast<const unsigned char*>(stored) + block_index * DataTypeSize(enc_type),
      DataTypeSize(enc_type));
  return ElementFailure(
      index, std::string(DataTypeName(in_type)) + " value " + DescribeBits(in_type, x) +
                 " encodes to " + std::string(DataTypeName(enc_type)) + " value " +
                 DescribeBits(enc_type, y) +
                 ", which the chain cannot decode back, so it is not written (R32): " +
                 std::string(ElementReason(back.status)));
}

}  // namespace

Status RunChain(const Chain::State& s, bool encode, const void* in, std::size_t n, void* out) {
  if (n == 0) return Status();
  if (!in || !out) return Status(StatusCode::kInvalidArgument, "null buffer with n > 0");
  const std::size_t m = s.steps.size();
  if (m == 0) {
    std::memcpy(out, in, n * DataTypeSize(s.types[0]));
    return Status();
  }
  const bool verify = encode && s.verify_encode;
  // One codec needs neither blocks nor R33; its Status already indexes the caller's buffer.
  if (m == 1 && !verify) return RunStep(s.steps[0], encode, in, n, out);
  Buffers buffers;
  alignas(64) unsigned char decoded[kBlock * kMaxElementSize];
  const std::size_t in_size = DataTypeSize(encode ? s.types.front() : s.types.back());
  const std::size_t out_size = DataTypeSize(encode ? s.types.back() : s.types.front());
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    const unsigned char* src = static_cast<const unsigned char*>(in) + start * in_size;
    unsigned char* dst = static_cast<unsigned char*>(out) + start * out_size;
    BlockResult r = RunBlock(s, encode, src, len, dst, &buffers);
    if (!r.status.ok() && !r.status.failing_element()) return r.status;
    if (verify && r.done > 0) {
      // The elements that encoded, decoded again: an earlier index than any encode failure.
      BlockResult back = RunBlock(s, false, dst, r.done, decoded, &buffers);
      if (!back.status.ok()) {
        if (!back.status.failing_element()) return back.status;
        return NotDecodable(s, in, dst, start + back.done, back.done, back);
      }
    }
    if (!r.status.ok()) return BlockFailure(s, encode, in, start, r);
  }
  return Status();
}

}  // namespace zcast::internal
