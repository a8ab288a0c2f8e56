// The Status of a failing element, "element N: <reason>" with failing_element() == N: the one
// place that spells the prefix, so that the chain (and the C API) take the index from the Status
// and never read it back from the text.
#ifndef ZCAST_SRC_ELEMENT_ERROR_H_
#define ZCAST_SRC_ELEMENT_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "zcast/kernels.h"
#include "zcast/zcast.hpp"

namespace zcast::internal {

// kCastFailed "element <index>: <reason>", failing_element() == index.
Status ElementFailure(std::size_t index, std::string_view reason);

// The <reason> of an ElementFailure (its message after "element N: ").
std::string_view ElementReason(const Status& st);

// The same failure with its index moved up by `offset` (a block's start in the caller's buffer)
// and `suffix` appended to its reason.
Status ShiftElement(const Status& st, std::size_t offset, std::string_view suffix = {});

// A codec's Encode or Decode around its kernel: n == 0 and null buffers first, then the kernel;
// on failure an ElementFailure whose reason is describe(the element's bits).
Status RunElementKernel(const Kernel& kernel, DataType src, const void* in, std::size_t n,
                        void* out, const std::function<std::string(std::uint64_t)>& describe);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_ELEMENT_ERROR_H_
