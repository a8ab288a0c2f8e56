// The one place that maps a Highway target bit to the entry of a family's HWY_EXPORT table, so a
// family selector can call the kernel maker of the target the caller chose (tests and benchmarks
// choose targets below the best one; Highway's HWY_DYNAMIC_DISPATCH only calls the best).
// Include after <hwy/highway.h>, under #if HWY_ONCE.
//
// The table (highway.h, 1.0.3): entry 0 is Highway's ChooseAndCall (never used here), entries
// 1..HWY_MAX_DYNAMIC_TARGETS the dynamic targets (index = ctz(HWY_CHOSEN_TARGET_SHIFT(bit))), the
// last the fallback target (EMU128, or SCALAR); targets not compiled are null entries.
#ifndef ZCAST_SRC_KERNELS_DISPATCH_H_
#define ZCAST_SRC_KERNELS_DISPATCH_H_

#include <hwy/base.h>
#include <hwy/targets.h>

#include <cstdint>

namespace zcast::internal {

template <class Fn>
Fn DispatchEntry(Fn const* table, std::int64_t target) {
  if (target == 0 || (target & (target - 1)) != 0 || (HWY_TARGETS & target) == 0) return nullptr;
  if (target == HWY_EMU128 || target == HWY_SCALAR) return table[HWY_MAX_DYNAMIC_TARGETS + 1];
  const std::int64_t shifted = HWY_CHOSEN_TARGET_SHIFT(target);
  if (shifted == 0) return nullptr;
  return table[hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<std::uint64_t>(shifted))];
}

}  // namespace zcast::internal

// Calls MAKER(args...) for `target` through MAKER's HWY_EXPORT table; nullptr if not compiled.
#define ZCAST_CALL_FOR_TARGET(MAKER, target, ...)                                     \
  [&]() -> decltype(HWY_DISPATCH_TABLE(MAKER)[0](__VA_ARGS__)) {                      \
    auto fn = ::zcast::internal::DispatchEntry(HWY_DISPATCH_TABLE(MAKER), (target)); \
    if (fn == nullptr) return nullptr;                                                \
    return fn(__VA_ARGS__);                                                           \
  }()

#endif  // ZCAST_SRC_KERNELS_DISPATCH_H_
