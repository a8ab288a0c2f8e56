// The floating-point environment of a kernel run. A host application may run with flush-to-zero,
// denormals-are-zero, trapping or another rounding mode; the kernels' exactness arguments assume
// the default environment (no flushing, exceptions masked) with the rounding mode a kernel asks
// for. ScopedFpEnv sets that for the scope and restores the caller's environment afterwards:
// x86 MXCSR (FTZ, DAZ off, all exceptions masked, RC as asked; the sticky flags are kept),
// aarch64 FPCR (FZ, FZ16, DN, AHP off, no trap enables, RMode as asked). Elsewhere it does nothing
// (and the non-default environment test reports itself as not run).
//
// Not inline on purpose: a kernel translation unit compiles its per-target code with other
// instruction sets, and this file's code must stay baseline (fp_env.cc).
#ifndef ZCAST_SRC_KERNELS_FP_ENV_H_
#define ZCAST_SRC_KERNELS_FP_ENV_H_

#include <cstdint>

namespace zcast::internal {

enum class FpRounding : std::uint8_t { kNearest, kDown, kUp, kTowardsZero };

class ScopedFpEnv {
 public:
  explicit ScopedFpEnv(FpRounding rounding = FpRounding::kNearest);
  ~ScopedFpEnv();
  ScopedFpEnv(const ScopedFpEnv&) = delete;
  ScopedFpEnv& operator=(const ScopedFpEnv&) = delete;

 private:
  std::uint64_t saved_;
  bool changed_;
};

// For tests. The raw control register (MXCSR / FPCR; 0 where there is none), without the
// sticky exception flags.
std::uint64_t FpControlForTest();
void SetFpControlForTest(std::uint64_t value);
// A control value other than the default: flush-to-zero, denormals-are-zero (x86) and rounding
// towards zero; 0 where the architecture has no control register here (the test is not run).
std::uint64_t NonDefaultFpControlForTest();

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_FP_ENV_H_
