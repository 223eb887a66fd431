// Peers' meanings of the names this project borrows: −∞ is a masked token (PyTorch, transformers,
// vLLM, llama.cpp), penaltyLastN as llama.cpp's penalty_last_n, promptIds with vLLM's penalty
// scopes, and minKeep as HF's min_tokens_to_keep and llama.cpp's min_keep (their tests' cases).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sampling_lab/beam_search.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative_decoding.hpp"
#include "sampling_lab/synthetic.hpp"

namespace peer_semantics_test {

namespace sl = sampling_lab;

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

struct Case {
  const char* name;
  sl::SamplingOptions options;
};

// Every stage that counts the tokens it sees, and the fast paths.
std::vector<Case> cases() {
  std::vector<Case> list;
  const auto with = [&](const char* name, auto set) {
    sl::SamplingOptions options;
    set(options);
    list.push_back({name, options});
  };
  static const std::vector<std::int32_t> history = {5, 7, 7, 1023, 40};
  with("greedy", [](auto& o) { o.temperature = 0.0; });
  with("temperature", [](auto& o) { o.temperature = 1.3; });
  with("top-k", [](auto& o) { o.top_k = 40; });
  with("top-p", [](auto& o) { o.top_p = 0.9; });
  with("min-p with penalties", [](auto& o) { o.min_p = 0.02; o.repetition_penalty = 1.2; o.generated_ids = history; });
  with("top-n-sigma", [](auto& o) { o.top_n_sigma = 1.0; });
  with("adaptive-p", [](auto& o) { o.adaptive_p_target = 0.3; });
  with("dynamic temperature", [](auto& o) { o.dynatemp_range = 0.8; });
  with("mirostat 1", [](auto& o) { o.mirostat_version = 1; });
  with("mirostat 2", [](auto& o) { o.mirostat_version = 2; o.mirostat_tau = 3; });
  with("typical and eta", [](auto& o) { o.typical_p = 0.9; o.eta_cutoff = 0.001; });
  with("p-less", [](auto& o) { o.p_less = 1; });
  return list;
}

// A vocabulary-sized row whose masked ids include its top token, those ids, and the row with
// them at its lowest finite logit instead (bannedTokens' draws under a mask read the banned
// tokens' logits for their shift, which moves the uniforms but not the distribution: the
// distribution test compares with the unchanged row).
struct MaskedRow {
  std::vector<float> logits;
  std::vector<std::int32_t> masked;
  std::vector<float> lowered;
};

MaskedRow masked_row(std::size_t vocabulary, std::size_t count) {
  MaskedRow row{sl::synthetic_logits(vocabulary, 11), {}};
  sl::Philox rng(17, 0);
  row.masked.push_back(std::int32_t(sl::argmax(row.logits)));
  while (row.masked.size() < count) row.masked.push_back(std::int32_t(rng.next_u32() % vocabulary));
  const float lowest = *std::min_element(row.logits.begin(), row.logits.end());
  row.lowered = row.logits;
  for (const auto id : row.masked) {
    row.logits[std::size_t(id)] = kMinusInfinity;
    row.lowered[std::size_t(id)] = lowest;
  }
  return row;
}

TEST(NegativeInfinity, DrawsExactlyWhatBannedTokensDrawOnEveryPath) {
  constexpr std::size_t kV = 151936;
  const auto row = masked_row(kV, 2000);
  const auto& clean = row.lowered;
  sl::FilterWorkspace masked_workspace, banned_workspace;
  for (auto [name, options] : cases()) {
    sl::SamplingOptions banned = options;
    banned.banned_tokens = row.masked;
    for (std::uint64_t step = 0; step < 25; ++step) {
      options.seed = banned.seed = 5;
      options.step = banned.step = step;
      const auto masked_draw = sl::checked_draw_token(row.logits, options, masked_workspace);
      const auto banned_draw = sl::checked_draw_token(clean, banned, banned_workspace);
      ASSERT_TRUE(std::holds_alternative<sl::TokenDraw>(masked_draw)) << name << ": " << std::get<sl::ArgumentError>(masked_draw).message;
      ASSERT_TRUE(std::holds_alternative<sl::TokenDraw>(banned_draw)) << name;
      const auto& a = std::get<sl::TokenDraw>(masked_draw);
      const auto& b = std::get<sl::TokenDraw>(banned_draw);
      EXPECT_EQ(a.token, b.token) << name << " step " << step;
      EXPECT_EQ(a.mirostat_mu, b.mirostat_mu) << name;
      EXPECT_EQ(a.adaptive_p_average, b.adaptive_p_average) << name;
      EXPECT_NE(a.token, row.masked[0]) << name;
    }
  }
}

TEST(NegativeInfinity, TheDistributionIsBannedTokensDistribution) {
  constexpr std::size_t kV = 50000;
  const auto row = masked_row(kV, 300);
  const auto clean = sl::synthetic_logits(kV, 11);
  sl::FilterWorkspace workspace;
  for (const auto& [name, options] : cases()) {
    sl::SamplingOptions banned = options;
    banned.banned_tokens = row.masked;
    std::vector<float> expected(kV), actual(kV);
    const auto want = sl::filter_distribution(clean, banned, expected, workspace);
    const auto masked = sl::mask_negative_infinity(row.logits, options, workspace.masked);
    ASSERT_TRUE(std::holds_alternative<sl::MaskedLogits>(masked)) << name;
    const auto& input = std::get<sl::MaskedLogits>(masked);
    const auto got = sl::filter_distribution(input.logits, input.options, actual, workspace);
    EXPECT_EQ(got.kept, want.kept) << name;
    EXPECT_EQ(got.entropy_bits, want.entropy_bits) << name;
    EXPECT_EQ(actual, expected) << name;
  }
}

TEST(NegativeInfinity, ABiasOfMinusInfinityIsABan) {
  const auto logits = sl::synthetic_logits(4096, 3);
  sl::FilterWorkspace workspace;
  const std::vector<std::int32_t> ids = {int(sl::argmax(logits)), 9, 10};
  const std::vector<float> values = {kMinusInfinity, 2.0f, kMinusInfinity};
  for (std::uint64_t step = 0; step < 50; ++step) {
    sl::SamplingOptions biased, banned;
    biased.top_p = banned.top_p = 0.95;
    biased.step = banned.step = step;
    biased.logit_bias_ids = ids;
    biased.logit_bias_values = values;
    banned.logit_bias_ids = std::span(ids).subspan(1, 1);
    banned.logit_bias_values = std::span(values).subspan(1, 1);
    const std::vector<std::int32_t> bans = {ids[0], ids[2]};
    banned.banned_tokens = bans;
    ASSERT_FALSE(sl::check_options(biased, logits.size()));
    EXPECT_EQ(std::get<sl::TokenDraw>(sl::checked_draw_token(logits, biased, workspace)).token,
              std::get<sl::TokenDraw>(sl::checked_draw_token(logits, banned, workspace)).token);
  }
}

TEST(NegativeInfinity, NaNPlusInfinityAndNothingFiniteAreErrors) {
  sl::FilterWorkspace workspace;
  const auto error_of = [&](std::vector<float> logits, const sl::SamplingOptions& options = {}) {
    const auto drawn = sl::checked_draw_token(logits, options, workspace);
    return std::holds_alternative<sl::ArgumentError>(drawn) ? std::get<sl::ArgumentError>(drawn).message : std::string();
  };
  EXPECT_EQ(error_of({kMinusInfinity, kMinusInfinity}), "logits has no finite logit: every token is masked");
  EXPECT_EQ(error_of({kMinusInfinity, NAN, 1.0f}), "logits[1] is NaN; logits must be finite or −∞ (a masked token)");
  EXPECT_EQ(error_of({1.0f, -kMinusInfinity}), "logits[1] is +∞; logits must be finite or −∞ (a masked token)");
  sl::SamplingOptions allowed;
  const std::vector<std::int32_t> only = {0};
  allowed.allowed_tokens = only;
  EXPECT_NE(error_of({kMinusInfinity, 1.0f}, allowed).find("leave no token"), std::string::npos);
  // A negative control: the same row with one finite logit draws it.
  EXPECT_EQ(std::get<sl::TokenDraw>(sl::checked_draw_token(std::vector<float>{kMinusInfinity, 1.0f}, {}, workspace)).token, 1);
}

TEST(NegativeInfinity, SpeculativeVerificationMasksAsBannedTokensDo) {
  constexpr std::size_t kV = 5000;
  const auto row = masked_row(kV, 100);
  const auto& clean = row.lowered;
  std::vector<float> masked_rows, clean_rows;
  for (int r = 0; r < 3; ++r) {
    masked_rows.insert(masked_rows.end(), row.logits.begin(), row.logits.end());
    clean_rows.insert(clean_rows.end(), clean.begin(), clean.end());
  }
  sl::SpeculativeWorkspace a, b;
  for (std::uint64_t step = 0; step < 40; ++step) {
    sl::SamplingOptions options;
    options.temperature = 0.8;
    options.step = step;
    sl::SamplingOptions banned = options;
    banned.banned_tokens = row.masked;
    // Drafts from q with the masks, as a draft model would give them.
    std::vector<std::int32_t> drafts;
    for (std::uint64_t i = 0; i < 2; ++i) {
      sl::SamplingOptions draft = banned;
      draft.stream = sl::draft_stream(0);
      draft.step = step + i;
      draft.generated_ids = drafts;
      drafts.push_back(sl::sample_token(clean, draft, a.draft));
    }
    const auto x = sl::speculative_verify({masked_rows, std::span(masked_rows).first(2 * kV), drafts, sl::draft_stream(0)}, options, a);
    const auto y = sl::speculative_verify({clean_rows, std::span(clean_rows).first(2 * kV), drafts, sl::draft_stream(0)}, banned, b);
    ASSERT_TRUE(std::holds_alternative<sl::SpeculativeResult>(x)) << std::get<sl::ArgumentError>(x).message;
    EXPECT_EQ(std::get<sl::SpeculativeResult>(x).tokens, std::get<sl::SpeculativeResult>(y).tokens);
  }
}

TEST(NegativeInfinity, BeamSearchNeverExtendsAMaskedToken) {
  std::vector<float> logits = {1.0f, kMinusInfinity, 3.0f, kMinusInfinity, 2.0f, 0.5f};
  for (const bool stochastic : {false, true}) {
    sl::BeamSearchOptions options;
    options.num_beams = 3;
    options.max_new_tokens = 3;
    options.stochastic = stochastic;
    auto search = std::get<sl::BeamSearch>(sl::BeamSearch::create(options));
    auto first = search.step(logits);
    ASSERT_TRUE(std::holds_alternative<sl::BeamStep>(first)) << std::get<sl::ArgumentError>(first).message;
    for (const auto token : std::get<sl::BeamStep>(first).tokens) EXPECT_TRUE(token != 1 && token != 3) << token;
    // Rows where one token is left: every beam takes it.
    std::vector<float> rows;
    for (int r = 0; r < 3; ++r) rows.insert(rows.end(), {kMinusInfinity, kMinusInfinity, kMinusInfinity, kMinusInfinity, 0.0f, kMinusInfinity});
    const auto second = search.step(rows);
    ASSERT_TRUE(std::holds_alternative<sl::BeamStep>(second)) << std::get<sl::ArgumentError>(second).message;
    for (const auto token : std::get<sl::BeamStep>(second).tokens) EXPECT_EQ(token, 4);
  }
}

// The logit of `token` after the penalties.
float penalised(const std::vector<float>& logits, sl::SamplingOptions options, std::int32_t token) {
  sl::PenaltyScratch scratch;
  std::vector<float> copy = logits;
  if (sl::stage_on(sl::Stage::kPenalties, options)) sl::apply_penalties(copy, options, scratch);
  return copy[std::size_t(token)];
}

TEST(PenaltyLastN, ZeroIsOffMinusOneIsTheWholeHistoryAsInLlamaCpp) {
  const std::vector<float> logits(10, 1.0f);
  const std::vector<std::int32_t> generated = {3, 3, 4};
  sl::SamplingOptions o;
  o.generated_ids = generated;
  o.presence_penalty = 0.5;
  o.frequency_penalty = 0.25;
  o.penalty_last_n = 0;
  EXPECT_FALSE(sl::stage_on(sl::Stage::kPenalties, o));
  EXPECT_EQ(penalised(logits, o, 3), 1.0f);
  o.penalty_last_n = -1;
  EXPECT_FLOAT_EQ(penalised(logits, o, 3), 1.0f - 0.5f - 0.5f);
  o.penalty_last_n = 1;  // only the last token, 4
  EXPECT_EQ(penalised(logits, o, 3), 1.0f);
  EXPECT_FLOAT_EQ(penalised(logits, o, 4), 1.0f - 0.75f);
  sl::SamplingOptions dry;
  dry.generated_ids = generated;
  dry.dry_multiplier = 0.8;
  dry.dry_penalty_last_n = 0;
  EXPECT_FALSE(sl::stage_on(sl::Stage::kDry, dry));
  dry.dry_penalty_last_n = -1;
  EXPECT_TRUE(sl::stage_on(sl::Stage::kDry, dry));
}

TEST(PromptIds, RepetitionSeesThePromptPresenceAndFrequencyOnlyTheOutputAsInVllm) {
  const std::vector<float> logits = {2.0f, 2.0f, -2.0f, 2.0f, 2.0f};
  const std::vector<std::int32_t> prompt = {0, 2, 2}, generated = {1, 1};
  sl::SamplingOptions o;
  o.prompt_ids = prompt;
  o.generated_ids = generated;
  o.repetition_penalty = 2.0;
  o.presence_penalty = 0.5;
  o.frequency_penalty = 0.25;
  EXPECT_FLOAT_EQ(penalised(logits, o, 0), 1.0f);                  // prompt: repetition only
  EXPECT_FLOAT_EQ(penalised(logits, o, 2), -4.0f);                 // a negative prompt logit is multiplied
  EXPECT_FLOAT_EQ(penalised(logits, o, 1), 1.0f - 0.5f - 0.5f);    // output: all three
  EXPECT_FLOAT_EQ(penalised(logits, o, 3), 2.0f);                  // neither
  // Without promptIds: today's behaviour, the prompt's tokens untouched.
  o.prompt_ids = {};
  EXPECT_FLOAT_EQ(penalised(logits, o, 0), 2.0f);
  // The prompt alone turns the penalties on (repetition only).
  sl::SamplingOptions prompt_only;
  prompt_only.prompt_ids = prompt;
  prompt_only.repetition_penalty = 2.0;
  EXPECT_TRUE(sl::stage_on(sl::Stage::kPenalties, prompt_only));
  EXPECT_FLOAT_EQ(penalised(logits, prompt_only, 0), 1.0f);
}

// Fuzz regression (tests/fuzz/regressions/fuzz_sampling/prompt-ids-read-again-on-the-gathered-input): the fast paths apply the
// penalties to their input once; promptIds then must not reach the input's options, where they
// penalised the prompt's tokens a second time and, on a gathered (masked) input, indexed past it.
TEST(PromptIds, TheFastPathsPenaliseThePromptOnce) {
  // Token 0 banned, so the fast path gathers tokens 1–4 and penalises token 3 there. Read again
  // as an index of the gathered four, id 3 would penalise token 4 as well, and token 3 would win.
  const std::vector<float> logits = {9.0f, 0.0f, 0.0f, 3.0f, 2.9f};
  const std::vector<std::int32_t> prompt = {3}, banned = {0};
  sl::SamplingOptions o;
  o.prompt_ids = prompt;
  o.banned_tokens = banned;
  o.repetition_penalty = 1.4;  // token 3: 3 / 1.4 = 2.14 < 2.9
  o.top_k = 1;
  sl::FilterWorkspace workspace;
  EXPECT_EQ(sl::sample_token(logits, o, workspace), 4);
}

// Tokens the chain keeps.
std::size_t kept(const std::vector<float>& logits, const sl::SamplingOptions& options) {
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  return sl::filter_distribution(logits, options, probs, workspace).kept;
}

std::vector<float> ramp(std::size_t length, float offset, float scale) {
  std::vector<float> logits(length);
  for (std::size_t i = 0; i < length; ++i) logits[i] = (float(i) + offset) * scale;
  return logits;
}

std::vector<float> log_of(std::vector<float> probs) {
  for (auto& p : probs) p = std::log(p);
  return probs;
}

// transformers' tests/generation/test_logits_process.py: the ramp −5 … 4 and the same × 100.
TEST(MinKeep, TransformersMinTokensToKeepCases) {
  const auto mild = ramp(10, -5, 1), extreme = ramp(10, -5, 100);
  const auto with = [](auto set) {
    sl::SamplingOptions o;
    o.min_keep = 2;
    set(o);
    return o;
  };
  const auto top_p = with([](auto& o) { o.top_p = 0.9; });
  EXPECT_EQ(kept(mild, top_p), 3u);
  EXPECT_EQ(kept(extreme, top_p), 2u);
  const auto min_p = with([](auto& o) { o.min_p = 0.9; });
  EXPECT_EQ(kept(mild, min_p), 2u);
  EXPECT_EQ(kept(extreme, min_p), 2u);
  const auto typical = with([](auto& o) { o.typical_p = 0.7; });
  EXPECT_EQ(kept(mild, typical), 2u);
  EXPECT_EQ(kept(extreme, typical), 2u);
  const auto epsilon = with([](auto& o) { o.epsilon_cutoff = 5e-2; });
  EXPECT_EQ(kept(mild, epsilon), 3u);
  EXPECT_EQ(kept(extreme, epsilon), 2u);
  const auto eta = with([](auto& o) { o.eta_cutoff = 0.1; });
  EXPECT_EQ(kept(mild, eta), 2u);
  EXPECT_EQ(kept(extreme, eta), 2u);
  // top_k 1 with min_tokens_to_keep 3 keeps 3 of a ramp.
  sl::SamplingOptions top_k;
  top_k.top_k = 1;
  top_k.min_keep = 3;
  EXPECT_EQ(kept(ramp(5, 0, 1), top_k), 3u);
  sl::SamplingOptions uniform_typical;
  uniform_typical.typical_p = 0.5;
  uniform_typical.min_keep = 3;
  // HF keeps every token tied with the last kept one (all 5 of a uniform row); here ties are
  // ranked by id, so exactly minKeep stay (docs/peers.md, "ties at a boundary").
  EXPECT_EQ(kept(std::vector<float>(5, 1.0f), uniform_typical), 3u);
  // The negative control: without minKeep the extreme ramp keeps one token.
  EXPECT_EQ(kept(extreme, with([](auto& o) { o.top_p = 0.9; o.min_keep = 1; })), 1u);
}

// llama.cpp's samplers (src/llama-sampling.cpp) with min_keep on tests/test-sampling.cpp's rows.
TEST(MinKeep, LlamaCppMinKeepCases) {
  const auto probs = log_of({0.1f, 0.2f, 0.3f, 0.4f});
  sl::SamplingOptions top_p;
  top_p.top_p = 0.3;
  top_p.min_keep = 3;
  EXPECT_EQ(kept(probs, top_p), 3u);
  sl::SamplingOptions min_p;
  min_p.min_p = 0.9;
  min_p.min_keep = 2;
  EXPECT_EQ(kept(probs, min_p), 2u);
  // XTC removes 0.4, 0.3 and 0.2 only when the one token left is at least min_keep.
  sl::SamplingOptions xtc;
  xtc.xtc_probability = 1;
  xtc.xtc_threshold = 0.09;
  EXPECT_EQ(kept(probs, xtc), 1u);
  xtc.min_keep = 2;
  EXPECT_EQ(kept(probs, xtc), 4u);
}

TEST(MinKeep, AtLeastMinKeepSurviveEveryTruncationOnVocabularySizedRows) {
  const auto logits = sl::synthetic_logits(151936, 2);
  for (auto [name, options] : cases()) {
    options.temperature = options.temperature == 0.0 ? 0.0 : 0.3;
    options.min_keep = 50;
    const std::size_t count = kept(logits, options);
    if (options.temperature == 0.0) {
      EXPECT_EQ(count, 1u) << name;  // greedy is not a truncation
    } else if (!options.adaptive_p_target) {
      EXPECT_GE(count, 50u) << name;
    }
  }
}

}  // namespace

}  // namespace peer_semantics_test
