// What the scale_offset test files share (scale_offset_test.cc, scale_offset_oracle_test.cc): a
// codec built from a configuration as JSON, as an array's metadata would hold it, and the engine's
// internal names both use.
#ifndef ZCAST_SRC_ZCAST_SCALE_OFFSET_TEST_UTIL_H_
#define ZCAST_SRC_ZCAST_SCALE_OFFSET_TEST_UTIL_H_

#include <optional>
#include <string>
#include <string_view>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/scale_offset.h"
#include "zcast/zcast.hpp"

namespace zcast::scale_offset_test {

using internal::ArithError;
using internal::ArithOutcome;
using internal::DecodeBits;
using internal::Info;
using internal::ScaleOffsetParams;
using internal::ScaleOffsetScalar;
using internal::TypeInfo;
using internal::ValueClass;

inline std::string Codec(const std::string& configuration) {
  return R"({"name":"scale_offset","configuration":)" + configuration + "}";
}

inline Result<ScaleOffsetCodec> Make(const std::string& configuration, DataType type,
                                     std::optional<std::string_view> fill = std::nullopt) {
  auto spec = ScaleOffsetSpec::FromJson(Codec(configuration));
  if (!spec.ok()) return spec.status();
  return ScaleOffsetCodec::Bind(*spec, type, fill);
}

}  // namespace zcast::scale_offset_test

#endif  // ZCAST_SRC_ZCAST_SCALE_OFFSET_TEST_UTIL_H_
