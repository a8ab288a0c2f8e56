// JSON scalars of the 26 types: fill values, scalar_map entries and scale_offset parameters
// (semantics.md, "JSON scalars").
#ifndef ZCAST_SRC_SCALAR_JSON_H_
#define ZCAST_SRC_SCALAR_JSON_H_

#include <cstdint>
#include <string>

#include "zcast/json.h"
#include "zcast/zcast.hpp"

namespace zcast::internal {

// Parses a JSON scalar as a value of `type` and returns its encoding (low bits of the uint64).
//  - integer types: a JSON number with no fraction or exponent, in range, parsed exactly
//    (never through double); 1.0, "1", true are invalid;
//  - float types: a JSON number rounded nearest-even to the type with one rounding from the exact
//    decimal value (a finite number that overflows a type without Inf is invalid; one that
//    overflows a type with Inf becomes +-Inf), "NaN" (types with NaN), "Infinity"/"-Infinity"
//    (types with Inf; "+Infinity" accepted as an alias), or "0x..." raw bits (at most 2 hex digits
//    per storage byte, fewer accepted, value must fit the type's width). -0.0 keeps its sign.
// On failure: kInvalidMetadata with a message that quotes the value and names the type, e.g.
// `300 is not a valid uint8 scalar: out of range`. Callers prefix the key.
Result<std::uint64_t> ParseJsonScalar(const JsonValue& value, DataType type);

// Writes an encoding of `type` as its canonical JSON scalar text: integers in decimal; finite
// floats as the shortest decimal that parses back to the same encoding (with "-0.0" for negative
// zero and always a '.', 'e' or digits that JSON accepts); the canonical NaN as "NaN" (quoted);
// other NaNs as lower-case full-width hex ("0x7e01"); infinities as "Infinity"/"-Infinity".
std::string FormatJsonScalar(DataType type, std::uint64_t bits);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_SCALAR_JSON_H_
