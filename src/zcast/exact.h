// The exact scalar engine: the one path that defines cast_value's semantics. Every fast kernel is
// tested against it, and the tables of the small-type kernels are filled by it.
//
// A value of any of the 26 types is held exactly as (-1)^negative * (mag + eps) * 2^exp, where eps
// is 0 or, when `sticky` is set, an unknown amount strictly between 0 and 1 (only decimal JSON
// numbers need it: their exact binary value may not fit in 64 bits). CastExact then follows the
// procedure of semantics.md after scalar_map: NaN/Inf -> exact -> one rounding with an unbounded
// exponent -> range (R1-R8).
#ifndef ZCAST_SRC_EXACT_H_
#define ZCAST_SRC_EXACT_H_

#include <cstdint>
#include <string>

#include "zcast/zcast.hpp"

namespace zcast::internal {

enum class ValueClass : std::uint8_t { kFinite, kInf, kNaN };

struct ExactValue {
  ValueClass cls = ValueClass::kFinite;
  bool negative = false;  // the sign bit; meaningful for zeros, infinities and NaNs too
  bool sticky = false;
  std::uint64_t mag = 0;
  std::int32_t exp = 0;
};

// Why an element has no result (R1-R7). kNone means success.
enum class CastError : std::uint8_t {
  kNone,
  kNaN,         // NaN and the target has no NaN (R3)
  kInf,         // +-Inf and the target has no Inf (R3)
  kOutOfRange,  // rounded value outside the finite range and out_of_range unset
};

struct CastOutcome {
  std::uint64_t bits = 0;
  CastError error = CastError::kNone;
};

// Decodes an encoding of `type` (upper bits beyond the type's width are ignored).
ExactValue DecodeBits(DataType type, std::uint64_t bits);

// Casts an exact value to `dst` (steps 2-4 of the procedure). `out_of_range` kWrap into a float
// type acts as kUnset (R4).
CastOutcome CastExact(const ExactValue& x, DataType dst, Rounding rounding, OutOfRange out_of_range);

// Convenience: DecodeBits then CastExact.
inline CastOutcome CastBits(DataType src, std::uint64_t bits, DataType dst, Rounding rounding,
                            OutOfRange out_of_range) {
  return CastExact(DecodeBits(src, bits), dst, rounding, out_of_range);
}

// True when two encodings of `type` are the same scalar in the sense of R9/R10: any NaN equals any
// NaN; otherwise equal value and equal sign bit (for these formats: equal masked encodings).
bool SameScalar(DataType type, std::uint64_t a, std::uint64_t b);

// True when the encoding is a NaN of `type`.
bool IsNaNBits(DataType type, std::uint64_t bits);

// The encoding of a value as a JSON scalar for messages, without string quotes (exact decimal for
// integers, shortest round-trip decimal for floats, "NaN", "Infinity").
std::string DescribeBits(DataType type, std::uint64_t bits);

// "NaN has no representation in uint8", "300 is out of range for uint8" style reason text.
std::string DescribeError(CastError error, DataType src, std::uint64_t src_bits, DataType dst,
                          OutOfRange out_of_range);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_EXACT_H_
