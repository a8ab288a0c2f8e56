#include "zcast/kernels/fp_env.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <xmmintrin.h>
#define ZCAST_FP_ENV_X86 1
#elif defined(__aarch64__)
#define ZCAST_FP_ENV_A64 1
#endif

namespace zcast::internal {
namespace {

#if ZCAST_FP_ENV_X86
constexpr std::uint64_t kFlags = 0x3F;  // sticky exception flags: kept as the caller had them
std::uint64_t Read() { return _mm_getcsr(); }
void Write(std::uint64_t v) { _mm_setcsr(static_cast<unsigned>(v)); }
std::uint64_t Want(std::uint64_t, FpRounding r) {
  // All exceptions masked (0x1F80), FTZ (bit 15) and DAZ (bit 6) off, RC in bits 13-14.
  const unsigned rc = r == FpRounding::kDown ? 1 : r == FpRounding::kUp ? 2 : r == FpRounding::kTowardsZero ? 3 : 0;
  return 0x1F80u | (rc << 13);
}
#elif ZCAST_FP_ENV_A64
constexpr std::uint64_t kFlags = 0;  // FPSR holds the flags: FPCR has none
std::uint64_t Read() {
  std::uint64_t v;
  asm volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
void Write(std::uint64_t v) { asm volatile("msr fpcr, %0" : : "r"(v)); }
std::uint64_t Want(std::uint64_t saved, FpRounding r) {
  // Clear FZ16 (19), RMode (22-23), FZ (24), DN (25), AHP (26) and the trap enables (8-12, 15);
  // keep the rest (reserved bits). RMode: 0 nearest, 1 towards +inf, 2 towards -inf, 3 zero.
  constexpr std::uint64_t kClear = (1u << 19) | (3u << 22) | (1u << 24) | (1u << 25) | (1u << 26) |
                                   (0x1Fu << 8) | (1u << 15);
  const std::uint64_t mode = r == FpRounding::kUp ? 1 : r == FpRounding::kDown ? 2 : r == FpRounding::kTowardsZero ? 3 : 0;
  return (saved & ~kClear) | (mode << 22);
}
#endif

}  // namespace

ScopedFpEnv::ScopedFpEnv(FpRounding rounding) : saved_(0), changed_(false) {
#if ZCAST_FP_ENV_X86 || ZCAST_FP_ENV_A64
  saved_ = Read();
  const std::uint64_t want = Want(saved_, rounding);
  if ((saved_ & ~kFlags) != want) {
    Write(want | (saved_ & kFlags));
    changed_ = true;
  }
#else
  (void)rounding;
#endif
}

ScopedFpEnv::~ScopedFpEnv() {
#if ZCAST_FP_ENV_X86 || ZCAST_FP_ENV_A64
  if (changed_) {
    // x86: the flags raised during the run stay raised, as if the caller had run the loop.
    Write((saved_ & ~kFlags) | (Read() & kFlags));
  }
#endif
}

std::uint64_t FpControlForTest() {
#if ZCAST_FP_ENV_X86 || ZCAST_FP_ENV_A64
  return Read() & ~kFlags;
#else
  return 0;
#endif
}

void SetFpControlForTest(std::uint64_t value) {
#if ZCAST_FP_ENV_X86 || ZCAST_FP_ENV_A64
  Write(value);
#else
  (void)value;
#endif
}

std::uint64_t NonDefaultFpControlForTest() {
#if ZCAST_FP_ENV_X86
  return 0x1F80u | 0x8000u | 0x0040u | 0x6000u;  // FTZ, DAZ, towards zero
#elif ZCAST_FP_ENV_A64
  return (Read() & ~((3u << 22) | (1u << 24) | (1u << 19))) | (3u << 22) | (1u << 24) | (1u << 19);  // RZ, FZ, FZ16
#else
  return 0;
#endif
}

}  // namespace zcast::internal
