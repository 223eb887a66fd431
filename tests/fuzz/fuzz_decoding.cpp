// Speculative verification and beam search on outside data: raw rows (NaN and ±∞ included),
// draft tokens, option values and sizes go through the checks; whatever passes must give tokens
// in range, the accepted drafts first, acceptances in [0, 1]; drafts drawn as the draft would
// draw them are always verifiable; beam steps extend existing rows with tokens that do not end a
// sequence, and finish() returns at most numReturnSequences hypotheses, best first.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_options.hpp"
#include "sampling_lab/beam_search.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative_decoding.hpp"

namespace sl = sampling_lab;

namespace {

// Logits from the input: for one input in four raw floats (NaN and ±∞ included), else finite
// values of moderate size.
class Logits {
 public:
  explicit Logits(FuzzInput& input) : input_(input), raw_(input.read<std::uint8_t>() % 4 == 0) {}
  void fill(std::vector<float>& logits) {
    for (float& z : logits) z = raw_ ? input_.read<float>() : float(input_.read<std::int8_t>()) / 8.0f;
  }

 private:
  FuzzInput& input_;
  bool raw_;
};

void speculative(FuzzInput& input) {
  const std::size_t vocabulary = 1 + input.read<std::uint16_t>() % 1024;
  const std::size_t gamma = input.read<std::uint8_t>() % 70;  // past kMaxDraftTokens sometimes
  // Half the inputs carry every option raw (mostly refused by the checks), half a few common ones.
  const FuzzOptions fuzzed(input, vocabulary);
  std::vector<std::int32_t> history(input.read<std::uint8_t>() % 16);
  for (auto& id : history) id = input.read<std::int32_t>() % std::int32_t(vocabulary + 2);
  sl::SamplingOptions options;
  const bool raw = input.read<std::uint8_t>() % 2;
  if (raw) {
    auto parsed = sl::options_from_raw(fuzzed.raw());
    if (std::holds_alternative<sl::ArgumentError>(parsed)) return;
    options = std::get<sl::SamplingOptions>(parsed);
  } else {
    options.temperature = double(input.read<std::uint8_t>() % 8) / 4.0;
    options.top_k = input.read<std::uint8_t>() % 8;
    options.top_p = 1.0 - double(input.read<std::uint8_t>() % 4) / 8.0;
    options.min_p = double(input.read<std::uint8_t>() % 4) / 16.0;
    options.repetition_penalty = 1.0 + double(input.read<std::uint8_t>() % 4) / 4.0;
    options.typical_p = input.read<std::uint8_t>() % 4 == 0 ? 0.9 : 1.0;
    options.seed = input.read<std::uint16_t>();
    options.stream = input.read<std::uint16_t>();
    options.step = input.read<std::uint16_t>();
    options.generated_ids = history;
  }
  if (sl::check_options(options, vocabulary)) return;
  // Read before the rows, which may run past the input's end (reading zeros).
  const bool point = input.read<std::uint8_t>() % 4 == 0;  // prompt lookup's drafts: no draft rows
  const bool drawn = !point && input.read<std::uint8_t>() % 2;
  const std::uint64_t draft_stream = input.read<std::uint64_t>() % (std::uint64_t{1} << 53);
  // Several drafts verified together, now and then more than kMaxDrafts.
  const std::size_t k = input.read<std::uint8_t>() % 8 == 0 ? input.read<std::uint8_t>() % 20 : 1 + input.read<std::uint8_t>() % 3;
  const std::size_t drafts = std::max<std::size_t>(k, 1);
  std::vector<float> target(drafts * (gamma + 1) * vocabulary), draft(point ? 0 : drafts * gamma * vocabulary);
  Logits logits(input);
  logits.fill(target);
  logits.fill(draft);
  std::vector<std::int32_t> tokens(drafts * gamma);
  sl::SpeculativeWorkspace workspace;
  const bool rows_fine = gamma <= sl::kMaxDraftTokens && !sl::check_logits(target, "targetRows") &&
                         (draft.empty() || !sl::check_logits(draft, "draftRows"));
  const bool verifiable_k = k >= 1 && k <= sl::kMaxDrafts;
  if (drawn && rows_fine && options.mirostat_version == 0) {
    // As draft j samples them: on its stream, each seeing the drafts before it.
    for (std::size_t j = 0; j < drafts; ++j) {
      std::vector<std::int32_t> context(options.generated_ids.begin(), options.generated_ids.end());
      for (std::size_t i = 0; i < gamma; ++i) {
        sl::SamplingOptions at = options;
        at.stream = sl::nth_draft_stream(draft_stream, j);
        at.step = options.step + i;
        at.generated_ids = context;
        tokens[j * gamma + i] = sl::sample_token(std::span(draft).subspan((j * gamma + i) * vocabulary, vocabulary), at, workspace.draft);
        context.push_back(tokens[j * gamma + i]);
      }
    }
  } else {
    for (auto& token : tokens) token = input.read<std::int32_t>() % std::int32_t(vocabulary + 2);
  }
  const auto verified = sl::speculative_verify({target, draft, tokens, draft_stream, point, k}, options, workspace);
  // Point drafts in range on finite rows, with the common options (no bans), are always verifiable.
  const bool in_range = std::all_of(tokens.begin(), tokens.end(), [&](std::int32_t t) { return t >= 0 && std::size_t(t) < vocabulary; });
  if (point && !raw && rows_fine && in_range && verifiable_k) {
    FUZZ_EXPECT(std::holds_alternative<sl::SpeculativeResult>(verified));
  }
  if (drawn && rows_fine && options.mirostat_version == 0 && verifiable_k) FUZZ_EXPECT(std::holds_alternative<sl::SpeculativeResult>(verified));
  if (!verifiable_k) FUZZ_EXPECT(!std::holds_alternative<sl::SpeculativeResult>(verified));
  if (!std::holds_alternative<sl::SpeculativeResult>(verified)) return;
  const auto& result = std::get<sl::SpeculativeResult>(verified);
  FUZZ_EXPECT(result.accepted <= gamma && result.tokens.size() == result.accepted + 1);
  FUZZ_EXPECT(result.token >= 0 && std::size_t(result.token) < vocabulary && result.tokens.back() == result.token);
  FUZZ_EXPECT(result.draft < k);
  for (std::size_t i = 0; i < result.accepted; ++i) FUZZ_EXPECT(result.tokens[i] == tokens[result.draft * gamma + i]);
  // A trial or more per position checked: exactly one with one draft.
  const std::size_t checked = std::min(result.accepted + 1, gamma);
  FUZZ_EXPECT(k == 1 ? result.acceptance.size() == checked : result.acceptance.size() >= checked && result.acceptance.size() <= checked * k);
  for (const double a : result.acceptance) FUZZ_EXPECT(a >= 0.0 && a <= 1.0);
  FUZZ_EXPECT(result.from_residual == (result.accepted < gamma));
}

void beam_search(FuzzInput& input) {
  sl::BeamSearchOptions options;
  const auto number = [&](double small) { return input.read<std::uint8_t>() % 4 == 0 ? input.read<double>() : small; };
  options.num_beams = number(1 + input.read<std::uint8_t>() % 8);
  options.num_return_sequences = number(1 + input.read<std::uint8_t>() % 8);
  options.max_new_tokens = number(1 + input.read<std::uint8_t>() % 8);
  if (input.read<std::uint8_t>() % 2) options.length_penalty = number(double(input.read<std::int8_t>()) / 16.0);
  options.early_stopping = input.read<std::uint8_t>() % 2;
  options.stochastic = input.read<std::uint8_t>() % 2;
  options.seed = number(input.read<std::uint16_t>());
  options.stream = number(input.read<std::uint16_t>());
  std::vector<std::int32_t> eos(input.read<std::uint8_t>() % 4);
  for (auto& id : eos) id = input.read<std::int32_t>() % 40;
  options.eos_token_ids = eos;
  auto created = sl::BeamSearch::create(options);
  if (!std::holds_alternative<sl::BeamSearch>(created)) return;
  auto& search = std::get<sl::BeamSearch>(created);
  const std::size_t vocabulary = 1 + input.read<std::uint8_t>() % 40;
  std::size_t rows = 1, steps = 0;
  Logits logits(input);
  while (input.remaining() > 0 && !search.done()) {
    std::vector<float> row_logits(rows * vocabulary);
    logits.fill(row_logits);
    const auto stepped = search.step(row_logits);
    if (!std::holds_alternative<sl::BeamStep>(stepped)) return;
    const auto& step = std::get<sl::BeamStep>(stepped);
    // Fewer beams than numBeams when the rows' −∞ masks leave fewer candidates.
    FUZZ_EXPECT(step.beam_indices.size() == step.tokens.size() && step.tokens.size() <= search.num_beams());
    for (std::size_t j = 0; j < step.tokens.size(); ++j) {
      FUZZ_EXPECT(step.beam_indices[j] >= 0 && std::size_t(step.beam_indices[j]) < rows);
      FUZZ_EXPECT(step.tokens[j] >= 0 && std::size_t(step.tokens[j]) < vocabulary);
      for (const auto id : eos) FUZZ_EXPECT(step.tokens[j] != id);
    }
    rows = step.tokens.size();
    ++steps;
  }
  const auto finished = search.finish();
  FUZZ_EXPECT(std::holds_alternative<std::vector<sl::Hypothesis>>(finished) == (steps > 0));
  if (steps == 0) return;
  const auto& best = std::get<std::vector<sl::Hypothesis>>(finished);
  FUZZ_EXPECT(!best.empty() && best.size() <= std::size_t(options.num_return_sequences));
  for (std::size_t k = 0; k < best.size(); ++k) {
    FUZZ_EXPECT(!best[k].tokens.empty() && best[k].tokens.size() <= steps);
    FUZZ_EXPECT(std::isfinite(best[k].log_prob) && best[k].log_prob <= 1e-3);
    FUZZ_EXPECT(!std::isnan(best[k].score) && (k == 0 || best[k].score <= best[k - 1].score));
  }
}

// Prompt lookup on outside token ids: the proposal is what followed an earlier occurrence of the
// context's last `ngram` tokens, within the sizes asked for.
void prompt_lookup(FuzzInput& input) {
  const std::size_t ngram_min = 1 + input.read<std::uint8_t>() % 8, ngram_max = ngram_min + input.read<std::uint8_t>() % 8;
  const std::size_t max_tokens = 1 + input.read<std::uint8_t>() % 8;
  std::vector<std::int32_t> context(input.read<std::uint16_t>() % 2048);
  const auto alphabet = std::int32_t(1 + input.read<std::uint8_t>() % 6);
  for (auto& id : context) id = input.read<std::int32_t>() % alphabet;
  const std::size_t drafts = 1 + input.read<std::uint8_t>() % sl::kMaxDrafts;
  sl::PromptLookup found;
  sl::prompt_lookup(context, ngram_max, ngram_min, max_tokens, found, drafts);
  FUZZ_EXPECT(found.matches.size() <= drafts);
  for (std::size_t m = 0; m < found.matches.size(); ++m) {
    const auto& match = found.matches[m];
    FUZZ_EXPECT(match.ngram >= ngram_min && match.ngram <= ngram_max && match.count > 0 && match.count <= max_tokens);
    // What followed the occurrence at `at`, which equals the context's last `ngram` tokens.
    FUZZ_EXPECT(match.from == match.at + match.ngram && match.from + match.count <= context.size() && match.from < context.size());
    FUZZ_EXPECT(std::equal(context.end() - std::ptrdiff_t(match.ngram), context.end(), context.begin() + std::ptrdiff_t(match.at)));
    // Ranked: n never grows; no proposal repeats an earlier one.
    if (m > 0) FUZZ_EXPECT(match.ngram <= found.matches[m - 1].ngram);
    for (std::size_t e = 0; e < m; ++e) {
      const auto& seen = found.matches[e];
      FUZZ_EXPECT(seen.count != match.count || !std::equal(context.begin() + std::ptrdiff_t(seen.from), context.begin() + std::ptrdiff_t(seen.from + seen.count),
                                                          context.begin() + std::ptrdiff_t(match.from)));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  switch (input.read<std::uint8_t>() % 3) {
    case 0: speculative(input); break;
    case 1: beam_search(input); break;
    default: prompt_lookup(input);
  }
  return 0;
}
