#include "sampling_lab/beam_search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/values.hpp"
#include "clocks.hpp"
#include "power.hpp"
#include "selection.hpp"

namespace sampling_lab {

namespace {

// Row r of step s draws its Gumbels from word (kMaxBeams · s + r) · kRowWords on.
constexpr std::uint64_t kRowWords = std::uint64_t{1} << 24;
static_assert(kRowWords >= kMaxVocabulary);
constexpr std::size_t kNoiseChunk = 4096;

// log(1 − exp(a)) for a <= 0, accurate near 0 and near −∞ (Mächler 2012).
double log1mexp(double a) { return a > -std::numbers::ln2 ? std::log(-std::expm1(a)) : std::log1p(-std::exp(a)); }

// Kool et al. 2019, eq. 23: a child's perturbed log-probability g shifted so that the largest
// of its siblings, max_child, becomes its parent's: −log(e^−parent − e^−max_child + e^−g), stably.
double conditioned(double parent, double max_child, double g) {
  const double v = parent - g + log1mexp(g - max_child);
  return parent - std::max(v, 0.0) - std::log1p(std::exp(-std::abs(v)));
}

Check check_count(double value, const char* name, double max) {
  return check_scalar(value, Kind::kInteger, closed(1, max), name);
}

}  // namespace

bool BeamSearch::better(const Candidate& a, const Candidate& b) {
  if (a.key != b.key) return a.key > b.key;
  return a.row != b.row ? a.row < b.row : a.token < b.token;
}

void BeamSearch::Hypotheses::add(const Finished& hypothesis, std::size_t capacity) {
  if (entries.size() >= capacity && !(hypothesis.score > worst)) return;
  entries.push_back(hypothesis);
  if (entries.size() <= capacity) {
    worst = std::min(worst, hypothesis.score);
    return;
  }
  // Drop the worst (ties: the earliest added); the next worst becomes the bound.
  std::size_t drop = 0;
  for (std::size_t i = 1; i < entries.size(); ++i) drop = entries[i].score < entries[drop].score ? i : drop;
  entries.erase(entries.begin() + std::ptrdiff_t(drop));
  worst = kInfinity;
  for (const auto& entry : entries) worst = std::min(worst, entry.score);
}

std::variant<BeamSearch, ArgumentError> BeamSearch::create(const BeamSearchOptions& options) {
  if (auto error = check_count(options.num_beams, "numBeams", double(kMaxBeams))) return *error;
  if (auto error = check_count(options.num_return_sequences, "numReturnSequences", options.num_beams)) return *error;
  if (auto error = check_count(options.max_new_tokens, "maxNewTokens", double(kMaxNewTokens))) return *error;
  if (options.length_penalty) {
    if (options.stochastic) {
      return ArgumentError{"lengthPenalty", "lengthPenalty applies to deterministic beam search; stochastic beam search "
                                            "ranks by the perturbed log-probability"};
    }
    if (auto error = check_scalar(*options.length_penalty, Kind::kNumber, closed(-kMaxLengthPenalty, kMaxLengthPenalty),
                                  "lengthPenalty")) {
      return *error;
    }
  }
  for (const auto& [value, name] : {std::pair{options.seed, "seed"}, std::pair{options.stream, "stream"}}) {
    if (auto error = check_scalar(value, Kind::kSeed, closed(0, kMaxSeed), name)) return *error;
  }
  if (auto error = check_length(double(options.eos_token_ids.size()), "eosTokenIds", double(kMaxEosTokens))) return *error;
  for (std::size_t i = 0; i < options.eos_token_ids.size(); ++i) {
    const std::int32_t id = options.eos_token_ids[i];
    if (id < 0 || std::size_t(id) >= kMaxVocabulary) {
      return ArgumentError{"eosTokenIds", "eosTokenIds[" + std::to_string(i) + "] is " + std::to_string(id) +
                                              ", not a token id"};
    }
  }
  BeamSearch search;
  search.num_beams_ = std::size_t(options.num_beams);
  search.num_return_sequences_ = std::size_t(options.num_return_sequences);
  search.max_new_tokens_ = std::size_t(options.max_new_tokens);
  search.length_penalty_ = options.length_penalty.value_or(1.0);
  search.eos_.assign(options.eos_token_ids.begin(), options.eos_token_ids.end());
  std::sort(search.eos_.begin(), search.eos_.end());
  search.eos_.erase(std::unique(search.eos_.begin(), search.eos_.end()), search.eos_.end());
  search.early_stopping_ = options.early_stopping;
  search.stochastic_ = options.stochastic;
  search.seed_ = std::uint64_t(options.seed);
  search.stream_ = std::uint64_t(options.stream);
  search.beams_ = {{-1, 0.0, 0.0}};
  return search;
}

bool BeamSearch::is_eos(std::uint32_t token) const {
  return std::binary_search(eos_.begin(), eos_.end(), std::int32_t(token));
}

Check BeamSearch::check_rows(std::span<const float> logits_rows) const {
  if (done_) return ArgumentError{"search", "the search is done; call finish()"};
  if (auto error = check_length(double(logits_rows.size()), "logitsRows")) return error;
  const std::size_t rows = beams_.size();
  const std::size_t vocabulary = steps_ == 0 ? logits_rows.size() : vocabulary_;
  if (steps_ == 0) {
    if (logits_rows.empty()) return ArgumentError{"logitsRows", "logitsRows must not be empty"};
    const auto in_vocabulary = std::size_t(std::lower_bound(eos_.begin(), eos_.end(), std::int32_t(logits_rows.size())) - eos_.begin());
    if (in_vocabulary < eos_.size()) {
      return ArgumentError{"eosTokenIds", "eosTokenIds holds " + std::to_string(eos_.back()) + ", outside the " +
                                              std::to_string(logits_rows.size()) + " logits of the first row"};
    }
    // Later steps take numBeams rows of this length: refused now rather than at the second step.
    if (double(num_beams_) * double(logits_rows.size()) > double(kMaxVocabulary)) {
      return ArgumentError{"logitsRows", "numBeams = " + std::to_string(num_beams_) + " rows of " + std::to_string(logits_rows.size()) +
                                             " logits are more than " + std::to_string(kMaxVocabulary) + " in all"};
    }
    if (logits_rows.size() - eos_.size() < num_beams_) {
      return ArgumentError{"logitsRows", "the first row has " + std::to_string(logits_rows.size() - eos_.size()) +
                                             " tokens that do not end a sequence, fewer than numBeams = " +
                                             std::to_string(num_beams_)};
    }
  } else if (logits_rows.size() != rows * vocabulary) {
    return ArgumentError{"logitsRows", "logitsRows must hold numBeams = " + std::to_string(rows) + " rows of " +
                                           std::to_string(vocabulary) + " logits, not " +
                                           std::to_string(logits_rows.size()) + " logits"};
  }
  for (std::size_t r = 0; r < rows; ++r) {
    if (auto error = check_maskable_logits(logits_rows.subspan(r * vocabulary, vocabulary), "logitsRows")) {
      return ArgumentError{"logitsRows", "row " + std::to_string(r) + ": " + error->message};
    }
  }
  return std::nullopt;
}

// The row's best numBeams tokens that do not end a sequence (a heap over the row), and every
// end-of-sequence token.
void BeamSearch::add_row(std::size_t row, std::span<const float> logits) {
  const double log_total = log_sum_exp(logits, 1.0);
  const double base = beams_[row].log_prob;
  // A −∞ logit is a masked token: never a candidate.
  const auto add = [&](std::int32_t token, bool eos) {
    if (logits[std::size_t(token)] == -kInfinity) return false;
    const double log_prob = base + (double(logits[std::size_t(token)]) - log_total);
    candidates_.push_back({log_prob, log_prob, std::uint32_t(row), token, eos});
    return true;
  };
  detail::best_ranked(logits, std::min(logits.size(), num_beams_ + eos_.size()), top_);
  std::size_t taken = 0;
  for (const auto& token : top_) {
    if (taken == num_beams_) break;
    if (is_eos(token.id)) continue;
    taken += add(std::int32_t(token.id), false);
  }
  for (const auto eos : eos_) add(eos, true);
}

// The same with Gumbel-perturbed keys (Gumbel-top-k): the exponential race's clocks E_t over
// weights w_t = e^(z_t − max), the best keys being the earliest arrivals E_t / w_t. The heaviest
// tokens' arrivals bound the numBeams-th earliest, and only the tokens whose bound E ≥ 1 − U
// leaves them a chance get a clock (kernels::race_candidates), as in the samplers.
void BeamSearch::add_perturbed_row(std::size_t row, std::span<const float> logits) {
  const std::size_t v = logits.size();
  const float max = kernels::min_max(logits).max;
  weights_.resize(v);
  const double log_total = max + std::log(kernels::exp_shifted(logits, max, 1.0f, weights_));
  const Beam& parent = beams_[row];
  const std::uint64_t first_word = (std::uint64_t(kMaxBeams) * steps_ + row) * kRowWords;
  Philox rng(seed_, stream_);
  detail::Clocks clocks(rng, noise_);
  const auto clock = [&](std::uint32_t token) {
    const std::uint32_t word = clocks.word(first_word + token);
    return clocks.of(std::span(&word, 1), first_word + token)[0];
  };
  // g = the perturbed log-probability, log_prob + Gumbel with Gumbel = −ln E.
  const auto perturbed = [&](std::uint32_t token, float e) {
    const double log_prob = parent.log_prob + (double(logits[token]) - log_total);
    return Candidate{log_prob - std::log(double(e)), log_prob, std::uint32_t(row), std::int32_t(token), is_eos(token)};
  };
  detail::best_ranked(logits, std::min(v, num_beams_ + eos_.size()), top_);
  auto& arrivals = arrivals_;
  arrivals.clear();
  for (const auto& token : top_) {
    if (!is_eos(token.id)) arrivals.push_back(clock(token.id) / weights_[token.id]);
  }
  std::nth_element(arrivals.begin(), arrivals.begin() + std::ptrdiff_t(num_beams_ - 1), arrivals.end());
  // The bound's float rounding is far below this margin.
  const float bound = arrivals[num_beams_ - 1] * (1.0f + 1e-5f);
  auto& words = noise_.words;
  auto& positions = noise_.candidates;
  auto& gathered = noise_.gathered;
  // Every token that is not an end-of-sequence token and whose clock can beat `bound`, or every
  // such token.
  const auto gather = [&](bool every_token) {
    row_candidates_.clear();
    rng.seek(first_word / 4);
    for (std::size_t first = 0; first < v; first += kNoiseChunk) {
      const std::size_t length = std::min(kNoiseChunk, v - first);
      words.resize(length);
      rng.fill(words);
      positions.clear();
      if (every_token) {
        for (std::uint32_t j = 0; j < length; ++j) positions.push_back(j);
      } else {
        kernels::race_candidates(words, std::span(weights_).subspan(first, length), bound, positions);
      }
      gathered.resize(positions.size());
      for (std::size_t c = 0; c < positions.size(); ++c) gathered[c] = words[positions[c]];
      const auto e = clocks.of(gathered, first_word + first, positions);
      for (std::size_t c = 0; c < positions.size(); ++c) {
        const auto token = std::uint32_t(first + positions[c]);
        if (!is_eos(token) && logits[token] != -kInfinity) row_candidates_.push_back(perturbed(token, e[c]));
      }
    }
  };
  gather(false);
  // Weights that underflowed to 0 (logits more than 87 below the largest) can leave fewer
  // candidates than beams: then every token's clock decides.
  if (row_candidates_.size() < num_beams_) gather(true);
  // Fewer than numBeams when the row masks most tokens with −∞.
  const std::size_t keep = std::min(num_beams_, row_candidates_.size());
  std::partial_sort(row_candidates_.begin(), row_candidates_.begin() + std::ptrdiff_t(keep), row_candidates_.end(), better);
  row_candidates_.resize(keep);
  for (const auto eos : eos_) {
    if (logits[std::size_t(eos)] != -kInfinity) row_candidates_.push_back(perturbed(std::uint32_t(eos), clock(std::uint32_t(eos))));
  }
  double max_child = -kInfinity;
  for (const auto& candidate : row_candidates_) max_child = std::max(max_child, candidate.key);
  for (auto& candidate : row_candidates_) {
    candidate.key = conditioned(parent.perturbed, max_child, candidate.key);
    candidates_.push_back(candidate);
  }
}

double BeamSearch::finished_score(double log_prob, double key, std::size_t length) const {
  return stochastic_ ? key : log_prob / detail::power(double(length), length_penalty_);
}

std::variant<BeamStep, ArgumentError> BeamSearch::step(std::span<const float> logits_rows) {
  if (auto error = check_rows(logits_rows)) return *error;
  if (steps_ == 0) vocabulary_ = logits_rows.size();
  candidates_.clear();
  for (std::size_t r = 0; r < beams_.size(); ++r) {
    const auto row = logits_rows.subspan(r * vocabulary_, vocabulary_);
    if (stochastic_) {
      add_perturbed_row(r, row);
    } else {
      add_row(r, row);
    }
  }
  std::sort(candidates_.begin(), candidates_.end(), better);
  parents_ = std::move(beams_);
  beams_.clear();
  beam_indices_.clear();
  tokens_.clear();
  std::size_t rank = 0;
  for (; rank < candidates_.size() && beams_.size() < num_beams_; ++rank) {
    const Candidate& candidate = candidates_[rank];
    const Beam& parent = parents_[candidate.row];
    if (candidate.eos) {
      if (rank < num_beams_) {
        finished_.add({parent.node, candidate.token, candidate.log_prob,
                       finished_score(candidate.log_prob, candidate.key, steps_ + 1)},
                      num_beams_);
      }
      continue;
    }
    nodes_.push_back({candidate.token, parent.node});
    beams_.push_back({std::int32_t(nodes_.size() - 1), candidate.log_prob, candidate.key});
    beam_indices_.push_back(std::int32_t(candidate.row));
    tokens_.push_back(candidate.token);
  }
  next_candidate_ = rank;
  best_key_ = candidates_.front().key;
  best_log_prob_ = candidates_.front().log_prob;
  ++steps_;
  settle();
  return BeamStep{beam_indices_, tokens_, done_};
}

void BeamSearch::settle() {
  // transformers' BeamHypotheses.is_done with the best candidate of this step.
  const double best = finished_score(best_log_prob_, best_key_, steps_);
  // No beam left (the rows' −∞ masks left only end-of-sequence tokens) ends the search too.
  complete_ = beams_.empty() || (finished_.entries.size() >= num_beams_ && (early_stopping_ || finished_.worst >= best));
  done_ = complete_ || steps_ == max_new_tokens_;
}

std::variant<BeamStep, ArgumentError> BeamSearch::finish_beams(std::span<const std::int32_t> ended) {
  if (steps_ == 0) return ArgumentError{"beams", "beams end after a step"};
  std::array<bool, kMaxBeams> ends{};
  for (const auto j : ended) {
    if (j < 0 || std::size_t(j) >= beams_.size() || ends[std::size_t(j)]) {
      return ArgumentError{"beams", "beams must be distinct places among the last step's beams"};
    }
    ends[std::size_t(j)] = true;
  }
  // The beams left keep their order; every replacement ranks below them (it comes from past the
  // walk) and below the replacements before it: the step's order, best first, holds.
  std::size_t kept = 0;
  std::size_t ended_count = 0;
  for (std::size_t j = 0; j < beams_.size(); ++j) {
    if (ends[j]) {
      finished_.add({beams_[j].node, -1, beams_[j].log_prob, finished_score(beams_[j].log_prob, beams_[j].perturbed, steps_)}, num_beams_);
      ++ended_count;
      continue;
    }
    beams_[kept] = beams_[j];
    beam_indices_[kept] = beam_indices_[j];
    tokens_[kept] = tokens_[j];
    ++kept;
  }
  beams_.resize(kept);
  beam_indices_.resize(kept);
  tokens_.resize(kept);
  for (; ended_count > 0; --ended_count) {
    // The end-of-sequence candidates past the first numBeams stay unused, as in the step.
    while (next_candidate_ < candidates_.size() && candidates_[next_candidate_].eos) ++next_candidate_;
    if (next_candidate_ == candidates_.size()) break;
    const Candidate& candidate = candidates_[next_candidate_++];
    nodes_.push_back({candidate.token, parents_[candidate.row].node});
    beams_.push_back({std::int32_t(nodes_.size() - 1), candidate.log_prob, candidate.key});
    beam_indices_.push_back(std::int32_t(candidate.row));
    tokens_.push_back(candidate.token);
  }
  settle();
  return BeamStep{beam_indices_, tokens_, done_};
}

std::variant<std::vector<Hypothesis>, ArgumentError> BeamSearch::finish() const {
  if (steps_ == 0) return ArgumentError{"search", "finish() needs at least one step"};
  Hypotheses all = finished_;
  if (!complete_) {
    for (const auto& beam : beams_) {
      all.add({beam.node, -1, beam.log_prob, finished_score(beam.log_prob, beam.perturbed, steps_)}, num_beams_);
    }
  }
  // transformers sorts them ascending (stably) and pops from the end: among equal scores the
  // later one comes first.
  std::vector<std::size_t> order(all.entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return all.entries[a].score != all.entries[b].score ? all.entries[a].score > all.entries[b].score : a > b;
  });
  std::vector<Hypothesis> best;
  for (std::size_t k = 0; k < std::min(num_return_sequences_, order.size()); ++k) {
    const Finished& entry = all.entries[order[k]];
    Hypothesis hypothesis{{}, entry.log_prob, entry.score};
    for (std::int32_t node = entry.node; node >= 0; node = nodes_[std::size_t(node)].parent) {
      hypothesis.tokens.push_back(nodes_[std::size_t(node)].token);
    }
    std::reverse(hypothesis.tokens.begin(), hypothesis.tokens.end());
    if (entry.eos >= 0) hypothesis.tokens.push_back(entry.eos);
    best.push_back(std::move(hypothesis));
  }
  return best;
}

}  // namespace sampling_lab
