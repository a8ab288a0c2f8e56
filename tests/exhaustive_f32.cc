// zcast_exhaustive_f32: every one of the 2^32 float32 bit patterns through the kernel that
// SelectKernel picks (the best SIMD target of this CPU; --all-targets: every target) for float32 ->
// each type of <= 16 bits (floats and integers), in every rounding mode and out_of_range setting,
// compared with the exact engine (ConvertScalar): the same output bits and the same first failing
// index (a kernel is restarted after each failure, as a caller would see it).
//
// Built but not run by ctest (hours of CPU with --method engine); docs/performance.md records a run.
//
//   zcast_exhaustive_f32 [--threads N] [--dst float16,uint8,...] [--rounding nearest-even,...]
//                        [--settings unset,clamp,wrap] [--method runs|engine|both] [--unset-stride N]
//                        [--chunks K]   (K < 4096: a sample of K chunks spread evenly over the 4096)
//                        [--all-targets | --target NAME]   (NAME: baseline, SSE4, AVX2, AVX3_DL...)
//
// Two ways to know the engine's answer for every input:
//   engine  asks the engine once per input and mode (out_of_range unset; clamp and wrap only for
//           the inputs out of range). About 60 ns per input and mode: ~4 h per (target, mode) on
//           this 2-core machine for all settings together.
//   runs    (default) runs the kernel over the chunk first and cuts its output into maximal runs
//           of equal results (a failure is a result too). A chunk holds 2^20 consecutive bit
//           patterns of one sign, so the inputs are in order of magnitude (then +-Inf, then the
//           NaNs). A correctly rounded cast is monotone in the magnitude and, under unset and clamp,
//           gives each result on one contiguous interval (R1-R5: one rounding, then the range
//           rule; the failing inputs are those beyond a bound, and the NaN/Inf group comes last).
//           So if the engine agrees with the kernel at both ends of a run, it agrees everywhere
//           inside. Under wrap a result repeats every 2^bits, so a run is accepted only if the
//           engine rounds both ends to the same integer (float32 -> int64, clamp, same mode), or
//           all its inputs are multiples of 2^bits (ulp >= 2^bits, result 0 by arithmetic, still
//           checked at both ends); otherwise, and for runs of up to 4 inputs, every input is asked.
//           Failures are still found by restarting the kernel after each one, so every failing
//           input goes through the kernel; only the engine's side is shortened.
//   both    both on each chunk: a cross-check of the runs argument on a sample (--chunks).
//
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
    DataType::float8_e5m2,     DataType::float8_e5m2fnuz,   DataType::float8_e8m0fnu,  DataType::uint8,
    DataType::int8,            DataType::int16,             DataType::uint16,
    DataType::float6_e2m3fn,   DataType::float6_e3m2fn,     DataType::float4_e2m1fn,
    DataType::int4,            DataType::uint4,             DataType::int2,
    DataType::uint2};

struct KernelUnderTest {
  OutOfRange oor;
  std::int64_t target;
  std::unique_ptr<const Kernel> kernel;
};

struct Counts {
  std::atomic<std::uint64_t> compared{0}, failures_expected{0}, mismatches{0};
  std::atomic<std::uint64_t> runs{0}, engine_calls{0}, not_run{0};  // --method runs
};

std::mutex print_mutex;

void Report(const Direction& dir, const KernelUnderTest& k, std::uint64_t input, const std::string& what) {
  std::lock_guard<std::mutex> lock(print_mutex);
  std::printf("MISMATCH %s -> %s %s %s target %s kernel %s input 0x%08llx: %s\n",
              std::string(DataTypeName(dir.src)).c_str(), std::string(DataTypeName(dir.dst)).c_str(),
              std::string(RoundingName(dir.rounding)).c_str(),
              (k.oor == OutOfRange::kUnset ? "unset" : std::string(OutOfRangeName(k.oor)).c_str()), SimdTargetName(k.target), k.kernel->name(),
              static_cast<unsigned long long>(input), what.c_str());
  std::fflush(stdout);
}

// One chunk of inputs: the engine's answers under each setting, then every kernel over the chunk,
// restarted after each failure as a caller would see it.
void CheckChunk(std::uint64_t chunk, const Direction& unset_dir, const std::vector<KernelUnderTest>& kernels,
                Counts* counts, bool count_inputs = true) {
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
  if (count_inputs) counts->failures_expected += expected_failures;

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
  if (count_inputs) counts->compared += kChunk;
}

// --method runs: see the comment at the top. One chunk of inputs, every kernel.
void CheckChunkRuns(std::uint64_t chunk, const Direction& unset_dir, const std::vector<KernelUnderTest>& kernels,
                    std::uint64_t unset_stride, Counts* counts) {
  const TypeInfo& d = Info(unset_dir.dst);
  const std::size_t ds = d.size;
  const std::uint64_t base = chunk * kChunk;
  std::vector<std::uint32_t> in(kChunk);
  for (std::uint64_t i = 0; i < kChunk; ++i) in[i] = static_cast<std::uint32_t>(base + i);
  std::vector<unsigned char> out(kChunk * ds);
  std::vector<std::uint8_t> failed(kChunk);
  std::uint64_t runs = 0, engine_calls = 0, unset_failures = 0;

  for (const KernelUnderTest& k : kernels) {
    Direction dir = unset_dir;
    dir.out_of_range = k.oor;
    const bool wrap = k.oor == OutOfRange::kWrap;
    const std::uint64_t stride = k.oor == OutOfRange::kUnset ? unset_stride : 1;
    Direction wide{DataType::float32, DataType::int64, unset_dir.rounding, OutOfRange::kClamp, {}};

    // The kernel over the chunk, restarted after each failure. Each failing input costs a restart
    // (and the engine call the kernel makes for it), nearly all of the time of this method. With
    // --unset-stride N > 1, after a failure at f the kernel is tried on input f + N alone; if that
    // fails too, f+1 .. f+N-1 are taken as failing without being run (counted as "not run"; the
    // engine is still asked at both ends of the failing run); otherwise it restarts at f + 1.
    std::fill(failed.begin(), failed.end(), 0);
    std::uint64_t not_run = 0;
    for (std::uint64_t start = 0; start < kChunk;) {
      std::uint64_t f = start + k.kernel->Run(&in[start], kChunk - start, &out[start * ds]);
      if (f >= kChunk) break;
      failed[f] = 1;
      start = f + 1;
      while (stride > 1 && f + stride < kChunk &&
             k.kernel->Run(&in[f + stride], 1, &out[(f + stride) * ds]) == 0) {
        std::fill(&failed[f + 1], &failed[f + stride] + 1, 1);
        not_run += stride - 1;
        f += stride;
        start = f + 1;
      }
    }
    counts->not_run += not_run;

    int reported = 0;
    auto engine = [&](std::uint64_t i) {
      ++engine_calls;
      return ConvertScalar(dir, in[i]);
    };
    // The kernel's result at i as the engine would state it (bits meaningless when failed).
    auto agrees = [&](std::uint64_t i, const CastOutcome& e) {
      if (failed[i]) return e.error != CastError::kNone;
      return e.error == CastError::kNone && e.bits == LoadBits(&out[i * ds], ds);
    };
    auto mismatch = [&](std::uint64_t i, const CastOutcome& e) {
      ++counts->mismatches;
      if (reported++ < 3) {
        std::string kernel_says = failed[i] ? "fails" : "gives " + std::to_string(LoadBits(&out[i * ds], ds));
        std::string engine_says = e.error != CastError::kNone ? "fails" : "gives " + std::to_string(e.bits);
        Report(dir, k, in[i], "kernel " + kernel_says + ", engine " + engine_says);
      }
    };
    auto check_each = [&](std::uint64_t a, std::uint64_t b) {
      for (std::uint64_t i = a; i <= b; ++i) {
        CastOutcome e = engine(i);
        if (!agrees(i, e)) mismatch(i, e);
      }
    };
    for (std::uint64_t a = 0; a < kChunk;) {
      std::uint64_t b = a;
      if (failed[a]) {
        while (b + 1 < kChunk && failed[b + 1]) ++b;
      } else {
        const std::uint64_t v = LoadBits(&out[a * ds], ds);
        while (b + 1 < kChunk && !failed[b + 1] && LoadBits(&out[(b + 1) * ds], ds) == v) ++b;
      }
      ++runs;
      if (k.oor == OutOfRange::kUnset && failed[a]) unset_failures += b - a + 1;
      if (b - a < 4) {
        check_each(a, b);
      } else {
        CastOutcome ea = engine(a), eb = engine(b);
        if (!agrees(a, ea)) mismatch(a, ea);
        if (!agrees(b, eb)) mismatch(b, eb);
        if (wrap && !failed[a]) {
          // Same magnitude order as the bit patterns: a is the smaller end.
          const int exp_a = static_cast<int>((in[a] >> 23) & 0xFF);
          const int exp_b = static_cast<int>((in[b] >> 23) & 0xFF);
          const bool multiples = exp_a != 0 && exp_a - 150 >= d.bits;  // ulp(a) >= 2^bits
          const bool below_2p63 = exp_b < 127 + 63;
          bool same_integer = false;
          if (!multiples && below_2p63) {
            engine_calls += 2;
            same_integer = ConvertScalar(wide, in[a]).bits == ConvertScalar(wide, in[b]).bits;
          }
          if (!multiples && !same_integer) check_each(a + 1, b - 1);
        }
      }
      a = b + 1;
    }
  }
  counts->runs += runs;
  counts->engine_calls += engine_calls;
  counts->failures_expected += unset_failures;
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
  std::vector<std::int64_t> targets = {BestSimdTarget()};
  std::string method = "runs";
  std::uint64_t unset_stride = 1;
  std::vector<OutOfRange> wanted_settings = {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--method" && i + 1 < argc) {
      method = argv[++i];
      if (method != "runs" && method != "engine" && method != "both") {
        std::fprintf(stderr, "unknown method: %s (runs, engine or both)\n", method.c_str());
        return 2;
      }
    } else if (a == "--settings" && i + 1 < argc) {
      wanted_settings.clear();
      for (const auto& name : Split(argv[++i])) {
        if (name == "unset") wanted_settings.push_back(OutOfRange::kUnset);
        else if (name == "clamp") wanted_settings.push_back(OutOfRange::kClamp);
        else if (name == "wrap") wanted_settings.push_back(OutOfRange::kWrap);
        else {
          std::fprintf(stderr, "unknown out_of_range setting: %s\n", name.c_str());
          return 2;
        }
      }
    } else if (a == "--unset-stride" && i + 1 < argc) {
      unset_stride = std::max<std::uint64_t>(1, std::strtoull(argv[++i], nullptr, 10));
    } else if (a == "--all-targets") {
      targets = SupportedSimdTargets();
    } else if (a == "--target" && i + 1 < argc) {
      std::int64_t t = SimdTargetFromName(argv[++i]);
      if (t < 0 || !IsSupportedSimdTarget(t)) {
        std::fprintf(stderr, "not a target this build compiled and this CPU runs: %s\n", argv[i]);
        return 2;
      }
      targets = {t};
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
      std::fprintf(stderr,
                   "usage: %s [--threads N] [--dst a,b] [--rounding a,b] [--settings unset,clamp,wrap]\n"
                   "          [--method runs|engine|both] [--unset-stride N] [--chunks K]\n"
                   "          [--all-targets | --target NAME]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("zcast_exhaustive_f32: %llu of %llu chunks of 2^%d float32 inputs, %u threads, method %s, targets:",
              static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(kNumChunks),
              kChunkBits, threads, method.c_str());
  for (std::int64_t t : targets) std::printf(" %s", SimdTargetName(t));
  std::printf("\n");
  std::fflush(stdout);

  std::uint64_t total_mismatches = 0;
  const auto t_all = std::chrono::steady_clock::now();
  for (DataType dst : dsts) {
    for (Rounding mode : modes) {
      Direction unset_dir{DataType::float32, dst, mode, OutOfRange::kUnset, {}};
      std::vector<KernelUnderTest> kernels;
      std::vector<OutOfRange> settings;
      for (OutOfRange oor : wanted_settings) {
        if (oor != OutOfRange::kWrap || Info(dst).is_int()) settings.push_back(oor);  // wrap: R4
      }
      if (settings.empty()) continue;
      std::string names, setting_names;
      for (OutOfRange oor : settings) {
        setting_names += std::string(setting_names.empty() ? "" : ", ") +
                         (oor == OutOfRange::kUnset ? std::string("unset") : std::string(OutOfRangeName(oor)));
      }
      for (OutOfRange oor : settings) {
        for (std::int64_t t : targets) {
          Direction dir = unset_dir;
          dir.out_of_range = oor;
          kernels.push_back({oor, t, SelectKernelFor(dir, t)});
          if (oor == settings.front()) names += std::string(names.empty() ? "" : ", ") + kernels.back().kernel->name();
        }
      }
      Counts counts;
      std::atomic<std::uint64_t> next{0};
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          // A sample (--chunks K) takes K chunks spread evenly over the bit patterns.
          for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;) {
            if (method != "runs") CheckChunk(c * (kNumChunks / chunks), unset_dir, kernels, &counts, method == "engine");
            if (method != "engine") CheckChunkRuns(c * (kNumChunks / chunks), unset_dir, kernels, unset_stride, &counts);
          }
        });
      }
      for (auto& th : pool) th.join();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total_mismatches += counts.mismatches;
      std::printf("float32 -> %-18s %-17s kernels [%s] x {%s}: %llu inputs, %llu failing under unset, "
                  "%llu of them not run, %llu runs, %llu engine calls, %llu mismatches (%.0f s)\n",
                  std::string(DataTypeName(dst)).c_str(), std::string(RoundingName(mode)).c_str(),
                  names.c_str(), setting_names.c_str(),
                  static_cast<unsigned long long>(counts.compared.load()),
                  static_cast<unsigned long long>(counts.failures_expected.load()),
                  static_cast<unsigned long long>(counts.not_run.load()),
                  static_cast<unsigned long long>(counts.runs.load()),
                  static_cast<unsigned long long>(counts.engine_calls.load()),
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
