#include "zcast/kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "zcast/dtype.h"
#include "zcast/kernels/families.h"
#include "zcast/kernels/fp_env.h"

namespace zcast::internal {

CastOutcome ConvertScalar(const Direction& dir, std::uint64_t src_bits) {
  for (const auto& [key, value] : dir.map) {  // R10: first occurrence wins, one pass
    if (SameScalar(dir.src, key, src_bits)) return {value, CastError::kNone};
  }
  return CastBits(dir.src, src_bits, dir.dst, dir.rounding, dir.out_of_range);
}

namespace {

template <std::size_t kSize> struct UintOfSize;
template <> struct UintOfSize<1> { using type = std::uint8_t; };
template <> struct UintOfSize<2> { using type = std::uint16_t; };
template <> struct UintOfSize<4> { using type = std::uint32_t; };
template <> struct UintOfSize<8> { using type = std::uint64_t; };
template <std::size_t kSize> using UintOf = typename UintOfSize<kSize>::type;

// Calls f.template operator()<T>() with T the unsigned storage type of `size` bytes.
template <typename F>
auto WithStorage(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f.template operator()<std::uint8_t>();
    case 2: return f.template operator()<std::uint16_t>();
    case 4: return f.template operator()<std::uint32_t>();
    default: return f.template operator()<std::uint64_t>();
  }
}

class ReferenceLoop final : public Kernel {
 public:
  explicit ReferenceLoop(const Direction& dir) : dir_(dir) {}
  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    std::size_t ss = Info(dir_.src).size, ds = Info(dir_.dst).size;
    auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    for (std::size_t i = 0; i < n; ++i) {
      CastOutcome r = ConvertScalar(dir_, LoadBits(src + i * ss, ss));
      if (r.error != CastError::kNone) return i;
      StoreBits(dst + i * ds, ds, r.bits);
    }
    return n;
  }
  const char* name() const override { return "reference"; }

 private:
  Direction dir_;
};

// Every possible input is enumerated once, at bind time, through `fill` (for cast_value the exact
// engine, scalar_map and errors included), so the loop is a lookup.
template <typename SrcT, typename DstT>
class TableKernel final : public Kernel {
  static constexpr std::size_t kEntries = std::size_t{1} << (8 * sizeof(SrcT));

 public:
  explicit TableKernel(const TableFill& fill) : table_(kEntries), bad_(kEntries) {
    for (std::size_t s = 0; s < kEntries; ++s) {
      std::optional<std::uint64_t> r = fill(s);
      table_[s] = static_cast<DstT>(r.value_or(0));
      bad_[s] = !r;
      any_bad_ |= !r;
    }
  }
  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    const DstT* table = table_.data();
    if (!any_bad_) {
      for (std::size_t i = 0; i < n; ++i) StoreElement(out, i, table[LoadElement<SrcT>(in, i)]);
      return n;
    }
    // Errors are found in the same pass: OR the flags per block, locate only on failure.
    constexpr std::size_t kBlock = 512;
    for (std::size_t start = 0; start < n; start += kBlock) {
      std::size_t end = std::min(n, start + kBlock);
      std::uint8_t acc = 0;
      for (std::size_t i = start; i < end; ++i) {
        SrcT s = LoadElement<SrcT>(in, i);
        StoreElement(out, i, table[s]);
        acc |= bad_[s];
      }
      if (acc) {
        for (std::size_t i = start; i < end; ++i) if (bad_[LoadElement<SrcT>(in, i)]) return i;
      }
    }
    return n;
  }
  const char* name() const override { return "table"; }

 private:
  std::vector<DstT> table_;
  std::vector<std::uint8_t> bad_;
  bool any_bad_ = false;
};

// Wide sources: an element is first tried by `Fast` (a fast exact conversion that declines
// anything unusual: NaN, out of range, a scalar_map key); what it declines goes to the exact
// engine. `Fast` never guesses: when it returns true its result equals ConvertScalar's.
template <typename SrcT, typename DstT, typename Fast>
class FastPathKernel final : public Kernel {
 public:
  FastPathKernel(const Direction& dir, Fast fast, const char* name)
      : dir_(dir), fast_(fast), name_(name) {
    for (const auto& [key, value] : dir.map) {
      (void)value;
      if (IsNaNBits(dir.src, key)) map_has_nan_ = true;
      else keys_.push_back(static_cast<SrcT>(key));
    }
  }
  std::size_t Run(const void* in, std::size_t n, void* out) const override {
    // The default FP environment (round to nearest for rint and the hardware conversions, no
    // FTZ/DAZ), whatever the host application set.
    ScopedFpEnv env;
    const bool has_map = !dir_.map.empty();
    for (std::size_t i = 0; i < n; ++i) {
      SrcT s = LoadElement<SrcT>(in, i);
      DstT d;
      bool ok = (has_map && MapCandidate(s)) ? Slow(s, &d) : (fast_(s, &d) || Slow(s, &d));
      if (!ok) return i;
      StoreElement(out, i, d);
    }
    return n;
  }
  const char* name() const override { return name_; }

 private:
  bool MapCandidate(SrcT s) const {
    // Only float sources can have a NaN key (R11), and their NaN test is a compare on the bits.
    if (map_has_nan_ && (s & kAbsMask) > kInfBits) return true;
    for (SrcT k : keys_) if (k == s) return true;
    return false;
  }
  bool Slow(SrcT s, DstT* d) const {
    CastOutcome r = ConvertScalar(dir_, s);
    *d = static_cast<DstT>(r.bits);
    return r.error == CastError::kNone;
  }

  static constexpr SrcT kAbsMask = static_cast<SrcT>(~SrcT{0} >> 1);
  static constexpr SrcT kInfBits =
      sizeof(SrcT) == 4 ? SrcT(0x7F800000u) : static_cast<SrcT>(0x7FF0000000000000ull);

  Direction dir_;
  Fast fast_;
  const char* name_;
  bool map_has_nan_ = false;
  std::vector<SrcT> keys_;
};

template <typename SrcT, typename DstT, typename Fast>
std::unique_ptr<const Kernel> MakeFast(const Direction& dir, Fast fast, const char* name) {
  return std::make_unique<FastPathKernel<SrcT, DstT, Fast>>(dir, fast, name);
}

template <typename F> F BitsToFloat(UintOf<sizeof(F)> b) { return std::bit_cast<F>(b); }

// Rounds a finite double to an integer in mode R; exact for every double (C's rint, round,
// trunc, ceil and floor are exact operations). rint relies on the default round-to-nearest
// environment, which zcast never changes.
template <Rounding R>
double RoundToInteger(double x) {
  if constexpr (R == Rounding::kNearestEven) return std::rint(x);
  else if constexpr (R == Rounding::kNearestAway) return std::round(x);
  else if constexpr (R == Rounding::kTowardsZero) return std::trunc(x);
  else if constexpr (R == Rounding::kTowardsPositive) return std::ceil(x);
  else return std::floor(x);
}

// float32/float64 -> any integer type. The bounds are powers of two, exact in double, and a
// rounded value inside them converts exactly; NaN fails both compares and goes to the engine.
template <typename SrcF, Rounding R>
std::unique_ptr<const Kernel> FloatToIntFor(const Direction& dir, const TypeInfo& d) {
  double lo = d.is_signed_int() ? -std::ldexp(1.0, d.bits - 1) : 0.0;
  double hi_excl = std::ldexp(1.0, d.is_signed_int() ? d.bits - 1 : d.bits);
  std::uint64_t mask = d.value_mask();
  bool is_signed = d.is_signed_int();
  using SrcT = UintOf<sizeof(SrcF)>;
  return WithStorage(d.size, [&]<typename DstT>() {
    auto fast = [lo, hi_excl, mask, is_signed](SrcT s, DstT* out) {
      double r = RoundToInteger<R>(static_cast<double>(BitsToFloat<SrcF>(s)));
      if (!(r >= lo && r < hi_excl)) return false;
      std::uint64_t v = is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(r))
                                  : static_cast<std::uint64_t>(r);
      *out = static_cast<DstT>(v & mask);
      return true;
    };
    return MakeFast<SrcT, DstT>(dir, fast, "float-to-int");
  });
}

template <typename SrcF>
std::unique_ptr<const Kernel> FloatToInt(const Direction& dir, const TypeInfo& d) {
  switch (dir.rounding) {
    case Rounding::kNearestEven: return FloatToIntFor<SrcF, Rounding::kNearestEven>(dir, d);
    case Rounding::kNearestAway: return FloatToIntFor<SrcF, Rounding::kNearestAway>(dir, d);
    case Rounding::kTowardsZero: return FloatToIntFor<SrcF, Rounding::kTowardsZero>(dir, d);
    case Rounding::kTowardsPositive: return FloatToIntFor<SrcF, Rounding::kTowardsPositive>(dir, d);
    case Rounding::kTowardsNegative: return FloatToIntFor<SrcF, Rounding::kTowardsNegative>(dir, d);
  }
  return nullptr;
}

// IEEE binary conversions that the hardware does exactly in round-to-nearest-even: float64 ->
// float32 (overflow to Inf declined: the engine applies out_of_range, R1), float32 -> float64,
// and integers of <= 64 bits -> float32/float64 (one correctly rounded conversion). NaNs are
// declined because R3 wants the canonical quiet NaN, not the hardware's payload.
template <typename SrcT, typename DstF, typename ToValue>
std::unique_ptr<const Kernel> HardwareToFloat(const Direction& dir, ToValue to_value) {
  using DstT = UintOf<sizeof(DstF)>;
  auto fast = [to_value](SrcT s, DstT* out) {
    auto x = to_value(s);
    DstF y = static_cast<DstF>(x);
    if (std::isnan(y) || (std::isinf(y) && !std::isinf(x))) return false;
    *out = std::bit_cast<DstT>(y);
    return true;
  };
  return MakeFast<SrcT, DstT>(dir, fast, "hardware-to-float");
}

// float32 -> bfloat16, nearest-even, by the carry trick on the bit pattern: adding 0x7FFF plus
// the lowest kept bit rounds ties to even; it is exact for subnormals too (same exponent range).
std::unique_ptr<const Kernel> Float32ToBfloat16(const Direction& dir) {
  auto fast = [](std::uint32_t s, std::uint16_t* out) {
    if ((s & 0x7F800000u) == 0x7F800000u) return false;  // Inf, NaN: engine
    std::uint32_t r = (s + 0x7FFFu + ((s >> 16) & 1u)) >> 16;
    if ((r & 0x7F80u) == 0x7F80u) return false;  // rounded beyond max: out_of_range
    *out = static_cast<std::uint16_t>(r);
    return true;
  };
  return MakeFast<std::uint32_t, std::uint16_t>(dir, fast, "float32-to-bfloat16");
}

// float32/float64 -> a float type of lower precision (every float type but e8m0fnu), any rounding
// mode, by integer arithmetic on the bit patterns. It is the engine's procedure specialised to an
// IEEE binary source: the source always has more significand bits than the target, so there is
// always a right shift, and the target's encoding is monotonic in magnitude, so
// ((quantum - min_quantum) << M) + rounded_significand is the encoding (carries into the exponent
// field included) and one compare with max's encoding is the range check. NaN, Inf and out-of-range
// values are declined to the engine.
template <typename SrcF, DataType kDst, Rounding R>
std::unique_ptr<const Kernel> NarrowFloatFor(const Direction& dir) {
  using SrcT = UintOf<sizeof(SrcF)>;
  static constexpr TypeInfo d = kTypeInfo[static_cast<int>(kDst)];
  using DstT = UintOf<d.size>;
  constexpr int kSrcBits = 8 * sizeof(SrcF);
  constexpr int kSrcM = std::numeric_limits<SrcF>::digits - 1;
  constexpr int kSrcBias = std::numeric_limits<SrcF>::max_exponent - 1;
  static_assert(d.mant_bits < kSrcM);
  static constexpr int kQMin = d.min_quantum_exp();
  static constexpr std::uint64_t kMaxBits = (static_cast<std::uint64_t>(d.max_biased_exp()) << d.mant_bits) |
                                     ((1ull << d.mant_bits) - 1);
  auto fast = [](SrcT s, DstT* out) {
    const bool neg = (s >> (kSrcBits - 1)) != 0;
    const SrcT a = static_cast<SrcT>(s & (~SrcT{0} >> 1));
    const int ef = static_cast<int>(a >> kSrcM);
    if (ef == (1 << (kSrcBits - 1 - kSrcM)) - 1) return false;  // NaN, Inf: engine (R3)
    std::uint64_t mag;
    int e;
    if (ef == 0) {
      mag = a;
      e = 1 - kSrcBias - kSrcM;
    } else {
      mag = (a & ((SrcT{1} << kSrcM) - 1)) | (std::uint64_t{1} << kSrcM);
      e = ef - kSrcBias - kSrcM;
    }
    std::uint64_t bits;
    if (mag == 0) {
      bits = 0;
    } else {
      int top = e + static_cast<int>(std::bit_width(mag)) - 1;
      int q = std::max(top - static_cast<int>(d.mant_bits), kQMin);
      int shift = q - e;  // >= 1: the source is finer than the target everywhere
      std::uint64_t kept, rem, half;
      if (shift < 64) {
        kept = mag >> shift;
        rem = mag & ((std::uint64_t{1} << shift) - 1);
        half = std::uint64_t{1} << (shift - 1);
      } else {  // below half the smallest quantum (mag < 2^53 <= 2^63)
        kept = 0;
        rem = 1;
        half = 2;
      }
      bool up;
      if constexpr (R == Rounding::kNearestEven) up = rem > half || (rem == half && (kept & 1));
      else if constexpr (R == Rounding::kNearestAway) up = rem >= half;
      else if constexpr (R == Rounding::kTowardsZero) up = false;
      else if constexpr (R == Rounding::kTowardsPositive) up = rem != 0 && !neg;
      else up = rem != 0 && neg;
      std::uint64_t r = kept + (up ? 1 : 0);
      bits = r == 0 ? 0 : (static_cast<std::uint64_t>(q - kQMin) << d.mant_bits) + r;
      if (bits > kMaxBits) return false;  // beyond max finite: out_of_range, engine (R1, R2)
    }
    // R8: a zero keeps its sign only where the target has -0 (fnuz: 0x00).
    std::uint64_t sign = neg && (bits != 0 || d.has_neg_zero()) ? d.sign_bit() : 0;
    *out = static_cast<DstT>(sign | bits);
    return true;
  };
  return MakeFast<SrcT, DstT>(dir, fast, "narrow-float");
}

template <typename SrcF, DataType kDst>
std::unique_ptr<const Kernel> NarrowFloatTo(const Direction& dir) {
  switch (dir.rounding) {
    case Rounding::kNearestEven: return NarrowFloatFor<SrcF, kDst, Rounding::kNearestEven>(dir);
    case Rounding::kNearestAway: return NarrowFloatFor<SrcF, kDst, Rounding::kNearestAway>(dir);
    case Rounding::kTowardsZero: return NarrowFloatFor<SrcF, kDst, Rounding::kTowardsZero>(dir);
    case Rounding::kTowardsPositive: return NarrowFloatFor<SrcF, kDst, Rounding::kTowardsPositive>(dir);
    case Rounding::kTowardsNegative: return NarrowFloatFor<SrcF, kDst, Rounding::kTowardsNegative>(dir);
  }
  return nullptr;
}

template <typename SrcF>
std::unique_ptr<const Kernel> NarrowFloat(const Direction& dir) {
  switch (dir.dst) {
#define ZCAST_NARROW_CASE(name) \
  case DataType::name: return NarrowFloatTo<SrcF, DataType::name>(dir);
    ZCAST_NARROW_CASE(float4_e2m1fn)
    ZCAST_NARROW_CASE(float6_e2m3fn)
    ZCAST_NARROW_CASE(float6_e3m2fn)
    ZCAST_NARROW_CASE(float8_e3m4)
    ZCAST_NARROW_CASE(float8_e4m3)
    ZCAST_NARROW_CASE(float8_e4m3b11fnuz)
    ZCAST_NARROW_CASE(float8_e4m3fnuz)
    ZCAST_NARROW_CASE(float8_e5m2)
    ZCAST_NARROW_CASE(float8_e5m2fnuz)
    ZCAST_NARROW_CASE(bfloat16)
    ZCAST_NARROW_CASE(float16)
#undef ZCAST_NARROW_CASE
    case DataType::float32:
      if constexpr (sizeof(SrcF) == 8) return NarrowFloatTo<SrcF, DataType::float32>(dir);
      return nullptr;
    default: return nullptr;
  }
}

// Integers of 32 or 64 bits -> any integer type: a range check (in 128-bit arithmetic, so every
// pair of signednesses is one compare) and a truncation; out-of-range values go to the engine.
template <typename SrcT>
std::unique_ptr<const Kernel> IntToInt(const Direction& dir, const TypeInfo& s, const TypeInfo& d) {
  using i128 = __int128;
  i128 lo = d.is_signed_int() ? -(i128{1} << (d.bits - 1)) : 0;
  i128 hi = (i128{1} << (d.is_signed_int() ? d.bits - 1 : d.bits)) - 1;
  std::uint64_t mask = d.value_mask();
  bool is_signed = s.is_signed_int();
  return WithStorage(d.size, [&]<typename DstT>() {
    auto fast = [lo, hi, mask, is_signed](SrcT b, DstT* out) {
      i128 v = is_signed ? i128{static_cast<std::make_signed_t<SrcT>>(b)} : i128{b};
      if (v < lo || v > hi) return false;
      *out = static_cast<DstT>(static_cast<std::uint64_t>(v) & mask);
      return true;
    };
    return MakeFast<SrcT, DstT>(dir, fast, "int-to-int");
  });
}

std::unique_ptr<const Kernel> SelectWide(const Direction& dir) {
  const TypeInfo& s = Info(dir.src);
  const TypeInfo& d = Info(dir.dst);
  if (s.is_int() && d.is_int()) {
    if (s.size == 4) return IntToInt<std::uint32_t>(dir, s, d);
    return IntToInt<std::uint64_t>(dir, s, d);
  }
  if (dir.src == DataType::float32 && d.is_int()) return FloatToInt<float>(dir, d);
  if (dir.src == DataType::float64 && d.is_int()) return FloatToInt<double>(dir, d);
  if (dir.rounding == Rounding::kNearestEven) {
    if (dir.src == DataType::float64 && dir.dst == DataType::float32)
      return HardwareToFloat<std::uint64_t, float>(dir, [](std::uint64_t b) { return std::bit_cast<double>(b); });
    if (dir.src == DataType::float32 && dir.dst == DataType::bfloat16) return Float32ToBfloat16(dir);
  }
  if (dir.src == DataType::float32) { if (auto k = NarrowFloat<float>(dir)) return k; }
  if (dir.src == DataType::float64) { if (auto k = NarrowFloat<double>(dir)) return k; }
  // Widening float32 -> float64 is exact in every mode.
  if (dir.src == DataType::float32 && dir.dst == DataType::float64)
    return HardwareToFloat<std::uint32_t, double>(dir, [](std::uint32_t b) { return std::bit_cast<float>(b); });
  if (s.is_int() && (dir.dst == DataType::float32 || dir.dst == DataType::float64)) {
    // Exact in every mode when the integer fits the significand; otherwise only nearest-even is
    // the hardware's single rounding.
    int sig_bits = dir.dst == DataType::float32 ? 24 : 53;
    bool exact = s.bits - (s.is_signed_int() ? 1 : 0) <= sig_bits;
    if (exact || dir.rounding == Rounding::kNearestEven) {
      auto build = [&]<typename DstF>() -> std::unique_ptr<const Kernel> {
        switch (dir.src) {
          case DataType::int32: return HardwareToFloat<std::uint32_t, DstF>(dir, [](std::uint32_t b) { return static_cast<std::int32_t>(b); });
          case DataType::uint32: return HardwareToFloat<std::uint32_t, DstF>(dir, [](std::uint32_t b) { return b; });
          case DataType::int64: return HardwareToFloat<std::uint64_t, DstF>(dir, [](std::uint64_t b) { return static_cast<std::int64_t>(b); });
          case DataType::uint64: return HardwareToFloat<std::uint64_t, DstF>(dir, [](std::uint64_t b) { return b; });
          default: return nullptr;
        }
      };
      auto k = dir.dst == DataType::float32 ? build.template operator()<float>()
                                            : build.template operator()<double>();
      if (k) return k;
    }
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<const Kernel> MakeTableKernel(std::size_t src_size, std::size_t dst_size,
                                              const TableFill& fill) {
  return WithStorage(dst_size, [&]<typename DstT>() -> std::unique_ptr<const Kernel> {
    if (src_size == 1) return std::make_unique<TableKernel<std::uint8_t, DstT>>(fill);
    return std::make_unique<TableKernel<std::uint16_t, DstT>>(fill);
  });
}

std::unique_ptr<const Kernel> ReferenceKernel(const Direction& dir) {
  return std::make_unique<ReferenceLoop>(dir);
}

std::unique_ptr<const Kernel> SelectKernel(const Direction& dir) {
  return SelectKernelFor(dir, BestSimdTarget());
}

std::unique_ptr<const Kernel> SelectSimdKernelFor(const Direction& dir, std::int64_t target) {
  if (!IsSupportedSimdTarget(target)) target = SupportedSimdTargetAtMost(target);
  if (target == kBaselineTarget) return nullptr;
  for (FamilySelector select : kFamilySelectors) {
    if (auto k = select(dir, target)) return k;
  }
  return nullptr;
}

std::unique_ptr<const Kernel> SelectKernelFor(const Direction& dir, std::int64_t target) {
  if (auto k = SelectSimdKernelFor(dir, target)) return k;
  std::size_t ss = Info(dir.src).size, ds = Info(dir.dst).size;
  if (ss <= 2) {
    // Sources of 8 or 16 bits: the engine's answer for every encoding, scalar_map and errors
    // included, so the table kernel is exact by construction.
    return MakeTableKernel(ss, ds, [&dir](std::uint64_t s) -> std::optional<std::uint64_t> {
      CastOutcome r = ConvertScalar(dir, s);
      if (r.error != CastError::kNone) return std::nullopt;
      return r.bits;
    });
  }
  if (auto k = SelectWide(dir)) return k;
  return ReferenceKernel(dir);
}

}  // namespace zcast::internal
