// The block architecture shared by every Highway kernel family: a kernel runs blocks of a fixed number of elements (kVecs vectors of
// 32-bit lanes: 4 x Lanes(d), so a multiple of every target's lane count, SVE's run-time one
// included); one pass over a block computes the results and a mask of the lanes it *declines*
// (NaN or Inf where the destination lacks them, out of range under unset, anything it cannot
// decide), applies scalar_map in the vector (keys compared and their values blended, first key
// wins, R10), stores the results, and hands the declined lanes, in index order, to the reference
// path (scalar_map + exact engine), which also finds the error. A tail of fewer elements runs the
// same block on a zero-padded copy.
//
// A Family provides kFpRounding (the rounding mode its run needs, fp_env.h), Params (plain data
// kept in the kernel), SrcSize(params) and DstSize(params) (bytes per element), Consts (built once
// per run), MakeConsts(params), BlockElems() and Block(consts, in, out, resolver) -> kNoFailure or
// the index (in the block) of the first failing element. It may also provide
// FastBlock(consts, in, out) -> bool: the same block for the common case only (no scalar_map to
// apply, no lane declined), its results stored and true returned when that was the case; on
// false, Block (not inlined then) runs the block again from the start and overwrites it, which
// the codecs allow because their buffers never overlap (zcast.hpp). The split keeps the hot loop
// free of what only the rare path needs: with the masks, the source vectors and the resolver live
// across the stores, GCC spills them to the stack every block, and the stack stores queued
// behind the streaming ones cost 15-35 % of the streaming speed (float16 -> uint8: 15.7 against
// 23 GB/s with the same in-cache speed).
// BlockKernel::Run calls FastBlock in a loop of its own (RunFastBlocks) on a copy of the
// constants that nothing else sees: in Run's loop, where their address goes to the rare path,
// GCC reads the family's parameters from the stack and sets its vector constants again in every
// block (stores through unsigned char* may alias them), about a sixth of a block's instructions
// on SSE4, and the per-block choices (source, destination size) cannot leave the loop.
// Instead of FastBlock a family may provide FastRun(consts, in, out, blocks) -> the number of
// whole blocks it converted, from the first, stopping at the first block FastBlock would refuse
// (which it may have written partly: Block then runs it), prefetch included: its own loop, for a
// step of several blocks, or a loader chosen once per run.
//
// Highway's -inl.h pattern: the per-target part is compiled once per target (foreach_target.h);
// the plain-data part once, under a normal include guard (scalar_map.h: the keys' plain data).
#ifndef ZCAST_SRC_KERNELS_BLOCK_SHARED_H_
#define ZCAST_SRC_KERNELS_BLOCK_SHARED_H_

#include <cstddef>
#include <cstdint>
#include <concepts>
#include <cstring>
#include <memory>

#include "zcast/dtype.h"
#include "zcast/kernels.h"
#include "zcast/kernels/fp_env.h"
#include "zcast/kernels/scalar_map.h"  // VectorMap, BuildMap, FastMap

namespace zcast::internal {

inline constexpr std::size_t kNoFailure = ~std::size_t{0};
// Calls f.template operator()<X>() for the run-time value among the compile-time ones.
template <typename F>
auto WithRounding(Rounding r, F&& f) {
  switch (r) {
    case Rounding::kNearestAway: return f.template operator()<Rounding::kNearestAway>();
    case Rounding::kTowardsZero: return f.template operator()<Rounding::kTowardsZero>();
    case Rounding::kTowardsPositive: return f.template operator()<Rounding::kTowardsPositive>();
    case Rounding::kTowardsNegative: return f.template operator()<Rounding::kTowardsNegative>();
    default: return f.template operator()<Rounding::kNearestEven>();
  }
}
template <typename F>
auto WithOutOfRange(OutOfRange o, F&& f) {
  switch (o) {
    case OutOfRange::kClamp: return f.template operator()<OutOfRange::kClamp>();
    case OutOfRange::kWrap: return f.template operator()<OutOfRange::kWrap>();
    default: return f.template operator()<OutOfRange::kUnset>();
  }
}
// Float destinations: clamp or unset (wrap acts as unset, R4).
template <typename F>
auto WithFloatOutOfRange(OutOfRange o, F&& f) {
  if (o == OutOfRange::kClamp) return f.template operator()<OutOfRange::kClamp>();
  return f.template operator()<OutOfRange::kUnset>();
}
template <typename F>
auto WithDstSize(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    default: return f.template operator()<4>();
  }
}

// The FP rounding mode that makes the hardware round like `r` (nearest-away has none: nearest).
constexpr FpRounding FpRoundingOf(Rounding r) {
  return r == Rounding::kTowardsNegative   ? FpRounding::kDown
         : r == Rounding::kTowardsPositive ? FpRounding::kUp
         : r == Rounding::kTowardsZero     ? FpRounding::kTowardsZero
                                           : FpRounding::kNearest;
}

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_BLOCK_SHARED_H_

// ---- per target ----
#if defined(ZCAST_SRC_KERNELS_BLOCK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ZCAST_SRC_KERNELS_BLOCK_INL_H_
#undef ZCAST_SRC_KERNELS_BLOCK_INL_H_
#else
#define ZCAST_SRC_KERNELS_BLOCK_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU32 = hn::ScalableTag<std::uint32_t>;
using DI32 = hn::ScalableTag<std::int32_t>;
using DF32 = hn::ScalableTag<float>;
using VU32 = hn::Vec<DU32>;
using VF32 = hn::Vec<DF32>;
using VI32 = hn::Vec<DI32>;
using MU32 = hn::Mask<DU32>;

// The union of two masks of byte lanes. Highway 1.0.3's Or(mask, mask) is svsel_b(a, a, b) on
// SVE; on the SVE_256 target (whose all-lanes predicate is SV_ALL) GCC 12 folds that select of
// byte compares into per-lane code over the 16 lanes of the smallest SVE vector, so lanes 16-31
// are lost: int8-lanes-to-int would miss every failing element there (IntFamilies'
// FailingElementInEveryPosition under qemu at 256 bits shows it; with lane 20 set,
// Or(Ne(c, v), Ne(v, v)) comes out empty, Or(Ne(v, v), Ne(c, v)) and svorr_b_z right). ORR of
// predicates is the instruction meant, and GCC keeps it.
// Masks of wider lanes are not folded that way (their compares yield other predicate types):
// the same test passes for them on SVE_256 with Highway's Or.
template <class M>
HWY_INLINE M MaskOr8(M a, M b) {
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
  return svorr_b_z(svptrue_b8(), a, b);
#else
  return hn::Or(a, b);
#endif
}

// Compares of 32-bit lanes known to be < 2^31 as signed integers (one instruction on every x86
// target; Highway builds unsigned compares from two).
HWY_INLINE MU32 GtS(VU32 a, VU32 b) {
  const DI32 di;
  return hn::RebindMask(DU32(), hn::Gt(hn::BitCast(di, a), hn::BitCast(di, b)));
}

constexpr std::size_t kVecs = 4;                                     // vectors per block
constexpr std::size_t kMaxBlock = kVecs * HWY_LANES(std::uint32_t);  // elements, at most

// The declined lanes of one block (or of a zero-padded tail: lanes >= limit are padding and
// ignored), through the reference path in index order.
struct Resolver {
  const Kernel* reference;
  const unsigned char* src;
  unsigned char* dst;
  std::size_t src_size, dst_size, limit;

  // `bits`: one bit per lane of lanes first .. first + n - 1 (StoreMaskBits' layout).
  HWY_NOINLINE std::size_t Lanes(const std::uint8_t* bits, std::size_t n, std::size_t first) const {
    for (std::size_t i = 0; i < n; ++i) {
      if (!((bits[i / 8] >> (i % 8)) & 1)) continue;
      const std::size_t idx = first + i;
      if (idx >= limit) return kNoFailure;
      if (reference->Run(src + idx * src_size, 1, dst + idx * dst_size) == 0) return idx;
    }
    return kNoFailure;
  }
};

template <class D>
HWY_INLINE std::size_t ResolveMask(D d, hn::Mask<D> m, std::size_t first, const Resolver& r) {
  if (hn::AllFalse(d, m)) return kNoFailure;
  std::uint8_t bits[(HWY_LANES(hn::TFromD<D>) + 7) / 8 + 8];
  hn::StoreMaskBits(d, m, bits);
  return r.Lanes(bits, hn::Lanes(d), first);
}
// The declined lanes of a block's four vectors, in index order.
template <class D>
HWY_NOINLINE std::size_t ResolveBlock(D d, hn::Mask<D> m0, hn::Mask<D> m1, hn::Mask<D> m2, hn::Mask<D> m3,
                                      const Resolver& r) {
  const std::size_t n = hn::Lanes(d);
  std::size_t f = ResolveMask(d, m0, 0, r);
  if (f == kNoFailure) f = ResolveMask(d, m1, n, r);
  if (f == kNoFailure) f = ResolveMask(d, m2, 2 * n, r);
  if (f == kNoFailure) f = ResolveMask(d, m3, 3 * n, r);
  return f;
}

// ---- packing 32-bit result lanes (each already masked to the destination's bits) ----

template <std::size_t kDstSize>
HWY_INLINE void StoreBlockOf(VU32 r0, VU32 r1, VU32 r2, VU32 r3, unsigned char* out) {
  const DU32 du;
  const std::size_t n = hn::Lanes(du);
  if constexpr (kDstSize == 4) {
    auto* o = reinterpret_cast<std::uint32_t*>(out);
    hn::StoreU(r0, du, o);
    hn::StoreU(r1, du, o + n);
    hn::StoreU(r2, du, o + 2 * n);
    hn::StoreU(r3, du, o + 3 * n);
  } else {
#if HWY_TARGET == HWY_AVX2
    // AVX2: pack pairs of vectors before the cross-lane permute (the hand-written kernels' order):
    // 3 packs and 1 permute per 32 one-byte results, where four DemoteTo take 8 and 4 stores.
    // packus keeps values < 2^16 (and, from 16-bit lanes, < 2^8) as they are.
    if constexpr (kDstSize == 2) {
      const __m256i a = _mm256_permute4x64_epi64(_mm256_packus_epi32(r0.raw, r1.raw), 0xD8);
      const __m256i b = _mm256_permute4x64_epi64(_mm256_packus_epi32(r2.raw, r3.raw), 0xD8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), a);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), b);
    } else {
      const __m256i a = _mm256_packus_epi32(r0.raw, r1.raw);
      const __m256i b = _mm256_packus_epi32(r2.raw, r3.raw);
      const __m256i c = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, b), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), c);
    }
    return;
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // AVX-512: the same packs (within 128-bit lanes), then one vpermd/vpermq into element order
    // and one 64-byte store per 64 one-byte results, where four DemoteTo (vpmovusdb, 2 uops each
    // on Zen 4) take four 16-byte stores.
    if constexpr (kDstSize == 2) {
      const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
      const __m512i a = _mm512_permutexvar_epi64(order, _mm512_packus_epi32(r0.raw, r1.raw));
      const __m512i b = _mm512_permutexvar_epi64(order, _mm512_packus_epi32(r2.raw, r3.raw));
      _mm512_storeu_si512(out, a);
      _mm512_storeu_si512(out + 64, b);
    } else {
      const __m512i a = _mm512_packus_epi32(r0.raw, r1.raw);
      const __m512i b = _mm512_packus_epi32(r2.raw, r3.raw);
      const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
      _mm512_storeu_si512(out, _mm512_permutexvar_epi32(order, _mm512_packus_epi16(a, b)));
    }
    return;
#elif HWY_TARGET == HWY_SSE4
    // SSE4: the same packs, in order without a permute (one 128-bit lane): 3 packs and one 16-byte
    // store per 16 one-byte results, where four DemoteTo take 8 packs and 4 stores of 4 bytes.
    if constexpr (kDstSize == 2) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi32(r0.raw, r1.raw));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_packus_epi32(r2.raw, r3.raw));
    } else {
      const __m128i a = _mm_packus_epi32(r0.raw, r1.raw);
      const __m128i b = _mm_packus_epi32(r2.raw, r3.raw);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(a, b));
    }
    return;
#endif
    // Saturating demotions from int32 keep every value that fits (all do: masked results).
    const DI32 di;
    using T = std::conditional_t<kDstSize == 2, std::uint16_t, std::uint8_t>;
    const hn::Rebind<T, DI32> dn;
    auto* o = reinterpret_cast<T*>(out);
    hn::StoreU(hn::DemoteTo(dn, hn::BitCast(di, r0)), dn, o);
    hn::StoreU(hn::DemoteTo(dn, hn::BitCast(di, r1)), dn, o + n);
    hn::StoreU(hn::DemoteTo(dn, hn::BitCast(di, r2)), dn, o + 2 * n);
    hn::StoreU(hn::DemoteTo(dn, hn::BitCast(di, r3)), dn, o + 3 * n);
  }
}

// `dst_size` bytes per element (1, 2 or 4), chosen per block.
HWY_INLINE void StoreBlock(std::size_t dst_size, VU32 r0, VU32 r1, VU32 r2, VU32 r3, unsigned char* out) {
  if (dst_size == 1) StoreBlockOf<1>(r0, r1, r2, r3, out);
  else if (dst_size == 2) StoreBlockOf<2>(r0, r1, r2, r3, out);
  else StoreBlockOf<4>(r0, r1, r2, r3, out);
}

// ---- scalar_map over one vector of 32-bit key lanes ----

// Keys from the last to the first, so the first that matches wins (R10); `nan` marks the lanes a
// NaN key matches. A matched lane is no longer declined.
HWY_INLINE void MapLanes32(const VectorMap& map, VU32 keys, MU32 nan, VU32* r, MU32* declined) {
  const DU32 du;
  for (int k = map.n - 1; k >= 0; --k) {
    const MU32 m = map.nan_key[k] ? nan : hn::Eq(keys, hn::Set(du, static_cast<std::uint32_t>(map.key[k])));
    *r = hn::IfThenElse(m, hn::Set(du, static_cast<std::uint32_t>(map.value[k])), *r);
    *declined = hn::AndNot(m, *declined);
  }
}

// The keys of a kKeys map, for lanes without NaN (integer lanes) or with NaN made kNaNKey32.
HWY_INLINE void MapFastKeys32(const FastMap& map, VU32 keys, VU32* r, MU32* declined) {
  const DU32 du;
  for (int i = 0; i < kFastMapKeys; ++i) {  // keys distinct (PlanFastMap): any order
    const MU32 m = hn::Eq(keys, hn::Set(du, map.key[i]));
    *r = hn::IfThenElse(m, hn::Set(du, map.value[i]), *r);
    *declined = hn::AndNot(m, *declined);
  }
}
// The same in the common blocks, for a FastMap of kind kMap (scalar_map.h, decided at bind time):
// a fixed sequence of compares and blends, no loop over a run-time number of keys, no branch.
// `nan` marks the NaN lanes (float lanes; none for integer lanes), `keys` the lanes' key bits.
// Blocks with a key in them stay in the common blocks' loop: only a lane still declined after the
// map sends a block to the full pass.
template <FastMapKind kMap>
HWY_INLINE void MapFastLanes32(const FastMap& map, VU32 keys, MU32 nan, VU32* r, MU32* declined) {
  const DU32 du;
  if constexpr (kMap == FastMapKind::kNaN) {
    *r = hn::IfThenElse(nan, hn::Set(du, map.value[0]), *r);
    *declined = hn::AndNot(nan, *declined);
  } else if constexpr (kMap == FastMapKind::kKeys) {
    // A NaN lane's key is kNaNKey32, whatever its sign and payload.
    MapFastKeys32(map, hn::IfThenElse(nan, hn::Set(du, kNaNKey32), keys), r, declined);
  }
}
// Calls f.template operator()<kMap>() for the kinds the common blocks run (kNone also for kBlocks,
// whose common blocks refuse every block with a key: the caller's FastRun checks that first).
template <typename F>
auto WithFastMap(FastMapKind kind, F&& f) {
  if constexpr (kMapBlends) {
    switch (kind) {
      case FastMapKind::kNaN: return f.template operator()<FastMapKind::kNaN>();
      case FastMapKind::kKeys: return f.template operator()<FastMapKind::kKeys>();
      default: break;
    }
  }
  return f.template operator()<FastMapKind::kNone>();
}

// ---- the block loop ----

template <class Family>
inline constexpr bool kHasFastBlock = requires(const typename Family::Consts& c, const unsigned char* in,
                                               unsigned char* out) {
  { Family::FastBlock(c, in, out) } -> std::same_as<bool>;
};
template <class Family>
inline constexpr bool kHasFastRun = requires(const typename Family::Consts& c, const unsigned char* in,
                                             unsigned char* out, std::size_t blocks) {
  { Family::FastRun(c, in, out, blocks) } -> std::same_as<std::size_t>;
};
// The software prefetch of a block (see BlockKernel::Run; FastRun loops call it too): the source
// lines kPrefetchAhead bytes ahead and, where the destination is wider than the source, the
// destination lines of the same elements (kPrefetchAhead * out_bytes / in_bytes ahead) with a
// write hint. A widening cast writes 2-4 times the bytes it reads, and the stores' lines are then
// fetched late, one read-for-ownership per line when the store reaches it: on an AMD EPYC (Zen 4)
// without it uint8 -> float32 streams at 0.85 of the copy ceiling, float8_e4m3 -> float32 at 0.73
// (AVX2) / 0.83 (AVX3_DL), float8_e4m3 -> float16 at 0.88 (AVX3_DL); with the destination
// prefetched, at 1.04-1.13 (3 interleaved rounds). Same-size and narrowing pairs run the same
// with and without it (within +-0.05), so they do not get it. The write
// hint is prefetcht0 on x86 (GCC emits prefetchw only with -mprfchw, which Highway's targets do
// not enable; prefetchw measured the same) and PRFM PSTL1KEEP on aarch64.
inline constexpr std::size_t kPrefetchAhead = 2048;
HWY_INLINE void PrefetchBlock(const unsigned char* in, std::size_t in_bytes, unsigned char* out,
                              std::size_t out_bytes) {
  for (std::size_t b = 0; b < in_bytes; b += 64) hwy::Prefetch(in + b + kPrefetchAhead);
  if (out_bytes > in_bytes) {
    unsigned char* ahead = out + kPrefetchAhead * (out_bytes / in_bytes);
    for (std::size_t b = 0; b < out_bytes; b += 64) __builtin_prefetch(ahead + b, 1, 3);
  }
}
// The same where the caller knows that a block reads at most kMaxIn and writes at most kMaxOut
// bytes, for the loops of the common blocks: with a fixed-size vector the lines are prefetched by
// a fixed number of instructions, bytes / kLines apart (at most 64: every line of the block,
// some twice when the block is smaller than the bound). PrefetchBlock's loop, its count known only
// at run time, takes about 13 instructions per block: 0.4 of AVX2 float32 -> uint8's 2.26 per
// element (the prefetch itself is worth 1.5-2x streaming, BlockKernel::Run). Scalable vectors
// keep the loop.
template <std::size_t kMaxIn, std::size_t kMaxOut>
HWY_INLINE void PrefetchBlockUpTo(const unsigned char* in, std::size_t in_bytes, unsigned char* out,
                                  std::size_t out_bytes) {
#if HWY_HAVE_SCALABLE
  PrefetchBlock(in, in_bytes, out, out_bytes);
#else
  constexpr std::size_t kInLines = (kMaxIn + 63) / 64, kOutLines = (kMaxOut + 63) / 64;
  if (HWY_UNLIKELY(in_bytes > kInLines * 64 || out_bytes > kOutLines * 64)) {
    return PrefetchBlock(in, in_bytes, out, out_bytes);  // a bound that does not hold: all lines still
  }
  const std::size_t in_stride = in_bytes / kInLines;
  for (std::size_t l = 0; l < kInLines; ++l) hwy::Prefetch(in + kPrefetchAhead + l * in_stride);
  if (out_bytes > in_bytes) {
    unsigned char* ahead = out + kPrefetchAhead * (out_bytes / in_bytes);
    const std::size_t out_stride = out_bytes / kOutLines;
    for (std::size_t l = 0; l < kOutLines; ++l) __builtin_prefetch(ahead + l * out_stride, 1, 3);
  }
#endif
}

// Source and destination element sizes are run-time values (Family::SrcSize(params),
// DstSize(params)): a family serves several of each with one instantiation, and picks its loader
// and store per block by a well-predicted branch. Instantiating every combination for every target
// made one translation unit take over 12 minutes and 3 GB to compile.
template <class Family>
class BlockKernel final : public Kernel {
  static constexpr std::size_t kMaxSize = 8;  // bytes per element, at most

 public:
  BlockKernel(const Direction& dir, const typename Family::Params& params, const char* name)
      : reference_(ReferenceKernel(dir)), params_(params), name_(name) {}

  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    ScopedFpEnv env(Family::kFpRounding);
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    const typename Family::Consts c = Family::MakeConsts(params_);
    const std::size_t ss = Family::SrcSize(params_), ds = Family::DstSize(params_);
    const std::size_t block = Family::BlockElems();
    Resolver res{reference_.get(), src, dst, ss, ds, block};
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
      if constexpr (kHasFastRun<Family>) {
        i += block * Family::FastRun(c, src + i * ss, dst + i * ds, (n - i) / block);
        if (i + block > n) break;
      } else if constexpr (kHasFastBlock<Family>) {
        i += block * RunFastBlocks(c, src + i * ss, dst + i * ds, (n - i) / block, block * ss, block * ds);
        if (i + block > n) break;
      }
      // A software prefetch 2 KiB ahead, one per 64-byte line of the block, for every source
      // size: it is the difference between streaming at the copy speed and well below it (4- and
      // 8-byte sources on SSE4 at 0.59-1.20 of the ceiling with it, 0.23-0.80 without; on AVX2
      // float32 -> float8 at 1.12 against 0.75, none slower; bench/compare_builds.py, 3
      // interleaved rounds, also with both cores busy). One per line, not per block: a block of
      // 64 float16 (AVX-512) or of 128 bytes (int8 lanes) is two lines, and one prefetch per block
      // leaves float16 -> uint8 at 0.73 of the ceiling on AVX3_DL against 0.93 on AVX2.
      // Prefetches past the end never fault; the destination is prefetched too where it is wider.
      PrefetchBlock(src + i * ss, block * ss, dst + i * ds, block * ds);
      res.src = src + i * ss;
      res.dst = dst + i * ds;
      const std::size_t f = FullBlock(c, res.src, res.dst, res);
      if (HWY_UNLIKELY(f != kNoFailure)) return i + f;
    }
    if (i < n) {
      // The tail: the same block on a zero-padded copy (0 converts in every family; padding lanes
      // are ignored by the resolver), results copied back.
      alignas(64) unsigned char tin[kMaxBlock * kMaxSize] = {};
      alignas(64) unsigned char tout[kMaxBlock * kMaxSize];
      const std::size_t rest = n - i;
      std::memcpy(tin, src + i * ss, rest * ss);
      Resolver tail{reference_.get(), tin, tout, ss, ds, rest};
      const std::size_t f = Family::Block(c, tin, tout, tail);
      std::memcpy(dst + i * ds, tout, rest * ds);
      if (f != kNoFailure) return i + f;
    }
    return n;
  }
  const char* name() const override { return name_; }

 private:
  // FastBlock's blocks (see the top of this file), `blocks` at most, stopping before the first
  // it refuses; `k` is a copy whose address does not escape.
  static HWY_INLINE std::size_t RunFastBlocks(const typename Family::Consts& c, const unsigned char* in,
                                              unsigned char* out, std::size_t blocks, std::size_t in_step,
                                              std::size_t out_step) {
    const typename Family::Consts k = c;
    // No software prefetch where both elements are 8 bytes (float64 <-> int64/uint64, int64 ->
    // float64): two streams of 16 bytes per element, which the hardware prefetcher follows alone.
    // Without it these pairs stream 3-8 % faster on AVX2 and AVX3_DL (float64 -> int64 clamp,
    // int64 -> float64; 5 and 3 interleaved rounds) and the same on SSE4, compute-bound there.
    const bool prefetch = !(in_step == 8 * Family::BlockElems() && out_step == in_step);
    // A family with MappedFastBlock<kMap> runs a scalar_map's common blocks through it, the kind
    // chosen here once per run (FastMapOf: the plan made at bind time).
    if constexpr (kMapBlends && requires { Family::FastMapOf(k); }) {
      switch (Family::FastMapOf(k)) {
        case FastMapKind::kNaN: return MappedBlocks<FastMapKind::kNaN>(k, in, out, blocks, in_step, out_step, prefetch);
        case FastMapKind::kKeys: return MappedBlocks<FastMapKind::kKeys>(k, in, out, blocks, in_step, out_step, prefetch);
        default: break;
      }
    }
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      if (prefetch) PrefetchBlockUpTo<kMaxBlock * MaxSrcSize(), kMaxBlock * MaxDstSize()>(in, in_step, out, out_step);
      if (HWY_UNLIKELY(!Family::FastBlock(k, in, out))) return b;
    }
    return blocks;
  }
  template <FastMapKind kMap>
  static HWY_NOINLINE std::size_t MappedBlocks(const typename Family::Consts& c, const unsigned char* in,
                                               unsigned char* out, std::size_t blocks, std::size_t in_step,
                                               std::size_t out_step, bool prefetch) {
    const typename Family::Consts k = c;
    for (std::size_t b = 0; b < blocks; ++b, in += in_step, out += out_step) {
      if (prefetch) PrefetchBlockUpTo<kMaxBlock * MaxSrcSize(), kMaxBlock * MaxDstSize()>(in, in_step, out, out_step);
      if (HWY_UNLIKELY(!Family::template MappedFastBlock<kMap>(k, in, out))) return b;
    }
    return blocks;
  }
  // Bytes per element at most, where the family says (kMaxSrcSize, kMaxDstSize): PrefetchBlockUpTo
  // then prefetches fewer lines twice.
  static constexpr std::size_t MaxSrcSize() {
    if constexpr (requires { Family::kMaxSrcSize; }) return Family::kMaxSrcSize;
    else return kMaxSize;
  }
  static constexpr std::size_t MaxDstSize() {
    if constexpr (requires { Family::kMaxDstSize; }) return Family::kMaxDstSize;
    else return kMaxSize;
  }
  // Out of line where a FastBlock handles the common blocks (see the top of this file).
  static HWY_NOINLINE std::size_t FullBlockOutOfLine(const typename Family::Consts& c, const unsigned char* in,
                                                     unsigned char* out, const Resolver& res) {
    return Family::Block(c, in, out, res);
  }
  static HWY_INLINE std::size_t FullBlock(const typename Family::Consts& c, const unsigned char* in,
                                          unsigned char* out, const Resolver& res) {
    if constexpr (kHasFastBlock<Family> || kHasFastRun<Family>) return FullBlockOutOfLine(c, in, out, res);
    else return Family::Block(c, in, out, res);
  }

  std::unique_ptr<const Kernel> reference_;
  typename Family::Params params_;
  const char* name_;
};

template <class Family>
std::unique_ptr<const Kernel> Make(const Direction& dir, const typename Family::Params& p, const char* name) {
  return std::make_unique<BlockKernel<Family>>(dir, p, name);
}
// Families whose Params have a VectorMap `map`: nullptr when the map cannot go in the vector.
// Those whose Params also have a FastMap `fast_map` get its plan (scalar_map.h), at bind time.
template <class Family>
std::unique_ptr<const Kernel> MakeWithMap(const Direction& dir, typename Family::Params p, const char* name,
                                          KeyRep rep) {
  if (!BuildMap(dir, rep, &p.map)) return nullptr;
  if constexpr (requires { p.fast_map; }) p.fast_map = PlanFastMap(p.map);
  return Make<Family>(dir, p, name);
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
