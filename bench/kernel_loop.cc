// zcast_kernel_loop: one kernel's own speed, in cache or streaming, without the codec around it.
//
//   ZCAST_SIMD_TARGET=AVX2 zcast_kernel_loop float16 uint8 0 1 4096 31 [NAN_EVERY [MAP]]
//   (source, destination, rounding 0-4 in zcast::Rounding's order, out_of_range 0 unset /
//   1 clamp / 2 wrap, elements, repetitions; NAN_EVERY k > 0: every k-th element is the source's
//   NaN instead, to time the path of blocks that have one; MAP: a scalar_map, `nan` for NaN -> 0,
//   `nan_inf` for NaN -> 0, +Inf -> the destination's largest value, -Inf -> 0, with +Inf in
//   every (k + 4)-th and -Inf in every (k + 6)-th element too)
//
// Runs SelectKernel's kernel for the pair 20 times per repetition over the same buffers and
// prints the median of the repetitions in GB/s (bytes read + written, 1e9 bytes/s). With 4096
// elements both buffers stay in L1/L2, so the figure is the kernel's compute speed: a loop
// overhead or a stack spill that a streaming run hides under memory stalls shows here (zcast_bench
// measures the streaming speed against a copy ceiling). The inputs are values 0 .. 200 in steps of
// 0.1 converted to the source type, all finite and in range for every destination with a range
// of at least 200, so the common path is what runs. Only the source file's internal API is used
// (zcast/kernels.h), which revision 1cbf992 (the earlier AVX2 kernels) has too: the same file
// builds against it to compare old and new kernels alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"
#include "zcast/zcast.hpp"

int main(int argc, char** argv) {
  using namespace zcast;
  using namespace zcast::internal;
  if (argc < 7 || argc > 9) {
    std::fprintf(stderr, "usage: %s SRC DST ROUNDING(0-4) OUT_OF_RANGE(0-2) ELEMENTS REPETITIONS [NAN_EVERY [MAP]]\n",
                 argv[0]);
    return 2;
  }
  const auto src = DataTypeFromName(argv[1]), dst = DataTypeFromName(argv[2]);
  if (!src || !dst) {
    std::fprintf(stderr, "unknown data type\n");
    return 2;
  }
  Direction dir{*src, *dst, static_cast<Rounding>(std::atoi(argv[3])),
                static_cast<OutOfRange>(std::atoi(argv[4])), {}};
  const std::string map = argc == 9 ? argv[8] : "";
  if (map != "" && map != "nan" && map != "nan_inf") {
    std::fprintf(stderr, "MAP is nan or nan_inf\n");
    return 2;
  }
  const bool with_inf = map == "nan_inf";
  if (with_inf && !Info(dir.src).has_inf()) {
    std::fprintf(stderr, "%s has no Inf\n", argv[1]);
    return 2;
  }
  const std::uint64_t pos_inf = Info(dir.src).positive_inf(), neg_inf = pos_inf | Info(dir.src).sign_bit();
  if (!map.empty()) {
    dir.map.emplace_back(Info(dir.src).canonical_nan(), 0);
    if (with_inf) {
      const double big = 1e300;
      std::uint64_t bb;
      std::memcpy(&bb, &big, 8);
      dir.map.emplace_back(pos_inf, CastBits(DataType::float64, bb, dir.dst, Rounding::kNearestEven, OutOfRange::kClamp).bits);
      dir.map.emplace_back(neg_inf, 0);
    }
  }
  const std::size_t n = std::strtoull(argv[5], nullptr, 10);
  const int reps = std::max(1, std::atoi(argv[6]));
  const auto kernel = SelectKernel(dir);
  const std::size_t ss = Info(dir.src).size, ds = Info(dir.dst).size;
  std::vector<unsigned char> in(n * ss + 64), out(n * ds + 64);
  std::uint64_t state = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double v = static_cast<double>((state >> 11) % 2000) / 10.0;
    std::uint64_t vb;
    std::memcpy(&vb, &v, 8);
    const auto r = CastBits(DataType::float64, vb, dir.src, Rounding::kNearestEven, OutOfRange::kClamp);
    std::memcpy(&in[i * ss], &r.bits, ss);
  }
  const std::size_t nan_every = argc >= 8 ? std::strtoull(argv[7], nullptr, 10) : 0;
  if (nan_every > 0) {
    if (!Info(dir.src).has_nan()) {
      std::fprintf(stderr, "%s has no NaN\n", argv[1]);
      return 2;
    }
    const std::uint64_t nan = Info(dir.src).canonical_nan();
    for (std::size_t i = nan_every - 1; i < n; i += nan_every) std::memcpy(&in[i * ss], &nan, ss);
    if (with_inf) {
      for (std::size_t i = nan_every + 3; i < n; i += nan_every + 4) std::memcpy(&in[i * ss], &pos_inf, ss);
      for (std::size_t i = nan_every + 5; i < n; i += nan_every + 6) std::memcpy(&in[i * ss], &neg_inf, ss);
    }
  }
  std::vector<double> seconds;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    for (int j = 0; j < 20; ++j) {
      if (kernel->Run(in.data(), n, out.data()) != n) {
        std::fprintf(stderr, "%s: an element failed\n", kernel->name());
        return 1;
      }
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count() / 20);
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%s %s->%s n=%zu GB/s %.2f\n", kernel->name(), argv[1], argv[2], n,
              static_cast<double>(n * (ss + ds)) / seconds[seconds.size() / 2] / 1e9);
  return 0;
}
