// AVX2 kernels, continued: the pairs beyond issue 5's main table (float64 -> float16/bfloat16/
// float8, 64-bit integers <-> floats, float32 -> float64/int64, sub-byte sources, 8- and 16-bit
// sources -> float16/bfloat16...), in a second translation unit so the two build in parallel.
// Same flags, same design: see kernels_avx2.cc.
#include "zcast/kernels_avx2.h"

namespace zcast::internal {
namespace {

// float64 -> float64 and int64/uint64; -> float16, bfloat16, float8/6/4 through float32 rounded
// to odd (no scalar_map: the float32 lanes are not the source values).
std::unique_ptr<const Kernel> FromFloat64Extra(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.dst == DataType::float64 || (d.is_int() && d.bits == 64)) return To64<LoadD64>(dir);
  if (d.is_int() || dir.dst == DataType::float32 || !dir.map.empty()) return nullptr;
  if (dir.dst == DataType::bfloat16) return ToSmallFloats<LoadF64Odd<true>, false, true, false>(dir);
  // e8m0 must see values of 2^128 and above as Inf (declined): as float32 max they would round
  // down to 2^127 in the directed modes, where R6 has them out of range.
  if (dir.dst == DataType::float8_e8m0fnu) return ToSmallFloats<LoadF64Odd<true>, false, false, true>(dir);
  return ToSmallFloats<LoadF64Odd<false>, true, false, true>(dir);
}

// Integer sources of at most 16 bits -> float16/bfloat16 (exact for 8-bit sources; nearest-even
// only for 16-bit ones) and, from 16-bit sources in nearest-even, the narrow floats (the other
// modes: the table); sub-byte integers -> float32 and integers.
template <class IntLoader>
std::unique_ptr<const Kernel> FromSmallInt(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  if (d.is_int() || dir.dst == DataType::float32) {
    if (s.bits >= 8) return nullptr;  // kernels_avx2.cc
    if (d.size == 1) {  // sub-byte -> one-byte integers in byte lanes
      switch (dir.src) {
        case DataType::int4: return FromInt8Lanes<4, true>(dir);
        case DataType::uint4: return FromInt8Lanes<4, false>(dir);
        case DataType::int2: return FromInt8Lanes<2, true>(dir);
        default: return FromInt8Lanes<2, false>(dir);
      }
    }
    return FromIntLanes<IntLoader>(dir, true);
  }
  if (IntLoader::kSize == 1) return ToHalfExact<IntAsF32<IntLoader>>(dir);
  if (dir.rounding != Rounding::kNearestEven || (d.size == 1 && d.special == Special::E8m0)) return nullptr;
  return ToSmallFloats<IntAsF32<IntLoader>>(dir);
}

// float8/float6/float4 -> float16 / bfloat16 (exact).
std::unique_ptr<const Kernel> SmallFloatToHalf(const Direction& dir) {
  switch (dir.src) {
#define ZCAST_SMALL_FLOAT_CASE(name) \
  case DataType::name: return ToHalfExact<LoadSmallFloat<DataType::name>>(dir);
    ZCAST_SMALL_FLOAT_CASE(float4_e2m1fn)
    ZCAST_SMALL_FLOAT_CASE(float6_e2m3fn)
    ZCAST_SMALL_FLOAT_CASE(float6_e3m2fn)
    ZCAST_SMALL_FLOAT_CASE(float8_e3m4)
    ZCAST_SMALL_FLOAT_CASE(float8_e4m3)
    ZCAST_SMALL_FLOAT_CASE(float8_e4m3b11fnuz)
    ZCAST_SMALL_FLOAT_CASE(float8_e4m3fnuz)
    ZCAST_SMALL_FLOAT_CASE(float8_e5m2)
    ZCAST_SMALL_FLOAT_CASE(float8_e5m2fnuz)
#undef ZCAST_SMALL_FLOAT_CASE
    default: return nullptr;
  }
}

// int64 / uint64 -> float64 (every mode) and float32 (through the exact double; |v| > 2^53
// declined).
template <bool kSigned>
std::unique_ptr<const Kernel> FromInt64(const Direction& dir) {
  if (dir.dst == DataType::float64) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      using Fam = Int64ToF64Lanes<kSigned, R>;
      return MakeWithMap<Fam>(dir, {}, "avx2-int64-to-float64", KeyRep::kFloat64Bits);
    });
  }
  if (dir.dst == DataType::float32) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        if (dir.map.empty()) {
          using Fam = F64Lanes<LoadI64DOdd<kSigned>, F64ToF32<R, O>, 4>;
          return Make<Fam>(dir, {}, "avx2-int64-to-float32");
        }
        using Fam = F64Lanes<LoadI64D<kSigned>, F64ToF32<R, O>, 4>;
        return MakeWithMap<Fam>(dir, {}, "avx2-int64-to-float32", KeyRep::kFloat64Bits);
      });
    });
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<const Kernel> SelectKernelAvx2Extra(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  switch (dir.src) {
    case DataType::float32:
      if (dir.dst == DataType::float64 || (d.is_int() && d.bits == 64)) return To64<LoadF32D>(dir);
      return nullptr;
    case DataType::float16:
      if (d.size == 1 && !d.is_int()) return ToSmallFloats<LoadF16, false, false, true>(dir);
      return nullptr;
    case DataType::bfloat16:
      if (d.size == 1 && !d.is_int()) return ToSmallFloats<LoadBF16, false, false, true>(dir);
      return nullptr;
    case DataType::float64: return FromFloat64Extra(dir);
    case DataType::int64: return FromInt64<true>(dir);
    case DataType::uint64: return FromInt64<false>(dir);
    case DataType::int32:
      if (dir.dst == DataType::float64) return To64<LoadI32D>(dir);
      // float16, bfloat16, float8/6/4 in nearest-even through float32 rounded to odd.
      if (!d.is_int() && dir.rounding == Rounding::kNearestEven && dir.map.empty() &&
          d.special != Special::E8m0 && d.size <= 2)
        return ToSmallFloats<LoadI32Odd>(dir);
      return nullptr;
    case DataType::uint32:
      if (dir.dst == DataType::float64) return To64<LoadU32D>(dir);
      return nullptr;
    case DataType::uint16: return FromSmallInt<LoadU16>(dir);
    case DataType::int16: return FromSmallInt<LoadI16>(dir);
    case DataType::uint8:
    case DataType::int8:
    case DataType::int4:
    case DataType::uint4:
    case DataType::int2:
    case DataType::uint2:
      if (d.size == 1 && !d.is_int()) return nullptr;  // 8-bit -> 8-bit float: the table
      switch (dir.src) {
        case DataType::uint8: return FromSmallInt<LoadU8>(dir);
        case DataType::int8: return FromSmallInt<LoadI8>(dir);
        case DataType::int4: return FromSmallInt<LoadSubByte<4, true>>(dir);
        case DataType::uint4: return FromSmallInt<LoadSubByte<4, false>>(dir);
        case DataType::int2: return FromSmallInt<LoadSubByte<2, true>>(dir);
        default: return FromSmallInt<LoadSubByte<2, false>>(dir);
      }
    default: break;
  }
  // float8/float6/float4 -> float16 / bfloat16 (exact).
  if (s.size == 1 && s.kind == Kind::Float && s.special != Special::E8m0 && d.size == 2 && !d.is_int())
    return SmallFloatToHalf(dir);
  return nullptr;
}

}  // namespace zcast::internal
