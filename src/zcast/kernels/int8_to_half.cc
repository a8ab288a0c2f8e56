// The int8-to-half family: int8 and uint8 -> float16 and bfloat16, without a scalar_map. Every
// 8-bit integer is a value of both destinations (|v| <= 255 needs 8 significand bits; float16
// has 11, bfloat16 8), so the result is a pure function of the byte: no rounding, no
// out-of-range, no declined lane, in any rounding mode or out_of_range setting.
//
// How: the byte widened to int32 and converted to float32 (exact: one instruction on every
// target), then its bits moved to the destination's:
//   - bfloat16: the float32's high half (its low 16 bits are zero: at most 8 significand bits);
//   - float16: the magnitude's bits less 2^27 * 7 (the exponent rebiased from 127 to 15, in
//     place) shifted right by 13 (23 - 10 significand bits, all zero), the sign moved to bit 15.
//     Zero comes out negative, which the saturating pack (StoreBlockOf) stores as 0.
// Four to eight operations per vector of 32-bit lanes and a pack.
//
// Why a family of its own (an AMD EPYC, AVX2-only; zcast_kernel_loop in cache and callgrind's
// instructions per element):
//   - SSE4 has no F16C and no gather: uint8 -> float16 by the 1-byte table's loop of loads
//     (table8_to16.cc) takes 4.64 instructions per element and streams at 0.36 of the copy
//     ceiling (this family: 1.64, and 1.02 of the ceiling); the float lanes' integer loop
//     (IntSourceLanes, F32ToNarrow) takes 5.73, rounding and range checks that these sources
//     never need;
//   - bfloat16 below AVX3_DL would be the table too (AVX2 and AVX3: a hardware gather per 8 or 16
//     elements, 6.3x slower in cache than this family).
// Where it is not used: AVX3_DL (the table's vpermi2b does 64 elements in 9 instructions), and
// float16 on AVX2 and AVX3 (F16C's conversion, float_to_narrow.cc). ARM, EMU128 and SCALAR take
// it for both destinations (on ARM instead of the float lanes' integer loop; fewer operations per
// vector, not measured there: qemu proves results, not speed).
//
// At bind time the same formula, in scalar code (Model), is checked against the reference path on
// all 256 bytes, in the direction's mode (a pair it did not fit would get no kernel here).
// Selection (families.h): first, before the 1-byte -> 2-byte table.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/int8_to_half.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cstring>
#include <type_traits>
#include <utility>

#include "zcast/kernels/block-inl.h"

#ifndef ZCAST_SRC_KERNELS_INT8_TO_HALF_MODEL_
#define ZCAST_SRC_KERNELS_INT8_TO_HALF_MODEL_
namespace zcast::internal {

// The kernel's formula for one source byte, in scalar code: the 16-bit result after the
// saturating pack.
template <bool kSigned, bool kBf16>
inline std::uint16_t Int8ToHalfModel(std::uint8_t byte) {
  const float f = kSigned ? static_cast<float>(static_cast<std::int8_t>(byte)) : static_cast<float>(byte);
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  if constexpr (kBf16) return static_cast<std::uint16_t>(b >> 16);
  const std::uint32_t mag = b & 0x7FFFFFFFu;
  const auto e = static_cast<std::int32_t>(mag - 0x38000000u) >> 13;  // arithmetic, as the vector's
  const std::int32_t r = e | static_cast<std::int32_t>((b >> 16) & 0x8000u);
  return static_cast<std::uint16_t>(r < 0 ? 0 : r);
}

}  // namespace zcast::internal
#endif  // ZCAST_SRC_KERNELS_INT8_TO_HALF_MODEL_

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

template <bool kSigned, bool kBf16>
struct Int8ToHalfFamily {
  // int32 -> float32 of |v| <= 255 is exact in every mode; the rest is integer arithmetic.
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  static constexpr std::size_t kMaxSrcSize = 1, kMaxDstSize = 2;  // (PrefetchBlockUpTo)
  struct Params {};
  static constexpr std::size_t SrcSize(const Params&) { return 1; }
  static constexpr std::size_t DstSize(const Params&) { return 2; }
  static std::size_t BlockElems() { return kVecs * hn::Lanes(DU32()); }
  using Consts = Params;
  static Consts MakeConsts(const Params& p) { return p; }

  // Lanes(DU32) source bytes -> their results in 32-bit lanes (below 2^16, or negative for 0).
  static HWY_INLINE VU32 One(const unsigned char* in) {
    const DU32 du;
    const DI32 di;
    using T = std::conditional_t<kSigned, std::int8_t, std::uint8_t>;
    const hn::Rebind<T, DI32> d8;
    const VI32 v = hn::PromoteTo(di, hn::LoadU(d8, reinterpret_cast<const T*>(in)));
    const VU32 b = hn::BitCast(du, hn::ConvertTo(DF32(), v));
    if constexpr (kBf16) return hn::ShiftRight<16>(b);
    const VU32 mag = kSigned ? hn::And(b, hn::Set(du, 0x7FFFFFFFu)) : b;
    VU32 r = hn::BitCast(du, hn::ShiftRight<13>(hn::BitCast(di, hn::Sub(mag, hn::Set(du, 0x38000000u)))));
    if constexpr (kSigned) r = hn::Or(r, hn::And(hn::ShiftRight<16>(b), hn::Set(du, 0x8000u)));
    return r;
  }
  static HWY_INLINE bool FastBlock(const Consts&, const unsigned char* in, unsigned char* out) {
    const std::size_t n = hn::Lanes(DU32());
    StoreBlockOf<2>(One(in), One(in + n), One(in + 2 * n), One(in + 3 * n), out);
    return true;
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver&) {
    FastBlock(c, in, out);
    return kNoFailure;
  }
};

std::unique_ptr<const Kernel> MakeInt8ToHalf(const Direction& dir) {
#if HWY_TARGET == HWY_AVX3_DL
  return nullptr;  // the table's vpermi2b (table8_to16.cc)
#else
  const bool bf16 = dir.dst == DataType::bfloat16;
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  if (!bf16) return nullptr;  // F16C (float_to_narrow.cc)
#endif
  constexpr const char* kName = "int8-to-half-lanes";
  if (dir.src == DataType::int8) {
    if (bf16) return Make<Int8ToHalfFamily<true, true>>(dir, {}, kName);
    return Make<Int8ToHalfFamily<true, false>>(dir, {}, kName);
  }
  if (bf16) return Make<Int8ToHalfFamily<false, true>>(dir, {}, kName);
  return Make<Int8ToHalfFamily<false, false>>(dir, {}, kName);
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeInt8ToHalf);

namespace {

// True where Model gives the reference's result for every byte (checked, not assumed).
template <bool kSigned, bool kBf16>
bool ModelFits(const Direction& dir) {
  for (unsigned b = 0; b < 256; ++b) {
    const CastOutcome r = ConvertScalar(dir, b);
    if (r.error != CastError::kNone || r.bits != Int8ToHalfModel<kSigned, kBf16>(static_cast<std::uint8_t>(b))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<const Kernel> SelectInt8ToHalf(const Direction& dir, std::int64_t target) {
  if (dir.src != DataType::int8 && dir.src != DataType::uint8) return nullptr;
  if ((dir.dst != DataType::float16 && dir.dst != DataType::bfloat16) || !dir.map.empty()) return nullptr;
  // The target first: where it declines (AVX3_DL; float16 with F16C) the model is not checked.
  auto kernel = ZCAST_CALL_FOR_TARGET(MakeInt8ToHalf, target, dir);
  if (kernel == nullptr) return nullptr;
  const bool s = dir.src == DataType::int8, bf16 = dir.dst == DataType::bfloat16;
  const bool fits = s ? (bf16 ? ModelFits<true, true>(dir) : ModelFits<true, false>(dir))
                      : (bf16 ? ModelFits<false, true>(dir) : ModelFits<false, false>(dir));
  return fits ? std::move(kernel) : nullptr;
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
