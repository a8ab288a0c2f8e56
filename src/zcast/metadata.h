// Metadata pieces shared by the codec parsers and the C API.
#ifndef ZCAST_SRC_METADATA_H_
#define ZCAST_SRC_METADATA_H_

#include <string_view>

#include "zcast/json.h"
#include "zcast/zcast.hpp"

namespace zcast::internal {

// A Zarr v3 data type as metadata (R12): "X", {"name": "X"} or {"name": "X", "configuration": {}}.
// `where` names the key in error messages, e.g. "data_type".
Result<DataType> ParseDataTypeJson(const JsonValue& v, std::string_view where);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_METADATA_H_
