// The element-cast families of the conformance vectors: every ordered pair of the 26 types x the
// five roundings x out_of_range unset / clamp / wrap (conformance/README.md, "cast_value").
//
// Expected values come from the exact engine (ConvertScalar, the one path that defines the
// semantics); every case is then also run through the public Chain API (the fast kernels) and the
// generator stops if the two disagree. conformance/verify.cc confirms the written files with
// oracles that share no code with the engine.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <set>

#include "generate.h"
#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"

namespace zcast_conformance {
namespace {

using zcast::DataType;
using zcast::OutOfRange;
using zcast::Rounding;
using zcast::internal::CastError;
using zcast::internal::ExactValue;
using zcast::internal::Info;
using zcast::internal::ValueClass;
using u128 = unsigned __int128;

constexpr Rounding kModes[] = {Rounding::kNearestEven, Rounding::kNearestAway,
                               Rounding::kTowardsZero, Rounding::kTowardsPositive,
                               Rounding::kTowardsNegative};

std::string Name(DataType t) { return std::string(zcast::DataTypeName(t)); }
std::string RangeName(OutOfRange o) {
  return o == OutOfRange::kUnset ? "unset" : std::string(zcast::OutOfRangeName(o));
}

// (mag * 2^exp) as an ExactValue when mag fits 64 bits after removing trailing zeros.
std::optional<ExactValue> Exact(bool neg, u128 mag, int exp) {
  ExactValue v;
  v.negative = neg;
  while (mag != 0 && (mag & 1) == 0) {
    mag >>= 1;
    ++exp;
  }
  if (mag >> 64) return std::nullopt;
  v.mag = static_cast<std::uint64_t>(mag);
  v.exp = mag == 0 ? 0 : exp;
  return v;
}

// The magnitudes that decide a cast into `dst` (conformance/README.md): the target's smallest subnormal, min
// normal, max finite and their neighbours, the midpoints between adjacent target values there,
// ties around 1, values just past the range, the integer powers where wide types lose precision.
std::vector<std::pair<u128, int>> DecidingMagnitudes(DataType dst) {
  const auto& t = Info(dst);
  std::vector<std::pair<u128, int>> m = {{0, 0}, {1, 0}};
  if (t.is_int()) {
    int n = t.bits;
    u128 max = t.is_signed_int() ? (u128{1} << (n - 1)) - 1 : (u128{1} << n) - 1;
    u128 min_mag = t.is_signed_int() ? u128{1} << (n - 1) : 0;
    for (auto [k, e] : std::vector<std::pair<u128, int>>{{1, -1}, {3, -1}, {5, -1}}) m.push_back({k, e});
    for (u128 edge : {max, min_mag}) {
      if (edge == 0) continue;
      m.push_back({2 * edge - 1, -1});  // edge - 0.5
      m.push_back({edge, 0});
      m.push_back({2 * edge + 1, -1});  // edge + 0.5: rounds back in some modes
      m.push_back({edge + 1, 0});
    }
    m.push_back({(u128{1} << n) + 1, 0});  // wraps to 1 (R5)
    m.push_back({u128{1} << n, 1});        // 2^(N+1)
  } else if (t.special == zcast::internal::Special::E8m0) {
    for (auto [k, e] : std::vector<std::pair<u128, int>>{
             {1, -127}, {1, -128}, {3, -128}, {3, -129}, {3, -1}, {3, -2}, {1, 127}, {3, 126},
             {1, 128}, {3, 127}}) {
      m.push_back({k, e});
    }
  } else {
    int q = t.min_quantum_exp(), mb = t.mant_bits;
    u128 hidden = u128{1} << (mb + 1);
    m.insert(m.end(), {{1, q - 1}, {1, q}, {3, q - 1}, {hidden - 1, q - 1}, {1, 1 - t.bias},
                       {hidden + 1, q - 1}, {hidden + 1, -(mb + 1)}, {hidden + 3, -(mb + 1)},
                       {2 * hidden - 1, -(mb + 2)}});
    u128 max = t.max_sig();
    int e = t.max_exp();
    m.insert(m.end(), {{2 * max - 1, e - 1}, {max, e}, {2 * max + 1, e - 1}, {max + 1, e},
                       {max, e + 1}});
  }
  // Where wide sources lose precision, for every target.
  for (int p : {24, 53, 63, 64}) {
    m.push_back({u128{1} << p, 0});
    m.push_back({(u128{1} << p) - 1, 0});
    m.push_back({(u128{1} << p) + 1, 0});
  }
  return m;
}

bool IsIeee(DataType t) { return Info(t).special == zcast::internal::Special::Ieee; }

// The encodings of `src` next to `bits` (wide sources only: IEEE floats and integers).
void AddNeighbours(DataType src, std::uint64_t bits, std::set<std::uint64_t>& out) {
  const auto& t = Info(src);
  std::uint64_t mask = t.value_mask();
  out.insert(bits);
  if (t.is_int()) {
    std::uint64_t sign = t.sign_bit();
    bool at_max = t.is_signed_int() ? bits == sign - 1 : bits == mask;
    bool at_min = t.is_signed_int() ? bits == sign : bits == 0;
    if (!at_max) out.insert((bits + 1) & mask);
    if (!at_min) out.insert((bits - 1) & mask);
    return;
  }
  std::uint64_t sign = t.sign_bit(), mag = bits & ~sign, inf = t.positive_inf();
  if (mag >= inf) return;  // NaN or Inf
  if (mag == 0) {
    out.insert(1);
    out.insert(sign | 1);
    return;
  }
  out.insert(bits + 1);  // away from zero (reaches Inf at the top)
  out.insert(bits - 1);
}

}  // namespace

std::vector<std::uint64_t> SourceValues(DataType src, DataType dst) {
  const auto& t = Info(src);
  std::vector<std::uint64_t> all;
  if (t.size == 1) {
    for (std::uint64_t b = 0; b <= t.value_mask(); ++b) all.push_back(b);
    return all;
  }
  std::set<std::uint64_t> set;
  auto around = [&](const ExactValue& v) {
    for (Rounding r : {Rounding::kTowardsNegative, Rounding::kTowardsPositive}) {
      auto o = zcast::internal::CastExact(v, src, r, OutOfRange::kClamp);
      if (o.error == CastError::kNone) AddNeighbours(src, o.bits, set);
    }
  };
  for (auto [mag, exp] : DecidingMagnitudes(dst)) {
    for (bool neg : {false, true}) {
      if (auto v = Exact(neg, mag, exp)) around(*v);
    }
  }
  if (IsIeee(src)) {
    std::uint64_t sign = t.sign_bit(), inf = t.positive_inf(), quiet = t.canonical_nan();
    for (std::uint64_t b : {std::uint64_t{0}, sign, inf, sign | inf, quiet, sign | quiet, inf | 1,
                            quiet | 1, inf - 1, sign | (inf - 1), std::uint64_t{1}, sign | 1}) {
      set.insert(b);
    }
  } else {
    std::uint64_t sign = t.is_signed_int() ? t.sign_bit() : 0;
    for (std::uint64_t b : {std::uint64_t{0}, t.value_mask() & ~sign, sign}) set.insert(b);
  }
  // Seeded random: raw bit patterns, and source values next to random target values.
  std::mt19937_64 rng(0x5eed0000u + 64u * static_cast<unsigned>(src) + static_cast<unsigned>(dst));
  for (int i = 0; i < 6; ++i) set.insert(rng() & t.value_mask());
  for (int i = 0; i < 6; ++i) {
    ExactValue v = zcast::internal::DecodeBits(dst, rng());
    std::uint64_t step = rng() % 3;
    if (v.cls != ValueClass::kFinite) continue;
    auto o = zcast::internal::CastExact(v, src, Rounding::kTowardsNegative, OutOfRange::kClamp);
    if (o.error != CastError::kNone) continue;
    std::uint64_t b = o.bits;
    for (std::uint64_t k = 0; k < step; ++k) {
      std::set<std::uint64_t> next;
      AddNeighbours(src, b, next);
      b = *next.rbegin();
    }
    set.insert(b);
  }
  return {set.begin(), set.end()};
}

namespace {

// |a| < |b| for two encodings of `type`, exactly (no floating-point type in between, so the
// choice of boundary failures is the same on every platform). NaN and Inf order last.
bool SmallerMagnitude(DataType type, std::uint64_t a, std::uint64_t b) {
  auto key = [&](std::uint64_t bits) -> std::pair<int, std::uint64_t> {
    ExactValue v = zcast::internal::DecodeBits(type, bits);
    if (v.cls != ValueClass::kFinite) return {INT32_MAX, 0};
    if (v.mag == 0) return {INT32_MIN, 0};
    int top = 63 - __builtin_clzll(v.mag);  // the value's leading bit is 2^(top + exp)
    return {top + v.exp, v.mag << (63 - top)};
  };
  return key(a) < key(b);
}

// +-max finite, or an integer type's min / max, or float8_e8m0fnu's smallest value (its clamp
// result below the range, R6): the results of values at or past the range's ends.
bool IsExtreme(DataType type, std::uint64_t bits) {
  using zcast::internal::Special;
  const auto& t = Info(type);
  std::uint64_t mask = t.value_mask();
  bits &= mask;
  if (t.is_int()) {
    if (!t.is_signed_int()) return bits == 0 || bits == mask;
    return bits == t.sign_bit() || bits == t.sign_bit() - 1;
  }
  if (t.special == Special::E8m0) return bits == 0xFE || bits == 0;
  std::uint64_t mag = bits & ~t.sign_bit();
  std::uint64_t max = t.special == Special::Ieee ? t.positive_inf() - 1 : t.sign_bit() - 1;
  return mag == max;
}

struct Config {
  DataType array;  // the array's data type
  DataType codec;  // the codec's data_type
  Rounding rounding;
  OutOfRange oor;
  bool decode;
};

void Emit(Files& files, const std::string& file, Case c, const std::vector<std::uint64_t>& in,
          DataType from, DataType to, const zcast::internal::Direction& dir) {
  Must must;
  c.input = Bytes(from, in);
  std::vector<std::uint64_t> out;
  must.outcome = Outcome::kOk;
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto o = zcast::internal::ConvertScalar(dir, in[i]);
    if (o.error != CastError::kNone) {
      must.outcome = Outcome::kCastFailure;
      must.index = i;
      break;
    }
    out.push_back(o.bits);
  }
  if (must.outcome == Outcome::kOk) must.expected = Bytes(to, out);
  ComputeAndCheck(c, must);
  files[file].push_back(ToJsonLine(c));
}

void EmitConfig(Files& files, const std::string& file, const Config& cfg) {
  DataType from = cfg.decode ? cfg.codec : cfg.array, to = cfg.decode ? cfg.array : cfg.codec;
  bool wrap_invalid = cfg.oor == OutOfRange::kWrap && !Info(cfg.codec).is_int();  // R4
  OutOfRange eff = cfg.oor == OutOfRange::kWrap && !Info(to).is_int() ? OutOfRange::kUnset : cfg.oor;
  zcast::internal::Direction dir{from, to, cfg.rounding, eff, {}};
  Case base;
  base.id = std::string(cfg.decode ? "decode/" : "cast/") + Name(cfg.array) + "/" + Name(cfg.codec) +
            "/" + std::string(zcast::RoundingName(cfg.rounding)) + "/" + RangeName(cfg.oor);
  base.data_type_json = Quote(Name(cfg.array));
  base.codecs_json = "[" + CastCodec(cfg.codec, cfg.rounding, cfg.oor) + "]";
  base.decode = cfg.decode;

  std::vector<std::uint64_t> values = SourceValues(from, to);
  // A pair whose every value casts alike rounding down and up never rounds (int8 -> int16,
  // float8_e4m3 -> float32, ...): the mode cannot matter, so modes other than nearest-even carry
  // a few elements per category only (enough to show the mode is accepted).
  bool never_rounds = true;
  for (std::uint64_t e : values) {
    auto down = zcast::internal::CastBits(from, e, to, Rounding::kTowardsNegative, OutOfRange::kUnset);
    auto up = zcast::internal::CastBits(from, e, to, Rounding::kTowardsPositive, OutOfRange::kUnset);
    if (down.bits != up.bits || down.error != up.error) never_rounds = false;
  }
  std::size_t max_per_case = never_rounds && cfg.rounding != Rounding::kNearestEven ? 4 : SIZE_MAX;
  std::map<std::string, std::vector<std::uint64_t>> ok;  // category -> elements
  std::map<std::string, std::vector<std::uint64_t>> fails;  // kind -> elements
  std::vector<std::uint64_t> anchors;
  for (std::uint64_t e : values) {
    auto unset = zcast::internal::CastBits(from, e, to, cfg.rounding, OutOfRange::kUnset);
    auto got = zcast::internal::ConvertScalar(dir, e);
    ExactValue x = zcast::internal::DecodeBits(from, e);
    if (got.error == CastError::kNone && anchors.size() < 2 && unset.error == CastError::kNone &&
        x.cls == ValueClass::kFinite) {
      anchors.push_back(e);
    }
    if (got.error != CastError::kNone) {
      std::string kind = got.error == CastError::kNaN  ? "nan"
                         : got.error == CastError::kInf ? (x.negative ? "-inf" : "+inf")
                         : x.negative                   ? "below"
                                                        : "above";
      fails[kind].push_back(e);
      continue;
    }
    if (cfg.oor != OutOfRange::kUnset && unset.error != CastError::kOutOfRange) continue;
    std::string cat;
    ExactValue y = zcast::internal::DecodeBits(to, got.bits);
    if (x.cls != ValueClass::kFinite) cat = "nan-inf";
    else if (unset.error == CastError::kOutOfRange) cat = "range";
    else if (x.mag == 0 || (y.cls == ValueClass::kFinite && y.mag == 0)) cat = "signed-zero";
    else if (IsExtreme(to, got.bits)) cat = "range";
    else cat = "rounding";
    ok[cat].push_back(e);
  }
  if (wrap_invalid) {  // one case per pair: the rounding mode plays no part
    if (cfg.rounding != Rounding::kNearestEven) return;
    Case c = base;
    c.id += "/metadata";
    c.category = "metadata";
    c.rules = {"R4", "R13"};
    c.input = Bytes(from, anchors);
    Must must{Outcome::kInvalidMetadata, {}, 0};
    ComputeAndCheck(c, must);
    files[file].push_back(ToJsonLine(c));
    return;
  }
  if (cfg.oor != OutOfRange::kUnset) {  // the range elements (plus in-range anchors) only
    auto& r = ok["range"];
    r.insert(r.begin(), anchors.begin(), anchors.end());
  }
  static const std::map<std::string, std::vector<std::string>> kRules = {
      {"rounding", {"R8"}}, {"range", {"R1", "R2", "R5", "R6", "R7"}}, {"nan-inf", {"R3"}},
      {"signed-zero", {"R8"}}};
  for (auto& [cat, elems] : ok) {
    if (elems.empty()) continue;
    if (elems.size() > max_per_case) elems.resize(max_per_case);
    Case c = base;
    c.id += "/" + cat;
    c.category = cat;
    c.rules = kRules.at(cat);
    if (cat == "rounding") c.rules = {};
    if (cfg.decode && cfg.oor == OutOfRange::kWrap) c.rules.push_back("R15");
    Emit(files, file, c, elems, from, to, dir);
  }
  // Failures: each kind's boundary element (the smallest magnitude) and its most distant one;
  // each after an element that succeeds, so the index checked is 1.
  // NaN and Inf do not depend on the rounding mode (R3), nor does a value far out of range: those
  // are stated under nearest-even only.
  bool every_failure = cfg.rounding == Rounding::kNearestEven;
  for (auto& [kind, elems] : fails) {
    bool ranged = kind == "above" || kind == "below";
    if (!ranged && !every_failure) continue;
    std::vector<std::uint64_t> picks = {elems.front()};
    if (ranged) {
      auto cmp = [&](std::uint64_t a, std::uint64_t b) { return SmallerMagnitude(from, a, b); };
      auto [lo, hi] = std::minmax_element(elems.begin(), elems.end(), cmp);
      picks = {*lo};
      if (*hi != *lo && every_failure) picks.push_back(*hi);
    }
    for (std::size_t i = 0; i < picks.size(); ++i) {
      Case c = base;
      c.id += "/fail-" + kind + (i ? "-far" : "");
      c.category = kind == "above" || kind == "below" ? "range" : "nan-inf";
      c.rules = c.category == "range" ? std::vector<std::string>{"R1", "R2", "R6", "R7"}
                                      : std::vector<std::string>{"R3"};
      if (cfg.decode && cfg.oor == OutOfRange::kWrap) c.rules.push_back("R15");
      std::vector<std::uint64_t> in;
      if (!anchors.empty()) in.push_back(anchors.front());
      in.push_back(picks[i]);
      Emit(files, file, c, in, from, to, dir);
    }
  }
}

}  // namespace

void GenerateCastFamilies(Files& files) {
  for (DataType s : zcast::internal::kAllDataTypes) {
    for (DataType d : zcast::internal::kAllDataTypes) {
      for (Rounding r : kModes) {
        for (OutOfRange o : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
          EmitConfig(files, "cast_value/" + Name(s) + ".jsonl", {s, d, r, o, false});
        }
        // Decoding with wrap (codec type an integer): wraps into integer array types, acts as
        // unset into float array types (R4, R15).
        if (Info(d).is_int()) {
          EmitConfig(files, "cast_value_decode/" + Name(d) + ".jsonl",
                     {s, d, r, OutOfRange::kWrap, true});
        }
      }
    }
  }
}

}  // namespace zcast_conformance
