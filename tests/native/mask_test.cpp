// allowedMask: the gather kernel against a scalar reading of the bits, the chain's draws against
// allowedTokens on the same set, and its checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

#include "reference.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"

namespace mask_test {

namespace sl = sampling_lab;

namespace {

// Words of a mask whose bits are set with probability `density`, plus runs of empty and full words.
std::vector<std::uint32_t> random_mask(std::size_t vocabulary, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(density);
  std::vector<std::uint32_t> mask(sl::mask_words(vocabulary));
  for (std::size_t w = 0; w < mask.size(); ++w) {
    if (w % 7 == 3) continue;                 // empty
    if (w % 11 == 5) { mask[w] = ~0u; continue; }  // full
    for (std::uint32_t b = 0; b < 32; ++b) mask[w] |= std::uint32_t(bit(rng)) << b;
  }
  return mask;
}

std::vector<std::int32_t> ids_of(const std::vector<std::uint32_t>& mask, std::size_t vocabulary) {
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < vocabulary; ++i) {
    if (mask[i / 32] >> (i % 32) & 1u) ids.push_back(std::int32_t(i));
  }
  return ids;
}

}  // namespace

TEST(MaskKernel, GathersExactlyTheSetBitsInOrder) {
  for (const std::size_t vocabulary : {1u, 5u, 31u, 32u, 33u, 100u, 1000u, 151936u, 151937u}) {
    for (const double density : {0.0, 0.02, 0.5, 0.97, 1.0}) {
      const auto logits = reference::random_logits(vocabulary, vocabulary + 7, 2.0);
      auto mask = random_mask(vocabulary, density, vocabulary * 13 + std::uint64_t(density * 100));
      mask.back() |= 0xffff0000u;  // bits past the vocabulary are not read
      sl::Buffer<std::uint32_t> ids;
      sl::Buffer<float> kept;
      const std::size_t count = sl::kernels::gather_allowed(mask, logits, ids, kept);
      const auto expected = ids_of(mask, vocabulary);
      ASSERT_EQ(count, expected.size()) << vocabulary << " " << density;
      ASSERT_EQ(sl::kernels::mask_count(mask, vocabulary), expected.size());
      for (std::size_t j = 0; j < count; ++j) {
        ASSERT_EQ(ids[j], std::uint32_t(expected[j])) << vocabulary << " " << density << " at " << j;
        ASSERT_EQ(kept[j], logits[ids[j]]);
      }
    }
  }
}

TEST(MaskKernel, GathersTheAllowedValuesAtOrAboveAThreshold) {
  for (const std::size_t vocabulary : {1u, 5u, 31u, 32u, 33u, 100u, 1000u, 151936u, 151937u}) {
    for (const double density : {0.0, 0.5, 0.97, 1.0}) {
      const auto logits = reference::random_logits(vocabulary, vocabulary + 11, 2.0);
      auto mask = random_mask(vocabulary, density, vocabulary * 17 + std::uint64_t(density * 100));
      mask.back() |= 0xffff0000u;  // bits past the vocabulary are not read
      for (const float threshold : {-1e30f, 0.0f, 3.0f, 1e30f}) {
        sl::Buffer<std::uint32_t> ids;
        sl::Buffer<float> kept;
        const std::size_t count = sl::kernels::gather_allowed_at_least(mask, logits, threshold, ids, kept);
        std::vector<std::uint32_t> expected;
        for (const auto id : ids_of(mask, vocabulary)) {
          if (logits[std::size_t(id)] >= threshold) expected.push_back(std::uint32_t(id));
        }
        ASSERT_EQ(std::vector<std::uint32_t>(ids.begin(), ids.end()), expected) << vocabulary << " " << density << " " << threshold;
        ASSERT_EQ(count, expected.size());
        for (std::size_t j = 0; j < count; ++j) ASSERT_EQ(kept[j], logits[ids[j]]);
      }
    }
  }
}

TEST(AllowedMask, DrawsWhatAllowedTokensDrawsOnTheSameSet) {
  constexpr std::size_t kVocabulary = 151936;
  const auto logits = reference::random_logits(kVocabulary, 5, 3.0);
  const auto mask = random_mask(kVocabulary, 0.3, 9);
  const auto ids = ids_of(mask, kVocabulary);
  sl::FilterWorkspace workspace;
  std::vector<float> with_mask(kVocabulary), with_list(kVocabulary);
  for (const double temperature : {0.0, 0.7, 1.3}) {
    for (std::uint64_t step = 0; step < 50; ++step) {
      sl::SamplingOptions masked;
      masked.temperature = temperature;
      masked.top_p = step % 2 ? 0.9 : 1.0;
      masked.step = step;
      masked.allowed_mask = mask;
      sl::SamplingOptions listed = masked;
      listed.allowed_mask = {};
      listed.allowed_tokens = ids;
      ASSERT_FALSE(sl::check_options(masked, kVocabulary));
      const auto token = sl::sample_token(logits, masked, workspace);
      ASSERT_EQ(token, sl::sample_token(logits, listed, workspace)) << temperature << " " << step;
      ASSERT_TRUE(mask[std::size_t(token) / 32] >> (std::size_t(token) % 32) & 1u);
      if (step == 0) {
        sl::filter_distribution(logits, masked, with_mask, workspace);
        sl::filter_distribution(logits, listed, with_list, workspace);
        ASSERT_EQ(with_mask, with_list);
      }
    }
  }
}

TEST(AllowedMask, ChecksNameIt) {
  const auto argument = [](const sl::SamplingOptions& options, std::size_t vocabulary) {
    const auto error = sl::check_options(options, vocabulary);
    return error ? error->argument : std::string();
  };
  std::vector<std::uint32_t> mask(4, 0);  // 100 tokens need 4 words
  sl::SamplingOptions options;
  options.allowed_mask = mask;
  EXPECT_EQ(argument(options, 100), "allowedMask");  // all zero
  mask[3] = 1u << 10;                                   // token 106: past the vocabulary
  EXPECT_EQ(argument(options, 100), "allowedMask");
  mask[3] = 1u << 2;                                    // token 98
  EXPECT_EQ(argument(options, 100), "");
  EXPECT_EQ(argument(options, 200), "allowedMask");  // wrong length
  const std::vector<std::int32_t> elsewhere = {5};
  options.allowed_tokens = elsewhere;
  EXPECT_EQ(argument(options, 100), "allowedTokens");  // nothing both allow
  const std::vector<std::int32_t> token = {98};
  options.allowed_tokens = {};
  options.banned_tokens = token;
  EXPECT_EQ(argument(options, 100), "bannedTokens");
}

// A mask allowing most of the vocabulary is read by the draw itself (greedy and temperature alone):
// its draws are the allowed tokens at their renormalised rates, by χ² in 40 bands of equal mass
// (tokens by probability), when it keeps the top tokens and when it cuts them (so that every
// allowed token is weighed), and greedy takes the best allowed one; allowedTokens draws the same.
TEST(AllowedMask, ADenseMaskReadByTheDrawIsExact) {
  constexpr std::size_t kVocabulary = 20000;
  const auto logits = reference::random_logits(kVocabulary, 53, 2.5);
  std::vector<std::size_t> ranked(kVocabulary);
  std::iota(ranked.begin(), ranked.end(), std::size_t{0});
  std::sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
  for (const std::size_t cut_top : {std::size_t{0}, std::size_t{40}}) {
    std::vector<std::uint32_t> mask(sl::mask_words(kVocabulary), ~0u);
    const auto ban = [&](std::size_t id) { mask[id / 32] &= ~(1u << (id % 32)); };
    for (std::size_t id = 3; id < kVocabulary; id += 10) ban(id);
    for (std::size_t r = 0; r < cut_top; ++r) ban(ranked[r]);
    const auto ids = ids_of(mask, kVocabulary);
    // The reference: softmax over the allowed logits, in double, at T 1.
    std::vector<double> expected(kVocabulary, 0.0);
    double total = 0.0;
    for (const auto id : ids) total += expected[std::size_t(id)] = std::exp(double(logits[std::size_t(id)]) - logits[ranked[0]]);
    constexpr std::size_t kBands = 40;
    std::vector<std::size_t> band_of(kVocabulary, 0);
    std::vector<float> band_mass(kBands, 0.0f);
    double below = 0.0;
    for (const std::size_t id : ranked) {
      if (expected[id] == 0.0) continue;
      band_of[id] = std::min(kBands - 1, std::size_t(below / total * kBands));
      band_mass[band_of[id]] += float(expected[id] / total);
      below += expected[id];
    }
    sl::FilterWorkspace workspace;
    std::vector<std::uint64_t> counts(kBands, 0);
    sl::SamplingOptions options;
    options.seed = 26;
    options.allowed_mask = mask;
    sl::SamplingOptions listed = options;
    listed.allowed_mask = {};
    listed.allowed_tokens = ids;
    for (std::uint64_t step = 0; step < 20000; ++step) {
      options.step = listed.step = step;
      const auto token = std::size_t(sl::sample_token(logits, options, workspace));
      ASSERT_GT(expected[token], 0.0) << "a masked token, step " << step;
      if (step < 200) ASSERT_EQ(token, std::size_t(sl::sample_token(logits, listed, workspace))) << step;
      ++counts[band_of[token]];
    }
    const double p = sl::chi_square(counts, band_mass).p_value;
    std::cout << "dense mask, top " << cut_top << " tokens cut, 40 bands: chi-square p = " << p << "\n";
    EXPECT_GT(p, 1e-4);
    options.temperature = 0.0;
    const auto best = *std::find_if(ranked.begin(), ranked.end(), [&](std::size_t id) { return expected[id] > 0.0; });
    EXPECT_EQ(std::size_t(sl::sample_token(logits, options, workspace)), best);
  }
}

// The fast paths keep the bans' mask between calls and set the last call's bits again (fast_input.cpp):
// one workspace through changing bans, duplicates and vocabularies draws what a fresh one draws.
TEST(BanMask, AReusedWorkspaceDrawsWhatAFreshOneDraws) {
  struct Call {
    std::size_t vocabulary;
    std::vector<std::int32_t> banned, generated, bad_words, bad_word_lengths;
  };
  const auto top_of = [](const std::vector<float>& logits) {
    return std::int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
  };
  const auto big = reference::random_logits(151936, 8, 2.0), small = reference::random_logits(1000, 9, 2.0);
  const std::int32_t big_top = top_of(big), small_top = top_of(small);
  const std::vector<Call> calls = {
      {151936, {big_top}, {}, {}, {}},
      {151936, {5}, {}, {}, {}},                         // the top is allowed again
      {151936, {5, 5, big_top}, {7}, {7, big_top}, {2}},  // banned twice, by the list and the history
      {151936, {}, {7}, {7, big_top}, {2}},
      {151936, {}, {8}, {7, big_top}, {2}},               // no ban this step
      {1000, {small_top}, {}, {}, {}},                    // another vocabulary
      {151936, {}, {}, {}, {}},
      {151936, {9}, {}, {}, {}},
  };
  sl::FilterWorkspace reused;
  for (const double temperature : {0.0, 1.0}) {
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const auto& call = calls[c];
      sl::SamplingOptions options;
      options.temperature = temperature;
      options.seed = 3;
      options.banned_tokens = call.banned;
      options.generated_ids = call.generated;
      options.bad_words_ids = call.bad_words;
      options.bad_words_lengths = call.bad_word_lengths;
      const auto& logits = call.vocabulary == big.size() ? big : small;
      for (std::uint64_t step = 0; step < 50; ++step) {
        options.step = step;
        sl::FilterWorkspace fresh;
        const auto token = sl::sample_token(logits, options, reused);
        ASSERT_EQ(token, sl::sample_token(logits, options, fresh)) << "T " << temperature << ", call " << c << ", step " << step;
        ASSERT_EQ(std::count(call.banned.begin(), call.banned.end(), token), 0);
      }
    }
  }
}

}  // namespace mask_test
