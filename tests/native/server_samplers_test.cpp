// The samplers servers have (issue 21, item 4): dynamic temperature, adaptive-p, p-less,
// noRepeatNgramSize and badWords, each against the float64 reference (chain_reference.hpp) on
// vocabulary-sized logits, at its edges, and by χ² on its draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <numeric>
#include <set>

#include "chain_match.hpp"
#include "reference.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/history.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative_decoding.hpp"
#include "sampling_lab/statistics.hpp"

namespace server_samplers_test {

namespace sl = sampling_lab;

namespace {

constexpr std::size_t kVocabulary = 151936;

using chain_match::distribution;
using chain_match::with;
using chain_match::expect_matches_reference;

void expect_same_distribution(std::span<const float> logits, const sl::SamplingOptions& a, const sl::SamplingOptions& b,
                              const std::string& what) {
  const auto pa = distribution(logits, a);
  const auto pb = distribution(logits, b);
  for (std::size_t i = 0; i < logits.size(); ++i) ASSERT_NEAR(pa[i], pb[i], 1e-6 * pb[i] + 1e-12) << what << " token " << i;
}

std::vector<std::int32_t> order_of(std::span<const sl::Stage> stages) {
  std::vector<std::int32_t> order;
  for (const auto stage : stages) order.push_back(std::int32_t(stage));
  return order;
}

std::set<std::int32_t> bans_of(std::span<const float> logits, const sl::SamplingOptions& options) {
  const auto probs = distribution(logits, options);
  std::set<std::int32_t> banned;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] == 0.0f) banned.insert(std::int32_t(i));
  }
  return banned;
}

// χ² of `draws` seeded tokens against the reference's distribution; prints the p-value.
double chi_square_p(std::span<const float> logits, sl::SamplingOptions options, const std::string& what,
                    std::size_t draws = 40000) {
  sl::FilterWorkspace workspace;
  std::vector<std::int32_t> tokens(draws);
  for (std::size_t n = 0; n < draws; ++n) {
    options.step = n;
    tokens[n] = sl::sample_token(logits, options, workspace);
  }
  const auto expected = reference::chain(logits, options, 0.5).probs;
  const std::vector<float> probs(expected.begin(), expected.end());
  const auto test = sl::chi_square(sl::counts(tokens, logits.size()), probs);
  std::cout << what << ": chi-square p = " << test.p_value << "\n";
  return test.p_value;
}

}  // namespace

// Each sampler alone and with others, at three temperatures, on heavy-tailed 151,936-token logits.
TEST(ServerSamplers, EachMatchesTheReference) {
  const auto logits = reference::random_logits(kVocabulary, 43, 2.5);
  const std::vector<std::int32_t> history = {5, 9, 5, 9, 7, 5, 9, 3, 5, 9};
  const std::vector<std::int32_t> words = {9, 3, 11, 5, 9, 12, 42};  // [9 3 11] [5 9 12] [42]
  const std::vector<std::int32_t> lengths = {3, 3, 1};
  const std::vector<std::pair<std::string, std::function<void(sl::SamplingOptions&)>>> cases = {
      {"dynatemp 0.5", [](auto& o) { o.dynatemp_range = 0.5; }},
      {"dynatemp 1 ^0.3", [](auto& o) { o.dynatemp_range = 1.0, o.dynatemp_exponent = 0.3; }},
      {"dynatemp 0.4 ^4 top-k 50", [](auto& o) { o.dynatemp_range = 0.4, o.dynatemp_exponent = 4.0, o.top_k = 50; }},
      {"p-less", [](auto& o) { o.p_less = 1; }},
      {"p-less top-p 0.99", [](auto& o) { o.p_less = 1, o.top_p = 0.99; }},
      {"adaptive-p 0.3", [](auto& o) { o.adaptive_p_target = 0.3; }},
      {"adaptive-p 0.1 average 0.5 min-p", [](auto& o) { o.adaptive_p_target = 0.1, o.adaptive_p_average = 0.5, o.min_p = 0.01; }},
      {"n-gram 2", [&](auto& o) { o.no_repeat_ngram_size = 2, o.generated_ids = history; }},
      {"n-gram 3 top-k 40", [&](auto& o) { o.no_repeat_ngram_size = 3, o.generated_ids = history, o.top_k = 40; }},
      {"bad words", [&](auto& o) { o.bad_words_ids = words, o.bad_words_lengths = lengths, o.generated_ids = history; }},
  };
  for (const double t : {0.5, 1.0, 1.5}) {
    for (const auto& [name, set] : cases) {
      auto options = with(set);
      options.temperature = t;
      // Adaptive-p's logits are computed in float from float probabilities.
      const double tolerance = options.adaptive_p_target ? 2e-5 : 2e-6;
      expect_matches_reference(logits, options, name + " at T " + std::to_string(t), tolerance);
    }
  }
}

// llama.cpp's order puts temperature (and with it dynatemp's entropy) after the truncations.
TEST(ServerSamplers, LlamaCppOrderMatchesTheReference) {
  const auto logits = reference::random_logits(kVocabulary, 44, 3.0);
  const auto llama = order_of(sl::kLlamaCppOrder);
  for (const auto& set : std::vector<std::function<void(sl::SamplingOptions&)>>{
           [](auto& o) { o.temperature = 0.8, o.dynatemp_range = 0.6, o.top_k = 200, o.min_p = 0.02; },
           [](auto& o) { o.temperature = 1.3, o.p_less = 1, o.top_p = 0.95; },
           [](auto& o) { o.temperature = 0.9, o.min_p = 0.05, o.adaptive_p_target = 0.5; }}) {
    auto options = with(set);
    options.order = llama;
    expect_matches_reference(logits, options, "llama.cpp order", 2e-5);
  }
}

TEST(ServerSamplers, DynamicTemperatureEdges) {
  const auto logits = reference::random_logits(20000, 45, 2.0);
  // Range 0 is plain temperature, draws included.
  const auto plain = with([](auto& o) { o.temperature = 0.7, o.top_p = 0.9, o.seed = 3; });
  auto zero = plain;
  zero.dynatemp_range = 0.0;
  zero.dynatemp_exponent = 3.0;
  EXPECT_EQ(distribution(logits, zero), distribution(logits, plain));
  sl::FilterWorkspace workspace;
  for (std::uint64_t step = 0; step < 50; ++step) {
    zero.step = step;
    auto same = plain;
    same.step = step;
    EXPECT_EQ(sl::sample_token(logits, zero, workspace), sl::sample_token(logits, same, workspace));
  }
  // Exponent 0: (H / ln n)^0 = 1, the top of the range; a huge exponent: the bottom.
  expect_same_distribution(logits, with([](auto& o) { o.temperature = 1.0, o.dynatemp_range = 0.5, o.dynatemp_exponent = 0.0; }),
                           with([](auto& o) { o.temperature = 1.5, o.top_k = 20000; }), "exponent 0");
  expect_matches_reference(logits, with([](auto& o) { o.dynatemp_range = 0.5, o.dynatemp_exponent = 100.0; }), "exponent 100");
  expect_matches_reference(logits, with([](auto& o) { o.temperature = 0.3, o.dynatemp_range = 0.5, o.dynatemp_exponent = 1e-3; }),
                           "exponent 1e-3, T below the range");
  // Uniform: H = ln n, the top of the range at any exponent (all tokens stay equal).
  const std::vector<float> uniform(1000, 0.25f);
  const auto flat = distribution(uniform, with([](auto& o) { o.dynatemp_range = 0.9, o.dynatemp_exponent = 7.0; }));
  for (const float p : flat) EXPECT_FLOAT_EQ(p, 1e-3f);
  // One-hot: H = 0, so the bottom of the range; at T <= range that is 0, greedy.
  std::vector<float> one_hot(1000, -200.0f);
  one_hot[17] = 0.0f;
  const auto greedy = distribution(one_hot, with([](auto& o) { o.temperature = 0.5, o.dynatemp_range = 1.0; }));
  EXPECT_EQ(greedy[17], 1.0f);
  EXPECT_EQ(std::count(greedy.begin(), greedy.end(), 0.0f), 999);
  // One token left (top-k 1 before it, llama.cpp's order): nothing to scale.
  const auto llama = order_of(sl::kLlamaCppOrder);
  auto single = with([&](auto& o) { o.top_k = 1, o.dynatemp_range = 2.0, o.order = llama; });
  const auto lone = distribution(logits, single);
  EXPECT_EQ(std::count(lone.begin(), lone.end(), 0.0f), 19999);
  EXPECT_GT(chi_square_p(reference::random_logits(40, 46, 2.0), with([](auto& o) { o.temperature = 0.8, o.dynatemp_range = 0.6, o.seed = 21; }),
                         "dynatemp on 40 tokens"),
            1e-4);
}

TEST(ServerSamplers, PLessEdges) {
  // Uniform: p = 1/n = Σ p², so every token stays.
  for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, kVocabulary}) {
    const std::vector<float> uniform(n, 1.0f);
    const auto probs = distribution(uniform, with([](auto& o) { o.p_less = 1; }));
    EXPECT_EQ(std::count(probs.begin(), probs.end(), 0.0f), 0) << n;
  }
  // One-hot: Σ p² = p_max, one token.
  std::vector<float> one_hot(5000, -300.0f);
  one_hot[4321] = 1.0f;
  const auto probs = distribution(one_hot, with([](auto& o) { o.p_less = 1; }));
  EXPECT_EQ(probs[4321], 1.0f);
  EXPECT_EQ(std::count(probs.begin(), probs.end(), 0.0f), 4999);
  // Two tokens at 0.6 / 0.4: Σ p² = 0.52, the second goes.
  const std::vector<float> pair = {std::log(0.6f), std::log(0.4f)};
  EXPECT_EQ(distribution(pair, with([](auto& o) { o.p_less = 1; }))[1], 0.0f);
  // A higher temperature flattens p and lowers the threshold: more tokens stay.
  const auto logits = reference::random_logits(kVocabulary, 47, 2.5);
  const auto kept = [&](double t) {
    const auto p = distribution(logits, with([&](auto& o) { o.p_less = 1, o.temperature = t; }));
    return p.size() - std::size_t(std::count(p.begin(), p.end(), 0.0f));
  };
  std::cout << "p-less kept at T 0.5, 1, 2: " << kept(0.5) << ", " << kept(1.0) << ", " << kept(2.0) << "\n";
  EXPECT_LT(kept(0.5), kept(2.0));
  EXPECT_GT(chi_square_p(reference::random_logits(60, 48, 1.5), with([](auto& o) { o.p_less = 1, o.temperature = 1.5, o.seed = 22; }),
                         "p-less on 60 tokens"),
            1e-4);
}

TEST(ServerSamplers, AdaptivePEdges) {
  const std::vector<float> logits = {2.0f, 1.5f, 1.0f, 0.2f, -0.5f, -1.0f, -3.0f, -4.0f};
  // The transform peaks at the adapted target: with target 1 and average 1 that is p = 1, so the
  // most probable token weighs most; with target 0 and average 0 the least probable does.
  const auto top = distribution(logits, with([](auto& o) { o.adaptive_p_target = 1.0, o.adaptive_p_average = 1.0; }));
  EXPECT_EQ(std::max_element(top.begin(), top.end()) - top.begin(), 0);
  const auto bottom = distribution(logits, with([](auto& o) { o.adaptive_p_target = 0.0, o.adaptive_p_average = 0.0; }));
  EXPECT_EQ(std::max_element(bottom.begin(), bottom.end()) - bottom.begin(), 7);
  // 2·target − average clamps to [0, 1]: average 1 with target 0.3 targets 0, as target 0 does.
  expect_same_distribution(logits, with([](auto& o) { o.adaptive_p_target = 0.3, o.adaptive_p_average = 1.0; }),
                           with([](auto& o) { o.adaptive_p_target = 0.0, o.adaptive_p_average = 0.0; }), "clamped low");
  expect_same_distribution(logits, with([](auto& o) { o.adaptive_p_target = 0.8, o.adaptive_p_average = 0.0; }),
                           with([](auto& o) { o.adaptive_p_target = 1.0, o.adaptive_p_average = 1.0; }), "clamped high");
  // One token: it is drawn, and the average moves to (1 − decay)·1 + decay·target.
  sl::FilterWorkspace workspace;
  const std::vector<float> one = {3.0f};
  const auto drawn = sl::draw_token(one, with([](auto& o) { o.adaptive_p_target = 0.2, o.adaptive_p_decay = 0.9; }), workspace);
  EXPECT_EQ(drawn.token, 0);
  EXPECT_NEAR(*drawn.adaptive_p_average, 0.1 * 1.0 + 0.9 * 0.2, 1e-12);
  // Decay 0: the average is the drawn token's probability before the transform.
  const auto forgetful = with([](auto& o) { o.adaptive_p_target = 0.4, o.adaptive_p_decay = 0.0, o.seed = 4; });
  const auto before = reference::chain(logits, with([](auto&) {}), 0.5).probs;
  const auto last = sl::draw_token(logits, forgetful, workspace);
  EXPECT_NEAR(*last.adaptive_p_average, before[std::size_t(last.token)], 1e-6);
  // Its draws against the reference, and (a negative control) not against the plain distribution.
  const auto adaptive = with([](auto& o) { o.adaptive_p_target = 0.25, o.adaptive_p_average = 0.4, o.seed = 23; });
  EXPECT_GT(chi_square_p(logits, adaptive, "adaptive-p on 8 tokens"), 1e-4);
  std::vector<std::int32_t> tokens(20000);
  auto keyed = adaptive;
  for (std::size_t n = 0; n < tokens.size(); ++n) keyed.step = n, tokens[n] = sl::sample_token(logits, keyed, workspace);
  const std::vector<float> plain(before.begin(), before.end());
  EXPECT_LT(sl::chi_square(sl::counts(tokens, logits.size()), plain).p_value, 1e-6);
}

// average ← (1 − decay) p + decay · average over 100 tokens, p each drawn token's probability before
// the transform (llama.cpp's weighted_sum / total_weight with its start target / (1 − decay), 1 / (1 − decay)).
TEST(ServerSamplers, AdaptivePAverageFollowsLlamaCppsEmaOver100Steps) {
  const auto logits = reference::random_logits(5000, 49, 2.0);
  sl::FilterWorkspace workspace;
  auto options = with([](auto& o) { o.adaptive_p_target = 0.3, o.adaptive_p_decay = 0.8, o.min_p = 0.05, o.seed = 8; });
  const auto before = reference::chain(logits, with([](auto& o) { o.min_p = 0.05; }), 0.5).probs;
  double weighted_sum = 0.3 / (1 - 0.8), total_weight = 1 / (1 - 0.8);
  for (std::uint64_t step = 0; step < 100; ++step) {
    options.step = step;
    options.adaptive_p_average = weighted_sum / total_weight;
    const auto drawn = sl::draw_token(logits, options, workspace);
    ASSERT_GT(before[std::size_t(drawn.token)], 0.0) << step;
    weighted_sum = before[std::size_t(drawn.token)] + 0.8 * weighted_sum;
    total_weight = 1 + 0.8 * total_weight;
    ASSERT_NEAR(*drawn.adaptive_p_average, weighted_sum / total_weight, 1e-6) << step;
  }
}

TEST(ServerSamplers, NoRepeatNgramEdges) {
  const std::vector<float> logits(16, 0.0f);
  const std::vector<std::int32_t> history = {1, 2, 3, 1, 2, 4, 1, 2};
  const auto banned = [&](std::int64_t n, std::span<const std::int32_t> ids) {
    return bans_of(logits, with([&](auto& o) { o.no_repeat_ngram_size = n, o.generated_ids = ids; }));
  };
  // n = 1: every token seen; n = 3: "1 2" was followed by 3 and 4.
  EXPECT_EQ(banned(1, history), (std::set<std::int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(banned(2, history), (std::set<std::int32_t>{3, 4}));  // "2" was followed by 3 and 4
  EXPECT_EQ(banned(3, history), (std::set<std::int32_t>{3, 4}));
  EXPECT_TRUE(banned(4, history).empty());  // "4 1 2" occurs only at the end
  // Larger than the history, or as long as it plus one: no earlier n-gram to repeat.
  EXPECT_TRUE(banned(9, history).empty());
  EXPECT_TRUE(banned(50, history).empty());
  EXPECT_TRUE(banned(2, std::vector<std::int32_t>{}).empty());
  // A run of one token: every n bans it.
  const std::vector<std::int32_t> run(30, 6);
  for (const std::int64_t n : {1, 2, 5, 30}) EXPECT_EQ(banned(n, run), (std::set<std::int32_t>{6})) << n;
  EXPECT_TRUE(banned(31, run).empty());
  // Every token banned: a draw is a typed error naming the option.
  const std::vector<std::int32_t> all = {0, 1, 2, 3};
  const std::vector<float> four(4, 0.0f);
  sl::FilterWorkspace workspace;
  const auto outcome = sl::checked_draw_token(four, with([&](auto& o) { o.no_repeat_ngram_size = 1, o.generated_ids = all; }),
                                              workspace, "logits");
  ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(outcome));
  EXPECT_EQ(std::get<sl::ArgumentError>(outcome).argument, "noRepeatNgramSize");
}

// The stateful sampler's incremental index bans what the search and the reference ban, token by
// token over random histories of small alphabets (many repeats).
TEST(ServerSamplers, NgramIndexEqualsTheSearch) {
  const std::vector<float> logits(8, 0.0f);
  sl::Philox rng(77, 0);
  for (const std::int64_t n : {1, 2, 3, 5}) {
    for (const std::uint32_t alphabet : {2u, 3u, 8u}) {
      sl::TokenHistory history(0, n);
      std::vector<std::int32_t> tokens;
      for (int step = 0; step < 300; ++step) {
        auto options = with([&](auto& o) { o.no_repeat_ngram_size = n; });
        history.apply_to(options);
        ASSERT_TRUE(options.ngram_banned.has_value());
        const std::set<std::int32_t> indexed(options.ngram_banned->begin(), options.ngram_banned->end());
        ASSERT_EQ(indexed.size(), options.ngram_banned->size()) << "each banned token once";
        const auto searched = bans_of(logits, with([&](auto& o) { o.no_repeat_ngram_size = n, o.generated_ids = tokens; }));
        const auto brute = reference::history_bans(with([&](auto& o) { o.no_repeat_ngram_size = n, o.generated_ids = tokens; }));
        const std::set<std::int32_t> expected(brute.begin(), brute.end());
        if (expected.size() < logits.size()) ASSERT_EQ(searched, expected) << "n " << n << " step " << step;
        ASSERT_EQ(indexed, expected) << "n " << n << " alphabet " << alphabet << " step " << step;
        const auto token = std::int32_t(rng.next_u32() % alphabet);
        tokens.push_back(token);
        ASSERT_FALSE(history.accept(token).has_value());
      }
      // A history restored at once indexes as one built token by token.
      sl::TokenHistory restored(0, n);
      restored.assign(tokens);
      const auto a = history.ngram_banned();
      const auto b = restored.ngram_banned();
      EXPECT_EQ(std::set<std::int32_t>(a.begin(), a.end()), std::set<std::int32_t>(b.begin(), b.end()));
    }
  }
}

TEST(ServerSamplers, BadWordsEdges) {
  const std::vector<float> logits(16, 0.0f);
  // Overlapping: [1 2 3], [2 3 4], [3 5], and the single [9], always banned.
  const std::vector<std::int32_t> words = {1, 2, 3, 2, 3, 4, 3, 5, 9};
  const std::vector<std::int32_t> lengths = {3, 3, 2, 1};
  const auto banned = [&](std::vector<std::int32_t> history) {
    return bans_of(logits, with([&](auto& o) { o.bad_words_ids = words, o.bad_words_lengths = lengths, o.generated_ids = history; }));
  };
  EXPECT_EQ(banned({}), (std::set<std::int32_t>{9}));
  EXPECT_EQ(banned({1, 2}), (std::set<std::int32_t>{3, 9}));
  EXPECT_EQ(banned({7, 2, 3}), (std::set<std::int32_t>{4, 5, 9}));  // ends with "2 3" and with "3"
  EXPECT_EQ(banned({1, 2, 3}), (std::set<std::int32_t>{4, 5, 9}));
  // At the start of the history: a prefix as long as the history matches it whole; a longer one cannot.
  EXPECT_EQ(banned({3}), (std::set<std::int32_t>{5, 9}));
  EXPECT_EQ(banned({2}), (std::set<std::int32_t>{9}));
  // A draw never completes a bad word (χ² over the rest at their renormalised rates).
  const auto ten = reference::random_logits(10, 50, 1.0);
  const std::vector<std::int32_t> history = {1, 2};
  const std::vector<std::int32_t> word = {1, 2, 0};
  const std::vector<std::int32_t> three = {3};
  auto options = with([&](auto& o) { o.bad_words_ids = word, o.bad_words_lengths = three, o.generated_ids = history, o.seed = 24; });
  EXPECT_GT(chi_square_p(ten, options, "bad words on 10 tokens"), 1e-4);
  options.no_repeat_ngram_size = 1;
  EXPECT_GT(chi_square_p(ten, options, "bad words and n-gram 1 on 10 tokens"), 1e-4);
}

TEST(ServerSamplers, ChecksNameTheArgument) {
  const auto bad = [](const sl::SamplingOptions& o, std::size_t vocabulary = 10) {
    const auto error = sl::check_options(o, vocabulary);
    return error ? error->argument : std::string();
  };
  const std::vector<std::int32_t> ids = {1, 2, 3};
  const std::vector<std::int32_t> outside = {1, 10};
  const std::vector<std::int32_t> two_one = {2, 1};
  const std::vector<std::int32_t> empty_one = {0, 3};
  const std::vector<std::int32_t> short_lengths = {2};
  EXPECT_EQ(bad(with([&](auto& o) { o.bad_words_ids = ids, o.bad_words_lengths = two_one; })), "");
  EXPECT_EQ(bad(with([&](auto& o) { o.bad_words_ids = ids, o.bad_words_lengths = empty_one; })), "badWords");
  EXPECT_EQ(bad(with([&](auto& o) { o.bad_words_ids = ids, o.bad_words_lengths = short_lengths; })), "badWords");
  EXPECT_EQ(bad(with([&](auto& o) { o.bad_words_ids = outside, o.bad_words_lengths = short_lengths; })), "badWords.ids");
  const std::vector<std::int32_t> many(sl::kMaxBadWordIds + 1, 1);
  const std::vector<std::int32_t> one_length = {std::int32_t(sl::kMaxBadWordIds), 1};
  EXPECT_EQ(bad(with([&](auto& o) { o.bad_words_ids = many, o.bad_words_lengths = one_length; })), "badWords");
  EXPECT_EQ(bad(with([](auto& o) { o.no_repeat_ngram_size = -1; })), "noRepeatNgramSize");
  EXPECT_EQ(bad(with([](auto& o) { o.no_repeat_ngram_size = sl::kMaxNgramSize + 1; })), "noRepeatNgramSize");
  EXPECT_EQ(bad(with([](auto& o) { o.dynatemp_range = -0.1; })), "dynatemp.range");
  EXPECT_EQ(bad(with([](auto& o) { o.dynatemp_exponent = 101; })), "dynatemp.exponent");
  EXPECT_EQ(bad(with([](auto& o) { o.p_less = 2; })), "pLess");
  EXPECT_EQ(bad(with([](auto& o) { o.adaptive_p_target = 1.5; })), "adaptiveP.target");
  EXPECT_EQ(bad(with([](auto& o) { o.adaptive_p_target = 0.5, o.adaptive_p_decay = 0.995; })), "adaptiveP.decay");
  EXPECT_EQ(bad(with([](auto& o) { o.adaptive_p_target = 0.5, o.adaptive_p_average = -0.1; })), "adaptiveP.average");
  EXPECT_EQ(bad(with([](auto& o) { o.adaptive_p_target = 0.5, o.mirostat_version = 2; })), "adaptiveP");
  const std::vector<std::int32_t> adaptive_first = {std::int32_t(sl::Stage::kAdaptiveP), std::int32_t(sl::Stage::kTopK)};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = adaptive_first, o.adaptive_p_target = 0.5; })), "order");
  const std::vector<std::int32_t> mirostat_then_adaptive = {std::int32_t(sl::Stage::kMirostat), std::int32_t(sl::Stage::kAdaptiveP)};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = mirostat_then_adaptive, o.mirostat_version = 2; })), "");
}

// Adaptive-p's draw by rejection on rows where most of the transformed mass is in the tail it does
// not weigh: the draws in 40 bands of equal reference mass (tokens by probability).
TEST(ServerSamplers, AdaptivePDrawsItsTailExactly) {
  const auto logits = reference::random_logits(5000, 51, 2.5);
  for (const auto& [target, average] : {std::pair{0.5, 0.8}, std::pair{0.05, 0.2}}) {
    auto options = with([&](auto& o) { o.adaptive_p_target = target, o.adaptive_p_average = average, o.seed = 25; });
    const auto expected = reference::chain(logits, options, 0.5).probs;
    std::vector<std::size_t> by_probability(logits.size());
    std::iota(by_probability.begin(), by_probability.end(), std::size_t{0});
    std::sort(by_probability.begin(), by_probability.end(), [&](std::size_t a, std::size_t b) { return expected[a] > expected[b]; });
    constexpr std::size_t kBands = 40;
    std::vector<std::size_t> band_of(logits.size());
    std::vector<float> band_mass(kBands, 0.0f);
    double below = 0.0;
    for (const std::size_t token : by_probability) {
      band_of[token] = std::min(kBands - 1, std::size_t(below * kBands));
      band_mass[band_of[token]] += float(expected[token]);
      below += expected[token];
    }
    sl::FilterWorkspace workspace;
    std::vector<std::uint64_t> counts(kBands, 0);
    constexpr std::size_t kDraws = 30000;
    for (std::size_t n = 0; n < kDraws; ++n) {
      options.step = n;
      ++counts[band_of[std::size_t(sl::sample_token(logits, options, workspace))]];
    }
    const double p = sl::chi_square(counts, band_mass).p_value;
    std::cout << "adaptive-p " << target << " / " << average << " on 5,000 tokens, 40 bands: chi-square p = " << p << "\n";
    EXPECT_GT(p, 1e-4);
  }
}

// Bans that leave none of the tokens the masks allow are a typed error naming the option, from the
// options' check (so every entry point has it), and per position in speculative verification.
TEST(ServerSamplers, BansLeavingNoAllowedTokenNameTheOption) {
  constexpr std::size_t kRow = 100;
  std::vector<std::uint32_t> mask(sl::mask_words(kRow), 0u);
  mask[0] = (1u << 5) | (1u << 6);
  const std::vector<std::int32_t> five_six = {5, 6}, five = {5}, one = {1}, lengths = {1, 1};
  const auto bad = [&](const sl::SamplingOptions& o) {
    const auto error = sl::check_options(o, kRow);
    return error ? error->argument : std::string();
  };
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_mask = mask, o.bad_words_ids = five_six, o.bad_words_lengths = lengths; })), "badWords");
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_mask = mask, o.bad_words_ids = five, o.bad_words_lengths = one; })), "");
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_tokens = five_six, o.no_repeat_ngram_size = 1, o.generated_ids = five_six; })),
            "noRepeatNgramSize");
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_mask = mask, o.no_repeat_ngram_size = 1, o.generated_ids = five; })), "");
  // Speculative verification: the history [5] leaves 6, and the draft 6 then leaves nothing.
  const auto row = reference::random_logits(kRow, 52, 1.0);
  std::vector<float> targets(row.begin(), row.end());
  targets.insert(targets.end(), row.begin(), row.end());
  const std::vector<std::int32_t> drafts = {6};
  const auto options = with([&](auto& o) { o.allowed_mask = mask, o.no_repeat_ngram_size = 1, o.generated_ids = five; });
  ASSERT_FALSE(sl::check_options(options, kRow));
  sl::SpeculativeWorkspace workspace;
  for (const double temperature : {0.0, 1.0}) {
    auto at = options;
    at.temperature = temperature;
    const auto outcome = sl::speculative_verify({targets, row, drafts, sl::draft_stream(0)}, at, workspace);
    ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(outcome)) << temperature;
    EXPECT_EQ(std::get<sl::ArgumentError>(outcome).argument, "noRepeatNgramSize");
    EXPECT_NE(std::get<sl::ArgumentError>(outcome).message.find("position 1"), std::string::npos);
  }
}

}  // namespace server_samplers_test
