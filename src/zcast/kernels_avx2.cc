// AVX2 kernels (with FMA, F16C and BMI2 available): the only translation unit compiled for more
// than the baseline x86-64 (-mavx2 -mfma -mf16c -mbmi2, see CMakeLists.txt). SelectKernelFor calls
// SelectKernelAvx2 only when the CPU has all four (kernels.cc), so nothing here may run before
// that check: everything is in an anonymous namespace, and the kernels reach the baseline code
// only through non-inline functions (ReferenceKernel, ConvertScalar).
//
// Every kernel has the same shape (BlockKernel): blocks of 32 elements; one pass computes the
// results and a mask of the lanes it *declines* (NaN or Inf where the target lacks them, out of
// range under unset, anything it cannot decide), stores the results, and hands the declined lanes
// of the block, in index order, to the reference path (scalar_map + exact engine), which also
// finds the error. A tail of fewer than 32 elements runs the same block on a zero-padded copy.
// scalar_map keys are compared in the vector and their values blended in (first key wins, R10),
// before the block's results are stored.
//
// A vector is 8 lanes of 32 bits: float32 values (float32, float16 and bfloat16 sources, all
// exactly representable), int32 values (integer and float8 sources), or two float64 vectors whose
// results are narrowed to 8 lanes of 32 bits. The packing stage turns 4 such result vectors into
// 32 elements of 1, 2 or 4 bytes (float64 -> int64/uint64 has its own 64-bit-lane kernel).
//
// Exactness arguments are next to each converter; kernels_test.cc compares every kernel with the
// reference loop, and tests/exhaustive_f32.cc every float32 input for the <= 16-bit targets.
#include <immintrin.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "zcast/dtype.h"
#include "zcast/kernels.h"

namespace zcast::internal {
namespace {

constexpr std::size_t kBlock = 32;   // elements per block: 4 vectors of 8 lanes
constexpr int kMaxVectorKeys = 16;   // larger scalar maps stay on the baseline kernels

// ---- helpers ----

inline __m256i Set1(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
inline __m256i AllOnes() { return _mm256_set1_epi32(-1); }
inline __m256i AsInt(__m256 x) { return _mm256_castps_si256(x); }
inline __m256 AsFloat(__m256i x) { return _mm256_castsi256_ps(x); }
inline __m256i Blend(__m256i a, __m256i b, __m256i mask) { return _mm256_blendv_epi8(a, b, mask); }
inline std::uint32_t MaskBits(__m256i m) {
  return static_cast<std::uint32_t>(_mm256_movemask_ps(AsFloat(m)));
}
// Two vectors of 4 x 64-bit lanes -> one vector of 8 x 32-bit lanes (the low half of each).
inline __m256i NarrowTo32(__m256i a, __m256i b) {
  const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i pa = _mm256_permutevar8x32_epi32(a, idx);
  __m256i pb = _mm256_permutevar8x32_epi32(b, idx);
  return _mm256_permute2x128_si256(pa, pb, 0x20);
}

// See kernels.cc: the default MXCSR (round to nearest, no FTZ/DAZ, exceptions masked) for the
// duration of a run, whatever the host application set.
class DefaultFpEnv {
 public:
  DefaultFpEnv() : saved_(_mm_getcsr()) {
    if ((saved_ & ~0x3Fu) != 0x1F80u) {
      _mm_setcsr(0x1F80u | (saved_ & 0x3Fu));
      changed_ = true;
    }
  }
  ~DefaultFpEnv() {
    if (changed_) _mm_setcsr(saved_);
  }

 private:
  unsigned saved_;
  bool changed_ = false;
};

// ---- scalar_map in the vector ----

// Keys as the lane representation of the kernel's family (float32 bits of the exact value, or the
// int32 value), values as destination bits. Applied last-to-first so the first key wins (R10).
struct VectorMap {
  int n = 0;
  bool has_nan_key = false;
  std::uint64_t key[kMaxVectorKeys] = {};
  std::uint64_t value[kMaxVectorKeys] = {};
  bool nan_key[kMaxVectorKeys] = {};
};

inline void ApplyMap32(const VectorMap& map, __m256i key_lanes, __m256i nan_lanes, __m256i* res,
                       __m256i* declined) {
  for (int k = map.n - 1; k >= 0; --k) {
    __m256i m = map.nan_key[k] ? nan_lanes
                               : _mm256_cmpeq_epi32(key_lanes, Set1(static_cast<std::uint32_t>(map.key[k])));
    *res = Blend(*res, Set1(static_cast<std::uint32_t>(map.value[k])), m);
    *declined = _mm256_andnot_si256(m, *declined);
  }
}

inline void ApplyMap64(const VectorMap& map, __m256i key_lanes, __m256i nan_lanes, __m256i* res,
                       __m256i* declined) {
  for (int k = map.n - 1; k >= 0; --k) {
    __m256i m = map.nan_key[k]
                    ? nan_lanes
                    : _mm256_cmpeq_epi64(key_lanes, _mm256_set1_epi64x(static_cast<long long>(map.key[k])));
    *res = Blend(*res, _mm256_set1_epi64x(static_cast<long long>(map.value[k])), m);
    *declined = _mm256_andnot_si256(m, *declined);
  }
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
// A Family provides kSrcSize, kDstSize, Params (plain data kept in the kernel), Consts (vectors
// built once per run, kept in registers), MakeConsts(params) and
// Block(consts, in, out) -> mask of declined lanes among the block's 32 elements.
template <class Family>
class BlockKernel final : public Kernel {
  static constexpr std::size_t kSs = Family::kSrcSize;
  static constexpr std::size_t kDs = Family::kDstSize;
  static constexpr std::size_t kNone = ~std::size_t{0};

 public:
  BlockKernel(const Direction& dir, const typename Family::Params& params, const char* name)
      : reference_(ReferenceKernel(dir)), params_(params), name_(name) {}

  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    DefaultFpEnv env;
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    const typename Family::Consts c = Family::MakeConsts(params_);
    std::size_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
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
  std::size_t Resolve(std::uint32_t declined, const unsigned char* src, unsigned char* dst,
                      std::size_t base) const {
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
inline __m256i IsInf(__m256i abs_bits) { return _mm256_cmpeq_epi32(abs_bits, Set1(0x7F800000u)); }
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

// Converters: float32 lanes -> destination bits in 32-bit lanes, and the declined lanes.
// O is the effective out_of_range (kWrap only for integer destinations).

// float -> integer of <= 32 bits (not uint32). Bounds are powers of two (exact in float);
// vcvtps2dq converts the rounded, integral value exactly.
struct IntParams {
  float lo, hi;                 // in range: lo <= r < hi
  std::uint32_t hi_bits, mask;  // the clamp result above (max) and the value mask
};

template <Rounding R, OutOfRange O>
struct F32ToInt {
  using Params = IntParams;
  struct Consts {
    __m256 lo, hi;
    __m256i hi_bits, mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_ps(p.lo), _mm256_set1_ps(p.hi), Set1(p.hi_bits), Set1(p.mask)};
  }
  static __m256i Convert(const Consts& c, __m256 x, __m256i* declined) {
    // NaN and Inf are errors even under clamp (R3): detected on x, before any min/max.
    __m256i nonfinite = IsNonFinite(AbsBits(x));
    __m256 r = RoundF32<R>(x);
    if constexpr (O == OutOfRange::kWrap) {
      // R5: the integer r modulo 2^32 from its bit pattern: significand shifted by (exponent - 23);
      // vpsllvd/vpsrlvd give 0 for counts >= 32, which is the right residue.
      __m256i rb = AsInt(r);
      __m256i ef = _mm256_srli_epi32(_mm256_slli_epi32(rb, 1), 24);
      __m256i m = _mm256_or_si256(_mm256_and_si256(rb, Set1(0x7FFFFFu)), Set1(0x800000u));
      m = _mm256_andnot_si256(_mm256_cmpeq_epi32(ef, _mm256_setzero_si256()), m);  // r = +-0
      __m256i e = _mm256_sub_epi32(ef, Set1(150));
      __m256i v = _mm256_or_si256(_mm256_sllv_epi32(m, e),
                                  _mm256_srlv_epi32(m, _mm256_sub_epi32(_mm256_setzero_si256(), e)));
      __m256i neg = _mm256_srai_epi32(rb, 31);
      v = _mm256_sub_epi32(_mm256_xor_si256(v, neg), neg);
      *declined = nonfinite;
      return _mm256_and_si256(v, c.mask);
    } else {
      __m256i v = _mm256_cvtps_epi32(_mm256_max_ps(r, c.lo));  // >= 2^31 gives 0x80000000: fixed below
      __m256i above = AsInt(_mm256_cmp_ps(r, c.hi, _CMP_GE_OQ));
      if constexpr (O == OutOfRange::kClamp) {
        *declined = nonfinite;
        v = Blend(_mm256_and_si256(v, c.mask), c.hi_bits, above);  // below lo: max gave lo
        return v;
      } else {
        __m256i below = AsInt(_mm256_cmp_ps(r, c.lo, _CMP_LT_OQ));
        *declined = _mm256_or_si256(nonfinite, _mm256_or_si256(above, below));
        return _mm256_and_si256(v, c.mask);
      }
    }
  }
};

// Float format facts for the narrowing converters (float32 lanes -> a narrower float).
struct NarrowParams {
  std::uint32_t mant_bits;      // M
  std::uint32_t bias_offset;    // 128 - bias
  std::uint32_t max_bits;       // encoding of max finite
  std::uint32_t sign_bit;       // 1 << (E + M)
  bool has_neg_zero;
  std::uint32_t nan_bits;       // canonical NaN without sign
  std::uint32_t nan_sign;       // sign_bit where NaN keeps its sign (IEEE), else 0
  bool nan_ok, inf_ok;          // the target has NaN / Inf
  std::uint32_t inf_bits;
  std::uint32_t clamp_bits;     // R1: Inf where the target has it, else max finite (R2)
};

// float32 lanes -> any float of lower precision except float8_e8m0fnu (float16, bfloat16, the
// float8s, float6, float4), any rounding mode, by integer arithmetic on the bit pattern: the
// vectorised form of NarrowFloatFor in kernels.cc. With ef the biased exponent (1 for
// subnormals), t = ef - (128 - bias): the target quantum is (max(t, 0) + qmin), the number of
// dropped bits is 23 - M + max(-t, 0) (capped at 31: beyond 24 everything is below half a
// quantum), and the encoding is (max(t, 0) << M) + the rounded significand, carries into the
// exponent field included. One compare with max's encoding is the range check.
template <Rounding R, OutOfRange O>
struct F32ToNarrow {
  using Params = NarrowParams;
  struct Consts {
    __m256i m, m_shift, bias_offset, max_bits, sign_bit, nan_value_sign, nan_bits, nan_bad, inf_bad,
        inf_bits, clamp_bits, zero_sign_mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {Set1(p.mant_bits), Set1(23 - p.mant_bits), Set1(p.bias_offset), Set1(p.max_bits),
            Set1(p.sign_bit), Set1(p.nan_sign), Set1(p.nan_bits), Set1(p.nan_ok ? 0u : ~0u),
            Set1(p.inf_ok ? 0u : ~0u), Set1(p.inf_bits), Set1(p.clamp_bits),
            Set1(p.has_neg_zero ? ~0u : 0u)};
  }
  static __m256i Convert(const Consts& c, __m256 x, __m256i* declined) {
    const __m256i zero = _mm256_setzero_si256(), one = Set1(1);
    __m256i bits = AsInt(x);
    __m256i a = AbsBits(x);
    __m256i neg = _mm256_srai_epi32(bits, 31);
    __m256i ef = _mm256_srli_epi32(a, 23);
    __m256i ef_eff = _mm256_max_epi32(ef, one);
    __m256i mag = _mm256_or_si256(_mm256_and_si256(a, Set1(0x7FFFFFu)),
                                  _mm256_andnot_si256(_mm256_cmpeq_epi32(ef, zero), Set1(0x800000u)));
    __m256i t = _mm256_sub_epi32(ef_eff, c.bias_offset);
    __m256i qq = _mm256_max_epi32(t, zero);
    __m256i shift = _mm256_min_epi32(
        _mm256_add_epi32(c.m_shift, _mm256_max_epi32(_mm256_sub_epi32(zero, t), zero)), Set1(31));
    __m256i kept = _mm256_srlv_epi32(mag, shift);
    __m256i up;
    if constexpr (R == Rounding::kTowardsZero) {
      up = zero;
    } else {
      __m256i rem = _mm256_and_si256(mag, _mm256_sub_epi32(_mm256_sllv_epi32(one, shift), one));
      if constexpr (R == Rounding::kTowardsPositive) {
        up = _mm256_andnot_si256(neg, _mm256_cmpgt_epi32(rem, zero));
      } else if constexpr (R == Rounding::kTowardsNegative) {
        up = _mm256_and_si256(neg, _mm256_cmpgt_epi32(rem, zero));
      } else {
        __m256i half = _mm256_sllv_epi32(one, _mm256_sub_epi32(shift, one));
        if constexpr (R == Rounding::kNearestAway) {
          up = _mm256_xor_si256(_mm256_cmpgt_epi32(half, rem), AllOnes());  // rem >= half
        } else {
          __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(kept, one), one);
          up = _mm256_or_si256(_mm256_cmpgt_epi32(rem, half),
                               _mm256_and_si256(_mm256_cmpeq_epi32(rem, half), odd));
        }
      }
    }
    __m256i enc = _mm256_add_epi32(_mm256_sllv_epi32(qq, c.m), _mm256_sub_epi32(kept, up));
    // R8: a zero keeps its sign only where the target has -0 (fnuz: 0x00).
    __m256i sign_lanes = _mm256_and_si256(
        neg, _mm256_or_si256(c.zero_sign_mask, _mm256_xor_si256(_mm256_cmpeq_epi32(enc, zero), AllOnes())));
    __m256i sign = _mm256_and_si256(sign_lanes, c.sign_bit);
    __m256i res = _mm256_or_si256(enc, sign);
    __m256i nonfinite = IsNonFinite(a);
    __m256i out = _mm256_andnot_si256(nonfinite, _mm256_cmpgt_epi32(enc, c.max_bits));
    // Specials (R3): NaN -> canonical NaN (IEEE keeps the sign), Inf -> Inf; errors where absent.
    __m256i nan = IsNaN(a), inf = IsInf(a);
    res = Blend(res, _mm256_or_si256(_mm256_and_si256(neg, c.nan_value_sign), c.nan_bits), nan);
    res = Blend(res, _mm256_or_si256(_mm256_and_si256(neg, c.sign_bit), c.inf_bits), inf);
    __m256i bad = _mm256_or_si256(_mm256_and_si256(nan, c.nan_bad), _mm256_and_si256(inf, c.inf_bad));
    if constexpr (O == OutOfRange::kClamp) {
      res = Blend(res, _mm256_or_si256(_mm256_and_si256(neg, c.sign_bit), c.clamp_bits), out);
      *declined = bad;
    } else {
      *declined = _mm256_or_si256(bad, out);
    }
    return res;
  }
};

// float32 lanes -> bfloat16, any mode: bfloat16 is float32 with the low 16 bits dropped, so
// rounding is one add to the magnitude's bit pattern before the shift (nearest-even: 0x7FFF plus
// the lowest kept bit; nearest-away: 0x8000; towards +-inf: 0xFFFF on the matching sign), exact
// for subnormals too (same exponent range); a carry may run into the exponent field and to
// 0x7F80, which is beyond max: out of range (R1).
template <Rounding R, OutOfRange O>
struct F32ToBf16 {
  struct Params {};
  struct Consts {};
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, __m256i* declined) {
    __m256i bits = AsInt(x);
    __m256i a = AbsBits(x);
    __m256i neg = _mm256_srai_epi32(bits, 31);
    __m256i add;
    if constexpr (R == Rounding::kNearestEven)
      add = _mm256_add_epi32(Set1(0x7FFF), _mm256_and_si256(_mm256_srli_epi32(a, 16), Set1(1)));
    else if constexpr (R == Rounding::kNearestAway) add = Set1(0x8000);
    else if constexpr (R == Rounding::kTowardsZero) add = _mm256_setzero_si256();
    else if constexpr (R == Rounding::kTowardsPositive) add = _mm256_andnot_si256(neg, Set1(0xFFFF));
    else add = _mm256_and_si256(neg, Set1(0xFFFF));
    __m256i mag = _mm256_srli_epi32(_mm256_add_epi32(a, add), 16);
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), Set1(0x8000));
    __m256i res = _mm256_or_si256(mag, sign);
    __m256i nonfinite = IsNonFinite(a);
    __m256i out = _mm256_andnot_si256(nonfinite, _mm256_cmpgt_epi32(mag, Set1(0x7F7F)));
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7FC0)), IsNaN(a));
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7F80)), IsInf(a));
    if constexpr (O == OutOfRange::kClamp) {
      res = Blend(res, _mm256_or_si256(sign, Set1(0x7F80)), out);
      *declined = _mm256_setzero_si256();
    } else {
      *declined = out;
    }
    return res;
  }
};

// float32 lanes -> float16 with F16C. vcvtps2ph is exact in the four IEEE modes, subnormal
// results included. Nearest-away is nearest-even plus one unit where x lies exactly halfway and
// nearest-even kept the even (truncated) candidate: with d dropped significand bits
// (13 for float16 normals, 126 - ef below 2^-14, capped at 25 where no tie is possible), a tie is
// low d bits == 1 << (d - 1), and the kept candidate is even when bit d is 0.
// R1: the rounded value is beyond max exactly when |x| >= 65536 or the hardware gives +-Inf (it
// gives +-max instead of Inf in directed modes only for |x| >= 65536).
template <Rounding R, OutOfRange O>
struct F32ToF16 {
  struct Params {};
  struct Consts {};
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, __m256i* declined) {
    constexpr int kImm = R == Rounding::kTowardsZero       ? _MM_FROUND_TO_ZERO
                         : R == Rounding::kTowardsPositive ? _MM_FROUND_TO_POS_INF
                         : R == Rounding::kTowardsNegative ? _MM_FROUND_TO_NEG_INF
                                                           : _MM_FROUND_TO_NEAREST_INT;
    __m256i y = _mm256_cvtepu16_epi32(_mm256_cvtps_ph(x, kImm));
    __m256i bits = AsInt(x);
    __m256i a = AbsBits(x);
    if constexpr (R == Rounding::kNearestAway) {
      const __m256i one = Set1(1);
      __m256i ef = _mm256_srli_epi32(a, 23);
      __m256i d = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(Set1(126), ef), Set1(13)), Set1(25));
      __m256i sig = _mm256_or_si256(_mm256_and_si256(a, Set1(0x7FFFFFu)), Set1(0x800000u));
      __m256i rem = _mm256_and_si256(sig, _mm256_sub_epi32(_mm256_sllv_epi32(one, d), one));
      __m256i tie = _mm256_cmpeq_epi32(rem, _mm256_sllv_epi32(one, _mm256_sub_epi32(d, one)));
      __m256i even = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_srlv_epi32(sig, d), one), _mm256_setzero_si256());
      y = _mm256_sub_epi32(y, _mm256_and_si256(tie, even));  // +1 on the magnitude
    }
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), Set1(0x8000));
    __m256i nonfinite = IsNonFinite(a);
    __m256i beyond = _mm256_or_si256(_mm256_cmpgt_epi32(a, Set1(0x477FFFFFu)),
                                     _mm256_cmpgt_epi32(_mm256_and_si256(y, Set1(0x7FFF)), Set1(0x7BFF)));
    __m256i out = _mm256_andnot_si256(nonfinite, beyond);
    __m256i res = Blend(y, _mm256_or_si256(sign, Set1(0x7E00)), IsNaN(a));  // R3: canonical NaN
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7C00)), IsInf(a));
    if constexpr (O == OutOfRange::kClamp) {
      res = Blend(res, _mm256_or_si256(sign, Set1(0x7C00)), out);
      *declined = _mm256_setzero_si256();
    } else {
      *declined = out;
    }
    return res;
  }
};

// float32 lanes -> float32: the value as is, NaN canonicalised (R3: quiet NaN, sign kept,
// payload dropped). Used for float16 and bfloat16 sources (and float32 -> float32).
struct F32Canonical {
  struct Params {};
  struct Consts {};
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256 x, __m256i* declined) {
    __m256i bits = AsInt(x);
    __m256i sign = _mm256_and_si256(bits, Set1(0x80000000u));
    *declined = _mm256_setzero_si256();
    return Blend(bits, _mm256_or_si256(sign, Set1(0x7FC00000u)), IsNaN(AbsBits(x)));
  }
};

template <class Loader, class Conv, std::size_t kDst>
struct FloatLanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr std::size_t kDstSize = kDst;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) { return {Conv::MakeConsts(p.conv), &p.map}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i r[4];
    std::uint32_t declined = 0;
    for (int j = 0; j < 4; ++j) {
      __m256 x = Loader::Load(in + j * 8 * kSrcSize);
      __m256i d;
      r[j] = Conv::Convert(c.conv, x, &d);
      if (c.map->n) {
        __m256i nan = c.map->has_nan_key ? AsInt(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) : _mm256_setzero_si256();
        ApplyMap32(*c.map, AsInt(x), nan, &r[j], &d);
      }
      declined |= MaskBits(d) << (8 * j);
    }
    Store<kDstSize>(out, r);
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

// int32 lanes -> an integer type of <= 32 bits: a range check, clamp by min/max, wrap by the mask.
struct IntRangeParams {
  std::int32_t lo, hi;
  std::uint32_t mask;
};
template <OutOfRange O>
struct IntToInt {
  using Params = IntRangeParams;
  struct Consts {
    __m256i lo, hi, mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_epi32(p.lo), _mm256_set1_epi32(p.hi), Set1(p.mask)};
  }
  static __m256i Convert(const Consts& c, __m256i v, __m256i* declined) {
    if constexpr (O == OutOfRange::kClamp) {
      *declined = _mm256_setzero_si256();
      return _mm256_and_si256(_mm256_min_epi32(_mm256_max_epi32(v, c.lo), c.hi), c.mask);
    } else if constexpr (O == OutOfRange::kWrap) {
      *declined = _mm256_setzero_si256();
      return _mm256_and_si256(v, c.mask);
    } else {
      *declined = _mm256_or_si256(_mm256_cmpgt_epi32(c.lo, v), _mm256_cmpgt_epi32(v, c.hi));
      return _mm256_and_si256(v, c.mask);
    }
  }
};

// int32 lanes -> float32. vcvtdq2ps rounds to nearest-even, which is every mode's answer when
// |v| <= 2^24 (exact); beyond that only nearest-even is decided here (kAny = false declines).
template <bool kAnyExact>
struct IntToF32 {
  struct Params {};
  struct Consts {};
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i Convert(const Consts&, __m256i v, __m256i* declined) {
    if constexpr (kAnyExact) {
      *declined = _mm256_setzero_si256();
    } else {
      *declined = _mm256_or_si256(_mm256_cmpgt_epi32(v, Set1(1u << 24)),
                                  _mm256_cmpgt_epi32(Set1(static_cast<std::uint32_t>(-(1 << 24))), v));
    }
    return AsInt(_mm256_cvtepi32_ps(v));
  }
};

// A float8 (or float6/float4) encoding in an int32 lane -> float32 bits, exactly: normal values
// move their exponent and mantissa fields (exponent rebiased by 127 - bias); subnormals are
// mantissa * 2^qmin, an exact product of small integers and powers of two in float32; then the
// sign, and the specials: IEEE-like Inf/NaN (exponent field all ones), fnuz NaN 0x80 (R3: float32's
// quiet NaN, sign kept for IEEE-like sources, none for fnuz).
struct Float8Params {
  std::uint32_t value_mask, mag_mask, mant_bits, sign_shift;  // sign_shift = 31 - (E + M)
  std::uint32_t rebias;                                        // (127 - bias) << 23
  float sub_scale;                                             // 2^qmin
  std::int32_t special_exp;  // exponent field of Inf/NaN (IEEE-like), else -1
  std::int32_t fnuz_nan;     // 0x80 for fnuz types, else -1
};
struct Float8ToF32 {
  using Params = Float8Params;
  struct Consts {
    __m256i value_mask, mag_mask, mant_mask, rebias, special_exp, fnuz_nan;
    __m128i mant_bits, sign_shift, f32_shift;
    __m256 sub_scale;
  };
  static Consts MakeConsts(const Params& p) {
    return {Set1(p.value_mask),
            Set1(p.mag_mask),
            Set1((1u << p.mant_bits) - 1),
            Set1(p.rebias),
            _mm256_set1_epi32(p.special_exp),
            _mm256_set1_epi32(p.fnuz_nan),
            _mm_cvtsi32_si128(static_cast<int>(p.mant_bits)),
            _mm_cvtsi32_si128(static_cast<int>(p.sign_shift)),
            _mm_cvtsi32_si128(static_cast<int>(23 - p.mant_bits)),
            _mm256_set1_ps(p.sub_scale)};
  }
  static __m256i Convert(const Consts& c, __m256i v, __m256i* declined) {
    *declined = _mm256_setzero_si256();
    __m256i s = _mm256_and_si256(v, c.value_mask);
    __m256i mag = _mm256_and_si256(s, c.mag_mask);
    __m256i ef = _mm256_srl_epi32(mag, c.mant_bits);
    __m256i normal = _mm256_add_epi32(_mm256_sll_epi32(mag, c.f32_shift), c.rebias);
    __m256i sub = AsInt(_mm256_mul_ps(_mm256_cvtepi32_ps(mag), c.sub_scale));
    __m256i res = Blend(normal, sub, _mm256_cmpeq_epi32(ef, _mm256_setzero_si256()));
    __m256i sign = _mm256_and_si256(_mm256_sll_epi32(s, c.sign_shift), Set1(0x80000000u));
    res = _mm256_or_si256(res, sign);
    __m256i special = _mm256_cmpeq_epi32(ef, c.special_exp);
    __m256i mant_zero = _mm256_cmpeq_epi32(_mm256_and_si256(mag, c.mant_mask), _mm256_setzero_si256());
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7F800000u)), _mm256_and_si256(special, mant_zero));
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7FC00000u)), _mm256_andnot_si256(mant_zero, special));
    res = Blend(res, Set1(0x7FC00000u), _mm256_cmpeq_epi32(s, c.fnuz_nan));
    return res;
  }
};

template <class Loader, class Conv, std::size_t kDst>
struct IntLanes {
  static constexpr std::size_t kSrcSize = Loader::kSize;
  static constexpr std::size_t kDstSize = kDst;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;  // equality keys only (int32 lane values)
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) { return {Conv::MakeConsts(p.conv), &p.map}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i r[4];
    std::uint32_t declined = 0;
    for (int j = 0; j < 4; ++j) {
      __m256i v = Loader::Load(in + j * 8 * kSrcSize);
      __m256i d;
      r[j] = Conv::Convert(c.conv, v, &d);
      if (c.map->n) ApplyMap32(*c.map, v, _mm256_setzero_si256(), &r[j], &d);
      declined |= MaskBits(d) << (8 * j);
    }
    Store<kDstSize>(out, r);
    return declined;
  }
};

// ===================================================================================
// float64 sources: two vectors of 4 doubles give one vector of 8 x 32-bit results.
// ===================================================================================

inline __m256i AbsBits64(__m256d x) {
  return _mm256_and_si256(_mm256_castpd_si256(x), _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
}
inline __m256i IsNonFinite64(__m256i abs_bits) {
  return _mm256_cmpgt_epi64(abs_bits, _mm256_set1_epi64x(0x7FEFFFFFFFFFFFFFll));
}
inline __m256i IsNaN64(__m256i abs_bits) {
  return _mm256_cmpgt_epi64(abs_bits, _mm256_set1_epi64x(0x7FF0000000000000ll));
}

template <Rounding R>
inline __m256d RoundF64(__m256d x) {  // as RoundF32
  if constexpr (R == Rounding::kNearestEven) return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsZero) return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsPositive) return _mm256_round_pd(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  else if constexpr (R == Rounding::kTowardsNegative) return _mm256_round_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  else {
    __m256d t = _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256d d = _mm256_and_pd(_mm256_sub_pd(x, t), _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll)));
    __m256d ge = _mm256_cmp_pd(d, _mm256_set1_pd(0.5), _CMP_GE_OQ);
    __m256d one = _mm256_or_pd(_mm256_and_pd(x, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
    return _mm256_add_pd(t, _mm256_and_pd(ge, one));
  }
}

// The integer value of an integral double modulo 2^64: the significand shifted by
// (exponent - 52) either way; vpsllvq/vpsrlvq give 0 for counts >= 64 (the right residue, and
// the right value for +-0 once the implicit bit is dropped there).
inline __m256i IntegralToInt64(__m256d r) {
  __m256i rb = _mm256_castpd_si256(r);
  __m256i ef = _mm256_srli_epi64(_mm256_slli_epi64(rb, 1), 53);
  __m256i m = _mm256_or_si256(_mm256_and_si256(rb, _mm256_set1_epi64x(0xFFFFFFFFFFFFFll)),
                              _mm256_set1_epi64x(1ll << 52));
  m = _mm256_andnot_si256(_mm256_cmpeq_epi64(ef, _mm256_setzero_si256()), m);
  __m256i e = _mm256_sub_epi64(ef, _mm256_set1_epi64x(1075));
  __m256i v = _mm256_or_si256(_mm256_sllv_epi64(m, e), _mm256_srlv_epi64(m, _mm256_sub_epi64(_mm256_setzero_si256(), e)));
  __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), rb);
  return _mm256_sub_epi64(_mm256_xor_si256(v, neg), neg);
}

// float64 -> integer of <= 32 bits (not uint32): as F32ToInt, with vcvtpd2dq.
struct IntParams64 {
  double lo, hi;
  std::uint32_t hi_bits, mask;
};
template <Rounding R, OutOfRange O>
struct F64ToInt {
  using Params = IntParams64;
  struct Consts {
    __m256d lo, hi;
    __m256i hi_bits, mask;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_pd(p.lo), _mm256_set1_pd(p.hi), Set1(p.hi_bits), Set1(p.mask)};
  }
  static __m256i ConvertPair(const Consts& c, __m256d xa, __m256d xb, __m256i* declined) {
    __m256i nonfinite = NarrowTo32(IsNonFinite64(AbsBits64(xa)), IsNonFinite64(AbsBits64(xb)));
    __m256d ra = RoundF64<R>(xa), rb = RoundF64<R>(xb);
    if constexpr (O == OutOfRange::kWrap) {
      *declined = nonfinite;
      return _mm256_and_si256(NarrowTo32(IntegralToInt64(ra), IntegralToInt64(rb)), c.mask);
    } else {
      __m128i va = _mm256_cvtpd_epi32(_mm256_max_pd(ra, c.lo));
      __m128i vb = _mm256_cvtpd_epi32(_mm256_max_pd(rb, c.lo));
      __m256i v = _mm256_and_si256(_mm256_set_m128i(vb, va), c.mask);
      __m256i above = NarrowTo32(_mm256_castpd_si256(_mm256_cmp_pd(ra, c.hi, _CMP_GE_OQ)),
                                 _mm256_castpd_si256(_mm256_cmp_pd(rb, c.hi, _CMP_GE_OQ)));
      if constexpr (O == OutOfRange::kClamp) {
        *declined = nonfinite;
        return Blend(v, c.hi_bits, above);
      } else {
        __m256i below = NarrowTo32(_mm256_castpd_si256(_mm256_cmp_pd(ra, c.lo, _CMP_LT_OQ)),
                                   _mm256_castpd_si256(_mm256_cmp_pd(rb, c.lo, _CMP_LT_OQ)));
        *declined = _mm256_or_si256(nonfinite, _mm256_or_si256(above, below));
        return v;
      }
    }
  }
};

// float64 -> float32, any mode. vcvtpd2ps gives y = nearest-even (subnormals included, FTZ off);
// b = (double)y is exact. If b != x, the other candidate is y one unit further from zero
// (|b| < |x|) or nearer to zero (|b| > |x|), so both neighbours of x are known and each mode picks
// one: towards-zero the smaller magnitude, towards +-inf by the sign, nearest-away the larger
// magnitude at a tie (2|x| == |b| + |other|, exact sums of two floats in double) and y otherwise.
// R1: the result is beyond max when it is Inf or |x| >= 2^128 (towards-zero would give max).
template <Rounding R, OutOfRange O>
struct F64ToF32 {
  struct Params {};
  struct Consts {};
  static Consts MakeConsts(const Params&) { return {}; }
  static __m256i ConvertHalf(__m256d x) {  // 4 lanes, result bits in the low 128 of a __m256i
    __m128 y = _mm256_cvtpd_ps(x);
    if constexpr (R == Rounding::kNearestEven) {
      return _mm256_castsi128_si256(_mm_castps_si128(y));
    } else {
      __m256d b = _mm256_cvtps_pd(y);
      const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
      __m256d ax = _mm256_and_pd(x, abs_mask), ab = _mm256_and_pd(b, abs_mask);
      __m128i yi = _mm_castps_si128(y);
      // Per lane (as 4 x 32): step = +1 when |b| < |x| (other is further from zero), -1 when
      // |b| > |x|, 0 when exact.
      __m128i below = _mm256_cvtpd_epi32(_mm256_and_pd(_mm256_cmp_pd(ab, ax, _CMP_LT_OQ), _mm256_set1_pd(1.0)));
      __m128i above = _mm256_cvtpd_epi32(_mm256_and_pd(_mm256_cmp_pd(ab, ax, _CMP_GT_OQ), _mm256_set1_pd(1.0)));
      __m128i other = _mm_sub_epi32(_mm_add_epi32(yi, below), above);
      // lower/upper magnitude candidates
      __m128i lower = _mm_blendv_epi8(yi, other, _mm_cmpgt_epi32(above, _mm_setzero_si128()));
      __m128i upper = _mm_blendv_epi8(yi, other, _mm_cmpgt_epi32(below, _mm_setzero_si128()));
      __m128i pick;
      if constexpr (R == Rounding::kTowardsZero) {
        pick = lower;
      } else if constexpr (R == Rounding::kTowardsPositive || R == Rounding::kTowardsNegative) {
        __m128i neg = _mm_srai_epi32(yi, 31);  // y has x's sign (also +-0 and +-Inf)
        pick = R == Rounding::kTowardsPositive ? _mm_blendv_epi8(upper, lower, neg)
                                               : _mm_blendv_epi8(lower, upper, neg);
      } else {  // nearest-away
        __m256d bo = _mm256_and_pd(_mm256_cvtps_pd(_mm_castsi128_ps(other)), abs_mask);
        __m256d tie = _mm256_cmp_pd(_mm256_add_pd(ax, ax), _mm256_add_pd(ab, bo), _CMP_EQ_OQ);
        __m128i tie32 = _mm256_cvtpd_epi32(_mm256_and_pd(tie, _mm256_set1_pd(1.0)));
        pick = _mm_blendv_epi8(yi, upper, _mm_cmpgt_epi32(tie32, _mm_setzero_si128()));
      }
      return _mm256_castsi128_si256(pick);
    }
  }
  static __m256i ConvertPair(const Consts&, __m256d xa, __m256d xb, __m256i* declined) {
    __m256i res = _mm256_inserti128_si256(ConvertHalf(xa), _mm256_castsi256_si128(ConvertHalf(xb)), 1);
    __m256i aa = AbsBits64(xa), ab = AbsBits64(xb);
    __m256i nonfinite = NarrowTo32(IsNonFinite64(aa), IsNonFinite64(ab));
    __m256i nan = NarrowTo32(IsNaN64(aa), IsNaN64(ab));
    __m256i huge = NarrowTo32(_mm256_cmpgt_epi64(aa, _mm256_set1_epi64x(0x47EFFFFFFFFFFFFFll)),
                              _mm256_cmpgt_epi64(ab, _mm256_set1_epi64x(0x47EFFFFFFFFFFFFFll)));  // >= 2^128
    __m256i sign = _mm256_and_si256(res, Set1(0x80000000u));
    __m256i rmag = _mm256_and_si256(res, Set1(0x7FFFFFFFu));
    __m256i out = _mm256_andnot_si256(nonfinite, _mm256_or_si256(huge, _mm256_cmpgt_epi32(rmag, Set1(0x7F7FFFFFu))));
    // Inf -> Inf comes out of vcvtpd2ps with its sign; NaN -> canonical (R3).
    res = Blend(res, _mm256_or_si256(sign, Set1(0x7FC00000u)), nan);
    if constexpr (R != Rounding::kNearestEven) {
      __m256i inf = _mm256_andnot_si256(nan, nonfinite);
      res = Blend(res, _mm256_or_si256(sign, Set1(0x7F800000u)), inf);
    }
    if constexpr (O == OutOfRange::kClamp) {
      res = Blend(res, _mm256_or_si256(sign, Set1(0x7F800000u)), out);
      *declined = _mm256_setzero_si256();
    } else {
      *declined = out;
    }
    return res;
  }
};

template <class Conv, std::size_t kDst>
struct F64Lanes {
  static constexpr std::size_t kSrcSize = 8;
  static constexpr std::size_t kDstSize = kDst;
  struct Params {
    typename Conv::Params conv;
    VectorMap map;  // float64 bit patterns (NaN keys by test)
  };
  struct Consts {
    typename Conv::Consts conv;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) { return {Conv::MakeConsts(p.conv), &p.map}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    __m256i r[4];
    std::uint32_t declined = 0;
    for (int j = 0; j < 4; ++j) {
      __m256d xa = _mm256_loadu_pd(reinterpret_cast<const double*>(in + 64 * j));
      __m256d xb = _mm256_loadu_pd(reinterpret_cast<const double*>(in + 64 * j + 32));
      __m256i d;
      r[j] = Conv::ConvertPair(c.conv, xa, xb, &d);
      if (c.map->n) {
        // Keys compared in 64-bit lanes, then narrowed to the 32-bit result lanes.
        for (int k = c.map->n - 1; k >= 0; --k) {
          __m256i ma, mb;
          if (c.map->nan_key[k]) {
            ma = IsNaN64(AbsBits64(xa));
            mb = IsNaN64(AbsBits64(xb));
          } else {
            __m256i key = _mm256_set1_epi64x(static_cast<long long>(c.map->key[k]));
            ma = _mm256_cmpeq_epi64(_mm256_castpd_si256(xa), key);
            mb = _mm256_cmpeq_epi64(_mm256_castpd_si256(xb), key);
          }
          __m256i m = NarrowTo32(ma, mb);
          r[j] = Blend(r[j], Set1(static_cast<std::uint32_t>(c.map->value[k])), m);
          d = _mm256_andnot_si256(m, d);
        }
      }
      declined |= MaskBits(d) << (8 * j);
    }
    Store<kDstSize>(out, r);
    return declined;
  }
};

// float64 -> int64 / uint64 (64-bit lanes, 4 per vector, 8 vectors per block): rounded value in
// range [lo, hi) converted by IntegralToInt64 (AVX2 has no double -> int64 conversion).
struct Int64Params {
  double lo, hi;
  std::uint64_t lo_bits, hi_bits;
};
template <Rounding R, OutOfRange O>
struct F64ToInt64Lanes {
  static constexpr std::size_t kSrcSize = 8;
  static constexpr std::size_t kDstSize = 8;
  struct Params {
    Int64Params conv;
    VectorMap map;
  };
  struct Consts {
    __m256d lo, hi;
    __m256i lo_bits, hi_bits;
    const VectorMap* map;
  };
  static Consts MakeConsts(const Params& p) {
    return {_mm256_set1_pd(p.conv.lo), _mm256_set1_pd(p.conv.hi),
            _mm256_set1_epi64x(static_cast<long long>(p.conv.lo_bits)),
            _mm256_set1_epi64x(static_cast<long long>(p.conv.hi_bits)), &p.map};
  }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    std::uint32_t declined = 0;
    for (int j = 0; j < 8; ++j) {
      __m256d x = _mm256_loadu_pd(reinterpret_cast<const double*>(in + 32 * j));
      __m256i abs = AbsBits64(x);
      __m256i nonfinite = IsNonFinite64(abs);
      __m256d r = RoundF64<R>(x);
      __m256i v = IntegralToInt64(r);
      __m256i d;
      if constexpr (O == OutOfRange::kWrap) {
        d = nonfinite;
      } else {
        __m256i below = _mm256_castpd_si256(_mm256_cmp_pd(r, c.lo, _CMP_LT_OQ));
        __m256i above = _mm256_castpd_si256(_mm256_cmp_pd(r, c.hi, _CMP_GE_OQ));
        if constexpr (O == OutOfRange::kClamp) {
          v = Blend(Blend(v, c.lo_bits, below), c.hi_bits, above);
          d = nonfinite;
        } else {
          d = _mm256_or_si256(nonfinite, _mm256_or_si256(below, above));
        }
      }
      if (c.map->n) ApplyMap64(*c.map, _mm256_castpd_si256(x), IsNaN64(abs), &v, &d);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * j), v);
      declined |= static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(d))) << (4 * j);
    }
    return declined;
  }
};

// ===================================================================================
// 8-bit -> 8-bit: the 256-entry table (filled by the reference path at bind time) looked up 32
// bytes at a time: AVX2 has no 256-byte permute, so the table is 16 rows of 16 bytes, each row
// looked up with vpshufb on the low nibble and selected where the high nibble matches. The
// entries that fail are a 256-bit bitmap looked up the same way (byte x >> 3, bit x & 7).
// ===================================================================================

struct Table8 {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  struct Params {
    alignas(32) std::uint8_t rows[16][32];  // each 16-byte row twice (vpshufb works per 128 bits)
    alignas(32) std::uint8_t bad_lo[32], bad_hi[32];  // bitmap bytes 0-15 and 16-31, twice
    bool any_bad;
  };
  struct Consts {
    const Params* p;
  };
  static Consts MakeConsts(const Params& p) { return {&p}; }
  static std::uint32_t Block(const Consts& c, const unsigned char* in, unsigned char* out) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    __m256i lo = _mm256_and_si256(x, low4);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low4);
    __m256i r = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      __m256i row = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.p->rows[h]));
      r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(row, lo), _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(h))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), r);
    if (!c.p->any_bad) return 0;
    __m256i byte_idx = _mm256_and_si256(_mm256_srli_epi16(x, 3), _mm256_set1_epi8(0x1F));
    __m256i blo = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(c.p->bad_lo)), byte_idx);
    __m256i bhi = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(c.p->bad_hi)), byte_idx);
    __m256i upper = _mm256_cmpgt_epi8(byte_idx, _mm256_set1_epi8(15));
    __m256i byte = _mm256_blendv_epi8(blo, bhi, upper);
    const __m256i bit_table = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
                                               1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
    __m256i bit = _mm256_shuffle_epi8(bit_table, _mm256_and_si256(x, _mm256_set1_epi8(7)));
    __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), _mm256_setzero_si256());
    return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(clear));
  }
};

std::unique_ptr<const Kernel> MakeTable8(const Direction& dir) {
  Table8::Params p{};
  std::uint8_t bitmap[32] = {};
  for (unsigned s = 0; s < 256; ++s) {
    CastOutcome r = ConvertScalar(dir, s);
    p.rows[s >> 4][s & 15] = p.rows[s >> 4][16 + (s & 15)] = static_cast<std::uint8_t>(r.bits);
    if (r.error != CastError::kNone) {
      bitmap[s >> 3] |= static_cast<std::uint8_t>(1u << (s & 7));
      p.any_bad = true;
    }
  }
  for (int i = 0; i < 16; ++i) {
    p.bad_lo[i] = p.bad_lo[16 + i] = bitmap[i];
    p.bad_hi[i] = p.bad_hi[16 + i] = bitmap[16 + i];
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
enum class KeyRep { kFloat32Bits, kInt32Value, kFloat64Bits };
bool BuildMap(const Direction& dir, KeyRep rep, VectorMap* map) {
  if (dir.map.size() > static_cast<std::size_t>(kMaxVectorKeys)) return false;
  const TypeInfo& s = Info(dir.src);
  for (const auto& [key, value] : dir.map) {
    int k = map->n++;
    map->value[k] = value;
    if (IsNaNBits(dir.src, key)) {
      if (rep == KeyRep::kInt32Value) return false;  // a NaN key of an 8-bit float: table path
      map->nan_key[k] = true;
      map->has_nan_key = true;
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
      case KeyRep::kFloat64Bits: map->key[k] = key; break;
    }
  }
  return true;
}

// Effective out_of_range: wrap into a float destination acts as unset (R4).
OutOfRange Effective(const Direction& dir) {
  if (dir.out_of_range == OutOfRange::kWrap && !Info(dir.dst).is_int()) return OutOfRange::kUnset;
  return dir.out_of_range;
}

template <class Loader>
std::unique_ptr<const Kernel> FloatToIntegerKernel(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  IntParams ip;
  ip.lo = d.is_signed_int() ? -static_cast<float>(1ull << (d.bits - 1)) : 0.0f;
  ip.hi = static_cast<float>(1ull << (d.is_signed_int() ? d.bits - 1 : d.bits));
  std::uint64_t max = d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask();
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  ip.hi_bits = static_cast<std::uint32_t>(max);
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() -> std::unique_ptr<const Kernel> {
        using Fam = FloatLanes<Loader, F32ToInt<R, O>, kD>;
        typename Fam::Params p{ip, {}};
        if (!BuildMap(dir, KeyRep::kFloat32Bits, &p.map)) return nullptr;
        return Make<Fam>(dir, p, "avx2-float-to-int");
      });
    });
  });
}

NarrowParams NarrowFacts(const TypeInfo& d) {
  NarrowParams p;
  p.mant_bits = d.mant_bits;
  p.bias_offset = static_cast<std::uint32_t>(128 - d.bias);
  p.max_bits = static_cast<std::uint32_t>((static_cast<std::uint64_t>(d.max_biased_exp()) << d.mant_bits) |
                                          ((1ull << d.mant_bits) - 1));
  p.sign_bit = static_cast<std::uint32_t>(d.sign_bit());
  p.has_neg_zero = d.has_neg_zero();
  p.nan_ok = d.has_nan();
  p.nan_bits = static_cast<std::uint32_t>(d.canonical_nan());
  p.nan_sign = d.special == Special::Ieee ? p.sign_bit : 0;
  p.inf_ok = d.has_inf();
  p.inf_bits = static_cast<std::uint32_t>(d.positive_inf());
  p.clamp_bits = d.has_inf() ? p.inf_bits : p.max_bits;
  return p;
}

// Float sources whose values float32 holds exactly (float32, float16, bfloat16) to any type the
// float-lane converters cover.
template <class Loader>
std::unique_ptr<const Kernel> FromFloatLanes(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (d.is_int()) {
    if (d.bits > 32 || dir.dst == DataType::uint32) return nullptr;
    if (Loader::kSize == 2 && d.size == 4) return nullptr;  // rare: the table does it
    return FloatToIntegerKernel<Loader>(dir);
  }
  const OutOfRange oor = Effective(dir);
  auto with_map = [&]<class Fam>(typename Fam::Params p, const char* name) -> std::unique_ptr<const Kernel> {
    if (!BuildMap(dir, KeyRep::kFloat32Bits, &p.map)) return nullptr;
    return Make<Fam>(dir, p, name);
  };
  if (dir.dst == DataType::float32) {
    using Fam = FloatLanes<Loader, F32Canonical, 4>;
    return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-to-float32");
  }
  if (dir.dst == DataType::float16 && dir.src != DataType::float16) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithOutOfRange(oor == OutOfRange::kClamp ? oor : OutOfRange::kUnset, [&]<OutOfRange O>() {
        using Fam = FloatLanes<Loader, F32ToF16<R, O>, 2>;
        return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-f16c");
      });
    });
  }
  if (dir.dst == DataType::bfloat16 && dir.src != DataType::bfloat16) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithOutOfRange(oor == OutOfRange::kClamp ? oor : OutOfRange::kUnset, [&]<OutOfRange O>() {
        using Fam = FloatLanes<Loader, F32ToBf16<R, O>, 2>;
        return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-to-bfloat16");
      });
    });
  }
  if (d.size == 1 && d.special != Special::E8m0) {
    // float8, float6, float4: strictly fewer significand bits than every float lane source.
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithOutOfRange(oor == OutOfRange::kClamp ? oor : OutOfRange::kUnset, [&]<OutOfRange O>() {
        using Fam = FloatLanes<Loader, F32ToNarrow<R, O>, 1>;
        typename Fam::Params p{NarrowFacts(d), {}};
        return with_map.template operator()<Fam>(p, "avx2-narrow-float");
      });
    });
  }
  return nullptr;
}

template <class Loader>
std::unique_ptr<const Kernel> FromIntLanes(const Direction& dir, bool exact_in_float32) {
  const TypeInfo& d = Info(dir.dst);
  auto with_map = [&]<class Fam>(typename Fam::Params p, const char* name) -> std::unique_ptr<const Kernel> {
    if (!BuildMap(dir, KeyRep::kInt32Value, &p.map)) return nullptr;
    return Make<Fam>(dir, p, name);
  };
  if (dir.dst == DataType::float32) {
    if (exact_in_float32) {
      using Fam = IntLanes<Loader, IntToF32<true>, 4>;
      return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-int-to-float32");
    }
    using Fam = IntLanes<Loader, IntToF32<false>, 4>;
    if (dir.rounding == Rounding::kNearestEven) {
      using FamRne = IntLanes<Loader, IntToF32<true>, 4>;
      return with_map.template operator()<FamRne>(typename FamRne::Params{}, "avx2-int-to-float32");
    }
    return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-int-to-float32");
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
        return with_map.template operator()<Fam>(typename Fam::Params{ip, {}}, "avx2-int-to-int");
      });
    });
  }
  return nullptr;
}

std::unique_ptr<const Kernel> FromFloat8(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  Float8Params p;
  p.value_mask = static_cast<std::uint32_t>(s.value_mask());
  p.mag_mask = (1u << (s.exp_bits + s.mant_bits)) - 1;
  p.mant_bits = s.mant_bits;
  p.sign_shift = 31 - (s.exp_bits + s.mant_bits);
  p.rebias = static_cast<std::uint32_t>(127 - s.bias) << 23;
  p.sub_scale = std::ldexp(1.0f, s.min_quantum_exp());
  p.special_exp = s.special == Special::Ieee ? static_cast<std::int32_t>((1u << s.exp_bits) - 1) : -1;
  p.fnuz_nan = s.special == Special::Fnuz ? 0x80 : -1;
  using Fam = IntLanes<LoadU8, Float8ToF32, 4>;
  typename Fam::Params fp{p, {}};
  if (!BuildMap(dir, KeyRep::kInt32Value, &fp.map)) return nullptr;
  return Make<Fam>(dir, fp, "avx2-float8-to-float32");
}

std::unique_ptr<const Kernel> FromFloat64(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  auto with_map = [&]<class Fam>(typename Fam::Params p, const char* name) -> std::unique_ptr<const Kernel> {
    if (!BuildMap(dir, KeyRep::kFloat64Bits, &p.map)) return nullptr;
    return Make<Fam>(dir, p, name);
  };
  if (dir.dst == DataType::float32) {
    const OutOfRange oor = Effective(dir);
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithOutOfRange(oor == OutOfRange::kClamp ? oor : OutOfRange::kUnset, [&]<OutOfRange O>() {
        using Fam = F64Lanes<F64ToF32<R, O>, 4>;
        return with_map.template operator()<Fam>(typename Fam::Params{}, "avx2-float64-to-float32");
      });
    });
  }
  if (!d.is_int() || dir.dst == DataType::uint32) return nullptr;
  if (d.bits == 64) {
    Int64Params ip;
    ip.lo = d.is_signed_int() ? -0x1p63 : 0.0;
    ip.hi = d.is_signed_int() ? 0x1p63 : 0x1p64;
    ip.lo_bits = d.is_signed_int() ? 0x8000000000000000ull : 0;
    ip.hi_bits = d.is_signed_int() ? 0x7FFFFFFFFFFFFFFFull : ~0ull;
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        using Fam = F64ToInt64Lanes<R, O>;
        return with_map.template operator()<Fam>(typename Fam::Params{ip, {}}, "avx2-float64-to-int64");
      });
    });
  }
  IntParams64 ip;
  ip.lo = d.is_signed_int() ? -static_cast<double>(1ull << (d.bits - 1)) : 0.0;
  ip.hi = static_cast<double>(1ull << (d.is_signed_int() ? d.bits - 1 : d.bits));
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  ip.hi_bits = static_cast<std::uint32_t>(d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() {
        using Fam = F64Lanes<F64ToInt<R, O>, kD>;
        return with_map.template operator()<Fam>(typename Fam::Params{ip, {}}, "avx2-float-to-int");
      });
    });
  });
}

}  // namespace

std::unique_ptr<const Kernel> SelectKernelAvx2(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  switch (dir.src) {
    case DataType::float32: return FromFloatLanes<LoadF32>(dir);
    case DataType::float16: return FromFloatLanes<LoadF16>(dir);
    case DataType::bfloat16: return FromFloatLanes<LoadBF16>(dir);
    case DataType::float64: return FromFloat64(dir);
    case DataType::uint8: case DataType::int8: case DataType::uint16: case DataType::int16:
    case DataType::int32: {
      if (s.size == 1 && d.size == 1 && !d.is_int()) break;  // 8-bit -> 8-bit float: the table
      switch (dir.src) {
        case DataType::uint8: return FromIntLanes<LoadU8>(dir, true);
        case DataType::int8: return FromIntLanes<LoadI8>(dir, true);
        case DataType::uint16: return FromIntLanes<LoadU16>(dir, true);
        case DataType::int16: return FromIntLanes<LoadI16>(dir, true);
        default: return FromIntLanes<LoadI32>(dir, false);
      }
    }
    default: break;
  }
  // float8/float6/float4 -> float32 (a scalar_map on a sub-byte source would need the ignored
  // upper bits masked before the key compare: left to the table).
  if (s.size == 1 && s.kind == Kind::Float && s.special != Special::E8m0 &&
      dir.dst == DataType::float32 && (s.bits == 8 || dir.map.empty())) {
    if (auto k = FromFloat8(dir)) return k;
  }
  if (s.size == 1 && d.size == 1) return MakeTable8(dir);
  return nullptr;
}

}  // namespace zcast::internal
