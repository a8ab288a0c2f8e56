// Compiled with the kernels folder's definitions (HWY_WANT_AVX3_DL, HWY_DISABLED_TARGETS: one
// place, CMakeLists.txt), so HWY_TARGETS here is the set every kernel translation unit compiles.
#include "zcast/kernels/targets.h"

#include <hwy/targets.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "zcast/zcast.hpp"

namespace zcast::internal {

const char* SimdTargetName(std::int64_t target) {
  if (target == kBaselineTarget) return "baseline";
  return hwy::TargetName(target);
}

namespace {
bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::int64_t SimdTargetFromName(std::string_view name) {
  for (std::int64_t t : CompiledSimdTargets()) {
    if (SameName(name, SimdTargetName(t))) return t;
  }
  return -1;
}

bool SimdTargetBetter(std::int64_t a, std::int64_t b) {
  if (a == b || a == kBaselineTarget) return false;
  return b == kBaselineTarget || a < b;
}

bool SimdTargetIncludesAvx2(std::int64_t target) {
#if HWY_ARCH_X86
  return target == HWY_AVX2 || target == HWY_AVX3 || target == HWY_AVX3_DL;
#else
  (void)target;
  return false;
#endif
}

const std::vector<std::int64_t>& CompiledSimdTargets() {
  static const std::vector<std::int64_t> targets = [] {
    std::vector<std::int64_t> t;
    for (std::int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) t.push_back(bits & -bits);
    std::sort(t.begin(), t.end(), [](std::int64_t a, std::int64_t b) { return SimdTargetBetter(b, a); });
    t.insert(t.begin(), kBaselineTarget);
    return t;
  }();
  return targets;
}

const std::vector<std::int64_t>& SupportedSimdTargets() {
  static const std::vector<std::int64_t> targets = [] {
    const std::int64_t cpu = hwy::SupportedTargets();
    std::vector<std::int64_t> t;
    for (std::int64_t c : CompiledSimdTargets()) {
      if (c == kBaselineTarget || (cpu & c)) t.push_back(c);
    }
    return t;
  }();
  return targets;
}

bool IsSupportedSimdTarget(std::int64_t target) {
  const auto& s = SupportedSimdTargets();
  return std::find(s.begin(), s.end(), target) != s.end();
}

std::int64_t SupportedSimdTargetAtMost(std::int64_t target) {
  std::int64_t best = kBaselineTarget;
  for (std::int64_t t : SupportedSimdTargets()) {
    if (!SimdTargetBetter(t, target) && SimdTargetBetter(t, best)) best = t;
  }
  return best;
}

std::int64_t BestSimdTarget() {
  static const std::int64_t best = [] {
    std::int64_t t = SupportedSimdTargets().back();
    const char* cap = std::getenv("ZCAST_SIMD_TARGET");
    if (cap && *cap) {
      std::int64_t c = SimdTargetFromName(cap);
      if (c < 0) {
        std::string names;
        for (std::int64_t x : CompiledSimdTargets()) names += std::string(" ") + SimdTargetName(x);
        std::fprintf(stderr, "zcast: ZCAST_SIMD_TARGET=%s names no compiled target (compiled:%s); using %s\n",
                     cap, names.c_str(), SimdTargetName(t));
      } else {
        t = SupportedSimdTargetAtMost(c);
      }
    }
    return t;
  }();
  return best;
}

}  // namespace zcast::internal

// ---- the public API (zcast.hpp) ----
namespace zcast {
namespace {
std::vector<std::string_view> Names(const std::vector<std::int64_t>& targets) {
  std::vector<std::string_view> names;
  for (std::int64_t t : targets) names.emplace_back(internal::SimdTargetName(t));
  return names;
}
}  // namespace

std::string_view SimdTarget() { return internal::SimdTargetName(internal::BestSimdTarget()); }
std::vector<std::string_view> SimdTargetsCompiled() { return Names(internal::CompiledSimdTargets()); }
std::vector<std::string_view> SimdTargetsSupported() { return Names(internal::SupportedSimdTargets()); }

}  // namespace zcast
