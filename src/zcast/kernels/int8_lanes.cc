// Not ported yet: 1-byte integer -> 1-byte integer pairs (branch hwyint).
// Until the family lands, SelectKernelFor falls through to the hand-written AVX2 kernels (on AVX2
// and better) and the baseline for these pairs. The family's branch replaces this file.
#include "zcast/kernels/families.h"

namespace zcast::internal {

std::unique_ptr<const Kernel> SelectInt8Lanes(const Direction&, std::int64_t) { return nullptr; }

}  // namespace zcast::internal
