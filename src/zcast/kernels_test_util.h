// What the kernel test files share (kernels_test.cc, kernels_float64_test.cc,
// kernels_int_families_test.cc): the reference results of a batch of inputs (ConvertScalar, the
// exact engine, once per element), the comparison of a kernel's run with them, a pair's
// description for failure messages, and the skip of a target the CPU lacks.
#ifndef ZCAST_SRC_ZCAST_KERNELS_TEST_UTIL_H_
#define ZCAST_SRC_ZCAST_KERNELS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/kernels.h"
#include "zcast/kernels/targets.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/prctl.h>
#endif

namespace zcast::internal::kernel_test {

// The name of the 1-byte tables' kernel (table8.cc) on a target without a 64-byte permute:
// "table8-tbl" where NEON's TBL/TBX loop runs (NEON, and the SVE targets whose vectors have at most
// 256 bits: SVE_256 and SVE2_128 by their fixed length, SVE and SVE2 by the length the OS gives
// this thread, which qemu's sve-default-vector-length sets), else `half_table`.
inline const char* Table8KernelName(const std::string& target, const char* half_table) {
  if (target == "NEON" || target == "SVE_256" || target == "SVE2_128") return "table8-tbl";
#if defined(__aarch64__) && defined(__linux__) && defined(PR_SVE_GET_VL)
  if (target == "SVE" || target == "SVE2") {
    const int vl = prctl(PR_SVE_GET_VL);  // bytes in the low 16 bits, or -1 without SVE
    if (vl >= 0 && (vl & PR_SVE_VL_LEN_MASK) <= 32) return "table8-tbl";
  }
#endif
  return half_table;
}

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
inline Expected ComputeReference(const Direction& dir, const std::vector<std::uint64_t>& inputs) {
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

// The reference does not depend on the target, but the tests run once per target and ask for it
// again: the exact engine was most of a kernel test's time (64% of the instructions of
// Float64Family.EveryPairModeAndRange on AVX2, callgrind), and a larger share of the sanitizer
// and qemu runs, which emulate or instrument it once per target. So the results of the last few
// hundred megabytes of references are kept, keyed by the direction and a 128-bit digest of the
// inputs. A test's instances for the targets run one after another (gtest's order for TEST_P;
// kernels_test.cc puts the target last in its Combine; tests/unit_main.cc keeps them in one
// shard), so each reference is computed once per test, not once per target.
class ReferenceCache {
 public:
  static ReferenceCache& Get() {
    static ReferenceCache cache;
    return cache;
  }
  // The reference stays valid until the next call (which may evict it).
  const Expected& Reference(const Direction& dir, const std::vector<std::uint64_t>& inputs) {
    Key key{dir, inputs.size(), 0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full};
    // Two independent multiply-rotate digests of every input, finished by one splitmix64 step
    // each: the digest runs over every input once per direction, so it is kept to a multiply and
    // a rotate per input.
    for (std::uint64_t x : inputs) {
      key.h1 = std::rotl((key.h1 ^ x) * 0x9FB21C651E98DF25ull, 29);
      key.h2 = std::rotl((key.h2 + x) * 0xD6E8FEB86659FD93ull, 37);
    }
    key.h1 = Mix(key.h1);
    key.h2 = Mix(key.h2);
    const std::uint64_t slot = Mix(key.h1 ^ (static_cast<std::uint64_t>(dir.src) << 40) ^
                                   (static_cast<std::uint64_t>(dir.dst) << 24) ^
                                   (static_cast<std::uint64_t>(dir.rounding) << 8) ^
                                   static_cast<std::uint64_t>(dir.out_of_range));
    for (auto [it, end] = index_.equal_range(slot); it != end; ++it)
      if (it->second->key == key) return it->second->value;
    Expected value = ComputeReference(dir, inputs);
    const std::size_t bytes = inputs.size() * 9 + 256;
    if (bytes > kCapacityBytes) {
      oversize_ = std::move(value);
      return oversize_;
    }
    while (!entries_.empty() && held_ + bytes > kCapacityBytes) {  // the oldest go first
      const Entry& old = entries_.front();
      for (auto [it, end] = index_.equal_range(old.slot); it != end; ++it) {
        if (it->second == entries_.begin()) {
          index_.erase(it);
          break;
        }
      }
      held_ -= old.bytes;
      entries_.pop_front();
    }
    entries_.push_back({key, std::move(value), bytes, slot});
    index_.emplace(slot, std::prev(entries_.end()));
    held_ += bytes;
    return entries_.back().value;
  }

 private:
  static constexpr std::size_t kCapacityBytes = std::size_t{768} << 20;
  struct Key {
    Direction dir;
    std::size_t n;
    std::uint64_t h1, h2;
    bool operator==(const Key& o) const {
      return n == o.n && h1 == o.h1 && h2 == o.h2 && dir.src == o.dir.src && dir.dst == o.dir.dst &&
             dir.rounding == o.dir.rounding && dir.out_of_range == o.dir.out_of_range && dir.map == o.dir.map;
    }
  };
  struct Entry {
    Key key;
    Expected value;
    std::size_t bytes;
    std::uint64_t slot;
  };
  static std::uint64_t Mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::list<Entry> entries_;  // oldest first
  std::unordered_multimap<std::uint64_t, std::list<Entry>::iterator> index_;
  std::size_t held_ = 0;
  Expected oversize_;  // the last reference too large to keep
};
inline const Expected& Reference(const Direction& dir, const std::vector<std::uint64_t>& inputs) {
  return ReferenceCache::Get().Reference(dir, inputs);
}

// Runs `kernel` over `inputs` from each failure on (skipping the failing element, as a caller
// that reports it and goes on would), comparing the first failing index and the bytes before it
// with the reference, and checking that nothing is written past the end. `in_offset` /
// `out_offset` shift both buffers off their natural alignment.
inline void ExpectKernelMatchesEveryFailure(const Kernel& kernel, const Direction& dir,
                                            const std::vector<std::uint64_t>& inputs, const Expected& want,
                                            std::size_t in_offset, std::size_t out_offset) {
  const std::size_t ss = Info(dir.src).size, ds = Info(dir.dst).size, n = inputs.size();
  // Buffers kept from call to call: with fresh ones (and a copied reference) each time, the OS's
  // page clearing was 23 % of AllModesAndRanges/{baseline,AVX2}_float32's profile (perf).
  static thread_local std::vector<unsigned char> in_buf, out_buf;
  in_buf.assign(n * ss + in_offset + 1, 0);
  out_buf.assign(n * ds + out_offset + 1, 0xCD);
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

// Every failing element costs a kernel run of its own (to prove it is found where it is, not only
// the first), and a run stops after one block: where most elements fail (the error mode into a
// narrow type) that is one block per element, most of an emulated kernel test's time.
// ZCAST_KERNEL_TEST_FAILURE_STRIDE=S > 1 (set for test-arm's SVE runs and the sanitizer stage) keeps, past
// the first kKeptFailures failing elements of a comparison, every S-th failing one and leaves the
// others out; every passing element is still compared. Announced once on stderr.
inline constexpr std::size_t kKeptFailures = 512;
inline std::size_t FailureStride() {
  static const std::size_t stride = [] {
    const char* env = std::getenv("ZCAST_KERNEL_TEST_FAILURE_STRIDE");
    const long v = env ? std::strtol(env, nullptr, 10) : 1;
    if (v > 1) {
      std::fprintf(stderr,
                   "kernel tests: REDUCED: past the first %zu failing elements of a comparison, every "
                   "%ld-th is run (ZCAST_KERNEL_TEST_FAILURE_STRIDE); every passing element is compared\n",
                   kKeptFailures, v);
    }
    return v > 1 ? static_cast<std::size_t>(v) : std::size_t{1};
  }();
  return stride;
}

inline void ExpectKernelMatches(const Kernel& kernel, const Direction& dir, const std::vector<std::uint64_t>& inputs,
                                const Expected& want, std::size_t in_offset = 0, std::size_t out_offset = 0) {
  const std::size_t stride = FailureStride();
  const std::size_t failing = static_cast<std::size_t>(std::count(want.fails.begin(), want.fails.end(), true));
  if (stride == 1 || failing <= kKeptFailures) {
    ExpectKernelMatchesEveryFailure(kernel, dir, inputs, want, in_offset, out_offset);
    return;
  }
  std::vector<std::uint64_t> kept;
  Expected kept_want;
  std::size_t seen = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (want.fails[i] && seen++ >= kKeptFailures && seen % stride != 0) continue;
    kept.push_back(inputs[i]);
    kept_want.bits.push_back(want.bits[i]);
    kept_want.fails.push_back(want.fails[i]);
  }
  ExpectKernelMatchesEveryFailure(kernel, dir, kept, kept_want, in_offset, out_offset);
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
