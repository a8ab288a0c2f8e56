// zcast_exhaustive_f32: every one of the 2^32 float32 bit patterns through the kernel that
// SelectKernel picks (the best SIMD target of this CPU; --all-targets: every target) for float32 ->
// each type of <= 16 bits (floats and integers), in every rounding mode and out_of_range setting,
// compared with the exact engine (ConvertScalar): the same output bits and the same first failing
// index (a kernel is restarted after each failure, as a caller would see it).
//
// Hours of CPU, so it is built but not run by ctest; docs/performance.md records a run.
//
//   zcast_exhaustive_f32 [--threads N] [--dst float16,uint8,...] [--rounding nearest-even,...]
//                        [--chunks K]   (K < 4096: a sample of K chunks spread evenly over the 4096)
//                        [--all-targets]
//
// The engine is asked once per input and mode with out_of_range unset; clamp and wrap results are
// asked only for the inputs that are out of range (the others are the same under every setting).
// Output: one line per (destination, rounding) with the counts, then "ALL OK" or the failures;
// the exit status is 0 only when nothing differs.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/kernels.h"

namespace zcast::internal {
namespace {

constexpr int kChunkBits = 20;
constexpr std::uint64_t kChunk = std::uint64_t{1} << kChunkBits;
constexpr std::uint64_t kNumChunks = (std::uint64_t{1} << 32) / kChunk;

const DataType kDefaultTargets[] = {
    DataType::float16,         DataType::bfloat16,          DataType::float8_e3m4,
    DataType::float8_e4m3,     DataType::float8_e4m3b11fnuz, DataType::float8_e4m3fnuz,
    DataType::float8_e5m2,     DataType::float8_e5m2fnuz,   DataType::uint8,
    DataType::int8,            DataType::int16,             DataType::uint16,
    DataType::float6_e2m3fn,   DataType::float6_e3m2fn,     DataType::float4_e2m1fn,
    DataType::int4,            DataType::uint4,             DataType::int2,
    DataType::uint2};

struct KernelUnderTest {
  OutOfRange oor;
  SimdTarget target;
  std::unique_ptr<const Kernel> kernel;
};

struct Counts {
  std::atomic<std::uint64_t> compared{0}, failures_expected{0}, mismatches{0};
};

std::mutex print_mutex;

void Report(const Direction& dir, const KernelUnderTest& k, std::uint64_t input, const std::string& what) {
  std::lock_guard<std::mutex> lock(print_mutex);
  std::printf("MISMATCH %s -> %s %s %s target %s kernel %s input 0x%08llx: %s\n",
              std::string(DataTypeName(dir.src)).c_str(), std::string(DataTypeName(dir.dst)).c_str(),
              std::string(RoundingName(dir.rounding)).c_str(),
              std::string(OutOfRangeName(k.oor)).c_str(), SimdTargetName(k.target), k.kernel->name(),
              static_cast<unsigned long long>(input), what.c_str());
  std::fflush(stdout);
}

// One chunk of inputs: the engine's answers under each setting, then every kernel over the chunk,
// restarted after each failure as a caller would see it.
void CheckChunk(std::uint64_t chunk, const Direction& unset_dir, const std::vector<KernelUnderTest>& kernels,
                Counts* counts) {
  const TypeInfo& d = Info(unset_dir.dst);
  const std::size_t ds = d.size;
  const std::uint64_t base = chunk * kChunk;
  std::vector<std::uint32_t> in(kChunk);
  for (std::uint64_t i = 0; i < kChunk; ++i) in[i] = static_cast<std::uint32_t>(base + i);

  // want[oor][i]: bits; fails[oor][i]
  std::vector<std::uint16_t> want[3];
  std::vector<std::uint8_t> fails[3];
  for (int o = 0; o < 3; ++o) {
    want[o].resize(kChunk);
    fails[o].resize(kChunk);
  }
  Direction dirs[3] = {unset_dir, unset_dir, unset_dir};
  dirs[1].out_of_range = OutOfRange::kClamp;
  dirs[2].out_of_range = OutOfRange::kWrap;
  const int settings = d.is_int() ? 3 : 2;  // wrap only for integer destinations (R4)
  std::uint64_t expected_failures = 0;
  for (std::uint64_t i = 0; i < kChunk; ++i) {
    CastOutcome r = ConvertScalar(dirs[0], in[i]);
    for (int o = 0; o < 3; ++o) {
      want[o][i] = static_cast<std::uint16_t>(r.bits);
      fails[o][i] = r.error != CastError::kNone;
    }
    expected_failures += r.error != CastError::kNone;
    if (r.error == CastError::kOutOfRange) {
      for (int o = 1; o < settings; ++o) {
        CastOutcome c = ConvertScalar(dirs[o], in[i]);
        want[o][i] = static_cast<std::uint16_t>(c.bits);
        fails[o][i] = c.error != CastError::kNone;
      }
    }
  }
  counts->failures_expected += expected_failures;

  std::vector<unsigned char> out(kChunk * ds);
  for (const KernelUnderTest& k : kernels) {
    const int o = k.oor == OutOfRange::kUnset ? 0 : (k.oor == OutOfRange::kClamp ? 1 : 2);
    std::uint64_t start = 0;
    int reported = 0;
    while (start < kChunk && reported < 3) {
      std::uint64_t expected_fail = start;
      while (expected_fail < kChunk && !fails[o][expected_fail]) ++expected_fail;
      std::uint64_t f = start + k.kernel->Run(&in[start], kChunk - start, &out[start * ds]);
      std::uint64_t upto = std::min(f, expected_fail);
      for (std::uint64_t i = start; i < upto; ++i) {
        std::uint64_t got = LoadBits(&out[i * ds], ds);
        if (got != want[o][i]) {
          ++counts->mismatches;
          Report(dirs[o], k, in[i], "kernel gives " + std::to_string(got) + ", engine " + std::to_string(want[o][i]));
          ++reported;
          break;
        }
      }
      if (f != expected_fail) {
        ++counts->mismatches;
        Report(dirs[o], k, in[std::min(f, expected_fail)],
               "kernel fails first at input 0x" + std::to_string(base + f) + " (decimal), engine at " +
                   std::to_string(base + expected_fail));
        ++reported;
        start = std::max(f, expected_fail) + 1;
        continue;
      }
      start = f + 1;
    }
  }
  counts->compared += kChunk;
}

std::vector<std::string> Split(const char* s) {
  std::vector<std::string> v;
  std::string cur;
  for (; *s; ++s) {
    if (*s == ',') {
      v.push_back(cur);
      cur.clear();
    } else {
      cur += *s;
    }
  }
  if (!cur.empty()) v.push_back(cur);
  return v;
}

int Main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<DataType> dsts(std::begin(kDefaultTargets), std::end(kDefaultTargets));
  std::vector<Rounding> modes = {Rounding::kNearestEven, Rounding::kNearestAway, Rounding::kTowardsZero,
                                 Rounding::kTowardsPositive, Rounding::kTowardsNegative};
  std::uint64_t chunks = kNumChunks;
  std::vector<SimdTarget> targets = {BestSimdTarget()};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--all-targets") {
      targets = SupportedSimdTargets();
    } else if (a == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--chunks" && i + 1 < argc) {
      chunks = std::min<std::uint64_t>(kNumChunks, std::strtoull(argv[++i], nullptr, 10));
    } else if (a == "--dst" && i + 1 < argc) {
      dsts.clear();
      for (const auto& name : Split(argv[++i])) {
        auto t = DataTypeFromName(name);
        if (!t || Info(*t).size > 2) {
          std::fprintf(stderr, "not a type of <= 16 bits: %s\n", name.c_str());
          return 2;
        }
        dsts.push_back(*t);
      }
    } else if (a == "--rounding" && i + 1 < argc) {
      modes.clear();
      for (const auto& name : Split(argv[++i])) {
        bool found = false;
        for (int r = 0; r < 5; ++r) {
          if (RoundingName(static_cast<Rounding>(r)) == name) {
            modes.push_back(static_cast<Rounding>(r));
            found = true;
          }
        }
        if (!found) {
          std::fprintf(stderr, "unknown rounding: %s\n", name.c_str());
          return 2;
        }
      }
    } else {
      std::fprintf(stderr, "usage: %s [--threads N] [--dst a,b] [--rounding a,b] [--chunks K] [--all-targets]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("zcast_exhaustive_f32: %llu of %llu chunks of 2^%d float32 inputs, %u threads, targets:",
              static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(kNumChunks),
              kChunkBits, threads);
  for (SimdTarget t : targets) std::printf(" %s", SimdTargetName(t));
  std::printf("\n");
  std::fflush(stdout);

  std::uint64_t total_mismatches = 0;
  const auto t_all = std::chrono::steady_clock::now();
  for (DataType dst : dsts) {
    for (Rounding mode : modes) {
      Direction unset_dir{DataType::float32, dst, mode, OutOfRange::kUnset, {}};
      std::vector<KernelUnderTest> kernels;
      std::vector<OutOfRange> settings = {OutOfRange::kUnset, OutOfRange::kClamp};
      if (Info(dst).is_int()) settings.push_back(OutOfRange::kWrap);
      std::string names;
      for (OutOfRange oor : settings) {
        for (SimdTarget t : targets) {
          Direction dir = unset_dir;
          dir.out_of_range = oor;
          kernels.push_back({oor, t, SelectKernelFor(dir, t)});
          if (oor == OutOfRange::kUnset) names += std::string(names.empty() ? "" : ", ") + kernels.back().kernel->name();
        }
      }
      Counts counts;
      std::atomic<std::uint64_t> next{0};
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          // A sample (--chunks K) takes K chunks spread evenly over the bit patterns.
          for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;)
            CheckChunk(c * (kNumChunks / chunks), unset_dir, kernels, &counts);
        });
      }
      for (auto& th : pool) th.join();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total_mismatches += counts.mismatches;
      std::printf("float32 -> %-18s %-17s kernels [%s] x {%s}: %llu inputs, %llu out of range/NaN/Inf "
                  "under unset, %llu mismatches (%.0f s)\n",
                  std::string(DataTypeName(dst)).c_str(), std::string(RoundingName(mode)).c_str(),
                  names.c_str(), Info(dst).is_int() ? "unset, clamp, wrap" : "unset, clamp",
                  static_cast<unsigned long long>(counts.compared.load()),
                  static_cast<unsigned long long>(counts.failures_expected.load()),
                  static_cast<unsigned long long>(counts.mismatches.load()), secs);
      std::fflush(stdout);
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  std::printf("%s (%.0f s)\n", total_mismatches == 0 ? "ALL OK" : "MISMATCHES FOUND", total);
  return total_mismatches == 0 ? 0 : 1;
}

}  // namespace
}  // namespace zcast::internal

int main(int argc, char** argv) { return zcast::internal::Main(argc, argv); }
