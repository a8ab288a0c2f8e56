// 1-byte -> 2-byte pairs (8-bit and sub-byte integers, float8/6/4 -> float16, bfloat16, 16-bit
// integers) as a 256-entry table, filled by the reference path at bind time (scalar_map and every
// rule included, so the kernel is exact by construction, as table8.cc's). Entries whose element
// fails are declined to the reference path, which reports them in index order.
//
// AVX3_DL (AVX-512 VBMI) looks the table up without a gather: the low and the high bytes of the
// 256 results are two byte tables, each in four registers and looked up by two vpermi2b and a
// blend on the index's top bit (table8-inl.h's Table8Permute), and two more vpermi2b interleave
// them into element order: 9 instructions per 64 elements. On an AMD EPYC (Zen 4) the gather
// below streams float8_e4m3 -> float16 / bfloat16 at 0.26 / 0.28 of the copy ceiling on AVX3_DL,
// where an Intel Xeon runs it at 1.07.
//
// Below AVX3_DL, integer sources into 16-bit integers are left to the int-lane family (see
// MakeTable8To16): its arithmetic beats every lookup there.
//
// AVX2 and AVX3 look the bytes up with the hardware gather (vpgatherdd) of 32-bit entries (low 16
// bits the result, bit 31 marking a failing entry); a gather of a 1 KiB table needs no per-type
// arithmetic. Integer sources into float16 are left to the float-lane F16C kernel on these
// targets: an integer is exact in float32 in two instructions and vcvtps2ph is one: with those
// loads inlined (IntSourceLanes, float_lanes-inl.h) uint8 -> float16 measured 32.6 GB/s in cache
// against the gather's 18.7 (streaming, the gather reaches 0.80 of the F16C kernel's speed).
// SSE4 has no gather: there the block is a plain loop of table loads, one load, one store and one
// OR per element.
//
// Below AVX3_DL, float8/6/4 into float16 and bfloat16 without a scalar_map are the float8-to-half
// family's (float8_to_half.cc), which beat the gather and the loads by 1.4-7x in cache (see
// MakeTable8To16), and int8 / uint8 into float16 and bfloat16 without a scalar_map are the
// int8-to-half family's (int8_to_half.cc: a conversion and a shift; selected before this one); so
// on those targets the table serves the sub-byte integers into bfloat16 (and into float16 on
// SSE4), e8m0, and the pairs with a scalar_map. The ARM targets have no table.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/table8_to16.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <array>
#include <cstring>

#include "zcast/kernels/block-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
#define ZCAST_TABLE8_TO16_GATHER 1
#endif
#if defined(ZCAST_TABLE8_TO16_GATHER) || HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX3_DL

struct Table16Plan {
  alignas(64) std::int32_t entry[256];   // the result in the low 16 bits, -1 where it fails
  alignas(64) std::uint8_t low[256];     // the result's low byte,
  alignas(64) std::uint8_t high[256];    // its high byte
  alignas(64) std::uint8_t fail[256];    // 0xFF where it fails
  bool any_fail;
};

#if HWY_TARGET == HWY_AVX3_DL
// Output byte j of the first 64 is the low (j even) or high (j odd, index bit 6: the second table
// of vpermi2b) byte of element j / 2; of the second 64, of element 32 + j / 2.
alignas(64) inline constexpr std::array<std::uint8_t, 128> kInterleave = [] {
  std::array<std::uint8_t, 128> a{};
  for (int j = 0; j < 128; ++j) a[j] = static_cast<std::uint8_t>(((j / 64) * 32 + (j % 64) / 2) | (j % 2 ? 64 : 0));
  return a;
}();
struct Table16PermuteConsts {
  __m512i low[4], high[4], fail[4];
  __m512i first, second;  // the interleave of elements 0..31 and 32..63
  bool any_fail;
};
// T[x] for 64 bytes x: bits 0..5 index a register, bit 6 one of a pair, `neg` (bit 7) the pair.
HWY_INLINE __m512i Permute256(const __m512i (&t)[4], __m512i x, __mmask64 neg) {
  return _mm512_mask_blend_epi8(neg, _mm512_permutex2var_epi8(t[0], x, t[1]), _mm512_permutex2var_epi8(t[2], x, t[3]));
}
#endif

struct Table8To16Family {
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;  // no arithmetic
  using Params = Table16Plan;
  static constexpr std::size_t SrcSize(const Params&) { return 1; }
  static constexpr std::size_t DstSize(const Params&) { return 2; }
  static std::size_t BlockElems() { return kVecs * hn::Lanes(DU32()); }  // 64 on AVX-512

#if HWY_TARGET == HWY_AVX3_DL
  using Consts = Table16PermuteConsts;
  static Consts MakeConsts(const Params& p) {
    Consts c;
    for (int k = 0; k < 4; ++k) {
      c.low[k] = _mm512_load_si512(p.low + 64 * k);
      c.high[k] = _mm512_load_si512(p.high + 64 * k);
      c.fail[k] = _mm512_load_si512(p.fail + 64 * k);
    }
    c.first = _mm512_load_si512(kInterleave.data());
    c.second = _mm512_load_si512(kInterleave.data() + 64);
    c.any_fail = p.any_fail;
    return c;
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const __m512i x = _mm512_loadu_si512(in);
    const __mmask64 neg = _mm512_movepi8_mask(x);
    const __m512i low = Permute256(c.low, x, neg), high = Permute256(c.high, x, neg);
    _mm512_storeu_si512(out, _mm512_permutex2var_epi8(low, c.first, high));
    _mm512_storeu_si512(out + 64, _mm512_permutex2var_epi8(low, c.second, high));
    if (HWY_LIKELY(!c.any_fail)) return kNoFailure;
    const __mmask64 failed = _mm512_movepi8_mask(Permute256(c.fail, x, neg));
    if (HWY_LIKELY(failed == 0)) return kNoFailure;
    std::uint8_t bits[8];  // lane j is bit j % 8 of byte j / 8, as StoreMaskBits lays it out
    std::memcpy(bits, &failed, sizeof bits);
    return res.Lanes(bits, 64, 0);
  }
#elif defined(ZCAST_TABLE8_TO16_GATHER)
  using Consts = const Table16Plan*;
  static Consts MakeConsts(const Params& p) { return &p; }
  static HWY_INLINE VI32 One(const Table16Plan* t, const unsigned char* in) {
    const DI32 di;
    const hn::Rebind<std::uint8_t, DI32> d8;
    return hn::GatherIndex(di, t->entry, hn::BitCast(di, hn::PromoteTo(DU32(), hn::LoadU(d8, in))));
  }
  static HWY_INLINE std::size_t Block(const Consts& t, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const DU32 du;
    const DI32 di;
    const std::size_t n = hn::Lanes(du);
    const VI32 e0 = One(t, in), e1 = One(t, in + n), e2 = One(t, in + 2 * n), e3 = One(t, in + 3 * n);
    const VU32 low = hn::Set(du, 0xFFFFu);
    StoreBlock(2, hn::And(hn::BitCast(du, e0), low), hn::And(hn::BitCast(du, e1), low),
               hn::And(hn::BitCast(du, e2), low), hn::And(hn::BitCast(du, e3), low), out);
    if (HWY_LIKELY(!t->any_fail)) return kNoFailure;
    const VI32 zero = hn::Zero(di);
    const MU32 m0 = hn::RebindMask(du, hn::Lt(e0, zero)), m1 = hn::RebindMask(du, hn::Lt(e1, zero)),
               m2 = hn::RebindMask(du, hn::Lt(e2, zero)), m3 = hn::RebindMask(du, hn::Lt(e3, zero));
    if (HWY_LIKELY(hn::AllFalse(du, hn::Or(hn::Or(m0, m1), hn::Or(m2, m3))))) return kNoFailure;
    return ResolveBlock(du, m0, m1, m2, m3, res);
  }
#else
  using Consts = const Table16Plan*;
  static Consts MakeConsts(const Params& p) { return &p; }
  static HWY_INLINE std::size_t Block(const Consts& t, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    constexpr std::size_t kN = kVecs * HWY_LANES(std::uint32_t);  // this target's block (fixed size)
    std::int32_t any = 0;
    for (std::size_t j = 0; j < kN; ++j) {
      const std::int32_t e = t->entry[in[j]];
      any |= e;
      const auto v = static_cast<std::uint16_t>(e);
      std::memcpy(out + 2 * j, &v, 2);
    }
    if (HWY_LIKELY(any >= 0)) return kNoFailure;
    std::uint8_t bits[kN / 8] = {};
    for (std::size_t j = 0; j < kN; ++j) bits[j / 8] |= static_cast<std::uint8_t>((t->entry[in[j]] < 0) << (j % 8));
    return res.Lanes(bits, kN, 0);
  }
#endif
};

std::unique_ptr<const Kernel> MakeTable8To16(const Direction& dir) {
  if (Info(dir.src).size != 1 || Info(dir.dst).size != 2) return nullptr;
#if HWY_TARGET != HWY_AVX3_DL
  // Integer sources into int16/uint16 are the int-lane family's (int_lanes.cc: widen, range check,
  // pack) below AVX3_DL: in cache (zcast_kernel_loop, 16384 elements) on an AMD EPYC it ran
  // uint8 -> int16 at 12.8 (SSE4) / 28 (AVX2) / 37 (AVX3) GB/s against the table's 8.5 (loads) /
  // 7.5 (gather) / 7.8 (gather); AVX3_DL's permute (62) and the int lanes (52-66) are alike there.
  if (Info(dir.src).is_int() && Info(dir.dst).is_int()) return nullptr;
#endif
#if HWY_TARGET != HWY_AVX3_DL
  // float8/6/4 into float16 and bfloat16 are the float8-to-half family's below AVX3_DL
  // (float8_to_half.cc: 16-bit lanes, a shift and an add, two byte lookups): in cache on an AMD
  // EPYC (Zen 4) float8_e4m3 -> float16 ran 14 (SSE4) / 31 (AVX2) / 55 (AVX3) GB/s there against
  // the table's 10 (loads) / 8 (gather) / 8 (gather); AVX3_DL's permute ran 62 against its 48.
  // With a scalar_map the table (which has it built in) stays.
  if (Info(dir.src).kind == Kind::Float && Info(dir.src).special != Special::E8m0 && !Info(dir.dst).is_int() &&
      dir.map.empty())
    return nullptr;
#endif
#if defined(ZCAST_TABLE8_TO16_GATHER) || HWY_TARGET == HWY_AVX3_DL
  if (Info(dir.src).is_int() && dir.dst == DataType::float16) return nullptr;  // F16C: see the top
#endif
  Table16Plan plan;
  plan.any_fail = false;
  for (int s = 0; s < 256; ++s) {
    const CastOutcome r = ConvertScalar(dir, static_cast<std::uint64_t>(s));
    const bool fails = r.error != CastError::kNone;
    plan.entry[s] = fails ? std::int32_t{-1} : static_cast<std::int32_t>(r.bits & 0xFFFF);
    plan.low[s] = static_cast<std::uint8_t>(r.bits);
    plan.high[s] = static_cast<std::uint8_t>(r.bits >> 8);
    plan.fail[s] = fails ? 0xFF : 0;
    plan.any_fail |= fails;
  }
#if HWY_TARGET == HWY_AVX3_DL
  return Make<Table8To16Family>(dir, plan, "table8-to16-permute");
#elif defined(ZCAST_TABLE8_TO16_GATHER)
  return Make<Table8To16Family>(dir, plan, "table8-to16-gather");
#undef ZCAST_TABLE8_TO16_GATHER
#else
  return Make<Table8To16Family>(dir, plan, "table8-to16-loads");
#endif
}

#else

std::unique_ptr<const Kernel> MakeTable8To16(const Direction&) { return nullptr; }

#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeTable8To16);

std::unique_ptr<const Kernel> SelectTable8To16(const Direction& dir, std::int64_t target) {
  if (Info(dir.src).size != 1 || Info(dir.dst).size != 2) return nullptr;
  return ZCAST_CALL_FOR_TARGET(MakeTable8To16, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
