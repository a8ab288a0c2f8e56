// SIMD targets: which of Highway's targets this build compiled, which this CPU runs, and the one
// the kernels use. No Highway ops here (and no Highway header: kernels.cc and the tests include
// this file). A target is one Highway target bit (HWY_AVX2, HWY_NEON, ...) as an std::int64_t;
// kBaselineTarget (0) means "no Highway kernels": kernels.cc's portable loops only.
//
// The chosen target is decided once per process (the first call), so every codec of a process
// uses the same one: the best target the CPU supports, capped by the environment variable
// ZCAST_SIMD_TARGET=NAME (read at that moment), NAME being a compiled target's Highway name (SSE4,
// AVX2, AVX3, AVX3_DL, NEON, SVE, EMU128, ..., case-insensitive) or "baseline". A cap the CPU
// lacks gives the best supported target below it; an unknown name is reported once on stderr and
// ignored.
#ifndef ZCAST_SRC_KERNELS_TARGETS_H_
#define ZCAST_SRC_KERNELS_TARGETS_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace zcast::internal {

inline constexpr std::int64_t kBaselineTarget = 0;

// "baseline", or Highway's name ("AVX2", "SVE2", ...).
const char* SimdTargetName(std::int64_t target);
// The target named `name` (case-insensitive) among the compiled ones, or -1.
std::int64_t SimdTargetFromName(std::string_view name);
// True when `a` is a better target than `b` (Highway's order: a lower bit is better; baseline is
// worse than every Highway target).
bool SimdTargetBetter(std::int64_t a, std::int64_t b);
// True for the x86 targets that include AVX2 (AVX2, AVX3, AVX3_DL), whose kernels may use F16C
// (float_to_narrow.cc).
bool SimdTargetIncludesAvx2(std::int64_t target);

// Every target compiled into this build, baseline first, worst to best.
const std::vector<std::int64_t>& CompiledSimdTargets();
// Those the CPU supports (the cap does not apply), baseline first, worst to best.
const std::vector<std::int64_t>& SupportedSimdTargets();
bool IsSupportedSimdTarget(std::int64_t target);
// The best supported target that is not better than `target`.
std::int64_t SupportedSimdTargetAtMost(std::int64_t target);
// The target SelectKernel uses: the best supported one, capped by ZCAST_SIMD_TARGET.
std::int64_t BestSimdTarget();

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_TARGETS_H_
