// What the kernel test files share (kernels_test.cc, kernels_float64_test.cc,
// kernels_int_families_test.cc): the reference results of a batch of inputs (ConvertScalar, the
// exact engine, once per element), the comparison of a kernel's run with them, a pair's
// description for failure messages, and the skip of a target the CPU lacks.
#ifndef ZCAST_SRC_ZCAST_KERNELS_TEST_UTIL_H_
#define ZCAST_SRC_ZCAST_KERNELS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/kernels.h"
#include "zcast/kernels/targets.h"

namespace zcast::internal::kernel_test {

inline std::uint32_t F32Bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline std::uint64_t F64Bits(double f) {
  std::uint64_t b;
  std::memcpy(&b, &f, 8);
  return b;
}

inline std::string Describe(const Direction& dir) {
  return std::string(DataTypeName(dir.src)) + " -> " + std::string(DataTypeName(dir.dst)) + " " +
         std::string(RoundingName(dir.rounding)) + " " + std::string(OutOfRangeName(dir.out_of_range)) +
         (dir.map.empty() ? "" : " with scalar_map");
}

// The reference: every element through ConvertScalar once.
struct Expected {
  std::vector<std::uint64_t> bits;
  std::vector<bool> fails;
};
inline Expected Reference(const Direction& dir, const std::vector<std::uint64_t>& inputs) {
  Expected e;
  e.bits.resize(inputs.size());
  e.fails.resize(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const CastOutcome r = ConvertScalar(dir, inputs[i]);
    e.bits[i] = r.bits & Info(dir.dst).value_mask();
    e.fails[i] = r.error != CastError::kNone;
  }
  return e;
}

// Runs `kernel` over `inputs` from each failure on (skipping the failing element, as a caller
// that reports it and goes on would), comparing the first failing index and the bytes before it
// with the reference, and checking that nothing is written past the end. `in_offset` /
// `out_offset` shift both buffers off their natural alignment.
inline void ExpectKernelMatches(const Kernel& kernel, const Direction& dir, const std::vector<std::uint64_t>& inputs,
                                const Expected& want, std::size_t in_offset = 0, std::size_t out_offset = 0) {
  const std::size_t ss = Info(dir.src).size, ds = Info(dir.dst).size, n = inputs.size();
  std::vector<unsigned char> in_buf(n * ss + in_offset + 1), out_buf(n * ds + out_offset + 1, 0xCD);
  unsigned char* in = in_buf.data() + in_offset;
  unsigned char* out = out_buf.data() + out_offset;
  for (std::size_t i = 0; i < n; ++i) StoreBits(in + i * ss, ss, inputs[i]);
  for (std::size_t start = 0; start <= n;) {
    std::size_t expected_fail = start;
    while (expected_fail < n && !want.fails[expected_fail]) ++expected_fail;
    const std::size_t f = start + kernel.Run(in + start * ss, n - start, out + start * ds);
    ASSERT_EQ(f, expected_fail) << "kernel " << kernel.name() << ": first failure differs, run from " << start
                                << ", input bits 0x" << std::hex
                                << inputs[std::min(std::min(f, expected_fail), n - 1)];
    for (std::size_t i = start; i < f; ++i) {
      if (LoadBits(out + i * ds, ds) != want.bits[i]) {
        ASSERT_EQ(LoadBits(out + i * ds, ds), want.bits[i])
            << "kernel " << kernel.name() << ", element " << i << ", input bits 0x" << std::hex << inputs[i];
      }
    }
    ASSERT_EQ(out_buf[n * ds + out_offset], 0xCD) << "kernel " << kernel.name() << " wrote past the end";
    start = f + 1;
  }
}
inline void ExpectKernelMatches(const Kernel& kernel, const Direction& dir, const std::vector<std::uint64_t>& inputs,
                                std::size_t in_offset = 0, std::size_t out_offset = 0) {
  ExpectKernelMatches(kernel, dir, inputs, Reference(dir, inputs), in_offset, out_offset);
}

}  // namespace zcast::internal::kernel_test

// A compiled target the CPU lacks is reported by name, never counted as passed.
#define ZCAST_SKIP_UNLESS_SUPPORTED(target)                   \
  if (!::zcast::internal::IsSupportedSimdTarget(target))      \
  GTEST_SKIP() << "NOT RUN: " << ::zcast::internal::SimdTargetName(target) << " (CPU lacks it)"

#endif  // ZCAST_SRC_ZCAST_KERNELS_TEST_UTIL_H_
