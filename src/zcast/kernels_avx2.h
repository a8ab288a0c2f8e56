// Internal to the AVX2 kernels: the block framework, the loaders, converters and kernel families,
// and the selection helpers shared by kernels_avx2.cc and kernels_avx2_extra.cc, the two
// translation units compiled with -mavx2 -mfma -mf16c -mbmi2 (CMakeLists.txt). kernels_avx2.cc
// describes the design.
//
// Everything is in an unnamed namespace on purpose, against the usual rule for headers: each AVX2
// translation unit gets its own copy, so no inline function or template instantiation compiled
// for AVX2 becomes a weak symbol that the linker could pick for a baseline translation unit (it
// would then run AVX2 instructions on CPUs without them). Include it from those two files only.
#ifndef ZCAST_SRC_KERNELS_AVX2_H_
#define ZCAST_SRC_KERNELS_AVX2_H_

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "zcast/dtype.h"
#include "zcast/kernels.h"

namespace zcast::internal {
namespace {

constexpr std::size_t kBlock = 32;  // elements per block
constexpr int kMaxVectorKeys = 16;  // larger scalar maps stay on the baseline kernels

// ---- helpers ----

inline __m256i Set1(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
inline __m256i Set1x64(std::uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
inline __m256i AsInt(__m256 x) { return _mm256_castps_si256(x); }
inline __m256 AsFloat(__m256i x) { return _mm256_castsi256_ps(x); }
inline __m256i Blend(__m256i a, __m256i b, __m256i mask) { return _mm256_blendv_epi8(a, b, mask); }
// vpblendvb on a mask that only has its top bits meaningful: GCC turns _mm256_blendv_epi8 into a
// select on mask < 0 and, when mask is not a compare result, adds a vpcmpgtb to rebuild it.
inline __m256i BlendTop(__m256i a, __m256i b, __m256i mask) {
  __m256i r;
  asm("vpblendvb %3, %2, %1, %0" : "=x"(r) : "x"(a), "x"(b), "x"(mask));
  return r;
}
inline std::uint32_t Bits32(__m256i m) {  // one bit per 32-bit lane
  return static_cast<std::uint32_t>(_mm256_movemask_ps(AsFloat(m)));
}
inline std::uint32_t Bits64(__m256i m) {  // one bit per 64-bit lane
  return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(m)));
}
// Two vectors of 4 x 64-bit lanes -> one vector of 8 x 32-bit lanes (the low half of each).
inline __m256i NarrowTo32(__m256i a, __m256i b) {
  const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i pa = _mm256_permutevar8x32_epi32(a, idx);
  __m256i pb = _mm256_permutevar8x32_epi32(b, idx);
  return _mm256_permute2x128_si256(pa, pb, 0x20);
}
// Two vectors of 8 x 32-bit masks (all ones or zero) -> 16 x 16-bit masks in element order.
inline __m256i PackMasks16(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
}

// MXCSR for the duration of a run: the power-on default (all exceptions masked, FTZ and DAZ off,
// whatever the host application set) with the rounding control a kernel asks for (kRc: 0 nearest,
// 1 down, 2 up, 3 towards zero). The caller's MXCSR is restored afterwards.
template <unsigned kRc>
class FpEnv {
 public:
  FpEnv() : saved_(_mm_getcsr()) {
    constexpr unsigned kWant = 0x1F80u | (kRc << 13);
    if ((saved_ & ~0x3Fu) != kWant) {
      _mm_setcsr(kWant | (saved_ & 0x3Fu));
      changed_ = true;
    }
  }
  ~FpEnv() {
    if (changed_) _mm_setcsr(saved_);
  }

 private:
  unsigned saved_;
  bool changed_ = false;
};

// ---- scalar_map in the vector ----

// Keys as the lane representation of the kernel's family (float32 bits of the exact value, the
// int32 value, or float64 bits), values as destination bits. Applied last-to-first so the first
// key wins (R10); NaN keys match every NaN by a test on the lane.
struct VectorMap {
  int n = 0;
  std::uint64_t key[kMaxVectorKeys] = {};
  std::uint64_t value[kMaxVectorKeys] = {};
  bool nan_key[kMaxVectorKeys] = {};
};

// The map over one vector of 64-bit key lanes (`nan` marks NaN lanes: zero for integer keys),
// 64-bit results. Keys are applied last to first so that the first matching key wins (R10).
inline void MapLanes64(const VectorMap& map, __m256i keys, __m256i nan, __m256i* v, std::uint32_t* declined) {
  for (int k = map.n - 1; k >= 0; --k) {
    __m256i m = map.nan_key[k] ? nan : _mm256_cmpeq_epi64(keys, Set1x64(map.key[k]));
    *v = Blend(*v, Set1x64(map.value[k]), m);
    *declined &= ~Bits64(m);
  }
}

// The map over 4 vectors of 32-bit key lanes (`nan` marks NaN lanes), 32-bit results.
inline __attribute__((noinline)) std::uint32_t MapBlock32(const VectorMap& map, const __m256i keys[4],
                                                   const __m256i nan[4], __m256i r[4],
                                                   std::uint32_t declined) {
  for (int j = 0; j < 4; ++j) {
    for (int k = map.n - 1; k >= 0; --k) {
      __m256i m = map.nan_key[k] ? nan[j]
                                 : _mm256_cmpeq_epi32(keys[j], Set1(static_cast<std::uint32_t>(map.key[k])));
      r[j] = Blend(r[j], Set1(static_cast<std::uint32_t>(map.value[k])), m);
      declined &= ~(Bits32(m) << (8 * j));
    }
  }
  return declined;
}

// Maps of up to kInlineKeys entries are applied inline with the keys and values in registers
// (the common "NaN -> 0, +-Inf -> 255 / 0" kind); larger ones through MapBlock32.
constexpr int kInlineKeys = 4;
struct SmallMap {
  __m256i key[kInlineKeys], value[kInlineKeys];
  std::uint32_t nan_keys;  // bit k: entry k is a NaN key
  int n;                   // entries; 0 when the map is empty or larger than kInlineKeys
  // Every key is NaN or +-Inf (float32 lanes) and the converter declines every such lane: the map
  // can only apply to declined lanes, so blocks without one skip it.
  bool only_declined;
};
inline SmallMap MakeSmallMap(const VectorMap& m, bool converter_declines_nonfinite = false) {
  SmallMap s{};
  if (m.n > kInlineKeys) return s;
  s.n = m.n;
  s.only_declined = converter_declines_nonfinite;
  for (int k = 0; k < m.n; ++k) {
    s.key[k] = Set1(static_cast<std::uint32_t>(m.key[k]));
    s.value[k] = Set1(static_cast<std::uint32_t>(m.value[k]));
    if (m.nan_key[k]) s.nan_keys |= 1u << k;
    else if ((m.key[k] & 0x7FFFFFFFu) != 0x7F800000u) s.only_declined = false;
  }
  return s;
}
// Applies the small map to a block's 4 vectors of 32-bit key lanes (nan(j): vector j's NaN lanes),
// key by key from the last so the first wins.
template <class NanFn>
inline std::uint32_t ApplySmallMap(const SmallMap& s, const __m256i keys[4], NanFn nan, __m256i r[4],
                                   std::uint32_t declined) {
  for (int k = s.n - 1; k >= 0; --k) {
    std::uint32_t hit = 0;
    if ((s.nan_keys >> k) & 1) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        __m256i m = nan(j);
        r[j] = Blend(r[j], s.value[k], m);
        hit |= Bits32(m) << (8 * j);
      }
    } else {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        __m256i m = _mm256_cmpeq_epi32(keys[j], s.key[k]);
        r[j] = Blend(r[j], s.value[k], m);
        hit |= Bits32(m) << (8 * j);
      }
    }
    declined &= ~hit;
  }
  return declined;
}

// ---- packing 4 x 8 result lanes (each already masked to the destination's bits) ----

template <std::size_t kDstSize>
inline void Store(unsigned char* out, const __m256i r[4]) {
  if constexpr (kDstSize == 4) {
    for (int j = 0; j < 4; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * j), r[j]);
  } else if constexpr (kDstSize == 2) {
    // packus keeps values < 2^16 as they are; the permute undoes its 128-bit-lane interleave.
    __m256i a = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xD8);
    __m256i b = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[2], r[3]), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), b);
  } else {
    static_assert(kDstSize == 1);
    __m256i a = _mm256_packus_epi32(r[0], r[1]);
    __m256i b = _mm256_packus_epi32(r[2], r[3]);
    __m256i c = _mm256_packus_epi16(a, b);
    c = _mm256_permutevar8x32_epi32(c, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), c);
  }
}

// ---- the block loop shared by every kernel ----
//
// A Family provides kSrcSize, kDstSize, kRc (the MXCSR rounding control it needs), Params (plain
// data kept in the kernel), Consts (vectors built once per run, kept in registers),
// MakeConsts(params) and Block(consts, in, out) -> bits of the declined lanes of 32 elements.
template <class Family>
class BlockKernel final : public Kernel {
  static constexpr std::size_t kSs = Family::kSrcSize;
  static constexpr std::size_t kDs = Family::kDstSize;
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr std::size_t kPrefetchAhead = 2048;

 public:
  BlockKernel(const Direction& dir, const typename Family::Params& params, const char* name)
      : reference_(ReferenceKernel(dir)), params_(params), name_(name) {}

  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    FpEnv<Family::kRc> env;
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    const typename Family::Consts c = Family::MakeConsts(params_);
    std::size_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      // Sources of 1 and 2 bytes (a block reads at most one cache line): the hardware prefetcher
      // alone left the kernels that compute most per byte (the 8-bit tables, float16 -> uint8)
      // 10-20 % short of the copy speed with the other vCPU busy; a software prefetch 2 KiB ahead
      // closed most of that there (on an idle VM the tables stay compute-bound). For wider
      // sources the same prefetch (of every other line) cost 5-25 %: both in docs/performance.md. Prefetches past the end are harmless (they never fault).
      if constexpr (kSs <= 2) _mm_prefetch(reinterpret_cast<const char*>(src + i * kSs + kPrefetchAhead), _MM_HINT_T0);
      std::uint32_t declined = Family::Block(c, src + i * kSs, dst + i * kDs);
      if (declined) [[unlikely]] {
        std::size_t f = Resolve(declined, src, dst, i);
        if (f != kNone) return f;
      }
    }
    if (i < n) {
      // The tail: the same block on a zero-padded copy (0 converts in every family; padding lanes
      // are masked off anyway), results copied back.
      alignas(32) unsigned char tin[kBlock * kSs] = {};
      alignas(32) unsigned char tout[kBlock * kDs];
      const std::size_t rest = n - i;
      std::memcpy(tin, src + i * kSs, rest * kSs);
      std::uint32_t declined = Family::Block(c, tin, tout) & ((std::uint32_t{1} << rest) - 1);
      std::memcpy(dst + i * kDs, tout, rest * kDs);
      if (declined) {
        std::size_t f = Resolve(declined, src, dst, i);
        if (f != kNone) return f;
      }
    }
    return n;
  }
  const char* name() const override { return name_; }

 private:
  // The declined lanes of one block, in index order, through the reference path.
  __attribute__((noinline)) std::size_t Resolve(std::uint32_t declined, const unsigned char* src,
                                                unsigned char* dst, std::size_t base) const {
    while (declined) {
      std::size_t idx = base + static_cast<std::size_t>(__builtin_ctz(declined));
      declined &= declined - 1;
      if (reference_->Run(src + idx * kSs, 1, dst + idx * kDs) == 0) return idx;
    }
    return kNone;
  }

  std::unique_ptr<const Kernel> reference_;
  typename Family::Params params_;
  const char* name_;
};

template <class Family>
std::unique_ptr<const Kernel> Make(const Direction& dir, const typename Family::Params& p,
                                   const char* name) {
  return std::make_unique<BlockKernel<Family>>(dir, p, name);
}

// ===================================================================================
// Float lanes: 8 float32 values per vector.
// ===================================================================================

// Loaders: 8 source elements -> their exact float32 values. The lane bits also serve as the
// scalar_map key representation (the conversion is injective on non-NaN values).
struct LoadF32 {
  static constexpr std::size_t kSize = 4;
  static __m256 Load(const unsigned char* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
};
struct LoadF16 {  // F16C: exact, subnormals included (DAZ is off)
  static constexpr std::size_t kSize = 2;
  static __m256 Load(const unsigned char* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadBF16 {  // bfloat16 is the upper half of a float32
  static constexpr std::size_t kSize = 2;
  static __m256 Load(const unsigned char* p) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return AsFloat(_mm256_slli_epi32(w, 16));
  }
};

inline __m256i AbsBits(__m256 x) { return _mm256_and_si256(AsInt(x), Set1(0x7FFFFFFFu)); }
inline __m256i IsNaN(__m256i abs_bits) { return _mm256_cmpgt_epi32(abs_bits, Set1(0x7F800000u)); }
inline __m256i IsNonFinite(__m256i abs_bits) { return _mm256_cmpgt_epi32(abs_bits, Set1(0x7F7FFFFFu)); }

// Rounds to an integer in mode R. The four IEEE modes are vroundps; nearest-away is
// trunc(x) + sign(x) where |x - trunc(x)| >= 0.5 (x - trunc(x) is exact: both lie in the same
// binade, or trunc(x) = 0; and trunc(x) + 1 is exact because |x| < 2^23 whenever x has a fraction).
template <Rounding R>
inline __m256 RoundF32(__m256 x) {
  if constexpr (R == Rounding::kNearestEven) return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsZero) return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsPositive) return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsNegative) return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  else {
    __m256 t = _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 d = _mm256_and_ps(_mm256_sub_ps(x, t), AsFloat(Set1(0x7FFFFFFFu)));
    __m256 ge = _mm256_cmp_ps(d, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    __m256 one = _mm256_or_ps(_mm256_and_ps(x, AsFloat(Set1(0x80000000u))), _mm256_set1_ps(1.0f));
    return _mm256_add_ps(t, _mm256_and_ps(ge, one));
  }
}

// Converters: float32 lanes -> destination bits in 32-bit lanes, plus the declined lanes as bits.
// O is the effective out_of_range (kWrap only for integer destinations).

// float -> integer of <= 32 bits (not uint32). vcvtps2dq rounds in MXCSR's mode, which the run
// sets to the kernel's IEEE mode (kRc); nearest-away rounds first (RoundF32, exact) and converts the
// integral value. Clamping before rounding is the same as after: the bounds are integers and
// rounding is monotonic. kWide: a 32-bit destination, whose max (2^31 - 1) float32 lacks: values
// >= 2^31 are found by compare; for the narrow ones the converted value is range-checked as an
// integer (NaN, +-Inf and |x| >= 2^31 convert to INT32_MIN, out of their range).
struct IntParams {
  float lo, hi;                 // in range: lo <= r <= hi (kWide: r < hi = 2^31)
  std::int32_t lo_i, hi_i;      // the same bounds as integers (narrow destinations)
  std::uint32_t hi_bits, mask;  // the clamp result above, and the value mask
};

constexpr unsigned RcOf(Rounding r) {  // MXCSR rounding control for an IEEE mode (nearest-away: 0)
  return r == Rounding::kTowardsNegative ? 1 : r == Rounding::kTowardsPositive ? 2 : r == Rounding::kTowardsZero ? 3 : 0;
}

template <Rounding R, OutOfRange O, bool kWide>
struct F32ToInt {
  using Params = IntParams;
  static constexpr bool kDeclinesNonFinite = true;  // R3: no NaN or Inf in an integer type
  static constexpr unsigned kRc = O == OutOfRange::kWrap ? 0 : RcOf(R);
  struct Consts {
    __m256 lo, hi;
    __m256i lo_i, hi_i, hi_bits, mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_ps(p.lo), _mm256_set1_ps(p.hi), _mm256_set1_epi32(p.lo_i), _mm256_set1_epi32(p.hi_i),
            Set1(p.hi_bits), Set1(p.mask)};
  }
  static __m256i Convert(const Consts& c, __m256 x, std::uint32_t* declined) {
    if constexpr (O == OutOfRange::kWrap) {
      // R5: the integer r modulo 2^32 from its bit pattern: significand shifted by (exponent - 23);
      // vpsllvd/vpsrlvd give 0 for counts >= 32, which is the right residue. NaN and Inf: R3.
      __m256i rb = AsInt(RoundF32<R>(x));
      __m256i ef = _mm256_srli_epi32(_mm256_slli_epi32(rb, 1), 24);
      __m256i m = _mm256_or_si256(_mm256_and_si256(rb, Set1(0x7FFFFFu)), Set1(0x800000u));
      m = _mm256_andnot_si256(_mm256_cmpeq_epi32(ef, _mm256_setzero_si256()), m);  // r = +-0
      __m256i e = _mm256_sub_epi32(ef, Set1(150));
      __m256i v = _mm256_or_si256(_mm256_sllv_epi32(m, e),
                                  _mm256_srlv_epi32(m, _mm256_sub_epi32(_mm256_setzero_si256(), e)));
      __m256i neg = _mm256_srai_epi32(rb, 31);
      v = _mm256_sub_epi32(_mm256_xor_si256(v, neg), neg);
      *declined = Bits32(IsNonFinite(AbsBits(x)));
      return _mm256_and_si256(v, c.mask);
    } else {
      __m256 r = R == Rounding::kNearestAway ? RoundF32<R>(x) : x;
      if constexpr (O == OutOfRange::kClamp) {
        // NaN and Inf are errors even under clamp (R3): detected on x, not after min/max.
        *declined = Bits32(IsNonFinite(AbsBits(x)));
        if constexpr (kWide) {
          __m256i v = _mm256_cvtps_epi32(_mm256_max_ps(r, c.lo));  // >= 2^31 gives 0x80000000
          return Blend(_mm256_and_si256(v, c.mask), c.hi_bits, AsInt(_mm256_cmp_ps(r, c.hi, _CMP_GE_OQ)));
        } else {
          return _mm256_and_si256(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(r, c.lo), c.hi)), c.mask);
        }
      } else {
        __m256i v = _mm256_cvtps_epi32(r);
        if constexpr (kWide) {
          // Unset: outside [lo, 2^31) (unordered compares: NaN too) is declined; below 2^31 every
          // float32 is an integer already, so the bounds need no rounding.
          __m256 out = _mm256_or_ps(_mm256_cmp_ps(r, c.lo, _CMP_NGE_UQ), _mm256_cmp_ps(r, c.hi, _CMP_NLT_UQ));
          *declined = static_cast<std::uint32_t>(_mm256_movemask_ps(out));
        } else {
          *declined = Bits32(_mm256_or_si256(_mm256_cmpgt_epi32(c.lo_i, v), _mm256_cmpgt_epi32(v, c.hi_i)));
        }
        return _mm256_and_si256(v, c.mask);
      }
    }
  }
};

// Float format facts for the narrowing converter (float32 lanes -> float8, float6, float4).
struct NarrowParams {
  int shift;                    // 23 - M: dropped bits of a float32 normal
  std::uint32_t rebias;         // (127 - bias) << M
  std::uint32_t min_normal;     // float32 bits of the target's min normal, 2^(1 - bias)
  std::uint32_t magic_bits;     // float32 bits of 2^(qmin + 23), whose ulp is the target's quantum
  float sub_scale;              // 2^-qmin: the target's subnormal quantum becomes 1
  std::uint32_t max_bits;       // encoding of max finite
  std::uint32_t sign_bit;       // 1 << (E + M)
  std::uint32_t special_sign;   // sign_bit where NaN/Inf keep their sign (IEEE-like), else 0
  std::uint32_t nan_bits, inf_bits;
  std::uint32_t nan_bad, inf_bad;  // all ones where the target lacks NaN / Inf (R3: errors)
  std::uint32_t clamp_bits;     // R1: Inf where the target has it, else max finite (R2)
};

// float32 lanes -> a float of at most 8 bits other than float8_e8m0fnu, any rounding mode.
// Values from the target's min normal up: the target encoding is the float32 pattern shifted
// right by 23 - M and rebiased, after adding the rounding increment to the magnitude (as for
// bfloat16: nearest-even 2^(s-1) - 1 + the lowest kept bit; nearest-away 2^(s-1); towards +-inf
// 2^s - 1 on the matching sign); the carry may run into the exponent field, and beyond max is one
// compare. Below the min normal (zero included) the encoding is x / 2^qmin rounded to an integer
// in mode R (up to 2^M, the min normal, when it rounds up): in the IEEE modes the hardware does
// it in one addition, x + sign(x) * 2^(qmin + 23), whose ulp is 2^qmin, rounded in MXCSR's mode
// (kRc), the encoding being the difference of the two bit patterns; nearest-away scales by
// 2^-qmin (exact) and rounds with RoundF32. Both paths are computed for every lane and blended, so
// the loop has no data-dependent branch but the one for NaN and Inf. kFnuz: the target has no -0
// (R8).
template <Rounding R, OutOfRange O, bool kFnuz>
struct F32ToNarrow {
  using Params = NarrowParams;
  static constexpr bool kDeclinesNonFinite = false;
  static constexpr unsigned kRc = RcOf(R);
  struct Consts {
    __m128i shift;
    __m256i half_m1, half, full, rebias, min_normal, magic_bits, max_bits, sign_bit, special_sign,
        nan_bits, inf_bits, nan_bad, inf_bad, clamp_bits;
    __m256 sub_scale;
  };
  static Consts MakeConsts(const Params& p) {
    const std::uint32_t half = 1u << (p.shift - 1);
    return {_mm_cvtsi32_si128(p.shift), Set1(half - 1), Set1(half), Set1(2 * half - 1),
            Set1(p.rebias), Set1(p.min_normal), Set1(p.magic_bits), Set1(p.max_bits), Set1(p.sign_bit),
            Set1(p.special_sign), Set1(p.nan_bits), Set1(p.inf_bits), Set1(p.nan_bad),
            Set1(p.inf_bad), Set1(p.clamp_bits), _mm256_set1_ps(p.sub_scale)};
  }
  static __m256i Convert(const Consts& c, __m256 x, std::uint32_t* declined) {
    __m256i bits = AsInt(x);
    __m256i a = AbsBits(x);
    __m256i neg = _mm256_srai_epi32(bits, 31);
    __m256i sign_of_x = _mm256_and_si256(bits, Set1(0x80000000u));
    __m256i add;
    if constexpr (R == Rounding::kNearestEven)
      add = _mm256_add_epi32(c.half_m1, _mm256_and_si256(_mm256_srl_epi32(a, c.shift), Set1(1)));
    else if constexpr (R == Rounding::kNearestAway) add = c.half;
    else if constexpr (R == Rounding::kTowardsZero) add = _mm256_setzero_si256();
    else if constexpr (R == Rounding::kTowardsPositive) add = _mm256_andnot_si256(neg, c.full);
    else add = _mm256_and_si256(neg, c.full);
    __m256i normal = _mm256_sub_epi32(_mm256_srl_epi32(_mm256_add_epi32(a, add), c.shift), c.rebias);
    __m256i small;
    if constexpr (R == Rounding::kNearestAway) {
      small = _mm256_abs_epi32(_mm256_cvtps_epi32(RoundF32<R>(_mm256_mul_ps(x, c.sub_scale))));
    } else {
      __m256 y = _mm256_add_ps(x, AsFloat(_mm256_or_si256(sign_of_x, c.magic_bits)));
      small = _mm256_sub_epi32(AbsBits(y), c.magic_bits);
    }
    __m256i enc = Blend(normal, small, _mm256_cmpgt_epi32(c.min_normal, a));
    __m256i sign = _mm256_and_si256(neg, c.sign_bit);
    if constexpr (kFnuz) sign = _mm256_andnot_si256(_mm256_cmpeq_epi32(enc, _mm256_setzero_si256()), sign);
    __m256i res = _mm256_or_si256(enc, sign);
    __m256i out = _mm256_cmpgt_epi32(enc, c.max_bits);
    __m256i nonfinite = IsNonFinite(a);
    std::uint32_t bad = 0;
    if (!_mm256_testz_si256(nonfinite, nonfinite)) [[unlikely]] {
      // R3: NaN -> canonical NaN (IEEE-like keeps the sign), Inf -> Inf; errors where absent.
      out = _mm256_andnot_si256(nonfinite, out);
      __m256i nan = IsNaN(a);
      __m256i special = _mm256_or_si256(_mm256_and_si256(neg, c.special_sign), Blend(c.inf_bits, c.nan_bits, nan));
      res = Blend(res, special, nonfinite);
      bad = Bits32(_mm256_and_si256(nonfinite, Blend(c.inf_bad, c.nan_bad, nan)));
    }
    if constexpr (O == OutOfRange::kClamp) {
      res = Blend(res, _mm256_or_si256(sign, c.clamp_bits), out);
      *declined = bad;
    } else {
      *declined = bad | Bits32(out);
    }
    return res;
  }
};

// float32 lanes -> bfloat16, any mode: bfloat16 is float32 with the low 16 bits dropped, so
// rounding is one add to the bit pattern before the shift (nearest-even: 0x7FFF plus the lowest
// kept bit; nearest-away: 0x8000; towards +-inf: 0xFFFF on the matching sign; the sign bit is
// untouched because the magnitude stays below 2^31), exact for subnormals too (same exponent
// range). The carry may reach 0x7F80 and no further: exactly +-Inf, which is clamp's answer (R1)
// and the right one for Inf inputs; a NaN input is canonicalised (R3).
template <Rounding R, OutOfRange O>
struct F32ToBf16 {
  static constexpr bool kDeclinesNonFinite = false;
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = 0;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, std::uint32_t* declined) {
    __m256i bits = AsInt(x);
    __m256i add;
    if constexpr (R == Rounding::kNearestEven)
      add = _mm256_add_epi32(Set1(0x7FFF), _mm256_and_si256(_mm256_srli_epi32(bits, 16), Set1(1)));
    else if constexpr (R == Rounding::kNearestAway) add = Set1(0x8000);
    else if constexpr (R == Rounding::kTowardsZero) add = _mm256_setzero_si256();
    else if constexpr (R == Rounding::kTowardsPositive) add = _mm256_andnot_si256(_mm256_srai_epi32(bits, 31), Set1(0xFFFF));
    else add = _mm256_and_si256(_mm256_srai_epi32(bits, 31), Set1(0xFFFF));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(bits, add), 16);
    __m256i nan = IsNaN(AbsBits(x));
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), Set1(0x8000));
    __m256i res = Blend(r, _mm256_or_si256(sign, Set1(0x7FC0)), nan);
    if constexpr (O == OutOfRange::kClamp) {
      *declined = 0;
    } else {
      // Unset: +-Inf results from finite inputs are out of range (Inf inputs go along: rare).
      __m256i inf = _mm256_cmpgt_epi32(_mm256_and_si256(r, Set1(0x7FFF)), Set1(0x7F7F));
      *declined = Bits32(_mm256_andnot_si256(nan, inf));
    }
    return res;
  }
};

// float32 lanes -> float8_e8m0fnu (R6): the result is a power of two whose biased exponent is
// float32's own (both biases are 127), plus one where the value rounds up: nearest modes from
// 1.5 * 2^e up (R6 sends the tie up in both), towards-positive for anything above 2^e, never for
// towards-zero/negative. Only positive normal float32 values whose result stays below 0xFF are
// converted here; zero, negatives, subnormals (which may round to 2^-127 or below it), Inf, NaN
// and the lanes that would round past 2^127 are declined to the engine: they are out of range or
// special under R2/R3/R6, and real data (scale factors) rarely has them.
template <Rounding R>
struct F32ToE8m0 {
  static constexpr bool kDeclinesNonFinite = true;
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = 0;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, std::uint32_t* declined) {
    const __m256i bits = AsInt(x);
    const __m256i e = _mm256_srli_epi32(bits, 23);  // the sign lands in bit 8: negatives > 255
    const __m256i m = _mm256_and_si256(bits, Set1(0x7FFFFF));
    __m256i up;  // all ones where the result is 2^(e+1)
    if constexpr (R == Rounding::kNearestEven || R == Rounding::kNearestAway)
      up = _mm256_cmpgt_epi32(m, Set1(0x3FFFFF));
    else if constexpr (R == Rounding::kTowardsPositive)
      up = _mm256_xor_si256(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()), Set1(0xFFFFFFFFu));
    else
      up = _mm256_setzero_si256();
    const __m256i r = _mm256_sub_epi32(e, up);
    const __m256i bad = _mm256_or_si256(_mm256_cmpeq_epi32(e, _mm256_setzero_si256()),
                                        _mm256_cmpgt_epi32(r, Set1(254)));
    *declined = Bits32(bad);
    return _mm256_and_si256(r, Set1(0xFF));
  }
};

// float32 lanes -> float32: the value as is, NaN canonicalised (R3: quiet NaN, sign kept,
// payload dropped). Used for float16 and bfloat16 sources (and float32 -> float32).
struct F32Canonical {
  static constexpr bool kDeclinesNonFinite = false;
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = 0;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, std::uint32_t* declined) {
    __m256i bits = AsInt(x);
    *declined = 0;
    return Blend(bits, _mm256_or_si256(_mm256_and_si256(bits, Set1(0x80000000u)), Set1(0x7FC00000u)),
                 IsNaN(AbsBits(x)));
  }
};

// float32 lanes holding bfloat16 values exactly (8-bit integer and float8/6/4 sources, whose
// NaNs the loaders already made canonical) -> bfloat16: the upper half of each.
struct F32UpperHalf {
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = 0;
  static constexpr bool kDeclinesNonFinite = false;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, std::uint32_t* declined) {
    *declined = 0;
    return _mm256_srli_epi32(AsInt(x), 16);
  }
};

template <class Loader, class Conv, std::size_t kDst>
struct FloatLanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr std::size_t kDstSize = kDst;
  static constexpr unsigned kRc = Conv::kRc;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
    int map_n;
    SmallMap small;
  };
  static Consts MakeConsts(const Params& p) {
    return {Conv::MakeConsts(p.conv), &p.map, p.map.n, MakeSmallMap(p.map, Conv::kDeclinesNonFinite)};
  }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256 x[4];
    __m256i r[4];
    std::uint32_t d[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      x[j] = Loader::Load(in + j * 8 * kSrcSize);
      r[j] = Conv::Convert(c.conv, x[j], &d[j]);
    }
    std::uint32_t declined = d[0] | d[1] << 8 | d[2] << 16 | d[3] << 24;
    if (c.small.n) {
      if (declined || !c.small.only_declined) {
        const __m256i keys[4] = {AsInt(x[0]), AsInt(x[1]), AsInt(x[2]), AsInt(x[3])};
        declined = ApplySmallMap(
            c.small, keys, [&x](int j) { return AsInt(_mm256_cmp_ps(x[j], x[j], _CMP_UNORD_Q)); }, r, declined);
      }
    } else if (c.map_n) [[unlikely]] {
      __m256i keys[4], nan[4], res[4];  // copies: r stays in registers on the common path
      for (int j = 0; j < 4; ++j) {
        keys[j] = AsInt(x[j]);
        nan[j] = AsInt(_mm256_cmp_ps(x[j], x[j], _CMP_UNORD_Q));
        res[j] = r[j];
      }
      declined = MapBlock32(*c.map, keys, nan, res, declined);
      for (int j = 0; j < 4; ++j) r[j] = res[j];
    }
    Store<kDstSize>(out, r);
    return declined;
  }
};

// float32 lanes -> float16 with F16C, checked in 16-bit lanes. vcvtps2ph is exact in the four
// IEEE modes, subnormal results included. Nearest-away has no hardware mode: towards zero of
// x + sign(x) * half a float16 ulp at x (2^(E - 11), at least 2^-25) is nearest-away; the float32
// addition is done towards zero too (MXCSR, kRc), which cannot change the result (the float16 grid
// is part of float32's, so truncating twice is truncating once).
// R1: in nearest-even the hardware result is +-Inf exactly when the rounded value is beyond max
// (or x is +-Inf), which is clamp's answer; in the directed modes (and nearest-away's truncation)
// it gives +-max instead for |x| >= 65536, so those lanes are found on x.
template <class Loader, Rounding R, OutOfRange O>
struct F16Lanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr std::size_t kDstSize = 2;
  static constexpr unsigned kRc = R == Rounding::kNearestAway ? 3 : 0;
  static constexpr bool kDirected = R != Rounding::kNearestEven;
  static constexpr int kImm = R == Rounding::kTowardsPositive   ? _MM_FROUND_TO_POS_INF
                              : R == Rounding::kTowardsNegative ? _MM_FROUND_TO_NEG_INF
                              : R == Rounding::kNearestEven     ? _MM_FROUND_TO_NEAREST_INT
                                                                : _MM_FROUND_TO_ZERO;
  struct Params {
    VectorMap map;
  };
  struct Consts {
    const VectorMap* map;
    int map_n;
  };
  static Consts MakeConsts(const Params& p) { return {&p.map, p.map.n}; }

  static __m256 AddHalfUlp(__m256 x) {
    __m256i h = _mm256_sub_epi32(_mm256_and_si256(AsInt(x), Set1(0x7F800000u)), Set1(11u << 23));
    h = _mm256_max_epi32(h, Set1(0x33000000u));  // 2^-25
    return _mm256_add_ps(x, AsFloat(_mm256_or_si256(h, _mm256_and_si256(AsInt(x), Set1(0x80000000u)))));
  }

  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256 x[4];
    __m256i res[2];
    std::uint32_t declined = 0;
#pragma GCC unroll 2
    for (int j = 0; j < 2; ++j) {
      x[2 * j] = Loader::Load(in + 16 * j * kSrcSize);
      x[2 * j + 1] = Loader::Load(in + (16 * j + 8) * kSrcSize);
      __m256 x0 = x[2 * j], x1 = x[2 * j + 1];
      if constexpr (R == Rounding::kNearestAway) {
        x0 = AddHalfUlp(x0);
        x1 = AddHalfUlp(x1);
      }
      __m256i h = _mm256_set_m128i(_mm256_cvtps_ph(x1, kImm), _mm256_cvtps_ph(x0, kImm));
      __m256i abs = _mm256_and_si256(h, _mm256_set1_epi16(0x7FFF));
      __m256i sign = _mm256_and_si256(h, _mm256_set1_epi16(static_cast<short>(0x8000)));
      __m256i nan = _mm256_cmpgt_epi16(abs, _mm256_set1_epi16(0x7C00));
      __m256i r = Blend(h, _mm256_or_si256(sign, _mm256_set1_epi16(0x7E00)), nan);  // R3
      __m256i out_of_range = _mm256_cmpeq_epi16(abs, _mm256_set1_epi16(0x7C00));
      if constexpr (kDirected && O == OutOfRange::kClamp) {
        const __m256i lim = Set1(0x477FFFFFu);  // |x| >= 65536
        __m256i big = PackMasks16(_mm256_cmpgt_epi32(AbsBits(x0), lim), _mm256_cmpgt_epi32(AbsBits(x1), lim));
        out_of_range = _mm256_andnot_si256(nan, _mm256_or_si256(out_of_range, big));
        r = Blend(r, _mm256_or_si256(sign, _mm256_set1_epi16(0x7C00)), out_of_range);
      } else if constexpr (kDirected) {
        // Unset: a +-max result may stand for a value beyond max: the engine decides (rare).
        out_of_range = _mm256_or_si256(out_of_range, _mm256_cmpeq_epi16(abs, _mm256_set1_epi16(0x7BFF)));
      }
      if constexpr (O != OutOfRange::kClamp)
        declined |= _pext_u32(static_cast<std::uint32_t>(_mm256_movemask_epi8(out_of_range)), 0x55555555u) << (16 * j);
      res[j] = r;
    }
    if (c.map_n) [[unlikely]] {
      __m256 xs[4] = {x[0], x[1], x[2], x[3]};
      __m256i rs[2] = {res[0], res[1]};
      declined = Map(*c.map, xs, rs, declined);
      res[0] = rs[0];
      res[1] = rs[1];
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), res[0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), res[1]);
    return declined;
  }

  __attribute__((noinline)) static std::uint32_t Map(const VectorMap& map, const __m256 x[4],
                                                     __m256i res[2], std::uint32_t declined) {
    for (int j = 0; j < 2; ++j) {
      for (int k = map.n - 1; k >= 0; --k) {
        __m256i m0, m1;
        if (map.nan_key[k]) {
          m0 = AsInt(_mm256_cmp_ps(x[2 * j], x[2 * j], _CMP_UNORD_Q));
          m1 = AsInt(_mm256_cmp_ps(x[2 * j + 1], x[2 * j + 1], _CMP_UNORD_Q));
        } else {
          __m256i key = Set1(static_cast<std::uint32_t>(map.key[k]));
          m0 = _mm256_cmpeq_epi32(AsInt(x[2 * j]), key);
          m1 = _mm256_cmpeq_epi32(AsInt(x[2 * j + 1]), key);
        }
        res[j] = Blend(res[j], _mm256_set1_epi16(static_cast<short>(map.value[k])), PackMasks16(m0, m1));
        declined &= ~((Bits32(m0) | Bits32(m1) << 8) << (16 * j));
      }
    }
    return declined;
  }
};

// ===================================================================================
// Int lanes: 8 int32 values per vector (integer sources of 8 to 32 bits, float8 sources).
// ===================================================================================

struct LoadU8 {
  static constexpr std::size_t kSize = 1;
  static __m256i Load(const unsigned char* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadI8 {
  static constexpr std::size_t kSize = 1;
  static __m256i Load(const unsigned char* p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadU16 {
  static constexpr std::size_t kSize = 2;
  static __m256i Load(const unsigned char* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadI16 {
  static constexpr std::size_t kSize = 2;
  static __m256i Load(const unsigned char* p) {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadI32 {
  static constexpr std::size_t kSize = 4;
  static __m256i Load(const unsigned char* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
};
// int2/int4/uint2/uint4: the value bits of each byte, sign-extended for the signed ones (the upper
// bits of the byte are ignored).
template <int kBits, bool kSigned>
struct LoadSubByte {
  static constexpr std::size_t kSize = 1;
  static __m256i Load(const unsigned char* p) {
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    if constexpr (kSigned) return _mm256_srai_epi32(_mm256_slli_epi32(v, 32 - kBits), 32 - kBits);
    else return _mm256_and_si256(v, Set1((1u << kBits) - 1));
  }
};

// int32 lanes -> an integer type of <= 32 bits: a range check, clamp by min/max, wrap by the mask.
struct IntRangeParams {
  std::int32_t lo, hi;
  std::uint32_t mask;
};
template <OutOfRange O>
struct IntToInt {
  using Params = IntRangeParams;
  static constexpr unsigned kRc = 0;
  struct Consts {
    __m256i lo, hi, mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_epi32(p.lo), _mm256_set1_epi32(p.hi), Set1(p.mask)};
  }
  static __m256i Convert(const Consts& c, __m256i v, std::uint32_t* declined) {
    if constexpr (O == OutOfRange::kClamp) {
      *declined = 0;
      return _mm256_and_si256(_mm256_min_epi32(_mm256_max_epi32(v, c.lo), c.hi), c.mask);
    } else if constexpr (O == OutOfRange::kWrap) {
      *declined = 0;
      return _mm256_and_si256(v, c.mask);
    } else {
      *declined = Bits32(_mm256_or_si256(_mm256_cmpgt_epi32(c.lo, v), _mm256_cmpgt_epi32(v, c.hi)));
      return _mm256_and_si256(v, c.mask);
    }
  }
};

// int32 lanes -> float32 by vcvtdq2ps, which rounds in MXCSR's mode: exact for |v| <= 2^24 in
// every mode, and one correct rounding in the four IEEE modes (kRc set for the run). Nearest-away
// has no hardware mode: kDeclineWide declines |v| > 2^24 there.
template <unsigned kRcMode, bool kDeclineWide>
struct IntToF32 {
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = kRcMode;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256i v, std::uint32_t* declined) {
    if constexpr (kDeclineWide) {
      *declined = Bits32(_mm256_or_si256(_mm256_cmpgt_epi32(v, Set1(1u << 24)),
                                         _mm256_cmpgt_epi32(Set1(static_cast<std::uint32_t>(-(1 << 24))), v)));
    } else {
      *declined = 0;
    }
    return AsInt(_mm256_cvtepi32_ps(v));
  }
};

// A float8 (or float6/float4) encoding in an int32 lane -> float32 bits, exactly. Normal values
// move their exponent and mantissa fields to float32's positions and rebias the exponent (an
// integer add of (127 - bias) << 23); zeros and subnormals (magnitude < 2^M) are mantissa * 2^qmin,
// an exact float32 product of normal operands (a denormal operand would cost a microcode assist
// on this CPU). Then the sign bit, and the specials (kKind): IEEE-like Inf and NaN (exponent field
// all ones), fnuz NaN 0x80 (R3: float32's quiet NaN, sign kept for IEEE-like sources, none for
// fnuz).
enum class Special8 { kNone, kIeee, kFnuz };
struct Float8Params {
  std::uint32_t value_mask, mag_mask, inf_mag;  // inf_mag: exponent field all ones, mantissa 0
  int shift, sign_shift;                        // 23 - M, 31 - (E + M)
  std::uint32_t rebias, min_normal_mag;         // (127 - bias) << 23, 1 << M
  float sub_scale;                              // 2^qmin
};
template <Special8 kKind>
struct Float8ToF32 {
  using Params = Float8Params;
  static constexpr unsigned kRc = 0;
  struct Consts {
    __m256i value_mask, mag_mask, inf_mag, rebias, min_normal_mag;
    __m128i shift, sign_shift;
    __m256 sub_scale;
  };
  static Consts MakeConsts(const Params& p) {
    return {Set1(p.value_mask),         Set1(p.mag_mask),
            Set1(p.inf_mag),            Set1(p.rebias),
            Set1(p.min_normal_mag),     _mm_cvtsi32_si128(p.shift),
            _mm_cvtsi32_si128(p.sign_shift), _mm256_set1_ps(p.sub_scale)};
  }
  static __m256i Convert(const Consts& c, __m256i v, std::uint32_t* declined) {
    *declined = 0;
    __m256i s = _mm256_and_si256(v, c.value_mask);
    __m256i mag = _mm256_and_si256(s, c.mag_mask);
    __m256i normal = _mm256_add_epi32(_mm256_sll_epi32(mag, c.shift), c.rebias);
    __m256i small = AsInt(_mm256_mul_ps(_mm256_cvtepi32_ps(mag), c.sub_scale));
    __m256i f = Blend(normal, small, _mm256_cmpgt_epi32(c.min_normal_mag, mag));
    __m256i sign = _mm256_sll_epi32(_mm256_xor_si256(s, mag), c.sign_shift);
    __m256i res = _mm256_or_si256(f, sign);
    if constexpr (kKind == Special8::kIeee) {
      __m256i special = _mm256_cmpgt_epi32(mag, _mm256_sub_epi32(c.inf_mag, Set1(1)));
      if (!_mm256_testz_si256(special, special)) [[unlikely]] {
        res = Blend(res, _mm256_or_si256(sign, Set1(0x7FC00000u)), _mm256_cmpgt_epi32(mag, c.inf_mag));
        res = Blend(res, _mm256_or_si256(sign, Set1(0x7F800000u)), _mm256_cmpeq_epi32(mag, c.inf_mag));
      }
    } else if constexpr (kKind == Special8::kFnuz) {
      res = Blend(res, Set1(0x7FC00000u), _mm256_cmpeq_epi32(s, Set1(0x80)));
    }
    return res;
  }
};

// ---- more sources as float32 lanes (for the float-lane converters) ----

// Integers of at most 24 significant bits: exact in float32.
template <class IntLoader>
struct IntAsF32 {
  static constexpr std::size_t kSize = IntLoader::kSize;
  static __m256 Load(const unsigned char* p) { return _mm256_cvtepi32_ps(IntLoader::Load(p)); }
};

// float8/float6/float4 (not e8m0fnu) as float32 lanes: Float8ToF32 with the format's facts as
// compile-time constants.
template <DataType kType>
struct LoadSmallFloat {
  static constexpr std::size_t kSize = 1;
  static constexpr TypeInfo kInfo = kTypeInfo[static_cast<int>(kType)];
  static __m256 Load(const unsigned char* p) {
    constexpr unsigned kEM = kInfo.exp_bits + kInfo.mant_bits;
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    __m256i s = _mm256_and_si256(v, Set1(static_cast<std::uint32_t>(kInfo.value_mask())));
    __m256i mag = _mm256_and_si256(s, Set1((1u << kEM) - 1));
    constexpr float kSubScale =  // 2^qmin, qmin = 1 - bias - M
        std::bit_cast<float>(static_cast<std::uint32_t>(127 + 1 - kInfo.bias - kInfo.mant_bits) << 23);
    __m256i normal = _mm256_add_epi32(_mm256_slli_epi32(mag, 23 - kInfo.mant_bits),
                                      Set1(static_cast<std::uint32_t>(127 - kInfo.bias) << 23));
    __m256i small = AsInt(_mm256_mul_ps(_mm256_cvtepi32_ps(mag), _mm256_set1_ps(kSubScale)));
    __m256i f = Blend(normal, small, _mm256_cmpgt_epi32(Set1(1u << kInfo.mant_bits), mag));
    __m256i sign = _mm256_slli_epi32(_mm256_xor_si256(s, mag), 31 - kEM);
    __m256i res = _mm256_or_si256(f, sign);
    if constexpr (kInfo.special == Special::Ieee) {
      const __m256i inf_mag = Set1(static_cast<std::uint32_t>(kInfo.positive_inf()));
      __m256i special = _mm256_cmpgt_epi32(mag, _mm256_sub_epi32(inf_mag, Set1(1)));
      if (!_mm256_testz_si256(special, special)) [[unlikely]] {
        res = Blend(res, _mm256_or_si256(sign, Set1(0x7FC00000u)), _mm256_cmpgt_epi32(mag, inf_mag));
        res = Blend(res, _mm256_or_si256(sign, Set1(0x7F800000u)), _mm256_cmpeq_epi32(mag, inf_mag));
      }
    } else if constexpr (kInfo.special == Special::Fnuz) {
      res = Blend(res, Set1(0x7FC00000u), _mm256_cmpeq_epi32(s, Set1(0x80)));
    }
    return AsFloat(res);
  }
};

// float64 -> float32 rounded to odd: the float32 neighbour of x nearer zero, with its last bit set
// when x is not exactly representable. Rounding that once more to a format with at least two
// fewer significand bits (float16, bfloat16, float8...), whose grid is part of float32's over the
// whole range (subnormals included), gives the same result as rounding x directly, in every mode
// (round-to-odd keeps exactly the information the second rounding needs: which two grid points x
// lies between, and whether it is one of them). vcvtpd2ps gives one neighbour (whatever the MXCSR
// mode); b = (double)y is exact; if |b| > |x| the other one is one unit nearer zero. Beyond the
// float32 range this gives +-max, still beyond max for float16 and the float8s in every mode;
// bfloat16 shares float32's exponent range, so for it (kHugeToInf) |x| >= 2^128 becomes +-Inf,
// which its kernel declines under unset (the engine reports the error) and keeps under clamp
// (R1). NaN and Inf pass.
inline __m128i Low32Of64(__m256i m) {
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(m, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}
inline __m128 RoundToOddF32(__m256d x) {
  __m128 y = _mm256_cvtpd_ps(x);
  __m256d b = _mm256_cvtps_pd(y);
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  __m256d above = _mm256_cmp_pd(_mm256_and_pd(b, abs_mask), _mm256_and_pd(x, abs_mask), _CMP_GT_OQ);
  __m256d inexact = _mm256_cmp_pd(b, x, _CMP_NEQ_OQ);
  __m128i yi = _mm_add_epi32(_mm_castps_si128(y), Low32Of64(_mm256_castpd_si256(above)));  // -1 on the magnitude
  yi = _mm_or_si128(yi, _mm_and_si128(Low32Of64(_mm256_castpd_si256(inexact)), _mm_set1_epi32(1)));
  return _mm_castsi128_ps(yi);
}
template <bool kHugeToInf>
inline __m128 RoundToOddF32Huge(__m256d x) {
  __m128 y = RoundToOddF32(x);
  if constexpr (kHugeToInf) {
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    __m128i huge = Low32Of64(_mm256_castpd_si256(_mm256_cmp_pd(_mm256_and_pd(x, abs_mask), _mm256_set1_pd(0x1p128), _CMP_GE_OQ)));
    __m128i inf = _mm_or_si128(_mm_and_si128(_mm_castps_si128(y), _mm_set1_epi32(static_cast<int>(0x80000000u))),
                               _mm_set1_epi32(0x7F800000));
    y = _mm_castsi128_ps(_mm_blendv_epi8(_mm_castps_si128(y), inf, huge));
  }
  return y;
}
template <bool kHugeToInf>
struct LoadF64Odd {
  static constexpr std::size_t kSize = 8;
  static __m256 Load(const unsigned char* p) {
    __m256d a = _mm256_loadu_pd(reinterpret_cast<const double*>(p));
    __m256d b = _mm256_loadu_pd(reinterpret_cast<const double*>(p + 32));
    return _mm256_set_m128(RoundToOddF32Huge<kHugeToInf>(b), RoundToOddF32Huge<kHugeToInf>(a));
  }
};
// int32 -> float32 rounded to odd, through the exact double.
struct LoadI32Odd {
  static constexpr std::size_t kSize = 4;
  static __m256 Load(const unsigned char* p) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256d a = _mm256_cvtepi32_pd(_mm256_castsi256_si128(v));
    __m256d b = _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1));
    return _mm256_set_m128(RoundToOddF32(b), RoundToOddF32(a));
  }
};

template <class Loader, class Conv, std::size_t kDst>
struct IntLanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr std::size_t kDstSize = kDst;
  static constexpr unsigned kRc = Conv::kRc;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;  // equality keys only (int32 lane values)
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
    int map_n;
    SmallMap small;
  };
  static Consts MakeConsts(const Params& p) {
    return {Conv::MakeConsts(p.conv), &p.map, p.map.n, MakeSmallMap(p.map)};
  }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i v[4], r[4];
    std::uint32_t d[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      v[j] = Loader::Load(in + j * 8 * kSrcSize);
      r[j] = Conv::Convert(c.conv, v[j], &d[j]);
    }
    std::uint32_t declined = d[0] | d[1] << 8 | d[2] << 16 | d[3] << 24;
    if (c.small.n) {
      declined = ApplySmallMap(c.small, v, [](int) { return _mm256_setzero_si256(); }, r, declined);
    } else if (c.map_n) [[unlikely]] {
      const __m256i none[4] = {};
      __m256i keys[4] = {v[0], v[1], v[2], v[3]}, res[4] = {r[0], r[1], r[2], r[3]};
      declined = MapBlock32(*c.map, keys, none, res, declined);
      for (int j = 0; j < 4; ++j) r[j] = res[j];
    }
    Store<kDstSize>(out, r);
    return declined;
  }
};

// ===================================================================================
// float64 sources: two vectors of 4 doubles give one vector of 8 x 32-bit results.
// ===================================================================================

inline __m256d AbsF64(__m256d x) { return _mm256_and_pd(x, _mm256_castsi256_pd(Set1x64(0x7FFFFFFFFFFFFFFFull))); }
inline __m256i NonFinite64(__m256d x) {  // NaN or +-Inf
  return _mm256_castpd_si256(_mm256_cmp_pd(AbsF64(x), _mm256_set1_pd(INFINITY), _CMP_NLT_UQ));
}
inline __m256i IsNaN64(__m256d x) { return _mm256_castpd_si256(_mm256_cmp_pd(x, x, _CMP_UNORD_Q)); }

template <Rounding R>
inline __m256d RoundF64(__m256d x) {  // as RoundF32
  if constexpr (R == Rounding::kNearestEven) return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsZero) return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsPositive) return _mm256_round_pd(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsNegative) return _mm256_round_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  else {
    // Nearest-away is trunc(x + sign(x) * pred(0.5)), the sum rounded to nearest-even (MXCSR's
    // mode 0, which every caller of this mode runs in). With 0.5 itself, x = pred(0.5) would sum
    // to 1. With pred(0.5) = 0.5 - 2^-54: a fraction >= 0.5 sums to >= 1 - 2^-54, which rounds to
    // the next integer (the spacing below it is >= 2^-53, and at 0.5 the tie goes to even 1.0);
    // a fraction < 0.5 leaves a gap to the next integer of more than half the spacing there; and
    // |x| >= 2^52 is integral with an ulp >= 1, so the sum rounds back to x. Three operations
    // (vblendvpd picks by x's sign bit) instead of eight.
    static_assert(0.5 - 0x1p-54 == 0x1.fffffffffffffp-2);
    __m256d h = _mm256_blendv_pd(_mm256_set1_pd(0x1.fffffffffffffp-2), _mm256_set1_pd(-0x1.fffffffffffffp-2), x);
    return _mm256_round_pd(_mm256_add_pd(x, h), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
}

// The integer value of an integral double modulo 2^64: the significand shifted by
// (exponent - 52) either way; vpsllvq/vpsrlvq give 0 for counts >= 64 (the right residue, and
// the right value for +-0 once the implicit bit is dropped there).
inline __m256i IntegralToInt64(__m256d r) {
  __m256i rb = _mm256_castpd_si256(r);
  __m256i ef = _mm256_srli_epi64(_mm256_slli_epi64(rb, 1), 53);
  __m256i m = _mm256_or_si256(_mm256_and_si256(rb, Set1x64(0xFFFFFFFFFFFFFull)), Set1x64(1ull << 52));
  m = _mm256_andnot_si256(_mm256_cmpeq_epi64(ef, _mm256_setzero_si256()), m);
  __m256i e = _mm256_sub_epi64(ef, Set1x64(1075));
  __m256i v = _mm256_or_si256(_mm256_sllv_epi64(m, e), _mm256_srlv_epi64(m, _mm256_sub_epi64(_mm256_setzero_si256(), e)));
  __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), rb);
  return _mm256_sub_epi64(_mm256_xor_si256(v, neg), neg);
}

// Sources as float64 lanes, 4 per vector: Load(p, &bad) gives the exact values, and marks in `bad`
// the lanes it cannot convert exactly (declined).
struct LoadD64 {
  static constexpr std::size_t kSize = 8;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    *bad = _mm256_setzero_si256();
    return _mm256_loadu_pd(reinterpret_cast<const double*>(p));
  }
};
struct LoadF32D {
  static constexpr std::size_t kSize = 4;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    *bad = _mm256_setzero_si256();
    return _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(p)));
  }
};
struct LoadI32D {
  static constexpr std::size_t kSize = 4;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    *bad = _mm256_setzero_si256();
    return _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};
struct LoadU32D {  // 2^52 + v has v as its low mantissa bits (used with nearest-even only: no -0)
  static constexpr std::size_t kSize = 4;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    *bad = _mm256_setzero_si256();
    __m256i v = _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, Set1x64(0x4330000000000000ull))),
                         _mm256_set1_pd(0x1p52));
  }
};
// int64/uint64 -> double with one rounding in MXCSR's mode: v = hi * 2^32 + lo, both parts
// converted exactly by the 2^84 / 2^52 exponent tricks (hi signed: biased by 2^31 first), then one
// addition.
template <bool kSigned>
inline __m256d Int64ToF64(__m256i v) {
  __m256i hi = _mm256_srli_epi64(v, 32);
  if constexpr (kSigned) hi = _mm256_xor_si256(hi, Set1x64(0x80000000ull));
  __m256d dh = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(hi, Set1x64(0x4530000000000000ull))),
                             _mm256_set1_pd(kSigned ? 0x1p84 + 0x1p63 : 0x1p84));
  __m256d dl = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_blend_epi32(v, Set1x64(0x4330000000000000ull), 0xAA)),
                             _mm256_set1_pd(0x1p52));
  // Rounding towards -inf turns the exact zeros of v = 0 into -0: the sign is v's.
  __m256i r = _mm256_and_si256(_mm256_castpd_si256(_mm256_add_pd(dh, dl)), Set1x64(0x7FFFFFFFFFFFFFFFull));
  if constexpr (kSigned) r = _mm256_or_si256(r, _mm256_and_si256(v, Set1x64(0x8000000000000000ull)));
  return _mm256_castsi256_pd(r);
}
// |v| > 2^53 (not exact in double)
template <bool kSigned>
inline __m256i Int64Wide(__m256i v) {
  if constexpr (kSigned)
    return _mm256_or_si256(_mm256_cmpgt_epi64(v, Set1x64(1ull << 53)),
                           _mm256_cmpgt_epi64(Set1x64(static_cast<std::uint64_t>(-(1ll << 53))), v));
  else  // unsigned compare by flipping the sign bits
    return _mm256_cmpgt_epi64(_mm256_xor_si256(v, Set1x64(1ull << 63)), Set1x64((1ull << 53) | (1ull << 63)));
}
template <bool kSigned>
struct LoadI64D {  // exact below 2^53 in magnitude, declined above
  static constexpr std::size_t kSize = 8;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    *bad = Int64Wide<kSigned>(v);
    return Int64ToF64<kSigned>(v);
  }
};

// int64/uint64 -> double for a float32 result, nothing declined: exact up to 2^53 in magnitude;
// above, the magnitude's bits below bit 11 are folded into bit 11 (set if any was), a rounding to
// odd that keeps at least 42 bits. Rounding that once more to float32's 24 bits gives the same
// result as rounding the exact integer, in every mode (a grid point or midpoint of the 24-bit grid
// is never produced by rounding to odd on a grid 2 or more bits finer, unless exact). The lanes are
// then not the source values, so this loader is only used without a scalar_map.
template <bool kSigned>
struct LoadI64DOdd {
  static constexpr std::size_t kSize = 8;
  static __m256d Load(const unsigned char* p, __m256i* bad) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i sign = kSigned ? _mm256_cmpgt_epi64(zero, v) : zero;
    __m256i mag = _mm256_sub_epi64(_mm256_xor_si256(v, sign), sign);  // 2^63 for INT64_MIN: fine unsigned
    __m256i sticky = _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(mag, Set1x64(0x7FF)), zero),
                                         Set1x64(0x800));
    __m256i folded = _mm256_or_si256(_mm256_andnot_si256(Set1x64(0x7FF), mag), sticky);
    mag = Blend(mag, folded, Int64Wide<false>(mag));
    *bad = zero;
    return _mm256_or_pd(Int64ToF64<false>(mag), _mm256_castsi256_pd(_mm256_and_si256(sign, Set1x64(1ull << 63))));
  }
};

// float64 -> integer of <= 32 bits (not uint32): as F32ToInt, with vcvtpd2dq; every bound and
// max value is exact in double, so clamp is min/max.
struct IntParams64 {
  double lo, hi;  // in range: lo <= r <= hi
  std::uint32_t mask;
};
template <Rounding R, OutOfRange O>
struct F64ToInt {
  using Params = IntParams64;
  static constexpr unsigned kRc = O == OutOfRange::kClamp ? RcOf(R) : 0;
  struct Consts {
    __m256d lo, hi;
    __m256i mask;
  };
  static Consts MakeConsts(const Params& p) { return {_mm256_set1_pd(p.lo), _mm256_set1_pd(p.hi), Set1(p.mask)}; }
  static __m256i ConvertPair(const Consts& c, __m256d xa, __m256d xb, std::uint32_t* declined) {
    // Clamp converts in MXCSR's mode (kRc), clamping first; nearest-away and the others round.
    constexpr bool kHardware = O == OutOfRange::kClamp && R != Rounding::kNearestAway;
    __m256d ra = kHardware ? xa : RoundF64<R>(xa), rb = kHardware ? xb : RoundF64<R>(xb);
    if constexpr (O == OutOfRange::kWrap) {
      *declined = Bits64(NonFinite64(xa)) | Bits64(NonFinite64(xb)) << 4;
      return _mm256_and_si256(NarrowTo32(IntegralToInt64(ra), IntegralToInt64(rb)), c.mask);
    } else if constexpr (O == OutOfRange::kClamp) {
      *declined = Bits64(NonFinite64(xa)) | Bits64(NonFinite64(xb)) << 4;  // R3, before min/max
      __m128i va = _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(ra, c.lo), c.hi));
      __m128i vb = _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(rb, c.lo), c.hi));
      return _mm256_and_si256(_mm256_set_m128i(vb, va), c.mask);
    } else {
      __m256d oa = _mm256_or_pd(_mm256_cmp_pd(ra, c.lo, _CMP_NGE_UQ), _mm256_cmp_pd(ra, c.hi, _CMP_NLE_UQ));
      __m256d ob = _mm256_or_pd(_mm256_cmp_pd(rb, c.lo, _CMP_NGE_UQ), _mm256_cmp_pd(rb, c.hi, _CMP_NLE_UQ));
      *declined = static_cast<std::uint32_t>(_mm256_movemask_pd(oa) | _mm256_movemask_pd(ob) << 4);
      return _mm256_and_si256(_mm256_set_m128i(_mm256_cvtpd_epi32(rb), _mm256_cvtpd_epi32(ra)), c.mask);
    }
  }
};

// float64 -> float32, any mode: vcvtpd2ps rounds once, correctly, in MXCSR's mode, which the run
// sets (kRc). Nearest-away has no hardware mode; it is nearest-even of x with its lowest bit set
// (StickyAway). R1: a rounded value beyond max is +-Inf in the hardware's nearest and outward
// directed cases (clamp's answer); the directed modes give +-max instead for some values beyond
// max, so a +-max result is declined there (rare) and the engine decides.
template <Rounding R, OutOfRange O>
struct F64ToF32 {
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = RcOf(R);
  static Consts MakeConsts(const Params&) { return {}; }
  // Nearest-away as nearest-even: set the lowest bit of x. A float32 midpoint m (a multiple of
  // 2^-150, and of 2^(E-24) at exponent E) has its 28 lowest bits clear as a double, so the
  // double below it, pred(m), has its lowest bit set: x | 1 is x or succ(x), never lands on a
  // midpoint it was below and never crosses one, and lifts an exact midpoint just above it, where
  // nearest-even rounds away. +-Inf would become a NaN, so it is first clamped to +-DBL_MAX,
  // which still rounds to +-Inf; max_pd/min_pd return their second operand, x, for a NaN.
  static __m256d StickyAway(__m256d x) {
    __m256d big = _mm256_set1_pd(0x1.fffffffffffffp+1023);
    x = _mm256_min_pd(big, _mm256_max_pd(_mm256_set1_pd(-0x1.fffffffffffffp+1023), x));
    return _mm256_or_pd(x, _mm256_castsi256_pd(Set1x64(1)));
  }
  static __m256i ConvertPair(const Consts&, __m256d xa, __m256d xb, std::uint32_t* declined) {
    if constexpr (R == Rounding::kNearestAway) {
      xa = StickyAway(xa);
      xb = StickyAway(xb);
    }
    __m256i y = AsInt(_mm256_set_m128(_mm256_cvtpd_ps(xb), _mm256_cvtpd_ps(xa)));
    __m256i a = _mm256_and_si256(y, Set1(0x7FFFFFFFu));
    __m256i res = Blend(y, _mm256_or_si256(_mm256_and_si256(y, Set1(0x80000000u)), Set1(0x7FC00000u)), IsNaN(a));
    __m256i inf = _mm256_cmpeq_epi32(a, Set1(0x7F800000u));
    __m256i undecided = _mm256_setzero_si256();
    if constexpr (R != Rounding::kNearestEven && R != Rounding::kNearestAway)
      undecided = _mm256_cmpeq_epi32(a, Set1(0x7F7FFFFFu));
    if constexpr (O == OutOfRange::kClamp) *declined = Bits32(undecided);
    else *declined = Bits32(_mm256_or_si256(inf, undecided));  // Inf inputs go along (rare)
    return res;
  }
};

template <class DLoader, class Conv, std::size_t kDst>
struct F64Lanes {
  static_assert(DLoader::kSize == 8);
  static constexpr std::size_t kSrcSize = 8;
  static constexpr std::size_t kDstSize = kDst;
  static constexpr unsigned kRc = Conv::kRc;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;  // float64 bit patterns (NaN keys by test)
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
    int map_n;
  };
  static Consts MakeConsts(const Params& p) { return {Conv::MakeConsts(p.conv), &p.map, p.map.n}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i r[4];
    std::uint32_t d[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      __m256i bad_a, bad_b;
      __m256d xa = DLoader::Load(in + 64 * j, &bad_a);
      __m256d xb = DLoader::Load(in + 64 * j + 32, &bad_b);
      r[j] = Conv::ConvertPair(c.conv, xa, xb, &d[j]);
      d[j] |= Bits64(bad_a) | Bits64(bad_b) << 4;
    }
    std::uint32_t declined = d[0] | d[1] << 8 | d[2] << 16 | d[3] << 24;
    if (c.map_n) [[unlikely]] {
      __m256i res[4] = {r[0], r[1], r[2], r[3]};
      declined = Map(*c.map, in, res, declined);
      for (int j = 0; j < 4; ++j) r[j] = res[j];
    }
    Store<kDstSize>(out, r);
    return declined;
  }
  // Keys compared in 64-bit lanes (the raw source bits; NaN keys by test), then narrowed to the
  // 32-bit result lanes.
  __attribute__((noinline)) static std::uint32_t Map(const VectorMap& map, const unsigned char* in,
                                                     __m256i r[4], std::uint32_t declined) {
    for (int j = 0; j < 4; ++j) {
      __m256d xa = _mm256_loadu_pd(reinterpret_cast<const double*>(in + 64 * j));
      __m256d xb = _mm256_loadu_pd(reinterpret_cast<const double*>(in + 64 * j + 32));
      for (int k = map.n - 1; k >= 0; --k) {
        __m256i ma, mb;
        if (map.nan_key[k]) {
          ma = IsNaN64(xa);
          mb = IsNaN64(xb);
        } else {
          ma = _mm256_cmpeq_epi64(_mm256_castpd_si256(xa), Set1x64(map.key[k]));
          mb = _mm256_cmpeq_epi64(_mm256_castpd_si256(xb), Set1x64(map.key[k]));
        }
        __m256i m = NarrowTo32(ma, mb);
        r[j] = Blend(r[j], Set1(static_cast<std::uint32_t>(map.value[k])), m);
        declined &= ~(Bits32(m) << (8 * j));
      }
    }
    return declined;
  }
};

// 64-bit results, 4 lanes per vector, 8 vectors per block, from float64 lanes (DLoader). The map
// compares raw source lanes for 8-byte sources and the exact float64 values for 4-byte ones.
template <class DLoader, class Conv>
struct Lanes64 {
  static constexpr std::size_t kSrcSize = DLoader::kSize;
  static constexpr std::size_t kDstSize = 8;
  static constexpr unsigned kRc = Conv::kRc;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
    int map_n;
  };
  static Consts MakeConsts(const Params& p) { return {Conv::MakeConsts(p.conv), &p.map, p.map.n}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    std::uint32_t declined = 0;
    for (int j = 0; j < 8; ++j) {
      __m256i bad;
      __m256d x = DLoader::Load(in + 4 * kSrcSize * j, &bad);
      std::uint32_t d;
      __m256i v = Conv::Convert(c.conv, x, &d);
      d |= Bits64(bad);
      if (c.map_n) [[unlikely]] {
        __m256i key_lanes = kSrcSize == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32 * j))
                                          : _mm256_castpd_si256(x);
        MapLanes64(*c.map, key_lanes, IsNaN64(x), &v, &d);
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * j), v);
      declined |= d << (4 * j);
    }
    return declined;
  }
};

// float64 lanes -> int64 / uint64. AVX2 has no double -> int64 conversion. The rounded value r,
// when |r| < 2^64, splits exactly into h = floor(r / 2^32) (|h| <= 2^32) and l = r - h * 2^32 in
// [0, 2^32) (one fused multiply-add, exact because the result is an integer below 2^53); each part
// plus 1.5 * 2^52 is exact, and its bit pattern minus that constant's is the integer, so
// v = (h << 32) + l. Out-of-range lanes (compared on r) are clamped or declined; wrap (R5) takes
// the residue modulo 2^64 of any integral double (IntegralToInt64). No data-dependent branch.
struct Int64Params {
  double lo, hi;  // in range: lo <= r < hi
  std::uint64_t lo_bits, hi_bits;
  bool is_unsigned;
};
template <Rounding R, OutOfRange O>
struct ToInt64 {
  using Params = Int64Params;
  static constexpr unsigned kRc = 0;
  struct Consts {
    __m256d lo, hi;
    __m256i lo_bits, hi_bits;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_pd(p.lo), _mm256_set1_pd(p.hi), Set1x64(p.lo_bits), Set1x64(p.hi_bits)};
  }
  static __m256i Convert(const Consts& c, __m256d x, std::uint32_t* declined) {
    __m256d r = RoundF64<R>(x);
    if constexpr (O == OutOfRange::kWrap) {
      *declined = Bits64(NonFinite64(x));
      return IntegralToInt64(r);
    } else {
      const __m256d magic = _mm256_set1_pd(0x1.8p52);
      __m256d h = _mm256_round_pd(_mm256_mul_pd(r, _mm256_set1_pd(0x1p-32)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      __m256d l = _mm256_fnmadd_pd(h, _mm256_set1_pd(0x1p32), r);
      __m256i hi = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(h, magic)), _mm256_castpd_si256(magic));
      __m256i lo = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(l, magic)), _mm256_castpd_si256(magic));
      __m256i v = _mm256_add_epi64(_mm256_slli_epi64(hi, 32), lo);
      if constexpr (O == OutOfRange::kClamp) {
        *declined = Bits64(NonFinite64(x));  // R3, before the clamp
        v = Blend(v, c.lo_bits, _mm256_castpd_si256(_mm256_cmp_pd(r, c.lo, _CMP_LT_OQ)));
        return Blend(v, c.hi_bits, _mm256_castpd_si256(_mm256_cmp_pd(r, c.hi, _CMP_GE_OQ)));
      } else {
        *declined = Bits64(_mm256_castpd_si256(
            _mm256_or_pd(_mm256_cmp_pd(r, c.lo, _CMP_NGE_UQ), _mm256_cmp_pd(r, c.hi, _CMP_NLT_UQ))));
        return v;
      }
    }
  }
};

// float64 lanes -> float64: the value, NaN canonicalised (R3).
struct ToF64Canonical {
  struct Params {};
  struct Consts {};
  static constexpr unsigned kRc = 0;
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256d x, std::uint32_t* declined) {
    *declined = 0;
    __m256i bits = _mm256_castpd_si256(x);
    __m256i nan = _mm256_or_si256(_mm256_and_si256(bits, Set1x64(0x8000000000000000ull)), Set1x64(0x7FF8000000000000ull));
    return Blend(bits, nan, IsNaN64(x));
  }
};

// int64/uint64 -> float64: Int64ToF64 rounds once in MXCSR's mode (kRc, the IEEE modes);
// nearest-away declines |v| > 2^53, where it could differ.
template <bool kSigned, Rounding R>
struct Int64ToF64Lanes {
  static constexpr std::size_t kSrcSize = 8;
  static constexpr std::size_t kDstSize = 8;
  static constexpr unsigned kRc = RcOf(R);
  struct Params {
    VectorMap map;  // raw int64 keys
  };
  struct Consts {
    const VectorMap* map;
    int map_n;
  };
  static Consts MakeConsts(const Params& p) { return {&p.map, p.map.n}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    std::uint32_t declined = 0;
    for (int j = 0; j < 8; ++j) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32 * j));
      __m256i r = _mm256_castpd_si256(Int64ToF64<kSigned>(v));
      std::uint32_t d = R == Rounding::kNearestAway ? Bits64(Int64Wide<kSigned>(v)) : 0;
      if (c.map_n) [[unlikely]] MapLanes64(*c.map, v, _mm256_setzero_si256(), &r, &d);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * j), r);
      declined |= d << (4 * j);
    }
    return declined;
  }
};

// ===================================================================================
// 8-bit and sub-byte integers -> integers of one byte, 32 per vector in byte lanes: the source
// value (masked or sign-extended from its bits), a range check and clamp by min/max in the
// source's signedness, wrap by the destination's mask.
// ===================================================================================

struct Int8Params {
  std::uint8_t lo, hi;  // the destination's range within the source's (as bytes of that signedness)
  std::uint8_t mask;    // the destination's value mask
};
template <int kSrcBits, bool kSrcSigned, OutOfRange O>
struct Int8Lanes {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  static constexpr unsigned kRc = 0;
  struct Params {
    Int8Params conv;
    VectorMap map;  // keys as source values in bytes
  };
  struct Consts {
    __m256i lo, hi, mask;
    const VectorMap* map;
    int map_n;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_epi8(static_cast<char>(p.conv.lo)), _mm256_set1_epi8(static_cast<char>(p.conv.hi)),
            _mm256_set1_epi8(static_cast<char>(p.conv.mask)), &p.map, p.map.n};
  }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    if constexpr (kSrcBits < 8) {
      v = _mm256_and_si256(v, _mm256_set1_epi8(static_cast<char>((1 << kSrcBits) - 1)));
      if constexpr (kSrcSigned) {  // (v ^ s) - s sign-extends from the top value bit s
        const __m256i sbit = _mm256_set1_epi8(static_cast<char>(1 << (kSrcBits - 1)));
        v = _mm256_sub_epi8(_mm256_xor_si256(v, sbit), sbit);
      }
    }
    __m256i clamped = kSrcSigned ? _mm256_min_epi8(_mm256_max_epi8(v, c.lo), c.hi)
                                 : _mm256_min_epu8(_mm256_max_epu8(v, c.lo), c.hi);
    __m256i r;
    std::uint32_t declined = 0;
    if constexpr (O == OutOfRange::kClamp) {
      r = _mm256_and_si256(clamped, c.mask);
    } else {
      r = _mm256_and_si256(v, c.mask);
      if constexpr (O == OutOfRange::kUnset)
        declined = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(clamped, v)));
    }
    if (c.map_n) [[unlikely]] {
      for (int k = c.map->n - 1; k >= 0; --k) {
        __m256i m = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(static_cast<char>(c.map->key[k])));
        r = Blend(r, _mm256_set1_epi8(static_cast<char>(c.map->value[k])), m);
        declined &= ~static_cast<std::uint32_t>(_mm256_movemask_epi8(m));
      }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), r);
    return declined;
  }
};

// ===================================================================================
// 8-bit -> 8-bit: the 256-entry table T (filled by the reference path at bind time) looked up 32
// bytes at a time. AVX2 has no 256-byte permute; vpshufb looks up 16 bytes (per 128-bit lane). A
// 128-entry half is 8 rows of 16: vpshufb finds x's low nibble in each row and three levels of
// vpblendvb on bits 4, 5, 6 of x pick the row (8 shuffles, 7 blends; this beat an XOR-telescoped
// form with saturating-add indexes, 8 shuffles + 7 adds + 7 XORs, by ~10% in cache).
//
// Table8Signed looks up one half and derives the other, which halves the work: float8 ->
// float8/6/4 tables are nearly sign-symmetric, T[y | 0x80] = T[y] ^ K (K the destination's sign
// bit), and float8 -> unsigned int under clamp has the whole negative half equal (R7: 0). So the
// negative half is U[y] = (L[y] & keep) ^ K (keep = 0xFF or 0) up to a few fixes (bind time):
// -0 and the negatives that underflow have no sign in a type without -0 (fnuz, R8), the fnuz NaN
// 0x80 has none either (R19), and a fnuz source has NaN where -0 would be. A fix keys on L[y] when
// every lane with that L[y] wants the same U[y] (one fix covers every underflowing negative), on
// y otherwise; for an fnuz destination the flip is skipped by compare where L is 0 or the NaN
// 0x80 (zero_keep) instead of two fixes. Table8 is the general case: both halves (16 rows),
// picked by x's sign bit. Directed rounding modes other than towards-zero round the two halves'
// magnitudes differently: Table8.
//
// Failing entries go to the reference, whose output overwrites the table's; so what the table
// holds for them does not matter, and declining a lane that would not fail is only slower. That
// lets Table8Signed decline y when either half fails, with a range check when those are one run
// (typically the source's Inf and NaN encodings), else a 128-bit bitmap; Table8 has a 256-bit one.
// ===================================================================================

// 8 rows of 16 bytes as stored: each row twice (vpshufb looks up within 128-bit lanes).
using Rows8 = std::uint8_t[8][32];

inline __m256i Load32(const std::uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }

// R_g[x & 15] for x in row g = (x >> 4) & 7, for each of kHalves sets of 8 rows (rows[8k + g]).
// vpshufb looks up the low nibble in every row; a blend tree on bits 4, 5 and 6 of x then picks
// the row (vpblendvb tests a byte's top bit, where a 16-bit shift left by 3, 2, 1 moves them).
template <int kHalves>
inline void LookUpRows(const std::uint8_t (*rows)[32], __m256i x, __m256i r[kHalves]) {
  const __m256i idx = _mm256_and_si256(x, _mm256_set1_epi8(0x0F));  // vpshufb: top bit clear
  // Doubling a byte moves its bit 6 to the top without touching the neighbours (vpaddb runs on
  // any vector pipe; the 16-bit shifts competed with vpshufb for two).
  const __m256i bit6 = _mm256_add_epi8(x, x), bit5 = _mm256_add_epi8(bit6, bit6), bit4 = _mm256_add_epi8(bit5, bit5);
  for (int k = 0; k < kHalves; ++k) {
    const std::uint8_t (*row)[32] = rows + 8 * k;
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      q[j] = BlendTop(_mm256_shuffle_epi8(Load32(row[2 * j]), idx), _mm256_shuffle_epi8(Load32(row[2 * j + 1]), idx), bit4);
    }
    r[k] = BlendTop(BlendTop(q[0], q[1], bit5), BlendTop(q[2], q[3], bit5), bit6);
  }
}

// The rows of a 128-entry half, each 16 bytes twice.
inline void FillRows(const std::uint8_t half[128], Rows8& rows) {
  for (int g = 0; g < 8; ++g) {
    std::memcpy(rows[g], half + 16 * g, 16);
    std::memcpy(rows[g] + 16, half + 16 * g, 16);
  }
}

// Lanes whose bit (byte idx >> 3, bit idx & 7) is set in the 16-byte `bitmap` (twice), idx < 128.
inline std::uint32_t BitmapLanes(__m256i bitmap, __m256i idx) {
  // srli_epi16 drags the next byte's low bits into bits 5..7; the mask drops them.
  __m256i byte = _mm256_shuffle_epi8(bitmap, _mm256_and_si256(_mm256_srli_epi16(idx, 3), _mm256_set1_epi8(0x0F)));
  const __m256i bit_table = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
                                             1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  __m256i bit = _mm256_shuffle_epi8(bit_table, _mm256_and_si256(idx, _mm256_set1_epi8(7)));
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), bit)));
}

struct Table8Signed {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  static constexpr unsigned kRc = 0;
  static constexpr int kMaxFixes = 4;  // each costs 2 instructions per block; more: use Table8
  enum class Check : std::uint8_t { kNone, kRange, kBitmap };
  struct Params {
    alignas(32) Rows8 rows;                         // the half x < 0x80, L
    alignas(32) std::uint8_t flip[32];              // U = (L & keep) ^ flip, broadcast
    bool keep_all;                                  // keep = 0xFF (else 0)
    alignas(32) std::uint8_t fix_key[kMaxFixes][32], fix_value[kMaxFixes][32];
    alignas(32) std::uint8_t bad[32];               // kBitmap: y that fail in either half, twice
    int n_fix_l, n_fix;                             // fixes 0..n_fix_l-1 key on L[y], the rest on y
    bool zero_keep;                                 // no flip where L & ~flip == 0
    Check check;
    std::int8_t bad_after, bad_upto;                // kRange: y fails iff bad_after < y <= bad_upto
  };
  // The settings by value: read through p, each would be loaded again every block (the output
  // store may alias p as far as the compiler knows); by value they stay in registers.
  struct Consts {
    const Params* p;
    int n_fix_l, n_fix;
    bool zero_keep, keep_all;
    Check check;
    std::int8_t bad_after, bad_upto;
  };
  static Consts MakeConsts(const Params& p) {
    return {&p, p.n_fix_l, p.n_fix, p.zero_keep, p.keep_all, p.check, p.bad_after, p.bad_upto};
  }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    const Params& p = *c.p;
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    __m256i l;
    LookUpRows<1>(p.rows, x, &l);
    __m256i kept = c.keep_all ? l : _mm256_setzero_si256(), flip = Load32(p.flip);
    if (c.zero_keep) flip = _mm256_andnot_si256(_mm256_cmpeq_epi8(_mm256_andnot_si256(flip, kept), _mm256_setzero_si256()), flip);
    __m256i u = _mm256_xor_si256(kept, flip);
    if (c.n_fix) u = Fix(p, c, x, l, u);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), BlendTop(l, u, x));  // x's sign bit
    if (c.check == Check::kNone) return 0;
    __m256i y = _mm256_and_si256(x, _mm256_set1_epi8(0x7F));
    if (c.check == Check::kRange) {  // y <= 0x7F: signed compares
      __m256i above_first = _mm256_cmpgt_epi8(y, _mm256_set1_epi8(c.bad_after));
      __m256i above_last = _mm256_cmpgt_epi8(y, _mm256_set1_epi8(c.bad_upto));
      return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_andnot_si256(above_last, above_first)));
    }
    return BitmapLanes(Load32(p.bad), y);
  }
  __attribute__((always_inline)) static __m256i Fix(const Params& p, const Consts& c, __m256i x, __m256i l, __m256i u) {
    __m256i y = _mm256_and_si256(x, _mm256_set1_epi8(0x7F));
    for (int k = 0; k < c.n_fix_l; ++k) u = Blend(u, Load32(p.fix_value[k]), _mm256_cmpeq_epi8(l, Load32(p.fix_key[k])));
    for (int k = c.n_fix_l; k < c.n_fix; ++k) u = Blend(u, Load32(p.fix_value[k]), _mm256_cmpeq_epi8(y, Load32(p.fix_key[k])));
    return u;
  }
};

struct Table8 {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  static constexpr unsigned kRc = 0;
  struct Params {
    alignas(32) Rows8 rows[2];                         // the halves x < 0x80 and x >= 0x80
    alignas(32) std::uint8_t bad_lo[32], bad_hi[32];  // the failing x of each half, bitmaps, twice
    bool any_bad;
  };
  struct Consts {
    const Params* p;
  };
  static Consts MakeConsts(const Params& p) { return {&p}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    __m256i y = _mm256_and_si256(x, _mm256_set1_epi8(0x7F));
    __m256i r[2];
    LookUpRows<2>(c.p->rows[0], x, r);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), BlendTop(r[0], r[1], x));
    if (!c.p->any_bad) return 0;
    std::uint32_t neg = static_cast<std::uint32_t>(_mm256_movemask_epi8(x));
    return (BitmapLanes(Load32(c.p->bad_lo), y) & ~neg) | (BitmapLanes(Load32(c.p->bad_hi), y) & neg);
  }
};

// The Table8Signed parameters for `table`, or false when the halves differ in more than a few
// places. `fails`: the entries that fail.
inline bool PlanTable8Signed(const std::uint8_t table[256], const bool fails[256], Table8Signed::Params& p) {
  using P = Table8Signed;
  bool bad[128];
  int lone_failures = 0;  // y that fail in one half only: declined in both, so keep them rare
  for (int y = 0; y < 128; ++y) {
    bad[y] = fails[y] || fails[y | 0x80];
    lone_failures += fails[y] != fails[y | 0x80];
  }
  if (lone_failures > 2) return false;
  const std::uint8_t* lo = table;
  const std::uint8_t* up = table + 128;
  // The fixes for one choice of keep (n > kMaxFixes: too many). Value fixes (on L) are blended
  // first, so the fixes on y, blended after them, override them.
  struct Choice {
    std::uint8_t keep, flip;
    bool zero_keep;
    int n = 0, n_l = 0;
    std::uint8_t key[128], value[128];
  };
  auto choose = [&](std::uint8_t keep, bool zero_keep) {
    Choice ch{};
    ch.keep = keep;
    ch.zero_keep = zero_keep;
    int count[256] = {};
    for (int y = 0; y < 128; ++y) {
      if (!bad[y]) ++count[(lo[y] & keep) ^ up[y]];
    }
    ch.flip = static_cast<std::uint8_t>(std::max_element(count, count + 256) - count);
    std::uint8_t y_key[128], y_value[128];
    int n_y = 0;
    for (int v = 0; v < 256; ++v) {
      // The good lanes with L = v: U is (v & keep) ^ flip, or the most common U among them (one
      // value fix) where that needs fewer fixes on y; the rest get a fix on y each.
      int want[256] = {};
      for (int y = 0; y < 128; ++y) {
        if (!bad[y] && lo[y] == v) ++want[up[y]];
      }
      const int plain = zero_keep && ((v & keep) & ~ch.flip) == 0 ? (v & keep) : (v & keep) ^ ch.flip;
      const int common = static_cast<int>(std::max_element(want, want + 256) - want);
      const int u = want[common] > want[plain] ? common : plain;
      if (u != plain) ch.key[ch.n] = static_cast<std::uint8_t>(v), ch.value[ch.n++] = static_cast<std::uint8_t>(u);
      for (int y = 0; y < 128; ++y) {
        if (!bad[y] && lo[y] == v && up[y] != u) y_key[n_y] = static_cast<std::uint8_t>(y), y_value[n_y++] = up[y];
      }
    }
    ch.n_l = ch.n;
    for (int k = 0; k < n_y; ++k) ch.key[ch.n] = y_key[k], ch.value[ch.n++] = y_value[k];
    return ch;
  };
  // zero_keep: no flip where L is +0 or the flip pattern itself (a destination without -0 whose
  // NaN is the sign bit, fnuz: one compare per block instead of two fixes).
  const Choice choices[] = {choose(0xFF, false), choose(0x00, false), choose(0xFF, true), choose(0x00, true)};
  const Choice& ch = *std::min_element(std::begin(choices), std::end(choices),
                                       [](const Choice& a, const Choice& b) { return a.n < b.n; });
  if (ch.n > P::kMaxFixes) return false;
  p.n_fix_l = ch.n_l;
  p.n_fix = ch.n;
  for (int k = 0; k < ch.n; ++k) {
    std::memset(p.fix_key[k], ch.key[k], 32);
    std::memset(p.fix_value[k], ch.value[k], 32);
  }
  p.keep_all = ch.keep == 0xFF;
  std::memset(p.flip, ch.flip, 32);
  p.zero_keep = ch.zero_keep;
  FillRows(lo, p.rows);
  // The failing y: none, one run of them (typically the source's NaN and Inf encodings), or any.
  const bool* const begin = bad;
  const bool* const stop = bad + 128;
  const bool* first = std::find(begin, stop, true);
  const bool* end = std::find(first, stop, false);
  p.check = first == stop                      ? P::Check::kNone
            : std::find(end, stop, true) == stop ? P::Check::kRange
                                                 : P::Check::kBitmap;
  p.bad_after = static_cast<std::int8_t>(first - begin - 1);
  p.bad_upto = static_cast<std::int8_t>(end - begin - 1);
  for (int y = 0; y < 128; ++y) {
    if (bad[y]) p.bad[y >> 3] |= static_cast<std::uint8_t>(1u << (y & 7));
  }
  std::memcpy(p.bad + 16, p.bad, 16);
  return true;
}

inline std::unique_ptr<const Kernel> MakeTable8(const Direction& dir) {
  std::uint8_t table[256];
  bool fails[256];
  for (unsigned s = 0; s < 256; ++s) {
    CastOutcome r = ConvertScalar(dir, s);
    table[s] = static_cast<std::uint8_t>(r.bits);
    fails[s] = r.error != CastError::kNone;
  }
  if (Table8Signed::Params sp{}; PlanTable8Signed(table, fails, sp)) {
    return Make<Table8Signed>(dir, sp, "avx2-table8-signed");
  }
  Table8::Params p{};
  for (int half = 0; half < 2; ++half) {
    FillRows(table + 128 * half, p.rows[half]);
    std::uint8_t* bitmap = half ? p.bad_hi : p.bad_lo;
    for (int y = 0; y < 128; ++y) {
      if (fails[128 * half + y]) {
        bitmap[y >> 3] |= static_cast<std::uint8_t>(1u << (y & 7));
        p.any_bad = true;
      }
    }
    std::memcpy(bitmap + 16, bitmap, 16);
  }
  return Make<Table8>(dir, p, "avx2-table8");
}

// ===================================================================================
// Selection
// ===================================================================================

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

// The map's keys in a family's lane representation; false when the map is too large or has a
// key the family cannot compare.
enum class KeyRep { kFloat32Bits, kInt32Value, kFloat64Bits, kFloat64Value };
inline bool BuildMap(const Direction& dir, KeyRep rep, VectorMap* map) {
  if (dir.map.size() > static_cast<std::size_t>(kMaxVectorKeys)) return false;
  const TypeInfo& s = Info(dir.src);
  for (const auto& [key, value] : dir.map) {
    int k = map->n++;
    map->value[k] = value;
    if (IsNaNBits(dir.src, key)) {
      if (rep == KeyRep::kInt32Value) return false;  // NaN keys of 8-bit floats: the table kernels
      if (rep == KeyRep::kFloat64Bits && dir.src != DataType::float64) return false;
      map->nan_key[k] = true;
      continue;
    }
    switch (rep) {
      case KeyRep::kFloat32Bits:  // the exact float32 value of the key (float16/bfloat16/float32)
        map->key[k] = CastBits(dir.src, key, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset).bits;
        break;
      case KeyRep::kInt32Value: {
        std::uint64_t v = key & s.value_mask();
        if (s.is_signed_int() && (v & s.sign_bit())) v |= ~s.value_mask();  // sign-extend
        map->key[k] = static_cast<std::uint32_t>(v);
        break;
      }
      case KeyRep::kFloat64Bits: map->key[k] = key; break;  // the raw 64-bit source lanes
      case KeyRep::kFloat64Value:  // the exact float64 value of a 4-byte source's key
        map->key[k] = CastBits(dir.src, key, DataType::float64, Rounding::kNearestEven, OutOfRange::kUnset).bits;
        break;
    }
  }
  return true;
}

template <class Family>
std::unique_ptr<const Kernel> MakeWithMap(const Direction& dir, typename Family::Params p, const char* name,
                                          KeyRep rep) {
  if (!BuildMap(dir, rep, &p.map)) return nullptr;
  return Make<Family>(dir, p, name);
}

template <class Loader>
std::unique_ptr<const Kernel> FloatToInteger(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  const bool wide = d.bits > 24;
  IntParams ip;
  ip.lo = d.is_signed_int() ? -static_cast<float>(1ull << (d.bits - 1)) : 0.0f;
  std::uint64_t max = d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask();
  ip.hi = wide ? static_cast<float>(max + 1) : static_cast<float>(max);
  ip.lo_i = static_cast<std::int32_t>(ip.lo);
  ip.hi_i = wide ? 0 : static_cast<std::int32_t>(max);
  ip.hi_bits = static_cast<std::uint32_t>(max);
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() {
        using Fam = FloatLanes<Loader, F32ToInt<R, O, kD == 4>, kD>;
        return MakeWithMap<Fam>(dir, {ip, {}}, "avx2-float-to-int", KeyRep::kFloat32Bits);
      });
    });
  });
}

inline NarrowParams NarrowFacts(const TypeInfo& d) {
  NarrowParams p;
  p.shift = 23 - d.mant_bits;
  p.rebias = static_cast<std::uint32_t>(127 - d.bias) << d.mant_bits;
  p.min_normal = static_cast<std::uint32_t>(128 - d.bias) << 23;
  p.magic_bits = static_cast<std::uint32_t>(d.min_quantum_exp() + 23 + 127) << 23;
  p.sub_scale = std::ldexp(1.0f, -d.min_quantum_exp());
  p.max_bits = static_cast<std::uint32_t>((static_cast<std::uint64_t>(d.max_biased_exp()) << d.mant_bits) |
                                          ((1ull << d.mant_bits) - 1));
  p.sign_bit = static_cast<std::uint32_t>(d.sign_bit());
  p.special_sign = d.special == Special::Ieee ? p.sign_bit : 0;
  p.nan_bits = static_cast<std::uint32_t>(d.canonical_nan());
  p.inf_bits = static_cast<std::uint32_t>(d.positive_inf());
  p.nan_bad = d.has_nan() ? 0u : ~0u;
  p.inf_bad = d.has_inf() ? 0u : ~0u;
  p.clamp_bits = d.has_inf() ? p.inf_bits : p.max_bits;
  return p;
}

// float16, bfloat16 and the narrow floats from float32 lanes, every mode and out_of_range (each
// only where instantiated: kHalf, kBf16, kNarrow).
template <class Loader, bool kHalf = true, bool kBf16 = true, bool kNarrow = true>
std::unique_ptr<const Kernel> ToSmallFloats(const Direction& dir, KeyRep rep = KeyRep::kFloat32Bits) {
  const TypeInfo& d = Info(dir.dst);
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() -> std::unique_ptr<const Kernel> {
      if (dir.dst == DataType::float16) {
        if constexpr (!kHalf) return nullptr;
        using Fam = F16Lanes<Loader, R, O>;
        return MakeWithMap<Fam>(dir, {}, "avx2-f16c", rep);
      }
      if (dir.dst == DataType::bfloat16) {
        if constexpr (!kBf16) return nullptr;
        using Fam = FloatLanes<Loader, F32ToBf16<R, O>, 2>;
        return MakeWithMap<Fam>(dir, {}, "avx2-to-bfloat16", rep);
      }
      if constexpr (!kNarrow) return nullptr;
      if (d.special == Special::E8m0) {
        using Fam = FloatLanes<Loader, F32ToE8m0<R>, 1>;
        return MakeWithMap<Fam>(dir, {}, "avx2-to-e8m0", rep);
      }
      if (d.size == 1) {
        // float8, float6, float4: fewer significand bits than every float-lane source.
        if (d.special == Special::Fnuz) {
          using Fam = FloatLanes<Loader, F32ToNarrow<R, O, true>, 1>;
          return MakeWithMap<Fam>(dir, {NarrowFacts(d), {}}, "avx2-narrow-float", rep);
        }
        using Fam = FloatLanes<Loader, F32ToNarrow<R, O, false>, 1>;
        return MakeWithMap<Fam>(dir, {NarrowFacts(d), {}}, "avx2-narrow-float", rep);
      }
      return nullptr;
    });
  });
}

// Sources whose values float16 and bfloat16 hold exactly (8-bit integers, float8/6/4): one kernel
// per pair, nothing to round and nothing out of range, so the rounding mode and out_of_range
// cannot matter (NaN and Inf still follow R3).
template <class Loader>
std::unique_ptr<const Kernel> ToHalfExact(const Direction& dir) {
  if (dir.dst == DataType::float16) {
    using Fam = F16Lanes<Loader, Rounding::kNearestEven, OutOfRange::kClamp>;
    return MakeWithMap<Fam>(dir, {}, "avx2-f16c", KeyRep::kFloat32Bits);
  }
  if (dir.dst == DataType::bfloat16) {
    using Fam = FloatLanes<Loader, F32UpperHalf, 2>;
    return MakeWithMap<Fam>(dir, {}, "avx2-to-bfloat16", KeyRep::kFloat32Bits);
  }
  return nullptr;
}

// 64-bit results from float64 lanes: float64 (canonical NaN) and int64/uint64.
template <class DLoader>
std::unique_ptr<const Kernel> To64(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  const KeyRep rep = DLoader::kSize == 8 ? KeyRep::kFloat64Bits : KeyRep::kFloat64Value;
  if (dir.dst == DataType::float64) {
    using Fam = Lanes64<DLoader, ToF64Canonical>;
    return MakeWithMap<Fam>(dir, {}, "avx2-to-float64", rep);
  }
  if (!d.is_int() || d.bits != 64) return nullptr;
  Int64Params ip;
  ip.is_unsigned = !d.is_signed_int();
  ip.lo = d.is_signed_int() ? -0x1p63 : 0.0;
  ip.hi = d.is_signed_int() ? 0x1p63 : 0x1p64;
  ip.lo_bits = d.is_signed_int() ? 0x8000000000000000ull : 0;
  ip.hi_bits = d.is_signed_int() ? 0x7FFFFFFFFFFFFFFFull : ~0ull;
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      using Fam = Lanes64<DLoader, ToInt64<R, O>>;
      return MakeWithMap<Fam>(dir, {ip, {}}, "avx2-to-int64", rep);
    });
  });
}

template <class Loader>
std::unique_ptr<const Kernel> FromIntLanes(const Direction& dir, bool exact_in_float32) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.dst == DataType::float32) {
    auto make = [&]<unsigned kRc, bool kDeclineWide>() {
      using Fam = IntLanes<Loader, IntToF32<kRc, kDeclineWide>, 4>;
      return MakeWithMap<Fam>(dir, {}, "avx2-int-to-float32", KeyRep::kInt32Value);
    };
    if (exact_in_float32) return make.template operator()<0, false>();
    switch (dir.rounding) {
      case Rounding::kNearestEven: return make.template operator()<0, false>();
      case Rounding::kTowardsNegative: return make.template operator()<1, false>();
      case Rounding::kTowardsPositive: return make.template operator()<2, false>();
      case Rounding::kTowardsZero: return make.template operator()<3, false>();
      case Rounding::kNearestAway: return make.template operator()<0, true>();
    }
    return nullptr;
  }
  if (d.is_int() && d.bits <= 32) {
    IntRangeParams ip;
    ip.lo = d.is_signed_int() ? static_cast<std::int32_t>(-(1ll << (d.bits - 1))) : 0;
    ip.hi = static_cast<std::int32_t>(d.is_signed_int() ? (1ll << (d.bits - 1)) - 1
                                                         : (d.bits == 32 ? 0x7FFFFFFFll : (1ll << d.bits) - 1));
    ip.mask = static_cast<std::uint32_t>(d.value_mask());
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() {
        using Fam = IntLanes<Loader, IntToInt<O>, kD>;
        return MakeWithMap<Fam>(dir, {ip, {}}, "avx2-int-to-int", KeyRep::kInt32Value);
      });
    });
  }
  return nullptr;
}

// Integer sources of at most 8 bits -> integers of one byte (Int8Lanes).
template <int kSrcBits, bool kSrcSigned>
std::unique_ptr<const Kernel> FromInt8Lanes(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  if (!d.is_int() || d.size != 1) return nullptr;
  const int src_lo = kSrcSigned ? -(1 << (kSrcBits - 1)) : 0;
  const int src_hi = kSrcSigned ? (1 << (kSrcBits - 1)) - 1 : (1 << kSrcBits) - 1;
  const int dst_lo = d.is_signed_int() ? -(1 << (d.bits - 1)) : 0;
  const int dst_hi = d.is_signed_int() ? (1 << (d.bits - 1)) - 1 : (1 << d.bits) - 1;
  Int8Params ip;
  ip.lo = static_cast<std::uint8_t>(std::max(src_lo, dst_lo));
  ip.hi = static_cast<std::uint8_t>(std::min(src_hi, dst_hi));
  ip.mask = static_cast<std::uint8_t>(d.value_mask());
  VectorMap map;
  if (dir.map.size() > static_cast<std::size_t>(kMaxVectorKeys)) return nullptr;
  for (const auto& [key, value] : dir.map) {
    std::uint64_t k = key & s.value_mask();
    if (kSrcSigned && (k & s.sign_bit())) k |= ~s.value_mask();  // sign-extend, as the lanes
    map.key[map.n] = k & 0xFF;
    map.value[map.n++] = value;
  }
  return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
    using Fam = Int8Lanes<kSrcBits, kSrcSigned, O>;
    return Make<Fam>(dir, typename Fam::Params{ip, map}, "avx2-int8-to-int8");
  });
}

}  // namespace

// The pairs kernels_avx2_extra.cc covers, or nullptr.
std::unique_ptr<const Kernel> SelectKernelAvx2Extra(const Direction& dir);

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_AVX2_H_
