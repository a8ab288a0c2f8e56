// Not ported yet: any 1-byte -> 1-byte pair as a table (branch hwyint).
// Until the family lands, SelectKernelFor falls through to the hand-written AVX2 kernels (on AVX2
// and better) and the baseline for these pairs. The family's branch replaces this file.
#include "zcast/kernels/families.h"

namespace zcast::internal {

std::unique_ptr<const Kernel> SelectTable8(const Direction&, std::int64_t) { return nullptr; }

}  // namespace zcast::internal
