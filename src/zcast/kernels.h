// Kernels: the loops that cast a buffer in one direction of a bound codec. One is chosen per
// direction at bind time (SelectKernel); none branches on configuration per element except in its
// cold path (an element that needs scalar_map or lies out of range).
//
// Every kernel reports only *where* the first failure is; the codec then asks the exact engine
// (ConvertScalar) for the reason, so error text has a single source.
#ifndef ZCAST_SRC_KERNELS_H_
#define ZCAST_SRC_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zcast/exact.h"
#include "zcast/kernels/targets.h"
#include "zcast/zcast.hpp"

namespace zcast::internal {

// Everything that decides one direction of a codec (encode or decode).
struct Direction {
  DataType src;
  DataType dst;
  Rounding rounding;
  OutOfRange out_of_range;  // kWrap into a float dst already turned into kUnset (R4)
  // scalar_map entries as encodings (src bits -> dst bits), first occurrence of each key only.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> map;
};

// The reference path for one element: scalar_map (R10), then the exact engine.
CastOutcome ConvertScalar(const Direction& dir, std::uint64_t src_bits);

// Casts n elements; returns n on success, else the index of the first failing element (the
// contents of `out` are then unspecified).
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual std::size_t Run(const void* in, std::size_t n, void* out) const = 0;
  virtual const char* name() const = 0;  // for tests and benchmarks
};

// A codec's Encode or Decode runs its kernel through RunElementKernel (element_error.h), the one
// place that spells the "element N: " prefix of a failing element.

// Element i of a buffer of T. The C API and Python hand over buffers of any alignment, where
// dereferencing a T* would be undefined behaviour; a memcpy of sizeof(T) bytes is defined at any
// address and compiles to the same single move.
template <typename T>
inline T LoadElement(const void* base, std::size_t i) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(base) + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
inline void StoreElement(void* base, std::size_t i, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(static_cast<unsigned char*>(base) + i * sizeof(T), &v, sizeof(T));
}

// The result of one source encoding in a lookup table: the destination encoding, or nullopt when
// the element fails (the codec asks its scalar path for the reason, as after any kernel).
using TableFill = std::function<std::optional<std::uint64_t>(std::uint64_t src_bits)>;

// The kernel for elements stored in 1 or 2 bytes (cast_value sources, scale_offset types): `fill`
// is evaluated once per storage pattern when the kernel is made, so Run is one lookup per element.
// Sub-byte types index with the whole byte, so `fill` must ignore the bits above the type's width
// (the exact paths do: they decode masked encodings).
std::unique_ptr<const Kernel> MakeTableKernel(std::size_t src_size, std::size_t dst_size,
                                              const TableFill& fill);

// ---- SIMD targets (kernels/targets.h) ----
//
// The kernels of the SIMD targets are written once on Google Highway (src/zcast/kernels/, one
// translation unit per family compiled for every target) and chosen per target (an std::int64_t
// Highway target bit, kBaselineTarget = 0 for the portable loops of this file only).

// The fastest kernel available for `dir` on BestSimdTarget().
std::unique_ptr<const Kernel> SelectKernel(const Direction& dir);
// The fastest kernel for `dir` that uses no instruction beyond `target` (tests and benchmarks
// compare targets with it): the Highway families for the target, then the baseline. A target the CPU lacks is never
// used: it falls back to the best supported one below it.
std::unique_ptr<const Kernel> SelectKernelFor(const Direction& dir, std::int64_t target);
// The first step of SelectKernelFor alone: the SIMD kernel (a Highway family's) for `dir` on
// `target`, or nullptr when SelectKernelFor
// would return the baseline kernel. The per-target tests use it to test each target's own
// kernels and leave the baseline's to the baseline run (under qemu, re-testing the same table
// kernel once per target cost minutes per source type).
std::unique_ptr<const Kernel> SelectSimdKernelFor(const Direction& dir, std::int64_t target);
// The per-element reference loop (ConvertScalar on every element), for tests and as a fallback.
std::unique_ptr<const Kernel> ReferenceKernel(const Direction& dir);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_H_
