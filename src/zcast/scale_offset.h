// scale_offset internals: the exact scalar path that defines the codec's arithmetic
// (semantics.md "scale_offset", R20-R24) and the kernels proven against it. Used by
// scale_offset.cc, chain.cc and the tests.
//
// Arithmetic, one scalar x of the array type T:
//   encode  y = round_T(round_T(x - offset) * scale)
//   decode  y = round_T(round_T(x / scale) + offset)
// where round_T is one nearest-even rounding of the exact result to T (floats, with T's
// subnormals; an exact zero sum is +0 as in IEEE 754 round-to-nearest) or, for integers, the
// identity with a range check. An absent offset or scale skips its operation (R21). NaN passes
// through with its encoding unchanged (R23); +-Inf propagates. A finite x whose step result lies
// outside T's finite range is an error, as is an integer division with a remainder (R24).
#ifndef ZCAST_SRC_SCALE_OFFSET_H_
#define ZCAST_SRC_SCALE_OFFSET_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "zcast/kernels.h"
#include "zcast/zcast.hpp"

namespace zcast::internal {

// Bound parameters: encodings of the array type (low bits of the uint64).
struct ScaleOffsetParams {
  DataType type = DataType::float64;
  std::optional<std::uint64_t> offset;  // nullopt: absent, the step is skipped (R21)
  std::optional<std::uint64_t> scale;   // nullopt: absent; never a zero or non-finite value (R22)
};

enum class ArithStep : std::uint8_t { kSubtractOffset, kMultiplyScale, kDivideScale, kAddOffset };

enum class ArithError : std::uint8_t {
  kNone,
  kOverflow,         // the step's exact result lies beyond T's finite range (or integer range)
  kBelowRange,       // float8_e8m0fnu: the result is zero, negative or below 2^-127 (R6, R24)
  kInexactDivision,  // integer decode: x is not a multiple of scale
};

struct ArithOutcome {
  std::uint64_t bits = 0;  // the result (valid when error == kNone)
  ArithError error = ArithError::kNone;
  ArithStep step = ArithStep::kSubtractOffset;  // the failing step
  std::uint64_t operand = 0;                    // the failing step's left operand (T encoding)
};

// The reference path for one element (the semantics). `encode` selects the direction.
ArithOutcome ScaleOffsetScalar(const ScaleOffsetParams& p, bool encode, std::uint64_t x);

// "int8 value -100: x - offset = -100 - 100 = -200 is out of the range of int8" style text for an
// element on which ScaleOffsetScalar fails.
std::string DescribeScaleOffsetFailure(const ScaleOffsetParams& p, bool encode, std::uint64_t x);

// The fastest kernel for one direction (a table for types of <= 16 bits, hardware IEEE arithmetic
// for float32/float64, checked integer arithmetic for 32/64-bit integers), and the per-element
// reference loop. Kernel::Run returns n, or the index of the first failing element.
std::unique_ptr<const Kernel> SelectScaleOffsetKernel(const ScaleOffsetParams& p, bool encode);
std::unique_ptr<const Kernel> ReferenceScaleOffsetKernel(const ScaleOffsetParams& p, bool encode);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_SCALE_OFFSET_H_
