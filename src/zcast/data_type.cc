#include "zcast/dtype.h"

namespace zcast {

std::string_view DataTypeName(DataType type) { return internal::Info(type).name; }

std::optional<DataType> DataTypeFromName(std::string_view name) {
  for (DataType t : internal::kAllDataTypes) {
    if (internal::Info(t).name == name) return t;
  }
  return std::nullopt;
}

std::size_t DataTypeSize(DataType type) { return internal::Info(type).size; }

std::string_view RoundingName(Rounding rounding) {
  switch (rounding) {
    case Rounding::kNearestEven: return "nearest-even";
    case Rounding::kNearestAway: return "nearest-away";
    case Rounding::kTowardsZero: return "towards-zero";
    case Rounding::kTowardsPositive: return "towards-positive";
    case Rounding::kTowardsNegative: return "towards-negative";
  }
  return "";
}

std::string_view OutOfRangeName(OutOfRange out_of_range) {
  switch (out_of_range) {
    case OutOfRange::kClamp: return "clamp";
    case OutOfRange::kWrap: return "wrap";
    case OutOfRange::kUnset: return "";
  }
  return "";
}

}  // namespace zcast
