// checked_draw_token tests the logits inside the first pass each path makes: it must give the
// token draw_token gives on finite logits, and the check_maskable_logits error for a NaN or +∞
// anywhere, a penalised token included, on every path (−∞ is a masked token: masked_logits_test).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/synthetic.hpp"

namespace checked_draw_test {

namespace sl = sampling_lab;

namespace {
struct Path {
  const char* name;
  sl::SamplingOptions options;
};

std::vector<Path> paths() {
  sl::SamplingOptions base;
  base.seed = 3;
  std::vector<Path> list;
  const auto with = [&](const char* name, auto set) {
    sl::SamplingOptions options = base;
    set(options);
    list.push_back({name, options});
  };
  static const std::vector<std::int32_t> history = {5, 7, 7, 1023};
  with("greedy", [](auto& o) { o.temperature = 0.0; });
  with("greedy with penalties", [](auto& o) { o.temperature = 0.0; o.repetition_penalty = 1.3; o.generated_ids = history; });
  with("temperature only", [](auto& o) { o.temperature = 0.7; });
  with("top-k", [](auto& o) { o.top_k = 50; });
  with("top-p", [](auto& o) { o.top_p = 0.9; });
  with("min-p", [](auto& o) { o.min_p = 0.05; });
  with("everything fast", [](auto& o) {
    o.temperature = 0.7; o.top_k = 50; o.top_p = 0.95; o.min_p = 0.05; o.repetition_penalty = 1.1; o.generated_ids = history;
  });
  with("general chain", [](auto& o) { o.typical_p = 0.9; });
  return list;
}
}  // namespace

TEST(CheckedDraw, GivesDrawTokensTokenOnFiniteLogits) {
  const auto logits = sl::synthetic_logits(4096, 5);
  sl::FilterWorkspace workspace;
  for (auto [name, options] : paths()) {
    for (std::uint64_t step = 0; step < 40; ++step) {
      options.step = step;
      const auto checked = sl::checked_draw_token(logits, options, workspace);
      ASSERT_TRUE(std::holds_alternative<sl::TokenDraw>(checked)) << name;
      EXPECT_EQ(std::get<sl::TokenDraw>(checked).token, sl::draw_token(logits, options, workspace).token) << name;
    }
  }
}

TEST(CheckedDraw, NamesTheFirstNonFiniteLogitOnEveryPath) {
  const auto clean = sl::synthetic_logits(4096, 6);
  sl::FilterWorkspace workspace;
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  // The first and last SIMD lanes, the scalar tail, and a penalised token.
  for (const std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{1023}, std::size_t{4093}, std::size_t{4095}}) {
    for (const float bad : {std::nanf(""), kInfinity}) {
      auto logits = clean;
      logits[at] = bad;
      const auto expected = sl::check_maskable_logits(logits, "logits");
      ASSERT_TRUE(expected);
      for (const auto& [name, options] : paths()) {
        const auto checked = sl::checked_draw_token(logits, options, workspace);
        ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(checked)) << name << " at " << at << " = " << bad;
        EXPECT_EQ(std::get<sl::ArgumentError>(checked).message, expected->message) << name;
      }
    }
  }
}

}  // namespace checked_draw_test
