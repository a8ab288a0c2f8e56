// Any 1-byte -> 1-byte pair as a 256-entry table T, filled by the reference path at bind time
// (scalar_map and every rule included, so the kernel is exact by construction: table8_plan.h);
// the kernels differ only in how they look T up (table8-inl.h): vpermi2b on AVX3_DL, four-register
// TBL/TBX on NEON (and in SVE's common blocks up to 256 bits), the signed half-table or both
// halves by TableLookupBytes elsewhere, T indexed directly on SCALAR (one lane). A block is one
// vector of bytes; its failing lanes (T's failing entries, or a superset that the reference then
// decides) are resolved in index order, so the first failing index is the reference's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "zcast/kernels/table8.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "zcast/kernels/block-inl.h"
#include "zcast/kernels/table8-inl.h"

HWY_BEFORE_NAMESPACE();
namespace zcast::internal::HWY_NAMESPACE {

// A block of Lanes(D8) bytes (at most kMaxBlock = 4 x Lanes(uint32): the same count).
template <class Lookup>
struct Table8Family {
  static constexpr std::size_t kSrcSize = 1;
  static constexpr std::size_t kDstSize = 1;
  static constexpr FpRounding kFpRounding = FpRounding::kNearest;
  using Params = Table8Plan;
  using Consts = typename Lookup::Consts;
  static constexpr std::size_t SrcSize(const Params&) { return kSrcSize; }
  static constexpr std::size_t DstSize(const Params&) { return kDstSize; }
  static Consts MakeConsts(const Params& p) { return Lookup::MakeConsts(p); }
  static std::size_t BlockElems() { return hn::Lanes(D8()); }
  // The blocks without a declined lane in a loop of their own (FastRun's contract, block-inl.h),
  // the lookup's settings copied to a local once per run, so that they stay in registers and
  // their tests can leave the loop (through BlockKernel::Run's loop, a block per iteration,
  // float8_e4m3 -> float8_e5m2 takes 1.95 instructions per byte on AVX2, in this loop about 1.0).
  // The loop is compiled per shape of the
  // lookup's settings (WithShape), so that it tests none of them per block.
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    if constexpr (requires { Lookup::FastRun(c, in, out, blocks); }) {
      return Lookup::FastRun(c, in, out, blocks);  // a loop of its own (the TBL/TBX loop on ARM)
    } else {
      const Consts k = c;
      return Lookup::WithShape(k, [&](auto lookup) -> std::size_t {
        const D8 d;
        const std::size_t n = hn::Lanes(d);
        for (std::size_t b = 0; b < blocks; ++b, in += n, out += n) {
          PrefetchBlock(in, n, out, n);
          M8 declined;
          const V8 r = lookup(k, hn::LoadU(d, reinterpret_cast<const std::int8_t*>(in)), &declined);
          if (HWY_UNLIKELY(!hn::AllFalse(d, declined))) return b;
          hn::StoreU(r, d, reinterpret_cast<std::int8_t*>(out));
        }
        return blocks;
      });
    }
  }
  static HWY_INLINE std::size_t Block(const Consts& c, const unsigned char* in, unsigned char* out,
                                      const Resolver& res) {
    const D8 d;
    M8 declined;
    const V8 r = Lookup::Run(c, hn::LoadU(d, reinterpret_cast<const std::int8_t*>(in)), &declined);
    hn::StoreU(r, d, reinterpret_cast<std::int8_t*>(out));
    return ResolveMask(d, declined, 0, res);
  }
};

// Run: one vector, the settings read from Consts; WithShape(c, body): body(lookup), lookup
// compiled for c's settings where that removes tests from the loop.
template <class Lookup>
struct OneShape {
  template <class Consts, class Body>
  static HWY_INLINE std::size_t WithShape(const Consts&, Body&& body) {
    return body([](const Consts& c, V8 x, M8* declined) { return Lookup::Run(c, x, declined); });
  }
};
struct FullLookup : OneShape<FullLookup> {
  using Consts = Table8FullConsts;
  static Consts MakeConsts(const Table8Plan& p) { return MakeTable8FullConsts(D8(), p); }
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) { return Table8Full(D8(), c, x, declined); }
};
struct SignedLookup {
  using Consts = Table8SignedConsts;
  static Consts MakeConsts(const Table8Plan& p) { return MakeTable8SignedConsts(D8(), p); }
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) { return Table8Signed(D8(), c, x, declined); }
  template <class Body>
  static HWY_INLINE std::size_t WithShape(const Consts& c, Body&& body) {
    return Table8SignedShape(c, body);
  }
};
#if HWY_TARGET == HWY_SCALAR
// One lane: TableLookupBytes sees a single byte there, so T is indexed directly.
struct DirectLookup : OneShape<DirectLookup> {
  using Consts = const Table8Plan*;
  static Consts MakeConsts(const Table8Plan& p) { return &p; }
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) {
    const D8 d;
    const auto b = static_cast<std::uint8_t>(hn::GetLane(x));
    *declined = hn::FirstN(d, c->fail[b] ? 1 : 0);
    return hn::Set(d, static_cast<std::int8_t>(c->table[b]));
  }
};
#endif
#if HWY_TARGET == HWY_NEON
// The whole table by TBL/TBX (table8-inl.h), in the loop of the common blocks and in the others.
struct TblLookup {
  using Consts = Table8TblConsts;
  using Check = WholeTableCheck;
  static Consts MakeConsts(const Table8Plan& p) { return MakeTable8TblConsts(p); }
  // One block, the check read from c: the blocks with a declined lane, and the tail.
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) {
    uint8x16_t d;
    const auto look = [&](auto check) {
      return Table8Tbl<decltype(check)::value>(c.t[0], c.t[1], c.t[2], c.t[3], c.fail_bits, c.range,
                                               vreinterpretq_u8_s8(x.raw), &d);
    };
    const uint8x16_t r = c.check == Check::kNone    ? look(std::integral_constant<Check, Check::kNone>())
                         : c.check == Check::kRange ? look(std::integral_constant<Check, Check::kRange>())
                                                    : look(std::integral_constant<Check, Check::kEntries>());
    *declined = hn::MaskFromVec(V8{vreinterpretq_s8_u8(d)});
    return V8{vreinterpretq_s8_u8(r)};
  }
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    return RunTable8Tbl(c, in, out, blocks, hn::Lanes(D8()));
  }
};
#elif HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
// SVE with vectors of at most 256 bits: NEON's TBL/TBX loop for the common blocks (16 bytes per
// step, whole SVE blocks), Slow (the half-table or both halves) for the blocks with a declined lane
// and the tail. Counted under qemu, float8_e4m3 -> float8_e5m2 takes 2.8-2.9 instructions per
// element on SVE2_128 (at 128 bits) and 1.5-1.6 on SVE_256 by the half-table, about 0.8 by TBL/TBX;
// at 512 bits (SVE, A64FX) the half-table's 0.96 is kept (its svtbl covers 64 bytes).
template <class Slow>
struct TblFastLookup {
  struct Consts {
    typename Slow::Consts slow;
    Table8TblConsts tbl;
  };
  static Consts MakeConsts(const Table8Plan& p) { return {Slow::MakeConsts(p), MakeTable8TblConsts(p)}; }
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) { return Slow::Run(c.slow, x, declined); }
  static HWY_INLINE std::size_t FastRun(const Consts& c, const unsigned char* in, unsigned char* out,
                                        std::size_t blocks) {
    return RunTable8Tbl(c.tbl, in, out, blocks, hn::Lanes(D8()));
  }
};
#endif
#if HWY_TARGET == HWY_AVX3_DL
struct PermuteLookup : OneShape<PermuteLookup> {
  using Consts = Table8PermuteConsts;
  static Consts MakeConsts(const Table8Plan& p) { return MakeTable8PermuteConsts(p); }
  static HWY_INLINE V8 Run(const Consts& c, V8 x, M8* declined) { return Table8Permute(c, x, declined); }
};
#endif

std::unique_ptr<const Kernel> MakeTable8(const Direction& dir) {
  if (Info(dir.src).size != 1 || Info(dir.dst).size != 1) return nullptr;
  Table8Plan plan;
  PlanTable8(dir, &plan);
#if HWY_TARGET == HWY_AVX3_DL
  return Make<Table8Family<PermuteLookup>>(dir, plan, "table8-permute");
#elif HWY_TARGET == HWY_NEON
  return Make<Table8Family<TblLookup>>(dir, plan, "table8-tbl");
#elif HWY_TARGET == HWY_SCALAR
  return Make<Table8Family<DirectLookup>>(dir, plan, "table8-direct");
#else
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
  if (hn::Lanes(D8()) <= 32) {
    if (plan.is_signed) return Make<Table8Family<TblFastLookup<SignedLookup>>>(dir, plan, "table8-tbl");
    return Make<Table8Family<TblFastLookup<FullLookup>>>(dir, plan, "table8-tbl");
  }
#endif
  if (plan.is_signed) return Make<Table8Family<SignedLookup>>(dir, plan, "table8-signed");
  return Make<Table8Family<FullLookup>>(dir, plan, "table8-full");
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace zcast::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "zcast/kernels/dispatch.h"
#include "zcast/kernels/families.h"

namespace zcast::internal {

HWY_EXPORT(MakeTable8);

std::unique_ptr<const Kernel> SelectTable8(const Direction& dir, std::int64_t target) {
  if (Info(dir.src).size != 1 || Info(dir.dst).size != 1) return nullptr;
  return ZCAST_CALL_FOR_TARGET(MakeTable8, target, dir);
}

}  // namespace zcast::internal
#endif  // HWY_ONCE
