// R32, decided once when a chain is bound: can its decode fail on any stored value? Only then
// does Chain::Encode pay for decoding what it wrote, so the common chains (a float array scaled
// into uint8/uint16/int16, whose every stored value decodes) run exactly as before.
//
// A 1- or 2-byte encoded type is answered exactly: every encoding goes through the chain's
// decode. Wider encoded types (32/64-bit) are answered step by step and conservatively: a step
// is safe when its decode succeeds on the extremes of its input type, which suffices because
// each decode is monotonic in its input and fails only beyond a range (cast_value R1-R7,
// scale_offset R24) or on NaN / Inf; anything not shown safe counts as "can fail".
#include <cstdint>
#include <variant>
#include <vector>

#include "zcast/chain_state.h"
#include "zcast/dtype.h"
#include "zcast/exact.h"

namespace zcast::internal {
namespace {

template <typename Codec>
bool DecodeFails(const Codec& codec, DataType in_type, std::uint64_t bits) {
  unsigned char in[8], out[8];
  StoreBits(in, DataTypeSize(in_type), bits);
  return !codec.Decode(in, 1, out).ok();
}

// The finite extremes of a 32/64-bit type: integers' minimum and maximum, floats' +-max.
std::vector<std::uint64_t> FiniteExtremes(const TypeInfo& t) {
  if (t.is_signed_int()) return {t.sign_bit(), t.sign_bit() - 1};
  if (t.is_int()) return {0, t.value_mask()};
  std::uint64_t max = t.positive_inf() - 1;  // float32 / float64: IEEE
  return {max, t.sign_bit() | max};
}

std::vector<std::uint64_t> NonFinite(const TypeInfo& t) {
  if (!t.has_nan()) return {};
  std::vector<std::uint64_t> v = {t.canonical_nan()};
  if (t.has_inf()) v.insert(v.end(), {t.positive_inf(), t.sign_bit() | t.positive_inf()});
  return v;
}

bool WideDecodeCanFail(const CastValueCodec& c) {
  DataType e = c.encoded_type(), d = c.decoded_type();
  const TypeInfo& te = Info(e);
  // e8m0 rejects zero and negatives, which lie inside the range of every wide type.
  if (d == DataType::float8_e8m0fnu) return true;
  // Finite extremes through the exact engine, without scalar_map.decode: a mapped extreme does
  // not cover its unmapped neighbours.
  for (std::uint64_t b : FiniteExtremes(te)) {
    if (CastBits(e, b, d, c.spec().effective_rounding(), c.spec().out_of_range).error !=
        CastError::kNone)
      return true;
  }
  // NaN and +-Inf through the codec, whose map may give them a value (every NaN alike, R10).
  for (std::uint64_t b : NonFinite(te)) {
    if (DecodeFails(c, e, b)) return true;
  }
  return false;
}

bool WideDecodeCanFail(const ScaleOffsetCodec& c) {
  DataType t = c.decoded_type();
  const TypeInfo& ti = Info(t);
  std::vector<std::uint64_t> probes = FiniteExtremes(ti);
  // Integers: 1 / scale has a remainder unless |scale| == 1 (R24).
  if (ti.is_int()) probes.push_back(1);
  for (std::uint64_t b : NonFinite(ti)) probes.push_back(b);
  for (std::uint64_t b : probes) {
    if (DecodeFails(c, t, b)) return true;
  }
  return false;
}

// Every encoding of a 1- or 2-byte type through `decode` (n elements from `in` into a buffer).
template <typename Decode>
bool SomeEncodingFails(DataType in_type, DataType out_type, const Decode& decode) {
  std::size_t size = DataTypeSize(in_type);
  std::size_t count = std::size_t{1} << (8 * size);
  std::vector<unsigned char> in(count * size), out(count * DataTypeSize(out_type));
  for (std::size_t b = 0; b < count; ++b) StoreBits(&in[b * size], size, b);
  return !decode(in.data(), count, out.data()).ok();
}

bool StepDecodeCanFail(const Chain::Step& step) {
  return std::visit(
      [](const auto& c) {
        if (DataTypeSize(c.encoded_type()) > 2) return WideDecodeCanFail(c);
        return SomeEncodingFails(c.encoded_type(), c.decoded_type(),
                                 [&c](const void* in, std::size_t n, void* out) {
                                   return c.Decode(in, n, out);
                                 });
      },
      step);
}

}  // namespace

bool ChainDecodeCanFail(const Chain::State& s) {
  // A chain of one codec is that codec, as the spec defines it (a single CastValueCodec does not
  // check either): what it writes is what the codec's own metadata asks for, and the conformance
  // vectors (conformance/) hold it to exactly that. R32 guards the interplay of steps, where each
  // codec alone is fine and their composition stores what the chain cannot read back.
  if (s.steps.size() < 2) return false;
  if (DataTypeSize(s.types.back()) <= 2) {
    return SomeEncodingFails(s.types.back(), s.types.front(),
                             [&s](const void* in, std::size_t n, void* out) {
                               return RunChain(s, /*encode=*/false, in, n, out);
                             });
  }
  for (const Chain::Step& step : s.steps) {
    if (StepDecodeCanFail(step)) return true;
  }
  return false;
}

}  // namespace zcast::internal
