// zcast_call_overhead: what one C API call costs beyond its kernel, at the sizes Zarr calls it
// with (one call per chunk).
//
//   zcast_call_overhead [REPETITIONS]
//
// For each case and size, times in one interleaved loop (so both see the same machine): the kernel
// alone (SelectKernel's, run directly), zcast_encode / zcast_decode through a codec made once
// (cached, as a reader keeps it), and memcpy of the output's bytes. Prints the median nanoseconds
// per call of each and the call's excess over the kernel. n = 0 is the fixed cost of a call (the
// status, the floating-point environment, the kernel dispatch). The inputs are in range and
// finite, so the kernels' common path runs; the buffers stay in cache for every size here.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"
#include "zcast/zcast.h"
#include "zcast/zcast.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using DataTypeOpt = std::optional<zcast::DataType>;

struct Case {
  const char* label;
  const char* codec_json;
  const char* array_type_json;
  bool decode;  // time zcast_decode (stored -> array type) instead of zcast_encode
};

// float32 -> uint8 clamp (a write), uint16 -> float32 (the Sentinel-2 read, cast_value alone).
constexpr Case kCases[] = {
    {"float32->uint8 clamp (encode)",
     R"({"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp"}})",
     R"("float32")", false},
    {"uint16->float32 (decode)",
     R"({"name":"cast_value","configuration":{"data_type":"uint16","rounding":"nearest-even","out_of_range":"clamp"}})",
     R"("float32")", true},
};
constexpr std::size_t kSizes[] = {0, 1024, 16384, 59536};

// "\"float32\"" -> float32: the C API speaks JSON.
DataTypeOpt TypeOfJson(const char* json) {
  const std::string text(json);
  return zcast::DataTypeFromName(text.substr(1, text.size() - 2));
}

double MedianNs(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace zcast;
  using namespace zcast::internal;
  const int reps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 51;
  std::printf("target %s; median ns per call of %d interleaved repetitions\n", zcast_simd_target(),
              reps);
  std::printf("%-32s %8s %10s %10s %10s %10s\n", "case", "n", "kernel", "C API", "excess",
              "memcpy");
  for (const Case& c : kCases) {
    zcast_codec* codec = nullptr;
    if (zcast_codec_create(c.codec_json, c.array_type_json, nullptr, &codec) != ZCAST_OK) {
      std::fprintf(stderr, "%s: %s\n", c.label, zcast_last_error());
      return 1;
    }
    const DataType array_type = *TypeOfJson(c.array_type_json);
    const DataType stored = *TypeOfJson(zcast_codec_encoded_data_type(codec));
    const DataType from = c.decode ? stored : array_type, to = c.decode ? array_type : stored;
    Direction dir{from, to, Rounding::kNearestEven, OutOfRange::kClamp, {}};
    const auto kernel = SelectKernel(dir);
    const std::size_t ss = Info(from).size, ds = Info(to).size;
    for (std::size_t n : kSizes) {
      std::vector<unsigned char> in(n * ss + 64), out(n * ds + 64), copy(n * ds + 64);
      for (std::size_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(i % 200);  // in range of both types
        std::uint64_t vb;
        std::memcpy(&vb, &v, 8);
        const auto r = CastBits(DataType::float64, vb, from, Rounding::kNearestEven,
                                OutOfRange::kClamp);
        std::memcpy(&in[i * ss], &r.bits, ss);
      }
      // Enough calls per timing that the clock's own cost (tens of ns) is noise.
      const int calls = n == 0 ? 2000 : static_cast<int>(std::max<std::size_t>(20, 200000 / (n + 1)));
      std::vector<double> k_ns, api_ns, copy_ns;
      for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        for (int j = 0; j < calls; ++j) {
          if (kernel->Run(in.data(), n, out.data()) != n) return 1;
        }
        auto t1 = Clock::now();
        for (int j = 0; j < calls; ++j) {
          const zcast_status s = c.decode ? zcast_decode(codec, in.data(), n, out.data())
                                          : zcast_encode(codec, in.data(), n, out.data());
          if (s != ZCAST_OK) {
            std::fprintf(stderr, "%s: %s\n", c.label, zcast_last_error());
            return 1;
          }
        }
        auto t2 = Clock::now();
        for (int j = 0; j < calls; ++j) {
          std::memcpy(copy.data(), out.data(), n * ds);
          asm volatile("" : : "r"(copy.data()) : "memory");  // keep every copy
        }
        auto t3 = Clock::now();
        k_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
        api_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / calls);
        copy_ns.push_back(std::chrono::duration<double, std::nano>(t3 - t2).count() / calls);
      }
      const double k = MedianNs(k_ns), a = MedianNs(api_ns), m = MedianNs(copy_ns);
      std::printf("%-32s %8zu %10.1f %10.1f %10.1f %10.1f\n", c.label, n, k, a, a - k, m);
    }
    zcast_codec_destroy(codec);
  }
  return 0;
}
