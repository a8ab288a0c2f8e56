// main() of zcast_unit_tests: GoogleTest's, plus a sharding that keeps a test's instances for the
// SIMD targets together.
//
// ctest runs the suite as four shards so that `ctest -j` uses every core. GoogleTest's own
// sharding (GTEST_TOTAL_SHARDS) deals tests out one by one, which sends ".../SSE4" and ".../AVX2"
// of one test to different processes; the kernel tests then compute the same exact-engine
// reference once per target in each process (kernels_test_util.h, ReferenceCache, keeps it only
// within a process). Here ZCAST_TEST_SHARDS=N and ZCAST_TEST_SHARD_INDEX=K deal out *groups*:
// the tests whose names are equal once every compiled target's name is replaced by "*". The
// filter is computed here, so a shard cannot also take --gtest_filter (an error, not a guess).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "zcast/kernels/targets.h"

namespace {

// `name` with every target name that stands as a whole parameter token (between '/', '_' or the
// ends) replaced by "*": "AllSources/KernelMatchesReference.AllModesAndRanges/AVX3_DL_uint16" and
// ".../SSE4_uint16" have the same key.
std::string GroupKey(std::string name, const std::vector<std::string>& targets) {
  const std::size_t param = name.find('/', name.find('.'));
  if (param == std::string::npos) return name;
  for (const std::string& t : targets) {  // longest first: AVX3_DL before AVX3
    for (std::size_t at = name.find(t, param); at != std::string::npos; at = name.find(t, at + 1)) {
      const std::size_t end = at + t.size();
      const bool starts = name[at - 1] == '/' || name[at - 1] == '_';
      const bool ends = end == name.size() || name[end] == '_' || name[end] == '/';
      if (starts && ends) name.replace(at, t.size(), "*");
    }
  }
  return name;
}

// The --gtest_filter of shard `index` of `shards`, or "" after printing why there is none.
std::string ShardFilter(int shards, int index) {
  std::vector<std::string> targets;
  for (std::int64_t t : zcast::internal::CompiledSimdTargets())
    targets.emplace_back(zcast::internal::SimdTargetName(t));
  std::sort(targets.begin(), targets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::map<std::string, int> group_of;  // key -> group number, in order of first appearance
  std::string filter;
  std::size_t chosen = 0;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const std::string name = std::string(suite.name()) + "." + suite.GetTestInfo(j)->name();
      const int group = group_of.emplace(GroupKey(name, targets), static_cast<int>(group_of.size()))
                            .first->second;
      if (group % shards != index) continue;
      filter += (filter.empty() ? "" : ":") + name;
      ++chosen;
    }
  }
  if (chosen == 0) std::printf("shard %d of %d: no test falls in it\n", index, shards);
  return filter;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* shards_env = std::getenv("ZCAST_TEST_SHARDS");
  if (shards_env != nullptr && *shards_env != '\0') {
    const char* index_env = std::getenv("ZCAST_TEST_SHARD_INDEX");
    const int shards = std::atoi(shards_env);
    const int index = index_env != nullptr ? std::atoi(index_env) : -1;
    if (shards < 1 || index < 0 || index >= shards) {
      std::fprintf(stderr, "ZCAST_TEST_SHARDS=%s with ZCAST_TEST_SHARD_INDEX=%s: want 0 <= index < shards\n",
                   shards_env, index_env != nullptr ? index_env : "(unset)");
      return 2;
    }
    if (GTEST_FLAG_GET(filter) != "*") {
      std::fprintf(stderr, "ZCAST_TEST_SHARDS and --gtest_filter together: run one or the other\n");
      return 2;
    }
    const std::string filter = ShardFilter(shards, index);
    if (filter.empty()) return 0;
    GTEST_FLAG_SET(filter, filter);
  }
  return RUN_ALL_TESTS();
}
