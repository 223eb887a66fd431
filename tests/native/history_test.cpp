// TokenHistory keeps the penalties' counts as tokens arrive: they must always equal a recount of
// the window, and a draw with them must equal a draw that counts generatedIds itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sampling_lab/history.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/synthetic.hpp"

namespace history_test {

namespace sl = sampling_lab;

namespace {
// window −1: every token (penaltyLastN's "all").
std::map<std::int32_t, std::uint32_t> recount(std::span<const std::int32_t> tokens, std::int64_t window) {
  std::map<std::int32_t, std::uint32_t> counts;
  const std::size_t start = window >= 0 && tokens.size() > std::size_t(window) ? tokens.size() - std::size_t(window) : 0;
  for (std::size_t i = start; i < tokens.size(); ++i) ++counts[tokens[i]];
  return counts;
}

std::map<std::int32_t, std::uint32_t> as_map(std::span<const sl::TokenCount> counts) {
  std::map<std::int32_t, std::uint32_t> map;
  for (const auto [token, count] : counts) {
    EXPECT_TRUE(map.emplace(token, count).second) << "token " << token << " listed twice";
    EXPECT_GT(count, 0u);
  }
  return map;
}
}  // namespace

TEST(TokenHistory, CountsEqualARecountOfTheWindowAfterEveryToken) {
  for (const std::int64_t window : {-1, 1, 7, 64}) {
    sl::TokenHistory history{window};
    sl::Philox rng{9, std::uint64_t(window + 1)};
    for (int i = 0; i < 2000; ++i) {
      ASSERT_FALSE(history.accept(std::int32_t(rng.next_u32() % 20)));  // few distinct ids: many repeats
      ASSERT_EQ(as_map(history.counts()), recount(history.tokens(), window)) << "window " << window << ", token " << i;
    }
    const std::vector<std::int32_t> start = {3, 3, 5, 19, 3};
    history.assign(start);
    EXPECT_EQ(as_map(history.counts()), recount(start, window));
    EXPECT_EQ(history.largest_token(), 19);
  }
}

TEST(TokenHistory, DrawsEqualDrawsThatCountGeneratedIds) {
  const auto logits = sl::synthetic_logits(5000, 4);
  sl::TokenHistory history{32};
  sl::FilterWorkspace workspace;
  sl::SamplingOptions options;
  options.temperature = 0.9;
  options.repetition_penalty = 1.3;
  options.frequency_penalty = 0.4;
  options.penalty_last_n = 32;
  options.dry_multiplier = 0.8;
  options.seed = 5;
  for (std::uint64_t step = 0; step < 300; ++step) {
    options.step = step;
    sl::SamplingOptions counted = options;
    counted.generated_ids = history.tokens();
    sl::SamplingOptions kept = options;
    history.apply_to(kept);
    const auto token = sl::sample_token(logits, kept, workspace);
    ASSERT_EQ(token, sl::sample_token(logits, counted, workspace)) << "step " << step;
    ASSERT_FALSE(history.accept(token));
  }
}

}  // namespace history_test
