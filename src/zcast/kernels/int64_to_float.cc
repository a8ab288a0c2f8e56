// int64 / uint64 -> float64 and float32, every rounding mode. To float64: one rounding in the run's FP environment (Int64ToF64);
// nearest-away, which no hardware mode gives, declines |v| > 2^53, where it could differ. To
// float32: through the exact double up to 2^53 and a rounding to odd above (LoadI64DOdd), then
// the one rounding of F64ToF32; with a scalar_map, the lanes must be the source values, so
// |v| > 2^53 is declined instead (LoadI64D). On SSE4/AVX2, without a scalar_map and in the four
// hardware modes, the common blocks convert element by element instead (Int64ToF32Scalar).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/int64_to_float.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/float64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {
namespace f64 {

// Raw int64 / uint64 lanes as loaded (Lanes64's Conv sees them as a float64 vector's bits).
struct LoadRaw64 {
  static constexpr std::size_t kSize = 8;
  static constexpr bool kMayDecline = false;
  static HWY_INLINE VF Load(const unsigned char* p, MF* bad) {
    *bad = hn::FirstN(DF(), 0);
    return hn::BitCast(DF(), hn::LoadU(DU(), reinterpret_cast<const std::uint64_t*>(p)));
  }
};

template <bool kSigned, Rounding R>
struct Int64ToF64Conv {
  struct Params {};
  static constexpr FpRounding kFpRounding = FpRoundingOf(R);
  static HWY_INLINE VU Convert(const Params&, VF raw, MF* declined) {
    VU v = hn::BitCast(DU(), raw);
    if constexpr (R == Rounding::kNearestAway) *declined = Int64Wide<kSigned>(v);
    else *declined = hn::FirstN(DF(), 0);
    return hn::BitCast(DU(), Int64ToF64<kSigned>(v));
  }
};

// int64 / uint64 -> float32 on x86 below AVX-512 (kX86NoInt64Convert), one element at a time in
// the common blocks. These targets have no vector int64 conversion, so the vector family builds
// each lane's double from its bits and rounds it to odd before the float32 rounding: 19.2
// (int64) and 16.4 (uint64) instructions per element on SSE4, 7.7 and 6.4 on AVX2. The scalar
// cvtsi2ss with a 64-bit source (a C++ cast of an int64: GCC emits that instruction, having no
// vector one without AVX-512DQ) rounds the integer to float32 once, in MXCSR's mode,
// which the run sets from kFpRounding (fp_env.h): the exact result in the four hardware modes,
// and +0 for 0 in each (an exact integer conversion gives no negative zero). This loop: 3.5 and
// 4.6 instructions per element on SSE4, 2.3 and 2.8 on AVX2 (callgrind), in cache 2-6x faster.
// uint64 has no unsigned conversion below AVX-512: a block whose values are all below 2^63 (the
// top bit of their OR clear: nearly every block of real data) converts them as int64; a block
// with one above goes through the vector block (Vec::FastBlock), exact and branch-free, since a
// test per element would be mispredicted on data where such values are frequent. The tail and a
// refused block run Vec::Block (the kernel tests check both paths against the exact engine).
// Nothing is declined: |v| <= 2^64 is far below float32's max, so neither R1's overflow nor the
// directed modes' max case arises. Nearest-away (no hardware mode) and scalar_map keep the
// vector family.
template <bool kSigned, Rounding R, OutOfRange O>
struct Int64ToF32Scalar : F64Lanes<LoadI64DOdd<kSigned>, F64ToF32<R, O>, 4> {
  using Vec = F64Lanes<LoadI64DOdd<kSigned>, F64ToF32<R, O>, 4>;
  using Consts = typename Vec::Consts;
  static_assert(R != Rounding::kNearestAway && Vec::kFpRounding == FpRoundingOf(R));
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    const Consts k = c;  // a local: the stores through `out` cannot alias it
    const std::size_t block = BlockElems64();
    for (std::size_t b = 0; b < blocks; ++b, in += 8 * block, out += 4 * block) {
      PrefetchBlockUpTo<kMaxBlock * 8, kMaxBlock * 4>(in, 8 * block, out, 4 * block);
      if constexpr (!kSigned) {
        if (HWY_UNLIKELY(AnyTopBit(in))) {
          if (HWY_UNLIKELY(!Vec::FastBlock(k, in, out))) return b;
          continue;
        }
      }
      // Unrolled: GCC unrolled SSE4's 16 elements but not AVX2's 32, and the loop's own three
      // instructions per element then outnumbered the conversion's (6.4 against 3.5 in all).
      HWY_UNROLL(32)
      for (std::size_t i = 0; i < block; ++i) {
        std::int64_t v;
        std::memcpy(&v, in + 8 * i, 8);
        const float f = static_cast<float>(v);
        std::memcpy(out + 4 * i, &f, 4);
      }
    }
    return blocks;
  }
  // Whether a value of the block is 2^63 or more (not an int64).
  static HWY_INLINE bool AnyTopBit(const unsigned char* in) {
    const DU du;
    const std::size_t n = hn::Lanes(du);
    VU any = hn::Zero(du);
    for (std::size_t i = 0; i < BlockElems64(); i += n)
      any = hn::Or(any, hn::LoadU(du, reinterpret_cast<const std::uint64_t*>(in + 8 * i)));
    return !hn::AllFalse(DI(), hn::Lt(hn::BitCast(DI(), any), hn::Zero(DI())));
  }
};

template <bool kSigned>
std::unique_ptr<const Kernel> FromInt64(const Direction& dir) {
  if (dir.dst == DataType::float64) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      // The map's keys are the raw source lanes; a NaN bit pattern of LoadRaw64's "float64" view
      // is an ordinary integer, and BuildMap refuses NaN keys for int sources anyway.
      using Fam = Lanes64<LoadRaw64, Int64ToF64Conv<kSigned, R>>;
      return MakeWithMap<Fam>(dir, {}, "float64-lanes-int64-to-float64", KeyRep::kFloat64Bits);
    });
  }
  if (dir.dst == DataType::float32) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        if constexpr (kX86NoInt64Convert && R != Rounding::kNearestAway) {
          if (dir.map.empty()) return Make<Int64ToF32Scalar<kSigned, R, O>>(dir, {}, "float64-lanes-int64-to-float32");
        }
        if (dir.map.empty()) {
          using Fam = F64Lanes<LoadI64DOdd<kSigned>, F64ToF32<R, O>, 4>;
          return Make<Fam>(dir, {}, "float64-lanes-int64-to-float32");
        }
        using Fam = F64Lanes<LoadI64D<kSigned>, F64ToF32<R, O>, 4>;
        return MakeWithMap<Fam>(dir, {}, "float64-lanes-int64-to-float32", KeyRep::kFloat64Bits);
      });
    });
  }
  return nullptr;
}

}  // namespace f64

std::unique_ptr<const Kernel> MakeInt64ToFloat(const Direction& dir) {
  if (dir.src == DataType::int64) return f64::FromInt64<true>(dir);
  if (dir.src == DataType::uint64) return f64::FromInt64<false>(dir);
  return nullptr;
}

}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/float64_lanes.h"

namespace zcast::internal {

HWY_EXPORT(MakeInt64ToFloat);

std::unique_ptr<const Kernel> SelectInt64ToFloat(const Direction& dir, std::int64_t target) {
  return ZCAST_CALL_FOR_TARGET(MakeInt64ToFloat, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
