// The comparison driver shared by the oracle tests (oracle_test.cc, oracle_rules_test.cc): the
// engine under test as a RefOutcome, the mismatch collector, and CheckAllConfigs, which checks
// one source encoding against both oracles (tests/apfloat_model.h, tests/reference_model.h) in
// all 15 (rounding, out_of_range) configurations.
#ifndef ZCAST_TESTS_ORACLE_DRIVER_H_
#define ZCAST_TESTS_ORACLE_DRIVER_H_

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "apfloat_model.h"
#include "reference_model.h"
#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/zcast.hpp"

namespace zcast_test {

// APFloat, APInt, APSInt, DataType, OutOfRange, Rounding: from apfloat_model.h.

inline constexpr std::array<Rounding, 5> kModes = {
    Rounding::kNearestEven, Rounding::kNearestAway, Rounding::kTowardsZero,
    Rounding::kTowardsPositive, Rounding::kTowardsNegative};
inline constexpr std::array<OutOfRange, 3> kRanges = {OutOfRange::kUnset, OutOfRange::kClamp,
                                               OutOfRange::kWrap};

inline std::string TypeName(DataType t) { return Ref(t).name; }
inline std::string ModeName(Rounding r) { return std::string(zcast::RoundingName(r)); }
inline std::string RangeName(OutOfRange o) {
  return o == OutOfRange::kUnset ? "unset" : std::string(zcast::OutOfRangeName(o));
}
inline std::string Hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
inline std::string OutcomeString(const RefOutcome& o) {
  switch (o.error) {
    case RefError::kNone: return Hex(o.bits);
    case RefError::kNaN: return "error(NaN)";
    case RefError::kInf: return "error(Inf)";
    case RefError::kOutOfRange: return "error(out of range)";
  }
  return "?";
}

// ---- the engine under test ----

inline RefOutcome FromEngine(const zcast::internal::CastOutcome& c) {
  RefOutcome out;
  switch (c.error) {
    case zcast::internal::CastError::kNone: out.bits = c.bits; break;
    case zcast::internal::CastError::kNaN: out.error = RefError::kNaN; break;
    case zcast::internal::CastError::kInf: out.error = RefError::kInf; break;
    case zcast::internal::CastError::kOutOfRange: out.error = RefError::kOutOfRange; break;
  }
  return out;
}

inline RefOutcome Engine(DataType src, std::uint64_t bits, DataType dst, Rounding r, OutOfRange o) {
  return FromEngine(zcast::internal::CastBits(src, bits, dst, r, o));
}

// ---- comparison driver ----

// Collects mismatches, reporting the first few in full (a systematic bug otherwise floods the log).
class Mismatches {
 public:
  void Add(const std::string& oracle, DataType src, std::uint64_t bits, DataType dst, Rounding r,
           OutOfRange o, const RefOutcome& expected, const RefOutcome& actual) {
    ++count_[oracle];
    if (shown_ >= kMaxShown) return;
    ++shown_;
    RefValue v = RefDecode(src, bits);
    std::string value = v.cls == RefValue::Cls::kNaN   ? "NaN"
                        : v.cls == RefValue::Cls::kInf ? (v.neg ? "-Inf" : "Inf")
                                                       : (v.neg ? "-" : "") + F128ToString(v.mag);
    ADD_FAILURE() << "[" << oracle << "] " << TypeName(src) << " " << Hex(bits) << " (" << value
                  << ") -> " << TypeName(dst) << " rounding=" << ModeName(r)
                  << " out_of_range=" << RangeName(o) << ": expected " << OutcomeString(expected)
                  << ", engine gave " << OutcomeString(actual);
  }
  std::int64_t total() const {
    std::int64_t n = 0;
    for (const auto& [k, v] : count_) n += v;
    return n;
  }
  std::string Summary() const {
    std::ostringstream s;
    for (const auto& [k, v] : count_) s << k << ": " << v << " mismatches; ";
    return s.str();
  }

 private:
  static constexpr int kMaxShown = 12;
  int shown_ = 0;
  std::map<std::string, std::int64_t> count_;
};

// Checks one source encoding into one target in all 15 configurations against both oracles.
// Returns the number of engine calls made.
inline std::int64_t CheckAllConfigs(DataType src, std::uint64_t bits, DataType dst, Mismatches& mm) {
  RefValue rv = RefDecode(src, bits);
  RefRounded rr[5];
  RefRoundAllModes(rv, dst, rr);
  bool ap = HasApOracle(dst);
  std::optional<APFloat> xq;
  if (ap) xq = ApSourceQuad(src, bits);
  std::int64_t calls = 0;
  for (int m = 0; m < 5; ++m) {
    std::optional<ApRounded> apr;
    if (ap) apr = ApRound(*xq, dst, kModes[m]);
    for (OutOfRange o : kRanges) {
      RefOutcome actual = Engine(src, bits, dst, kModes[m], o);
      ++calls;
      RefOutcome ref = RefFinish(dst, rr[m], o);
      if (!(actual == ref)) mm.Add("reference", src, bits, dst, kModes[m], o, ref, actual);
      if (ap) {
        RefOutcome apo = ApFinish(dst, *apr, o);
        if (!(actual == apo)) mm.Add("apfloat", src, bits, dst, kModes[m], o, apo, actual);
      }
    }
  }
  return calls;
}

}  // namespace zcast_test

#endif  // ZCAST_TESTS_ORACLE_DRIVER_H_
