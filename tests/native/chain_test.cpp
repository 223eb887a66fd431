// The chain's new stages, orders, logprobs and DRY against the float64 reference
// (chain_reference.hpp) on vocabulary-sized logits, plus their edge cases and draws.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <functional>

#include "../../core/sampling/src/chain.hpp"
#include "chain_match.hpp"
#include "reference.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace chain_test {

namespace sl = sampling_lab;

namespace {

constexpr std::size_t kVocabulary = 151936;

using chain_match::expect_matches_reference;
using chain_match::with;

}  // namespace

// Each new stage alone, at three temperatures, on heavy-tailed 151,936-token logits.
TEST(Chain, EachNewStageMatchesTheReference) {
  const auto logits = reference::random_logits(kVocabulary, 41, 2.5);
  const std::vector<std::pair<std::string, std::function<void(sl::SamplingOptions&)>>> cases = {
      {"typical 0.2", [](auto& o) { o.typical_p = 0.2; }},
      {"typical 0.9", [](auto& o) { o.typical_p = 0.9; }},
      {"top-nσ 1", [](auto& o) { o.top_n_sigma = 1.0; }},
      {"top-nσ 3", [](auto& o) { o.top_n_sigma = 3.0; }},
      {"η 3e-4", [](auto& o) { o.eta_cutoff = 3e-4; }},
      {"η 0.02", [](auto& o) { o.eta_cutoff = 0.02; }},
      {"xtc 1e-3", [](auto& o) { o.xtc_probability = 1.0, o.xtc_threshold = 1e-3; }},
      {"mirostat 2 μ 8", [](auto& o) { o.mirostat_version = 2, o.mirostat_mu = 8.0; }},
      {"mirostat 1 μ 10", [](auto& o) { o.mirostat_version = 1, o.mirostat_mu = 10.0; }},
  };
  for (const double t : {0.5, 1.0, 1.5}) {
    for (const auto& [name, set] : cases) {
      auto options = with(set);
      options.temperature = t;
      expect_matches_reference(logits, options, name + " at T " + std::to_string(t));
    }
  }
}

// Everything on at once, in both named orders and a reversed custom one.
TEST(Chain, OrdersMatchTheReference) {
  const auto logits = reference::random_logits(kVocabulary, 42, 3.0);
  const std::vector<std::int32_t> ids = {7, 7, 19, 4000, 7, 19, 88};
  const std::vector<std::int32_t> bias_ids = {5, 6};
  const std::vector<float> bias = {4.0f, -3.0f};
  const std::vector<std::int32_t> banned = {0, 1, 2};
  auto options = with([&](auto& o) {
    o.temperature = 0.7, o.top_k = 2000, o.top_p = 0.97, o.min_p = 0.001, o.typical_p = 0.95, o.top_n_sigma = 4.0;
    o.epsilon_cutoff = 1e-5, o.eta_cutoff = 1e-5, o.xtc_probability = 1.0, o.xtc_threshold = 0.05;
    o.repetition_penalty = 1.3, o.presence_penalty = 0.5, o.generated_ids = ids, o.dry_multiplier = 0.8;
    o.logit_bias_ids = bias_ids, o.logit_bias_values = bias, o.banned_tokens = banned;
  });
  expect_matches_reference(logits, options, "handbook order");
  std::vector<std::int32_t> llama;
  for (const auto stage : sl::kLlamaCppOrder) llama.push_back(std::int32_t(stage));
  options.order = llama;
  expect_matches_reference(logits, options, "llama.cpp order");
  std::vector<std::int32_t> reversed(llama.rbegin() + 1, llama.rend());  // mirostat must stay last
  options.order = reversed;
  expect_matches_reference(logits, options, "reversed order");
}

// The README's example: temperature before top-p keeps a few tokens, after it thousands (the
// medians over nine heavy-tailed vocabularies are printed for the README).
TEST(Chain, TemperatureBeforeTopPKeepsFarFewerTokens) {
  sl::FilterWorkspace workspace;
  std::vector<std::int32_t> llama;
  for (const auto stage : sl::kLlamaCppOrder) llama.push_back(std::int32_t(stage));
  std::vector<std::size_t> handbook, llama_cpp;
  for (std::uint64_t seed = 0; seed < 9; ++seed) {
    const auto logits = reference::random_logits(kVocabulary, 100 + seed, 2.5);
    std::vector<float> probs(logits.size());
    auto options = with([](auto& o) { o.temperature = 0.5, o.top_p = 0.9; });
    handbook.push_back(sl::filter_distribution(logits, options, probs, workspace).kept);
    options.order = llama;
    llama_cpp.push_back(sl::filter_distribution(logits, options, probs, workspace).kept);
    if (seed == 0) expect_matches_reference(logits, options, "llama.cpp order, T 0.5, top-p 0.9");
  }
  std::sort(handbook.begin(), handbook.end());
  std::sort(llama_cpp.begin(), llama_cpp.end());
  std::cout << "T 0.5, top-p 0.9, median kept: handbook order " << handbook[4] << ", llama.cpp order " << llama_cpp[4] << "\n";
  EXPECT_LT(handbook[8] * 10, llama_cpp[0]);
}

TEST(Chain, EdgeCases) {
  sl::FilterWorkspace workspace;
  const std::vector<float> tied(1000, 0.0f);
  std::vector<float> probs(tied.size());
  const auto kept = [&](std::span<const float> logits, const sl::SamplingOptions& o) {
    probs.resize(logits.size());
    return sl::filter_distribution(logits, o, probs, workspace).kept;
  };
  // All tied: typical ranks by id, so p = 0.25 keeps the first 250; σ = 0 keeps all.
  EXPECT_EQ(kept(tied, with([](auto& o) { o.typical_p = 0.25; })), 250u);
  EXPECT_GT(probs[249], 0.0f);
  EXPECT_EQ(probs[250], 0.0f);
  EXPECT_EQ(kept(tied, with([](auto& o) { o.top_n_sigma = 1.0; })), 1000u);
  EXPECT_EQ(kept(tied, with([](auto& o) { o.eta_cutoff = 0.5; })), 1000u);  // min(0.5, √0.5 / 1000) < 1/1000
  // XTC at threshold 0 removes all but the least probable, the last of the ranking.
  EXPECT_EQ(kept(tied, with([](auto& o) { o.xtc_probability = 1, o.xtc_threshold = 0; })), 1u);
  EXPECT_EQ(probs[999], 1.0f);
  EXPECT_EQ(kept(tied, with([](auto& o) { o.xtc_probability = 1, o.xtc_threshold = 1; })), 1000u);
  // One token: every stage keeps it.
  const std::vector<float> one = {2.0f};
  for (const auto& set : std::vector<std::function<void(sl::SamplingOptions&)>>{
           [](auto& o) { o.typical_p = 1e-9; }, [](auto& o) { o.top_n_sigma = 5; }, [](auto& o) { o.eta_cutoff = 1; },
           [](auto& o) { o.xtc_probability = 1, o.xtc_threshold = 0; }, [](auto& o) { o.mirostat_version = 1; },
           [](auto& o) { o.mirostat_version = 2, o.mirostat_mu = 0.0; }}) {
    EXPECT_EQ(kept(one, with(set)), 1u);
    EXPECT_EQ(probs[0], 1.0f);
  }
  // Thresholds at their ends: ε = 1 and μ = 0 keep the top token only.
  const auto logits = reference::random_logits(5000, 3, 2.0);
  EXPECT_EQ(kept(logits, with([](auto& o) { o.epsilon_cutoff = 1; })), 1u);
  EXPECT_EQ(kept(logits, with([](auto& o) { o.mirostat_version = 2, o.mirostat_mu = 0.0; })), 1u);
  EXPECT_EQ(kept(logits, with([](auto& o) { o.typical_p = 1e-9; })), 1u);
}

// μ ← μ − η (surprise − τ) over 100 tokens, the surprise of each drawn token in bits in the
// distribution it was drawn from (the reference's).
TEST(Chain, MirostatMuFollowsItsUpdateOver100Steps) {
  const auto logits = reference::random_logits(20000, 9, 3.0);
  sl::FilterWorkspace workspace;
  for (const int version : {1, 2}) {
    auto options = with([&](auto& o) { o.mirostat_version = version, o.mirostat_tau = 4.0, o.mirostat_eta = 0.2, o.seed = 5; });
    double mu = 2 * options.mirostat_tau;
    for (std::uint64_t step = 0; step < 100; ++step) {
      options.step = step;
      options.mirostat_mu = mu;
      const auto drawn = sl::draw_token(logits, options, workspace);
      const auto expected = reference::chain(logits, options, 0.5);
      ASSERT_TRUE(expected.kept[std::size_t(drawn.token)]) << "version " << version << " step " << step;
      const double surprise = -std::log2(expected.probs[std::size_t(drawn.token)]);
      const double next = mu - options.mirostat_eta * (surprise - options.mirostat_tau);
      ASSERT_NEAR(*drawn.mirostat_mu, next, 1e-5) << "version " << version << " step " << step;
      mu = *drawn.mirostat_mu;
    }
  }
}

// XTC acts on a fraction xtc.probability of the steps: the drawn tokens follow the mixture
// 0.3 · (XTC's distribution) + 0.7 · (the plain one), by χ² at the 1e-4 level.
TEST(Chain, XtcActsWithItsProbability) {
  const std::vector<float> logits = {3.0f, 2.8f, 2.5f, 1.0f, 0.5f, 0.0f, -1.0f, -2.0f};
  sl::FilterWorkspace workspace;
  auto options = with([](auto& o) { o.xtc_probability = 0.3, o.xtc_threshold = 0.1, o.seed = 11; });
  const auto plain = reference::chain(logits, with([](auto&) {}), 1.0).probs;
  const auto excluded = reference::chain(logits, options, 0.0).probs;
  std::vector<float> mixture(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) mixture[i] = float(0.3 * excluded[i] + 0.7 * plain[i]);
  constexpr std::size_t kDraws = 40000;
  std::vector<std::int32_t> tokens(kDraws);
  for (std::size_t n = 0; n < kDraws; ++n) {
    options.step = n;
    tokens[n] = sl::sample_token(logits, options, workspace);
  }
  const auto test = sl::chi_square(sl::counts(tokens, logits.size()), mixture);
  EXPECT_GT(test.p_value, 1e-4) << "χ² " << test.statistic;
  // A negative control: the same draws do not fit the distribution without XTC.
  std::vector<float> plain_float(plain.begin(), plain.end());
  EXPECT_LT(sl::chi_square(sl::counts(tokens, logits.size()), plain_float).p_value, 1e-6);
}

TEST(Dry, PenalisesTheTokenThatWouldExtendARepeat) {
  // … A B C D A B C: "A B C" repeats (length 3), so D would extend it: 0.8 · 1.75^(3 − 2).
  const std::vector<std::int32_t> history = {0, 1, 2, 3, 0, 1, 2};
  const std::vector<float> logits(6, 1.0f);
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  auto options = with([&](auto& o) { o.dry_multiplier = 0.8, o.generated_ids = history; });
  sl::filter_distribution(logits, options, probs, workspace);
  EXPECT_NEAR(std::log(probs[0] / probs[3]), 0.8 * 1.75, 1e-5);
  EXPECT_EQ(probs[0], probs[1]);
  // Length 2 = allowedLength: 0.8 · 1.75^0 on the token after "… B C"? No: only repeats of
  // length >= 2 count, and B C D A B C has "B C" before D only, already counted above.
  // A breaker (C) cuts the repeat at the newest C: nothing reaches back past it.
  const std::vector<std::int32_t> breakers = {2};
  options.dry_sequence_breakers = breakers;
  sl::filter_distribution(logits, options, probs, workspace);
  EXPECT_EQ(probs[0], probs[3]);
  // A window shorter than the repeat sees none of it.
  options.dry_sequence_breakers = {};
  options.dry_penalty_last_n = 3;
  sl::filter_distribution(logits, options, probs, workspace);
  EXPECT_EQ(probs[0], probs[3]);
}

TEST(Dry, MatchesTheDirectSearchOnRandomSequences) {
  sl::Philox rng(21);
  const std::vector<float> logits(6, 0.0f);
  std::vector<float> probs(logits.size());
  sl::FilterWorkspace workspace;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::int32_t> history(1 + rng.next_u32() % 200);
    for (auto& id : history) id = std::int32_t(rng.next_u32() % (trial % 2 ? 3 : 6));
    const std::vector<std::int32_t> breakers = {trial % 3 == 0 ? 5 : 4};
    auto options = with([&](auto& o) {
      o.dry_multiplier = 0.5, o.dry_base = 1.1 + (trial % 5) * 0.3, o.dry_allowed_length = trial % 4;
      o.dry_penalty_last_n = trial % 7 == 0 ? 50 : -1, o.generated_ids = history, o.dry_sequence_breakers = breakers;
    });
    sl::filter_distribution(logits, options, probs, workspace);
    const auto penalties = reference::dry_penalties(options);
    for (std::size_t id = 0; id < logits.size(); ++id) {
      const double expected = penalties.count(int(id)) ? penalties.at(int(id)) : 0.0;
      // log(p_id / p_j) for an unpenalised j, or against the exact softmax when all are.
      double reference_log = -expected;
      double total = 0.0;
      for (std::size_t j = 0; j < logits.size(); ++j) total += std::exp(-(penalties.count(int(j)) ? penalties.at(int(j)) : 0.0));
      reference_log -= std::log(total);
      ASSERT_NEAR(std::log(double(probs[id])), reference_log, 1e-5) << "trial " << trial << " token " << id;
    }
  }
}

TEST(Logprobs, RawAndProcessedMatchTheReference) {
  const auto logits = reference::random_logits(kVocabulary, 61, 2.5);
  sl::FilterWorkspace workspace;
  double max = logits[0];
  for (const float z : logits) max = std::max(max, double(z));
  double total = 0.0;
  for (const float z : logits) total += std::exp(z - max);
  const double log_total = max + std::log(total);
  std::vector<std::size_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
  auto options = with([](auto& o) { o.temperature = 0.8, o.top_p = 0.9, o.seed = 3; });
  for (std::uint64_t step = 0; step < 20; ++step) {
    options.step = step;
    const auto raw = sl::sample_token_logprobs(logits, options, 20, sl::LogprobsMode::kRaw, workspace);
    EXPECT_EQ(raw.token, sl::sample_token(logits, options, workspace));
    // The log-sum-exp's float32 exp is good to about 2 ulp (2.4e-7 relative).
    EXPECT_NEAR(raw.logprob, logits[std::size_t(raw.token)] - log_total, 1e-6);
    EXPECT_EQ(order[raw.rank - 1], std::size_t(raw.token));
    ASSERT_EQ(raw.top.size(), 20u);
    for (std::size_t r = 0; r < 20; ++r) {
      EXPECT_EQ(raw.top[r].token, std::int32_t(order[r]));
      EXPECT_NEAR(raw.top[r].logprob, logits[order[r]] - log_total, 1e-6);
    }
    const auto processed = sl::sample_token_logprobs(logits, options, 5, sl::LogprobsMode::kProcessed, workspace);
    const auto expected = reference::chain(logits, options, 0.5);
    EXPECT_EQ(processed.token, raw.token);
    EXPECT_NEAR(processed.logprob, std::log(expected.probs[std::size_t(processed.token)]), 1e-5);
    for (std::size_t r = 0; r < 5; ++r) {
      EXPECT_EQ(processed.top[r].token, std::int32_t(order[r]));
      EXPECT_NEAR(processed.top[r].logprob, std::log(expected.probs[order[r]]), 1e-5);
    }
  }
}

TEST(Validation, NewOptionsNameTheArgument) {
  const auto bad = [](const sl::SamplingOptions& o, std::size_t vocabulary = 10) {
    const auto error = sl::check_options(o, vocabulary);
    return error ? error->argument : std::string();
  };
  const std::vector<std::int32_t> ids = {1, 2};
  const std::vector<float> one_value = {0.5f};
  EXPECT_EQ(bad(with([&](auto& o) { o.logit_bias_ids = ids, o.logit_bias_values = one_value; })), "logitBias");
  const std::vector<std::int32_t> everything = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(bad(with([&](auto& o) { o.banned_tokens = everything; })), "bannedTokens");
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_tokens = ids, o.banned_tokens = ids; })), "bannedTokens");
  const std::vector<std::int32_t> twice = {3, 3};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = twice; })), "order");
  const std::vector<std::int32_t> without_top_p = {3};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = without_top_p, o.top_p = 0.5; })), "order");
  const std::vector<std::int32_t> mirostat_first = {std::int32_t(sl::Stage::kMirostat), 2};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = mirostat_first, o.mirostat_version = 2; })), "order");
  const std::vector<std::int32_t> unknown_stage = {std::int32_t(sl::kStageCount)};
  EXPECT_EQ(bad(with([&](auto& o) { o.order = unknown_stage; })), "order");
  const std::vector<std::int32_t> outside = {10};
  EXPECT_EQ(bad(with([&](auto& o) { o.allowed_tokens = outside; })), "allowedTokens");
  EXPECT_EQ(bad(with([&](auto& o) { o.dry_sequence_breakers = outside; })), "dry.sequenceBreakers");
}

// A draw's last stage cuts in place, giving the cut tokens weight 0 across many blocks (XTC, and
// a prefix that keeps a quarter or more, as typical-p and the general chain's top-p do), which
// shifts the block sums the draw skips by: the drawn tokens equal an inverse CDF in double over
// the distribution it reports, step by step.
TEST(Chain, InPlaceCutsDrawTheInverseCdfOfTheirDistribution) {
  const auto logits = reference::random_logits(kVocabulary, 71, 3.0);
  const std::vector<std::int32_t> bias_ids = {5};
  const std::vector<float> bias = {0.5f};
  std::vector<std::int32_t> handbook;
  for (const auto stage : sl::kHandbookOrder) handbook.push_back(std::int32_t(stage));
  const std::vector<std::pair<std::string, std::function<void(sl::SamplingOptions&)>>> cases = {
      {"xtc 1e-4", [](auto& o) { o.xtc_probability = 1.0, o.xtc_threshold = 1e-4; }},
      {"typical 0.95 at T 1.5", [](auto& o) { o.typical_p = 0.95, o.temperature = 1.5; }},
      {"typical 0.9 at T 2", [](auto& o) { o.typical_p = 0.9, o.temperature = 2.0; }},
      {"top-p 0.95 at T 1.5 after a bias (the general chain, by an order)", [&](auto& o) {
         o.top_p = 0.95, o.temperature = 1.5, o.logit_bias_ids = bias_ids, o.logit_bias_values = bias, o.order = handbook;
       }},
  };
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  for (const auto& [name, set] : cases) {
    auto options = with(set);
    options.seed = 9;
    const auto result = sl::filter_distribution(logits, options, probs, workspace);
    ASSERT_LT(result.kept, logits.size() - 100) << name;  // hundreds removed, across blocks
    ASSERT_GT(result.kept * 4, logits.size()) << name;    // a quarter or more kept: cut in place
    // Each float32 probability is within 2^-24 (relative) of its weight's share, so their running
    // sum is within 6e-8 of the weights' own: a target closer than 1e-7 to a boundary could fall
    // either way and is left out.
    std::size_t unresolved = 0;
    for (std::uint64_t step = 0; step < 300; ++step) {
      options.step = step;
      const double target = sl::token_uniforms(options).token;
      double cumulative = 0.0;
      std::size_t expected = 0;
      for (std::size_t i = 0; i < probs.size(); ++i) {
        if (probs[i] == 0.0f) continue;
        expected = i;
        cumulative += probs[i];
        if (cumulative > target) break;
      }
      if (std::min(cumulative - target, target - (cumulative - probs[expected])) < 1e-7) {
        ++unresolved;
        continue;
      }
      EXPECT_EQ(sl::sample_token(logits, options, workspace), std::int32_t(expected)) << name << ", step " << step;
    }
    EXPECT_LE(unresolved, 30u) << name;  // most draws are checked
  }
}

// The fast path's choice reads the stage table: a stage added to it that the fast path does not
// implement sends every options that turn it on to the general chain, and one it implements does not.
TEST(StageTable, AStageAddedToTheTableIsNeverSkippedByTheFastPath) {
  sl::SamplingOptions options;
  options.top_p = 0.9;
  ASSERT_FALSE(sl::detail::needs_general_chain(options));
  std::vector<sl::StageSpec> stages(std::begin(sl::kStageSpecs), std::end(sl::kStageSpecs));
  const auto always = [](const sl::SamplingOptions&) { return true; };
  const auto never = [](const sl::SamplingOptions&) { return false; };
  stages.push_back({sl::Stage(sl::kStageCount), "testStage", "t", always, never});
  EXPECT_TRUE(sl::detail::needs_general_chain(options, stages));
  stages.back().fast = always;
  EXPECT_FALSE(sl::detail::needs_general_chain(options, stages));
  // Each row's own predicates are what stage_on answers.
  for (const auto& stage : sl::kStageSpecs) EXPECT_EQ(sl::stage_on(stage.stage, options), stage.on(options)) << stage.name;
}

}  // namespace chain_test
