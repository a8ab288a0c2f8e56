// zcast_bench: throughput of the cast_value codec through the public API, as a ratio to a
// data-movement ceiling measured interleaved in the same benchmark.
//
// What is measured
//   Each case binds a codec (CastValueSpec::FromJson + CastValueCodec::Bind, no fill value) and
//   times CastValueCodec::Encode, or Decode for the decode-direction cases, over one buffer of
//   n = max(16 Mi, 128 MiB / (src size + dst size)) elements: input and output together at least
//   4x the caches (32 MiB L3 here), so every run streams from and to memory, the 1- and 2-byte
//   types too. Throughput is bytes read + written per second: SetBytesProcessed with
//   n * (src size + dst size) per iteration gives the console's bytes_per_second column (printed
//   in binary units, G/s = 2^30 bytes/s); the counter GBps is the same figure in 1e9 bytes/s.
//   The label column names the kernel the codec runs (when built against a static zcast).
//   chunk/NAME/n=N: the same case at the sizes Zarr calls a codec with (16 Ki, 59,536 = a 244 x 244
//   Sentinel-2 chunk, 1 Mi elements), in cache, each timing a batch of calls of about 4 MiB of
//   traffic; kernel_ratio (static builds, cases without a scalar_map) is the kernel's own time
//   over the codec call's: 1.0 is a call that costs nothing beyond its kernel.
//
// The ceiling and `ceiling_ratio`
//   The ceiling kernel is the cheapest loop with the same bytes in and out per element: it reads
//   the n source elements and writes n destination elements, each the source truncated or
//   zero-extended to the destination width (as unsigned integers of the storage sizes). Its stores
//   go through pointers the compiler cannot see past (noinline, then ClobberMemory), so it is not
//   elided; at -O3 it is vectorised and therefore memory-bound.
//   Method: manual timing (UseManualTime). Every benchmark iteration times, on the same input and
//   output buffers, the ceiling, then the codec, then the ceiling again, and takes the mean of the
//   two ceiling times: the codec run is sandwiched, so a drift in machine state (other processes,
//   frequency) during the iteration affects both sides alike and the ceiling is measured both
//   just before and just after it.
//   SetIterationTime gets the codec's time only, so the reported time and GB/s are the codec's.
//   Over the whole run,
//       ceiling_ratio = sum(ceiling seconds) / sum(codec seconds)
//                     = codec throughput / ceiling throughput (same bytes per element),
//   so 1.0 means "at the same-run data-movement ceiling". ceiling_GBps is the ceiling's own
//   throughput in 1e9 bytes/s, for reference. With --benchmark_repetitions the aggregates report
//   the median etc. of both counters over repetitions; machine noise drifts absolute GB/s by tens
//   of percent between runs, the interleaved ratio much less.
//
// Inputs and outputs
//   Inputs are generated deterministically (splitmix64, seed = hash of the case name): doubles
//   uniform in the case's [lo, hi] (chosen to stay in the target's range), a share of them NaN
//   or NaN, +Inf and -Inf at fixed periods (only where a scalar_map maps them), then converted to
//   the source type by zcast itself (float64 -> source, nearest-even, clamp), so any of the 26
//   types can be a source. Buffers are page-aligned, allocated and first-touched (filled, plus one
//   untimed warm-up call whose status is checked) outside the timed region, and cached across the
//   repeated calls of one case.
//
// SIMD target
//   The codec runs the kernels of the best SIMD target of the CPU (kernels/targets.h).
//   ZCAST_SIMD_TARGET=NAME in the environment caps it to any compiled target by Highway's name
//   (SSE4, AVX2, AVX3, AVX3_DL, ...) or to baseline (the portable loops), e.g. to compare targets
//   in otherwise identical runs; bench/compare_builds.py runs two builds interleaved. The target
//   is printed in the context lines (simd_target).
//
// Adding a case is one line in kCases below.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zcast/zcast.hpp"

#if ZCAST_BENCH_KERNEL_NAMES
#include "zcast/kernels.h"  // only to print which kernel SelectKernel picks (label column)
#endif

namespace {

using zcast::DataType;

// Elements per buffer: 16 Mi, or more where the two buffers would hold less than 128 MiB (4x the
// 32 MiB L3), so that the 1- and 2-byte cases stream from memory too rather than partly from L3.
constexpr std::size_t kMinElements = std::size_t{16} << 20;
constexpr std::size_t kMinBytes = std::size_t{128} << 20;
std::size_t ElementsFor(std::size_t src_size, std::size_t dst_size) {
  return std::max(kMinElements, kMinBytes / (src_size + dst_size));
}

enum class Op { kEncode, kDecode };

// The scalar maps of the spread-keys rows.
constexpr const char* kMapNaN =
    R"({"data_type":"uint8","out_of_range":"clamp","scalar_map":{"encode":[["NaN",0]]}})";
constexpr const char* kMapNaNInf =
    R"({"data_type":"uint8","out_of_range":"clamp","scalar_map":{"encode":)"
    R"([["NaN",0],["Infinity",255],["-Infinity",0]]}})";

struct Case {
  const char* name;        // benchmark name (after "cast/")
  DataType array_type;     // the array's (decoded) data type
  const char* config;      // the codec's "configuration" object, JSON
  Op op;                   // Encode: array_type -> data_type; Decode: data_type -> array_type
  double lo, hi;           // source values uniform in [lo, hi] (then cast to the source type)
  double nan_fraction;     // share of NaN source values (only where scalar_map maps NaN)
  // Specials at fixed periods (0: none): every nan_every-th element NaN, every inf_every-th +Inf,
  // every ninf_every-th -Inf (later ones win where they meet), as cloud- and nodata-masked
  // imagery has them spread through a chunk; only where scalar_map maps them.
  std::size_t nan_every = 0, inf_every = 0, ninf_every = 0;
};

// One line per benchmark: {name, array type, configuration, direction, lo, hi, NaN share,
// [NaN, +Inf, -Inf periods]}.
const Case kCases[] = {
    // The first speed targets: the Sentinel-2 pair, float64 -> float32, float8, bfloat16.
    {"float32->uint8/clamp", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp"})", Op::kEncode, 0, 255, 0},
    {"float64->float32", DataType::float64, R"({"data_type":"float32"})", Op::kEncode,
     -1e6, 1e6, 0},
    {"float32->float8_e4m3", DataType::float32, R"({"data_type":"float8_e4m3"})", Op::kEncode,
     -240, 240, 0},
    {"float32->bfloat16/nearest-even", DataType::float32,
     R"({"data_type":"bfloat16","rounding":"nearest-even"})", Op::kEncode, -1e4, 1e4, 0},
    // Further pairs of the speed table (docs/performance.md).
    {"float32->uint8/clamp/scalar_map_NaN->0", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","scalar_map":{"encode":[["NaN",0]]}})",
     Op::kEncode, 0, 255, 1.0 / 1024},
    {"float32->float16", DataType::float32, R"({"data_type":"float16"})", Op::kEncode,
     -65504, 65504, 0},
    {"uint8->float32", DataType::uint8, R"({"data_type":"float32"})", Op::kEncode, 0, 255, 0},
    {"float8_e4m3->float32/decode", DataType::float32, R"({"data_type":"float8_e4m3"})",
     Op::kDecode, -240, 240, 0},
    {"int32->uint8/clamp", DataType::int32, R"({"data_type":"uint8","out_of_range":"clamp"})",
     Op::kEncode, 0, 255, 0},
    // Extra: clamp actually clamping, ~1% of values out of range (0.5% each side).
    {"float32->uint8/clamp/1pct_out_of_range", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp"})", Op::kEncode, -1.2825, 256.2825, 0},
    // More of the speed table. Each row asks for every rounding mode (clamp unless noted); the
    // cases add the modes whose kernels differ: a hardware directed mode (MXCSR) and nearest-away
    // (no hardware mode: fixed up).
    {"float64->float32/towards-zero", DataType::float64,
     R"({"data_type":"float32","rounding":"towards-zero"})", Op::kEncode, -1e6, 1e6, 0},
    {"float64->float32/nearest-away", DataType::float64,
     R"({"data_type":"float32","rounding":"nearest-away"})", Op::kEncode, -1e6, 1e6, 0},
    {"float32->int32/clamp", DataType::float32, R"({"data_type":"int32","out_of_range":"clamp"})",
     Op::kEncode, -2e9, 2e9, 0},
    {"float32->int32/clamp/nearest-away", DataType::float32,
     R"({"data_type":"int32","out_of_range":"clamp","rounding":"nearest-away"})", Op::kEncode,
     -2e9, 2e9, 0},
    {"float64->int64/clamp", DataType::float64, R"({"data_type":"int64","out_of_range":"clamp"})",
     Op::kEncode, -1e15, 1e15, 0},
    {"float64->int64/clamp/towards-negative", DataType::float64,
     R"({"data_type":"int64","out_of_range":"clamp","rounding":"towards-negative"})",
     Op::kEncode, -1e15, 1e15, 0},
    {"float64->int32/clamp", DataType::float64, R"({"data_type":"int32","out_of_range":"clamp"})",
     Op::kEncode, -2e9, 2e9, 0},
    {"float32->uint8/clamp/towards-positive", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","rounding":"towards-positive"})",
     Op::kEncode, 0, 255, 0},
    {"float32->uint8/clamp/nearest-away", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","rounding":"nearest-away"})", Op::kEncode,
     0, 255, 0},
    {"float32->float16/towards-zero", DataType::float32,
     R"({"data_type":"float16","rounding":"towards-zero"})", Op::kEncode, -65504, 65504, 0},
    {"float32->float16/nearest-away", DataType::float32,
     R"({"data_type":"float16","rounding":"nearest-away"})", Op::kEncode, -65504, 65504, 0},
    {"float16->uint8/clamp", DataType::float16, R"({"data_type":"uint8","out_of_range":"clamp"})",
     Op::kEncode, 0, 255, 0},
    {"float8_e4m3->float8_e5m2", DataType::float8_e4m3, R"({"data_type":"float8_e5m2"})",
     Op::kEncode, -240, 240, 0},
    {"uint8->int8/clamp", DataType::uint8, R"({"data_type":"int8","out_of_range":"clamp"})",
     Op::kEncode, 0, 255, 0},
    // More 8-bit -> 8-bit tables: sign-asymmetric entries (no -0 in fnuz; fnuz's NaN at 0x80),
    // and a sub-byte destination.
    {"float8_e5m2->float8_e4m3fnuz/clamp", DataType::float8_e5m2,
     R"({"data_type":"float8_e4m3fnuz","out_of_range":"clamp"})", Op::kEncode, -240, 240, 0},
    {"float8_e4m3fnuz->float8_e5m2", DataType::float8_e4m3fnuz, R"({"data_type":"float8_e5m2"})",
     Op::kEncode, -240, 240, 0},
    {"float8_e4m3->float4_e2m1fn/clamp", DataType::float8_e4m3,
     R"({"data_type":"float4_e2m1fn","out_of_range":"clamp"})", Op::kEncode, -6, 6, 0},
    {"float8_e5m2->float32/decode", DataType::float32, R"({"data_type":"float8_e5m2"})",
     Op::kDecode, -57344, 57344, 0},
    {"float32->float8_e5m2", DataType::float32, R"({"data_type":"float8_e5m2"})", Op::kEncode,
     -57344, 57344, 0},
    {"float32->float8_e4m3fnuz", DataType::float32, R"({"data_type":"float8_e4m3fnuz"})",
     Op::kEncode, -240, 240, 0},
    {"float32->float8_e4m3/towards-zero", DataType::float32,
     R"({"data_type":"float8_e4m3","rounding":"towards-zero"})", Op::kEncode, -240, 240, 0},
    {"float32->bfloat16/towards-zero", DataType::float32,
     R"({"data_type":"bfloat16","rounding":"towards-zero"})", Op::kEncode, -1e4, 1e4, 0},
    {"float32->uint8/clamp/scalar_map_NaN_Inf", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","scalar_map":{"encode":)"
     R"([["NaN",0],["Infinity",255],["-Infinity",0]]}})",
     Op::kEncode, 0, 255, 1.0 / 1024},
    // The pairs outside the speed table (>= 0.50 of the ceiling): a sample.
    {"float64->float16", DataType::float64, R"({"data_type":"float16"})", Op::kEncode, -65504,
     65504, 0},
    {"float64->bfloat16", DataType::float64, R"({"data_type":"bfloat16"})", Op::kEncode, -1e4,
     1e4, 0},
    {"float64->float8_e4m3", DataType::float64, R"({"data_type":"float8_e4m3"})", Op::kEncode,
     -240, 240, 0},
    {"int64->float64", DataType::int64, R"({"data_type":"float64"})", Op::kEncode, -1e15, 1e15, 0},
    {"uint8->uint4/clamp", DataType::uint8, R"({"data_type":"uint4","out_of_range":"clamp"})",
     Op::kEncode, 0, 15, 0},
    {"int4->float32/decode", DataType::float32, R"({"data_type":"int4"})", Op::kDecode, -8, 7, 0},
    {"uint8->int16/decode", DataType::int16, R"({"data_type":"uint8"})", Op::kDecode, 0, 255, 0},
    {"float8_e4m3->bfloat16/decode", DataType::bfloat16, R"({"data_type":"float8_e4m3"})",
     Op::kDecode, -240, 240, 0},
    // Pairs the hand-written AVX2 kernels served until the Highway float-lane family took the
    // "wide" sources: 8-bit sources -> float16, 16- and 32-bit integers -> float8/16.
    {"uint8->float16/decode", DataType::float16, R"({"data_type":"uint8"})", Op::kDecode, 0, 255, 0},
    {"float8_e4m3->float16/decode", DataType::float16, R"({"data_type":"float8_e4m3"})",
     Op::kDecode, -240, 240, 0},
    {"int16->float8_e4m3/clamp", DataType::int16, R"({"data_type":"float8_e4m3","out_of_range":"clamp"})",
     Op::kEncode, -240, 240, 0},
    {"int32->float16", DataType::int32, R"({"data_type":"float16"})", Op::kEncode, -65504, 65504, 0},
    // The rest of the speed table: every rounding mode of its first rows, the other float8 types,
    // more sub-byte and 64-bit cases.
    {"float64->float32/towards-positive", DataType::float64,
     R"({"data_type":"float32","rounding":"towards-positive"})", Op::kEncode, -1e6, 1e6, 0},
    {"float64->float32/towards-negative", DataType::float64,
     R"({"data_type":"float32","rounding":"towards-negative"})", Op::kEncode, -1e6, 1e6, 0},
    {"float32->int32/clamp/towards-zero", DataType::float32,
     R"({"data_type":"int32","out_of_range":"clamp","rounding":"towards-zero"})", Op::kEncode, -1e9, 1e9, 0},
    {"float32->int32/clamp/towards-positive", DataType::float32,
     R"({"data_type":"int32","out_of_range":"clamp","rounding":"towards-positive"})", Op::kEncode, -1e9, 1e9, 0},
    {"float32->int32/clamp/towards-negative", DataType::float32,
     R"({"data_type":"int32","out_of_range":"clamp","rounding":"towards-negative"})", Op::kEncode, -1e9, 1e9, 0},
    {"float64->int64/clamp/nearest-away", DataType::float64,
     R"({"data_type":"int64","out_of_range":"clamp","rounding":"nearest-away"})", Op::kEncode, -1e15, 1e15, 0},
    {"float64->int64/clamp/towards-zero", DataType::float64,
     R"({"data_type":"int64","out_of_range":"clamp","rounding":"towards-zero"})", Op::kEncode, -1e15, 1e15, 0},
    {"float64->int64/clamp/towards-positive", DataType::float64,
     R"({"data_type":"int64","out_of_range":"clamp","rounding":"towards-positive"})", Op::kEncode, -1e15, 1e15, 0},
    {"float32->float16/towards-positive", DataType::float32,
     R"({"data_type":"float16","rounding":"towards-positive"})", Op::kEncode, -65504, 65504, 0},
    {"float32->float16/towards-negative", DataType::float32,
     R"({"data_type":"float16","rounding":"towards-negative"})", Op::kEncode, -65504, 65504, 0},
    {"float32->uint8/clamp/towards-zero", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","rounding":"towards-zero"})", Op::kEncode, 0, 255, 0},
    {"float32->uint8/clamp/towards-negative", DataType::float32,
     R"({"data_type":"uint8","out_of_range":"clamp","rounding":"towards-negative"})", Op::kEncode, 0, 255, 0},
    {"float32->bfloat16/towards-positive", DataType::float32,
     R"({"data_type":"bfloat16","rounding":"towards-positive"})", Op::kEncode, -1e4, 1e4, 0},
    {"float32->float8_e3m4", DataType::float32, R"({"data_type":"float8_e3m4"})", Op::kEncode,
     -15.5, 15.5, 0},
    {"float32->float8_e4m3b11fnuz", DataType::float32, R"({"data_type":"float8_e4m3b11fnuz"})",
     Op::kEncode, -30, 30, 0},
    {"float32->float8_e5m2fnuz", DataType::float32, R"({"data_type":"float8_e5m2fnuz"})",
     Op::kEncode, -57344, 57344, 0},
    {"float32->float8_e8m0fnu", DataType::float32, R"({"data_type":"float8_e8m0fnu"})",
     Op::kEncode, 1e-3, 1e3, 0},
    {"float8_e4m3fnuz->float32/decode", DataType::float32, R"({"data_type":"float8_e4m3fnuz"})",
     Op::kDecode, -240, 240, 0},
    {"float8_e3m4->float32/decode", DataType::float32, R"({"data_type":"float8_e3m4"})",
     Op::kDecode, -15.5, 15.5, 0},
    {"float32->float4_e2m1fn", DataType::float32, R"({"data_type":"float4_e2m1fn"})", Op::kEncode,
     -6, 6, 0},
    {"float32->int4/clamp", DataType::float32, R"({"data_type":"int4","out_of_range":"clamp"})",
     Op::kEncode, -8, 7, 0},
    {"float6_e2m3fn->float32/decode", DataType::float32, R"({"data_type":"float6_e2m3fn"})",
     Op::kDecode, -7.5, 7.5, 0},
    {"float64->uint64/clamp", DataType::float64, R"({"data_type":"uint64","out_of_range":"clamp"})",
     Op::kEncode, 0, 1e18, 0},
    {"float32->int64/clamp", DataType::float32, R"({"data_type":"int64","out_of_range":"clamp"})",
     Op::kEncode, -1e18, 1e18, 0},
    {"uint64->float32", DataType::uint64, R"({"data_type":"float32"})", Op::kEncode, 0, 1e18, 0},
    // The rest of the float64 family.
    {"float32->float64", DataType::float32, R"({"data_type":"float64"})", Op::kEncode, -1e30, 1e30, 0},
    {"int32->float64", DataType::int32, R"({"data_type":"float64"})", Op::kEncode, -2e9, 2e9, 0},
    {"float64->uint8/clamp", DataType::float64, R"({"data_type":"uint8","out_of_range":"clamp"})",
     Op::kEncode, -10, 265, 0},
    {"int64->float32", DataType::int64, R"({"data_type":"float32"})", Op::kEncode, -1e18, 1e18, 0},
    {"uint64->float64/towards-zero", DataType::uint64, R"({"data_type":"float64","rounding":"towards-zero"})",
     Op::kEncode, 0, 1e19, 0},
    // Scalar maps with their keys spread through the data: U(-10, 300) clamped into uint8, keys
    // in every 16th, 97th or 1024th element (NaN alone; NaN, +Inf 4 and -Inf 6 elements further
    // apart: 97, 101, 103), against the same data and pair without specials or map.
    {"float32->uint8/clamp/-10..300", DataType::float32, R"({"data_type":"uint8","out_of_range":"clamp"})",
     Op::kEncode, -10, 300, 0},
    {"float32->uint8/clamp/-10..300/map_NaN/keys_1in16", DataType::float32, kMapNaN, Op::kEncode, -10, 300, 0,
     16},
    {"float32->uint8/clamp/-10..300/map_NaN/keys_1in97", DataType::float32, kMapNaN, Op::kEncode, -10, 300, 0,
     97},
    {"float32->uint8/clamp/-10..300/map_NaN/keys_1in1024", DataType::float32, kMapNaN, Op::kEncode, -10, 300,
     0, 1024},
    {"float32->uint8/clamp/-10..300/map_NaN_Inf/keys_1in16", DataType::float32, kMapNaNInf, Op::kEncode, -10,
     300, 0, 16, 20, 22},
    {"float32->uint8/clamp/-10..300/map_NaN_Inf/keys_1in97", DataType::float32, kMapNaNInf, Op::kEncode, -10,
     300, 0, 97, 101, 103},
    {"float32->uint8/clamp/-10..300/map_NaN_Inf/keys_1in1024", DataType::float32, kMapNaNInf, Op::kEncode, -10,
     300, 0, 1024, 1028, 1030},
};

// ---- buffers ----

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char[], FreeDeleter>;

Buffer AllocatePages(std::size_t bytes) {
  constexpr std::size_t kPage = 4096;
  bytes = (bytes + kPage - 1) / kPage * kPage;
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(kPage, bytes));
  if (!p) std::abort();
  std::memset(p, 0, bytes);  // first touch, outside any timed region
  return Buffer(p);
}

// Deterministic, platform-independent generator.
struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t Next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
};

zcast::Result<zcast::CastValueCodec> MakeCodec(DataType array_type, const std::string& config) {
  auto spec = zcast::CastValueSpec::FromJson(R"({"name":"cast_value","configuration":)" + config +
                                             "}");
  if (!spec.ok()) return spec.status();
  return zcast::CastValueCodec::Bind(*spec, array_type, std::nullopt);
}

// n source elements of `type`: doubles uniform in [lo, hi] with NaNs mixed in, cast by zcast.
zcast::Status Generate(DataType type, const Case& c, std::uint64_t seed, std::size_t n, unsigned char* out) {
  std::vector<double> values(n);
  SplitMix64 rng{seed};
  for (double& v : values) {
    v = c.lo + (c.hi - c.lo) * rng.Uniform01();
    if (c.nan_fraction > 0 && rng.Uniform01() < c.nan_fraction)
      v = std::numeric_limits<double>::quiet_NaN();
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [every, x] : {std::pair{c.nan_every, std::numeric_limits<double>::quiet_NaN()},
                          std::pair{c.inf_every, inf}, std::pair{c.ninf_every, -inf}}) {
    if (every > 0) {
      for (std::size_t i = every - 1; i < n; i += every) values[i] = x;
    }
  }
  auto to_source = MakeCodec(
      DataType::float64, std::string(R"({"data_type":")") + std::string(zcast::DataTypeName(type)) +
                             R"(","rounding":"nearest-even","out_of_range":"clamp"})");
  if (!to_source.ok()) return to_source.status();
  return to_source->Encode(values.data(), n, out);
}

// ---- the ceiling: same bytes in and out per element, trivial transform ----

template <std::size_t kSize> struct UintOfSize;
template <> struct UintOfSize<1> { using type = std::uint8_t; };
template <> struct UintOfSize<2> { using type = std::uint16_t; };
template <> struct UintOfSize<4> { using type = std::uint32_t; };
template <> struct UintOfSize<8> { using type = std::uint64_t; };

template <typename S, typename D>
__attribute__((noinline)) void CeilingLoop(const void* in, std::size_t n, void* out) {
  const S* src = static_cast<const S*>(in);
  D* dst = static_cast<D*>(out);
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[i]);  // truncate / zero-extend
}

using CeilingFn = void (*)(const void*, std::size_t, void*);

template <std::size_t kSrc>
CeilingFn CeilingForDst(std::size_t dst_size) {
  using S = typename UintOfSize<kSrc>::type;
  switch (dst_size) {
    case 1: return &CeilingLoop<S, std::uint8_t>;
    case 2: return &CeilingLoop<S, std::uint16_t>;
    case 4: return &CeilingLoop<S, std::uint32_t>;
    default: return &CeilingLoop<S, std::uint64_t>;
  }
}

CeilingFn Ceiling(std::size_t src_size, std::size_t dst_size) {
  switch (src_size) {
    case 1: return CeilingForDst<1>(dst_size);
    case 2: return CeilingForDst<2>(dst_size);
    case 4: return CeilingForDst<4>(dst_size);
    default: return CeilingForDst<8>(dst_size);
  }
}

// ---- one case's prepared state, cached across the repeated calls Google Benchmark makes ----

struct Prepared {
  const Case* c = nullptr;
  std::size_t requested_n = 0;  // 0: the streaming size (ElementsFor)
  std::optional<zcast::CastValueCodec> codec;
  DataType src_type{}, dst_type{};
  std::size_t src_size = 0, dst_size = 0;
  std::size_t n = 0;  // elements per buffer
  Buffer in, out;
  std::string label;
  std::string error;
#if ZCAST_BENCH_KERNEL_NAMES
  std::unique_ptr<const zcast::internal::Kernel> kernel;  // the codec's kernel, run alone
#endif
};

#if ZCAST_BENCH_KERNEL_NAMES
// The kernel of the Direction Bind builds, without the scalar map (which does not influence the
// choice of kernel).
std::unique_ptr<const zcast::internal::Kernel> KernelOf(const zcast::CastValueCodec& codec, Op op) {
  const zcast::CastValueSpec& s = codec.spec();
  zcast::internal::Direction dir =
      op == Op::kEncode
          ? zcast::internal::Direction{codec.decoded_type(), codec.encoded_type(),
                                       s.effective_rounding(), s.out_of_range, {}}
          : zcast::internal::Direction{codec.encoded_type(), codec.decoded_type(),
                                       s.effective_rounding(), s.out_of_range, {}};
  return zcast::internal::SelectKernel(dir);
}
#endif

std::string KernelLabel(const zcast::CastValueCodec& codec, Op op) {
#if ZCAST_BENCH_KERNEL_NAMES
  return std::string("kernel=") + KernelOf(codec, op)->name();
#else
  (void)codec;
  (void)op;
  return "";
#endif
}

zcast::Status RunCodec(const Prepared& p) {
  return p.c->op == Op::kEncode ? p.codec->Encode(p.in.get(), p.n, p.out.get())
                                : p.codec->Decode(p.in.get(), p.n, p.out.get());
}

Prepared& Prepare(const Case& c, std::size_t n, std::uint64_t seed) {
  static Prepared p;
  if (p.c == &c && p.requested_n == n) return p;
  p = Prepared();  // free the previous case's buffers first
  p.c = &c;
  p.requested_n = n;
  auto codec = MakeCodec(c.array_type, c.config);
  if (!codec.ok()) {
    p.error = "bind: " + codec.status().message();
    return p;
  }
  p.codec.emplace(std::move(*codec));
  bool enc = c.op == Op::kEncode;
  p.src_type = enc ? p.codec->decoded_type() : p.codec->encoded_type();
  p.dst_type = enc ? p.codec->encoded_type() : p.codec->decoded_type();
  p.src_size = zcast::DataTypeSize(p.src_type);
  p.dst_size = zcast::DataTypeSize(p.dst_type);
  p.n = n != 0 ? n : ElementsFor(p.src_size, p.dst_size);
  p.in = AllocatePages(p.n * p.src_size);
  p.out = AllocatePages(p.n * p.dst_size);
  if (zcast::Status st = Generate(p.src_type, c, seed, p.n, p.in.get());
      !st.ok()) {
    p.error = "input generation: " + st.message();
    return p;
  }
  if (zcast::Status st = RunCodec(p); !st.ok()) {  // untimed warm-up; checks the inputs
    p.error = "warm-up: " + st.message();
    return p;
  }
  p.label = KernelLabel(*p.codec, c.op);
#if ZCAST_BENCH_KERNEL_NAMES
  // The kernel alone (without the map a scalar_map case's codec adds) for the plain cases.
  if (std::strstr(c.config, "scalar_map") == nullptr) p.kernel = KernelOf(*p.codec, c.op);
#endif
  return p;
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// n = 0: the streaming size (ElementsFor); else n elements, a chunk's size.
void BM_Cast(benchmark::State& state, const Case* c, std::uint64_t seed, std::size_t n) {
  Prepared& p = Prepare(*c, n, seed);
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  // At a chunk's size one call takes microseconds: each timing covers as many calls as make
  // about 4 MiB of traffic, so the clock's own cost stays below a percent.
  const std::size_t bytes_per_call = p.n * (p.src_size + p.dst_size);
  const int calls = p.requested_n == 0
                        ? 1
                        : static_cast<int>(std::max<std::size_t>(1, (std::size_t{4} << 20) /
                                                                        bytes_per_call));
  const CeilingFn ceiling = Ceiling(p.src_size, p.dst_size);
  double codec_seconds = 0, ceiling_seconds = 0, kernel_seconds = 0;
  using Clock = std::chrono::steady_clock;
  auto time_ceiling = [&] {
    auto t0 = Clock::now();
    for (int j = 0; j < calls; ++j) {
      ceiling(p.in.get(), p.n, p.out.get());
      benchmark::ClobberMemory();
    }
    return Seconds(t0, Clock::now());
  };
  for (auto _ : state) {
    // ceiling, codec, ceiling: the codec is sandwiched, so both see the same machine state on
    // average.
    double t_ceiling = time_ceiling();
    auto t0 = Clock::now();
    zcast::Status st;
    for (int j = 0; j < calls && st.ok(); ++j) {
      st = RunCodec(p);
      benchmark::ClobberMemory();
    }
    double t_codec = Seconds(t0, Clock::now());
    t_ceiling = 0.5 * (t_ceiling + time_ceiling());
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
#if ZCAST_BENCH_KERNEL_NAMES
    // The kernel alone, after the codec, at chunk sizes: the codec's per-call cost is the
    // difference (its status, floating-point environment, dispatch).
    if (p.kernel != nullptr && p.requested_n != 0) {
      auto k0 = Clock::now();
      for (int j = 0; j < calls; ++j) {
        p.kernel->Run(p.in.get(), p.n, p.out.get());
        benchmark::ClobberMemory();
      }
      kernel_seconds += Seconds(k0, Clock::now());
    }
#endif
    state.SetIterationTime(t_codec / calls);
    codec_seconds += t_codec;
    ceiling_seconds += t_ceiling;
  }
  const double bytes_per_iteration = static_cast<double>(bytes_per_call);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes_per_iteration));
  if (codec_seconds > 0 && ceiling_seconds > 0) {
    const double total_bytes =
        bytes_per_iteration * static_cast<double>(state.iterations()) * calls;
    state.counters["ceiling_ratio"] = ceiling_seconds / codec_seconds;
    state.counters["ceiling_GBps"] = total_bytes / ceiling_seconds / 1e9;
    state.counters["GBps"] = total_bytes / codec_seconds / 1e9;
    // kernel time / codec time: 1.0 is a call that costs nothing beyond its kernel.
    if (kernel_seconds > 0) state.counters["kernel_ratio"] = kernel_seconds / codec_seconds;
  }
  state.SetLabel(p.label);
}

// The seed of a case depends on its name only (FNV-1a), so adding a case changes no other input.
std::uint64_t SeedOf(const char* name) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 0x100000001B3ull;
  return h;
}

const int kRegistered = [] {
  benchmark::AddCustomContext("simd_target", std::string(zcast::SimdTarget()));
  for (const Case& c : kCases) {
    std::string name = std::string("cast/") + c.name;
    benchmark::RegisterBenchmark(name.c_str(), BM_Cast, &c, SeedOf(c.name), std::size_t{0})
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  // Chunk sizes (in cache): 16 Ki, a Sentinel-2 10 m chunk (244 x 244) and 1 Mi elements.
  for (std::size_t n : {std::size_t{16384}, std::size_t{59536}, std::size_t{1} << 20}) {
    for (const Case& c : kCases) {
      std::string name = std::string("chunk/") + c.name + "/n=" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), BM_Cast, &c, SeedOf(c.name), n)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
