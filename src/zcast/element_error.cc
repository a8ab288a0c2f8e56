#include "zcast/element_error.h"

#include "zcast/dtype.h"

namespace zcast::internal {
namespace {

std::string Prefix(std::size_t index) { return "element " + std::to_string(index) + ": "; }

}  // namespace

Status ElementFailure(std::size_t index, std::string_view reason) {
  return Status(StatusCode::kCastFailed, Prefix(index) + std::string(reason), index);
}

std::string_view ElementReason(const Status& st) {
  std::string_view m = st.message();
  if (!st.failing_element()) return m;
  std::size_t skip = Prefix(*st.failing_element()).size();
  return skip <= m.size() ? m.substr(skip) : m;
}

Status ShiftElement(const Status& st, std::size_t offset, std::string_view suffix) {
  if (!st.failing_element()) return st;
  return ElementFailure(*st.failing_element() + offset,
                        std::string(ElementReason(st)) + std::string(suffix));
}

Status RunElementKernel(const Kernel& kernel, DataType src, const void* in, std::size_t n,
                        void* out, const std::function<std::string(std::uint64_t)>& describe) {
  if (n == 0) return Status();
  if (!in || !out) return Status(StatusCode::kInvalidArgument, "null buffer with n > 0");
  std::size_t failed = kernel.Run(in, n, out);
  if (failed == n) return Status();
  std::size_t size = Info(src).size;
  std::uint64_t bits = LoadBits(static_cast<const unsigned char*>(in) + failed * size, size);
  return ElementFailure(failed, describe(bits));
}

}  // namespace zcast::internal
