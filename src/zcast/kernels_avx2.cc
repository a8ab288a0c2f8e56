// AVX2 kernels (with FMA, F16C and BMI2 available). This file, kernels_avx2_extra.cc and the
// header they share (kernels_avx2.h) are the only code compiled for more than the baseline x86-64
// (-mavx2 -mfma -mf16c -mbmi2, see CMakeLists.txt). SelectKernelFor calls SelectKernelAvx2 only
// when the CPU has all four (kernels.cc), so nothing here may run before that check: everything is
// in unnamed namespaces (no weak symbol a baseline file could bind to), and the kernels reach the
// baseline code only through non-inline functions (ReferenceKernel, ConvertScalar). Every run sets
// the default MXCSR (no FTZ/DAZ, exceptions masked) with the rounding control a kernel needs, and
// restores the caller's.
//
// Every kernel has the same shape (BlockKernel): blocks of 32 elements; one pass computes the
// results and a mask of the lanes it *declines* (NaN or Inf where the target lacks them, out of
// range under unset, anything it cannot decide), stores the results, and hands the declined lanes
// of the block, in index order, to the reference path (scalar_map + exact engine), which also
// finds the error. A tail of fewer than 32 elements runs the same block on a zero-padded copy.
// scalar_map keys are compared in the vector and their values blended in (first key wins, R10)
// before the block's results are stored.
//
// Families of kernels by lane layout (kernels_avx2.h):
//   FloatLanes  8 float32 values per vector -> integers, narrow floats, bfloat16, float32. The
//               loaders give exact float32 values (float32, float16, bfloat16, small integers,
//               float8/6/4) or float32 rounded to odd (float64, int32), which a second rounding to
//               a format at least two bits narrower turns into the correctly rounded result;
//   F16Lanes    float32 lanes -> float16 with F16C, checked in 16-bit lanes;
//   IntLanes    8 int32 values per vector (integer sources of up to 32 bits, float8 sources);
//   F64Lanes    two vectors of 4 doubles -> 8 results of 32 bits (integers, float32);
//   Lanes64     4 doubles per vector -> int64, uint64, float64; Int64ToF64Lanes;
//   Table8      any 8-bit -> 8-bit pair, as a table; Table8Signed when one half of the table
//               follows from the other and the sign (most float8 -> float8/6/4 pairs).
// A converter returns the destination bits in 32-bit lanes and the declined lanes as bits; the
// packing stage turns 4 result vectors into 32 elements of 1, 2 or 4 bytes.
//
// Exactness arguments are next to each converter; kernels_test.cc compares every kernel with the
// reference loop, and tests/exhaustive_f32.cc every float32 input for the <= 16-bit targets.
#include "zcast/kernels_avx2.h"

namespace zcast::internal {
namespace {

// float32, float16 and bfloat16 sources (exact in float32 lanes) -> integers of <= 32 bits,
// float32, and (float32 only) the narrower floats; float16 <-> bfloat16. The rest is in
// kernels_avx2_extra.cc.
template <class Loader>
std::unique_ptr<const Kernel> FromFloatLanes(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (d.is_int()) {
    if (d.bits == 64 || dir.dst == DataType::uint32) return nullptr;
    if (Loader::kSize == 2 && d.size == 4) return nullptr;  // rare: the table does it
    return FloatToInteger<Loader>(dir);
  }
  if (dir.dst == DataType::float32) {
    using Fam = FloatLanes<Loader, F32Canonical, 4>;
    return MakeWithMap<Fam>(dir, {}, "avx2-to-float32", KeyRep::kFloat32Bits);
  }
  if (dir.src == dir.dst) return nullptr;  // float16 -> float16, bfloat16 -> bfloat16: the table
  if constexpr (Loader::kSize == 4) return ToSmallFloats<Loader>(dir);
  else return ToSmallFloats<Loader, true, true, false>(dir);
}

std::unique_ptr<const Kernel> FromFloat8(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  Float8Params p;
  p.value_mask = static_cast<std::uint32_t>(s.value_mask());
  p.mag_mask = (1u << (s.exp_bits + s.mant_bits)) - 1;
  p.inf_mag = static_cast<std::uint32_t>(s.positive_inf());
  p.shift = 23 - s.mant_bits;
  p.sign_shift = 31 - (s.exp_bits + s.mant_bits);
  p.rebias = static_cast<std::uint32_t>(127 - s.bias) << 23;
  p.min_normal_mag = 1u << s.mant_bits;
  p.sub_scale = std::ldexp(1.0f, s.min_quantum_exp());
  auto make = [&]<Special8 kKind>() {
    using Fam = IntLanes<LoadU8, Float8ToF32<kKind>, 4>;
    return MakeWithMap<Fam>(dir, {p, {}}, "avx2-float8-to-float32", KeyRep::kInt32Value);
  };
  if (s.special == Special::Ieee) return make.template operator()<Special8::kIeee>();
  if (s.special == Special::Fnuz) return make.template operator()<Special8::kFnuz>();
  return make.template operator()<Special8::kNone>();
}

std::unique_ptr<const Kernel> FromFloat64(const Direction& dir) {
  const TypeInfo& d = Info(dir.dst);
  if (dir.dst == DataType::float32) {
    return WithRounding(dir.rounding, [&]<Rounding R>() {
      return WithFloatOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
        using Fam = F64Lanes<LoadD64, F64ToF32<R, O>, 4>;
        return MakeWithMap<Fam>(dir, {}, "avx2-float64-to-float32", KeyRep::kFloat64Bits);
      });
    });
  }
  if (!d.is_int() || d.bits == 64 || dir.dst == DataType::uint32) return nullptr;
  IntParams64 ip;
  ip.lo = d.is_signed_int() ? -static_cast<double>(1ull << (d.bits - 1)) : 0.0;
  ip.hi = static_cast<double>(d.is_signed_int() ? (1ull << (d.bits - 1)) - 1 : d.value_mask());
  ip.mask = static_cast<std::uint32_t>(d.value_mask());
  return WithRounding(dir.rounding, [&]<Rounding R>() {
    return WithOutOfRange(dir.out_of_range, [&]<OutOfRange O>() {
      return WithDstSize(d.size, [&]<std::size_t kD>() {
        using Fam = F64Lanes<LoadD64, F64ToInt<R, O>, kD>;
        return MakeWithMap<Fam>(dir, {ip, {}}, "avx2-float-to-int", KeyRep::kFloat64Bits);
      });
    });
  });
}

}  // namespace

std::unique_ptr<const Kernel> SelectKernelAvx2(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  std::unique_ptr<const Kernel> k;
  switch (dir.src) {
    case DataType::float32: k = FromFloatLanes<LoadF32>(dir); break;
    case DataType::float16: k = FromFloatLanes<LoadF16>(dir); break;
    case DataType::bfloat16: k = FromFloatLanes<LoadBF16>(dir); break;
    case DataType::float64: k = FromFloat64(dir); break;
    case DataType::int32: k = FromIntLanes<LoadI32>(dir, false); break;
    case DataType::uint16: k = FromIntLanes<LoadU16>(dir, true); break;
    case DataType::int16: k = FromIntLanes<LoadI16>(dir, true); break;
    case DataType::uint8:
      if (d.size == 1) k = FromInt8Lanes<8, false>(dir);
      else k = FromIntLanes<LoadU8>(dir, true);
      break;
    case DataType::int8:
      if (d.size == 1) k = FromInt8Lanes<8, true>(dir);
      else k = FromIntLanes<LoadI8>(dir, true);
      break;
    default:
      // float8/float6/float4 -> float32 (a scalar_map on a sub-byte source would need the ignored
      // upper bits masked before the key compare: left to the table).
      if (s.size == 1 && s.kind == Kind::Float && s.special != Special::E8m0 &&
          dir.dst == DataType::float32 && (s.bits == 8 || dir.map.empty()))
        k = FromFloat8(dir);
      break;
  }
  if (!k) k = SelectKernelAvx2Extra(dir);
  if (!k && s.size == 1 && d.size == 1) k = MakeTable8(dir);  // any other 8-bit -> 8-bit pair
  return k;
}

}  // namespace zcast::internal
