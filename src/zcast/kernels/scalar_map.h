// scalar_map in the vector kernels, plain data: the keys in a family's lane representation
// (VectorMap, built at bind time by BuildMap) and the plan of the common blocks' map (FastMap,
// PlanFastMap). The per-target code that compares and blends them is in block-inl.h
// (MapLanes32 for a block's full pass, MapFastLanes32 for the common blocks).
//
// A scalar_map is applied first (R10): a lane whose source equals a key takes the key's value and
// is never declined, whatever the converter says of it (NaN and Inf into an integer, out of range
// under unset). Keys are compared on exact values in the lanes' representation, which is
// injective on the source's non-NaN values (+0 and -0 differ, as SameScalar has them); a NaN key
// matches every NaN (R11).
#ifndef ZCAST_SRC_KERNELS_SCALAR_MAP_H_
#define ZCAST_SRC_KERNELS_SCALAR_MAP_H_

#include <cstddef>
#include <cstdint>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"

namespace zcast::internal {

inline constexpr int kMaxVectorKeys = 16;  // larger scalar maps stay on the baseline kernels

// scalar_map keys in the lane representation of a family (float32 bits of the exact value, the
// int32 value, float64 bits), values as destination bits. NaN keys match every NaN (R11).
struct VectorMap {
  int n = 0;
  bool only_nonfinite = true;  // every key is NaN or +-Inf (float32 lanes)
  std::uint64_t key[kMaxVectorKeys] = {};
  std::uint64_t value[kMaxVectorKeys] = {};
  bool nan_key[kMaxVectorKeys] = {};
};

enum class KeyRep { kFloat32Bits, kInt32Value, kFloat64Bits, kFloat64Value };

// The map's keys in `rep`; false when the map is too large or has a key `rep` cannot compare.
inline bool BuildMap(const Direction& dir, KeyRep rep, VectorMap* map) {
  if (dir.map.size() > static_cast<std::size_t>(kMaxVectorKeys)) return false;
  const TypeInfo& s = Info(dir.src);
  for (const auto& [key, value] : dir.map) {
    int k = map->n++;
    map->value[k] = value;
    if (IsNaNBits(dir.src, key)) {
      if (rep == KeyRep::kInt32Value) return false;  // NaN keys of 8-bit floats: the tables
      if (rep == KeyRep::kFloat64Bits && dir.src != DataType::float64) return false;
      map->nan_key[k] = true;
      continue;
    }
    switch (rep) {
      case KeyRep::kFloat32Bits:  // the exact float32 value of the key (float16/bfloat16/float32)
        map->key[k] = CastBits(dir.src, key, DataType::float32, Rounding::kNearestEven, OutOfRange::kUnset).bits;
        if ((map->key[k] & 0x7FFFFFFFu) != 0x7F800000u) map->only_nonfinite = false;
        break;
      case KeyRep::kInt32Value: {
        std::uint64_t v = key & s.value_mask();
        if (s.is_signed_int() && (v & s.sign_bit())) v |= ~s.value_mask();  // sign-extend
        map->key[k] = static_cast<std::uint32_t>(v);
        map->only_nonfinite = false;
        break;
      }
      case KeyRep::kFloat64Bits: map->key[k] = key; map->only_nonfinite = false; break;
      case KeyRep::kFloat64Value:
        map->key[k] = CastBits(dir.src, key, DataType::float64, Rounding::kNearestEven, OutOfRange::kUnset).bits;
        map->only_nonfinite = false;
        break;
    }
  }
  return true;
}

// The scalar_map of the common blocks of a family with 32-bit key lanes, decided at bind time.
// kNaN: the map is one NaN key, matched by IsNaN (two operations per vector). kKeys: up to
// kFastMapKeys keys, each one compare and one blend per vector, NaN lanes first made the one
// pattern kNaNKey32 so that a NaN key is a key like the others; a map of fewer keys repeats its
// first (a key and value already applied change nothing), so one loop serves every map of up to
// kFastMapKeys keys with no branch on the map. kBlocks: a larger map, which the common blocks
// leave to the full block (MapLanes32 over every key).
inline constexpr int kFastMapKeys = 4;
// ZCAST_KERNELS_MAP_BLENDS=0 plans every scalar_map as kBlocks and leaves the blend loops (kNaN,
// kKeys) uninstantiated. The sanitizer build (scripts/test-sanitizers) sets it: the blends are
// compares and selects on lanes already loaded, where ASan and UBSan have nothing to check, and
// their loops are two of the three instantiations of float_to_int.cc's common blocks, whose clang
// ASan compile took 23 minutes of one core with them and 16 without (under unequal load). The
// release builds prove the blends exact on every target.
#ifndef ZCAST_KERNELS_MAP_BLENDS
#define ZCAST_KERNELS_MAP_BLENDS 1
#endif
inline constexpr bool kMapBlends = ZCAST_KERNELS_MAP_BLENDS != 0;
inline constexpr std::uint32_t kNaNKey32 = 0x7FC00000u;
enum class FastMapKind : std::uint8_t { kNone, kNaN, kKeys, kBlocks };
struct FastMap {
  FastMapKind kind = FastMapKind::kNone;
  std::uint32_t key[kFastMapKeys] = {};  // kKeys: lane keys (a NaN key as kNaNKey32)
  std::uint32_t value[kFastMapKeys] = {};  // destination bits (kNaN: value[0])
};

// Keys of `map` (32-bit lanes) in the order of R10, each once: where two keys are the same
// scalar (two NaN patterns; the codec's maps never have them, R10 drops repeats at bind time, but
// a Direction may), the first is kept and the later dropped, so the order of the blends does not
// matter any more.
inline FastMap PlanFastMap(const VectorMap& map) {
  FastMap f;
  if (map.n == 0) return f;
  if constexpr (!kMapBlends) {
    f.kind = FastMapKind::kBlocks;
    return f;
  }
  int n = 0;
  bool nan = false;
  for (int k = 0; k < map.n; ++k) {
    const std::uint32_t key = map.nan_key[k] ? kNaNKey32 : static_cast<std::uint32_t>(map.key[k]);
    bool seen = false;
    for (int j = 0; j < n; ++j) seen |= f.key[j] == key;
    if (seen) continue;
    if (n == kFastMapKeys) {
      f.kind = FastMapKind::kBlocks;
      return f;
    }
    nan |= map.nan_key[k];
    f.key[n] = key;
    f.value[n] = static_cast<std::uint32_t>(map.value[k]);
    ++n;
  }
  f.kind = (nan && n == 1) ? FastMapKind::kNaN : FastMapKind::kKeys;
  for (int j = n; j < kFastMapKeys; ++j) f.key[j] = f.key[0], f.value[j] = f.value[0];
  return f;
}

}  // namespace zcast::internal

#endif  // ZCAST_SRC_KERNELS_SCALAR_MAP_H_
