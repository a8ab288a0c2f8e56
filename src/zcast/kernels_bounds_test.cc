// Every kernel, on every SIMD target compiled, reads and writes only the n elements it is given:
// its buffers are placed against inaccessible guard pages, ending exactly at one (a read or write
// past the end faults) and starting exactly after one (before the start faults). Lengths 0-40 and
// around the block sizes of every target (63 ... 1025 elements), inputs that all pass (the kernel
// covers the whole length, tail included) and seeded random bit patterns (it stops at a failing
// element mid-block). A fault prints the target, kernel, direction and length and exits.
//
// It proves the kernels' memory bounds on every target, emulated aarch64 included; the ASan build
// (scripts/test-sanitizers) checks the AVX2 kernels only.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zcast/dtype.h"
#include "zcast/exact.h"
#include "zcast/kernels.h"
#include "zcast/kernels/targets.h"
#include "zcast/kernels_test_util.h"

namespace zcast::internal {
namespace {

using kernel_test::Describe;

constexpr std::size_t kMaxElements = 1025;

// One mapping: a guard page, the data pages, a guard page. Start() is the first data byte (a
// guard page just before it), End() one past the last (a guard page just after it).
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t bytes) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    data_ = (bytes + page_ - 1) / page_ * page_;
    void* p = mmap(nullptr, data_ + 2 * page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<unsigned char*>(p);
    ok_ = mprotect(base_, page_, PROT_NONE) == 0 &&
          mprotect(base_ + page_ + data_, page_, PROT_NONE) == 0;
  }
  ~GuardedBuffer() {
    if (base_ != nullptr) munmap(base_, data_ + 2 * page_);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  bool ok() const { return ok_; }
  unsigned char* Start() const { return base_ + page_; }
  unsigned char* End() const { return base_ + page_ + data_; }

 private:
  std::size_t page_ = 0, data_ = 0;
  unsigned char* base_ = nullptr;
  bool ok_ = false;
};

// What runs now, for the fault handler (plain globals: the handler may only read memory and
// write(2)).
const char* g_target = "";
const char* g_kernel = "";
char g_direction[160] = "";
std::size_t g_n = 0;
const char* g_layout = "";

void WriteText(const char* s) {
  ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

extern "C" void OnFault(int sig) {
  char digits[24];
  int i = sizeof(digits) - 1;
  digits[i] = '\0';
  std::size_t n = g_n;
  do {
    digits[--i] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0 && i > 0);
  WriteText("\nKernelBounds: ");
  WriteText(sig == SIGSEGV ? "SIGSEGV" : "SIGBUS");
  WriteText(": an access outside the buffers: target ");
  WriteText(g_target);
  WriteText(", kernel ");
  WriteText(g_kernel);
  WriteText(", ");
  WriteText(g_direction);
  WriteText(", n = ");
  WriteText(digits + i);
  WriteText(", ");
  WriteText(g_layout);
  WriteText("\n");
  _exit(3);
}

std::vector<std::size_t> Lengths() {
  std::vector<std::size_t> v;
  for (std::size_t n = 0; n <= 40; ++n) v.push_back(n);
  for (std::size_t b : {64, 128, 256, 512, 1024}) {
    v.push_back(b - 1);
    v.push_back(b);
    v.push_back(b + 1);
  }
  return v;
}

class KernelBounds : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override { ZCAST_SKIP_UNLESS_SUPPORTED(GetParam()); }
};

TEST_P(KernelBounds, GuardPages) {
  const std::int64_t target = GetParam();
  GuardedBuffer in(kMaxElements * 8), out(kMaxElements * 8);
  ASSERT_TRUE(in.ok() && out.ok()) << "mmap/mprotect failed";
  struct sigaction action {}, old_segv {}, old_bus {};
  action.sa_handler = OnFault;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &old_segv);
  sigaction(SIGBUS, &action, &old_bus);
  g_target = SimdTargetName(target);
  const std::vector<std::size_t> lengths = Lengths();
  std::mt19937_64 rng(20261208);
  std::vector<std::uint64_t> random_bits(kMaxElements);
  std::size_t runs = 0;
  for (DataType src : kAllDataTypes) {
    const TypeInfo& s = Info(src);
    for (std::uint64_t& b : random_bits) b = rng() & s.value_mask();
    // 1 is a value of every type (e8m0 has no zero) and passes into every type.
    const double one_value = 1.0;
    std::uint64_t one_bits;
    std::memcpy(&one_bits, &one_value, 8);
    const std::uint64_t one =
        CastBits(DataType::float64, one_bits, src, Rounding::kNearestEven, OutOfRange::kUnset).bits;
    for (DataType dst : kAllDataTypes) {
      const bool int_dst = Info(dst).is_int();
      for (OutOfRange oor : {OutOfRange::kUnset, OutOfRange::kClamp, OutOfRange::kWrap}) {
        if (oor == OutOfRange::kWrap && !int_dst) continue;
        Direction dir{src, dst, Rounding::kNearestEven, oor, {}};
        if (s.has_nan()) dir.map.emplace_back(s.canonical_nan(), 0);  // the map's blend too
        for (bool mapped : {false, true}) {
          if (mapped && dir.map.empty()) continue;
          Direction d = dir;
          if (!mapped) d.map.clear();
          auto kernel = target == kBaselineTarget ? SelectKernelFor(d, target)
                                                  : SelectSimdKernelFor(d, target);
          if (!kernel) continue;  // the baseline kernel, checked by the baseline instance
          g_kernel = kernel->name();
          std::snprintf(g_direction, sizeof(g_direction), "%s", Describe(d).c_str());
          const std::size_t ss = s.size, ds = Info(dst).size;
          for (int fill = 0; fill < 2; ++fill) {
            for (std::size_t n : lengths) {
              g_n = n;
              // Against the end guard, then after the start guard.
              for (int layout = 0; layout < 2; ++layout) {
                unsigned char* i = layout == 0 ? in.End() - n * ss : in.Start();
                unsigned char* o = layout == 0 ? out.End() - n * ds : out.Start();
                g_layout = layout == 0 ? "buffers end at a guard page"
                                       : "buffers start after a guard page";
                for (std::size_t k = 0; k < n; ++k) {
                  StoreBits(i + k * ss, ss, fill == 0 ? one : random_bits[k]);
                }
                const std::size_t done = kernel->Run(i, n, o);
                ++runs;
                ASSERT_LE(done, n) << Describe(d) << ", kernel " << kernel->name() << ", n " << n;
                if (fill == 0) {
                  // 1 passes in every direction: the whole length, tail included, was run.
                  ASSERT_EQ(done, n) << Describe(d) << ", kernel " << kernel->name() << ", n " << n;
                }
              }
            }
          }
        }
      }
    }
  }
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  EXPECT_GT(runs, 0u);
  std::printf("KernelBounds[%s]: %zu kernel runs against guard pages\n", g_target, runs);
}

INSTANTIATE_TEST_SUITE_P(Targets, KernelBounds, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const auto& info) { return std::string(SimdTargetName(info.param)); });

}  // namespace
}  // namespace zcast::internal
