// Format facts of the 26 data types, derived from ZCAST_FOR_EACH_DATA_TYPE (zcast.hpp).
// Everything about a type that the engine, the JSON scalar code and the kernels need is computed
// here once, as constexpr data; policy (rounding, out_of_range) lives elsewhere.
#ifndef ZCAST_SRC_DTYPE_H_
#define ZCAST_SRC_DTYPE_H_

#include <array>
#include <cstdint>
#include <cstring>

#include "zcast/zcast.hpp"

namespace zcast::internal {

enum class Kind : std::uint8_t { Int, Uint, Float };
enum class Special : std::uint8_t { None, Ieee, Fn, Fnuz, E8m0 };

struct TypeInfo {
  std::string_view name;
  std::uint8_t size;       // storage bytes
  Kind kind;
  std::uint8_t bits;       // value bits in the storage (ints: N)
  std::uint8_t exp_bits;   // E
  std::uint8_t mant_bits;  // M (stored fraction bits)
  std::int32_t bias;
  Special special;

  constexpr bool is_int() const { return kind != Kind::Float; }
  constexpr bool is_signed_int() const { return kind == Kind::Int; }
  constexpr bool has_inf() const { return special == Special::Ieee; }
  constexpr bool has_nan() const {
    return special == Special::Ieee || special == Special::Fnuz || special == Special::E8m0;
  }
  constexpr bool has_neg_zero() const { return special == Special::Ieee || special == Special::Fn; }
  constexpr std::uint64_t value_mask() const { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
  constexpr std::uint64_t sign_bit() const {  // floats with a sign (all but e8m0), and ints
    return kind == Kind::Float ? (special == Special::E8m0 ? 0 : 1ull << (exp_bits + mant_bits))
                               : 1ull << (bits - 1);
  }
  constexpr std::uint32_t max_biased_exp() const {  // largest exponent field of a finite value
    std::uint32_t all_ones = (1u << exp_bits) - 1;
    return special == Special::Ieee ? all_ones - 1 : (special == Special::E8m0 ? all_ones - 1 : all_ones);
  }
  // Exponent of the subnormal quantum: the smallest step of the grid (1 - bias - M).
  constexpr std::int32_t min_quantum_exp() const { return 1 - bias - mant_bits; }
  // Largest finite value = max_sig * 2^max_exp.
  constexpr std::uint64_t max_sig() const { return (2ull << mant_bits) - 1; }
  constexpr std::int32_t max_exp() const {
    return static_cast<std::int32_t>(max_biased_exp()) - bias - mant_bits;
  }
  // The canonical quiet NaN, without sign (semantics.md type table).
  constexpr std::uint64_t canonical_nan() const {
    switch (special) {
      case Special::Ieee:
        return ((1ull << exp_bits) - 1) << mant_bits | (1ull << (mant_bits - 1));
      case Special::Fnuz: return 0x80;
      case Special::E8m0: return 0xFF;
      default: return 0;
    }
  }
  constexpr std::uint64_t positive_inf() const { return ((1ull << exp_bits) - 1) << mant_bits; }
};

inline constexpr std::array<TypeInfo, kNumDataTypes> kTypeInfo = {{
#define ZCAST_INFO_ENTRY(name, size, kind, bits, e, m, bias, special) \
  {#name, size, Kind::kind, bits, e, m, bias, Special::special},
    ZCAST_FOR_EACH_DATA_TYPE(ZCAST_INFO_ENTRY)
#undef ZCAST_INFO_ENTRY
}};

constexpr const TypeInfo& Info(DataType t) { return kTypeInfo[static_cast<int>(t)]; }

inline constexpr std::array<DataType, kNumDataTypes> kAllDataTypes = [] {
  std::array<DataType, kNumDataTypes> a{};
  for (int i = 0; i < kNumDataTypes; ++i) a[i] = static_cast<DataType>(i);
  return a;
}();

// Raw element access: a type's encoding as the low bits of a uint64 ("bits"). Sub-byte values are
// masked on load (upper bits ignored) and stored with the upper bits 0.
inline std::uint64_t LoadBits(const void* p, std::size_t size) {
  switch (size) {
    case 1: return *static_cast<const std::uint8_t*>(p);
    case 2: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
inline void StoreBits(void* p, std::size_t size, std::uint64_t bits) {
  switch (size) {
    case 1: *static_cast<std::uint8_t*>(p) = static_cast<std::uint8_t>(bits); break;
    case 2: { auto v = static_cast<std::uint16_t>(bits); std::memcpy(p, &v, 2); break; }
    case 4: { auto v = static_cast<std::uint32_t>(bits); std::memcpy(p, &v, 4); break; }
    default: std::memcpy(p, &bits, 8); break;
  }
}

}  // namespace zcast::internal

#endif  // ZCAST_SRC_DTYPE_H_
