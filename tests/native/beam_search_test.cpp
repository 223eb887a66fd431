// Beam search (beam_search.hpp) against a plain reference written from transformers'
// BeamSearchScorer (every candidate of every row scored and fully sorted) on random small models,
// widths 1, 2 and 4 over 6 steps, with end-of-sequence tokens and length penalties; against
// exhaustive search where the beam holds every prefix; width 1 against greedy decoding; at
// vocabulary scale; and stochastic beam search's samples against the sequence distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "reference.hpp"
#include "sampling_lab/beam_search.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace beam_search_test {

namespace sl = sampling_lab;

namespace {

using Tokens = std::vector<std::int32_t>;

// A model: the next-token logits after a prefix, random but fixed per prefix; token 0 gets
// `bias` more.
class RandomModel {
 public:
  RandomModel(std::size_t vocabulary, std::uint64_t seed, double scale, float bias = 0.0f)
      : v_(vocabulary), seed_(seed), scale_(scale), bias_(bias) {}
  std::size_t vocabulary() const { return v_; }
  const std::vector<float>& operator()(const Tokens& prefix) {
    auto& row = rows_[prefix];
    if (row.empty()) {
      std::uint64_t key = 1469598103934665603ull;
      for (const auto token : prefix) key = (key ^ std::uint64_t(token + 1)) * 1099511628211ull;
      row = v_ == sl::kQwen3Vocabulary ? sl::synthetic_logits(v_, key % (1ull << 40))
                                       : reference::random_logits(v_, seed_ ^ key, scale_);
      row[0] += bias_;
    }
    return row;
  }

 private:
  std::size_t v_;
  std::uint64_t seed_;
  double scale_;
  float bias_;
  std::map<Tokens, std::vector<float>> rows_;
};

struct Settings {
  std::size_t beams;
  double length_penalty = 1.0;
  Tokens eos;
  std::size_t returned = 1;
  bool early_stopping = false;
  std::size_t max_new_tokens = 6;
  // A text condition the search cannot see (a stop string): a beam that meets it ends there.
  bool (*stops)(const Tokens&) = nullptr;
};

struct Outcome {
  std::vector<Tokens> beam_indices;  // per step
  std::vector<Tokens> tokens;
  std::vector<sl::Hypothesis> best;
};

// The core's search driven step by step, each beam's prefix kept from beam indices and tokens.
Outcome run_core(RandomModel& model, const Settings& settings, bool stochastic = false, std::uint64_t seed = 0) {
  sl::BeamSearchOptions options;
  options.num_beams = double(settings.beams);
  if (!stochastic) options.length_penalty = settings.length_penalty;
  options.eos_token_ids = settings.eos;
  options.num_return_sequences = double(settings.returned);
  options.early_stopping = settings.early_stopping;
  options.stochastic = stochastic;
  options.seed = double(seed);
  options.max_new_tokens = double(settings.max_new_tokens);
  auto created = sl::BeamSearch::create(options);
  EXPECT_TRUE(std::holds_alternative<sl::BeamSearch>(created));
  auto& search = std::get<sl::BeamSearch>(created);
  std::vector<Tokens> prefixes = {{}};
  Outcome outcome;
  for (bool done = false; !done;) {
    std::vector<float> rows;
    for (const auto& prefix : prefixes) {
      const auto& row = model(prefix);
      rows.insert(rows.end(), row.begin(), row.end());
    }
    auto stepped = search.step(rows);
    EXPECT_TRUE(std::holds_alternative<sl::BeamStep>(stepped));
    std::vector<Tokens> next;
    // The beams that meet the condition end, and their replacements are checked in turn.
    for (;;) {
      const auto& step = std::get<sl::BeamStep>(stepped);
      next.clear();
      Tokens ended;
      for (std::size_t j = 0; j < step.tokens.size(); ++j) {
        next.push_back(prefixes[std::size_t(step.beam_indices[j])]);
        next.back().push_back(step.tokens[j]);
        if (settings.stops && settings.stops(next.back())) ended.push_back(std::int32_t(j));
      }
      if (ended.empty()) break;
      stepped = search.finish_beams(ended);
      EXPECT_TRUE(std::holds_alternative<sl::BeamStep>(stepped));
    }
    const auto& step = std::get<sl::BeamStep>(stepped);
    outcome.beam_indices.emplace_back(step.beam_indices.begin(), step.beam_indices.end());
    outcome.tokens.emplace_back(step.tokens.begin(), step.tokens.end());
    prefixes = std::move(next);
    done = step.done;
  }
  outcome.best = std::get<std::vector<sl::Hypothesis>>(search.finish());
  return outcome;
}

// transformers' BeamSearchScorer, plainly: every (beam, token) scored in double and sorted.
Outcome run_reference(RandomModel& model, const Settings& s) {
  struct Beam {
    Tokens tokens;
    double log_prob;
  };
  struct Finished {
    double score;
    Tokens tokens;
    double log_prob;
  };
  std::vector<Beam> beams = {{{}, 0.0}};
  std::vector<Finished> finished;  // in the order added
  double worst = INFINITY;
  const auto add = [&](Finished hypothesis) {
    if (finished.size() >= s.beams && !(hypothesis.score > worst)) return;
    finished.push_back(std::move(hypothesis));
    if (finished.size() <= s.beams) {
      worst = std::min(worst, finished.back().score);
      return;
    }
    std::vector<std::pair<double, std::size_t>> sorted;
    for (std::size_t i = 0; i < finished.size(); ++i) sorted.push_back({finished[i].score, i});
    std::sort(sorted.begin(), sorted.end());
    finished.erase(finished.begin() + std::ptrdiff_t(sorted[0].second));
    worst = sorted[1].first;
  };
  const auto is_eos = [&](std::int32_t t) { return std::find(s.eos.begin(), s.eos.end(), t) != s.eos.end(); };
  const auto length_score = [&](double log_prob, std::size_t length) { return log_prob / std::pow(double(length), s.length_penalty); };
  Outcome outcome;
  bool complete = false;
  for (std::size_t step = 1; step <= s.max_new_tokens && !complete; ++step) {
    struct Candidate {
      double score;
      std::size_t row;
      std::int32_t token;
    };
    std::vector<Candidate> candidates;
    for (std::size_t r = 0; r < beams.size(); ++r) {
      const auto& logits = model(beams[r].tokens);
      const double max = *std::max_element(logits.begin(), logits.end());
      double total = 0.0;
      for (const float z : logits) total += std::exp(z - max);
      for (std::size_t t = 0; t < logits.size(); ++t) {
        candidates.push_back({beams[r].log_prob + (logits[t] - max - std::log(total)), r, std::int32_t(t)});
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    // transformers walks a bounded list of candidates: here each row's best numBeams tokens that
    // do not end a sequence, with every end-of-sequence token (ranks below numBeams are the same
    // as in the whole list).
    std::vector<std::size_t> taken(beams.size(), 0);
    std::erase_if(candidates, [&](const Candidate& c) { return !is_eos(c.token) && taken[c.row]++ >= s.beams; });
    std::vector<Beam> next;
    Tokens indices, tokens;
    for (std::size_t rank = 0; rank < candidates.size() && next.size() < s.beams; ++rank) {
      const auto& c = candidates[rank];
      Tokens sequence = beams[c.row].tokens;
      sequence.push_back(c.token);
      if (is_eos(c.token)) {
        if (rank < s.beams) add({length_score(c.score, step), sequence, c.score});
        continue;
      }
      if (s.stops && s.stops(sequence)) {
        add({length_score(c.score, step), sequence, c.score});
        continue;
      }
      next.push_back({sequence, c.score});
      indices.push_back(std::int32_t(c.row));
      tokens.push_back(c.token);
    }
    beams = std::move(next);
    outcome.beam_indices.push_back(indices);
    outcome.tokens.push_back(tokens);
    complete = finished.size() >= s.beams && (s.early_stopping || worst >= length_score(candidates[0].score, step));
  }
  if (!complete) {
    for (const auto& beam : beams) add({length_score(beam.log_prob, beam.tokens.size()), beam.tokens, beam.log_prob});
  }
  std::stable_sort(finished.begin(), finished.end(), [](const Finished& a, const Finished& b) { return a.score < b.score; });
  for (std::size_t k = 0; k < s.returned; ++k) {
    const auto& h = finished[finished.size() - 1 - k];
    outcome.best.push_back({h.tokens, h.log_prob, h.score});
  }
  return outcome;
}

void expect_same(const Outcome& core, const Outcome& reference, const std::string& label) {
  EXPECT_EQ(core.beam_indices, reference.beam_indices) << label;
  EXPECT_EQ(core.tokens, reference.tokens) << label;
  ASSERT_EQ(core.best.size(), reference.best.size()) << label;
  for (std::size_t k = 0; k < core.best.size(); ++k) {
    EXPECT_EQ(core.best[k].tokens, reference.best[k].tokens) << label << ", hypothesis " << k;
    EXPECT_NEAR(core.best[k].log_prob, reference.best[k].log_prob, 1e-5) << label << ", hypothesis " << k;
    EXPECT_NEAR(core.best[k].score, reference.best[k].score, 1e-5) << label << ", hypothesis " << k;
  }
}

struct Case {
  const char* name;
  Settings settings;
};

// Widths 1, 2, 4 with each way a search can end.
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const std::size_t b : {1, 2, 4}) {
    all.push_back({"no end-of-sequence", {b, 1.0, {}, b}});
    all.push_back({"end-of-sequence 0", {b, 1.0, {0}, b}});
    all.push_back({"length penalty 0", {b, 0.0, {0}, 1}});
    all.push_back({"length penalty 2", {b, 2.0, {0}, b}});
    all.push_back({"length penalty -1", {b, -1.0, {0}, 1}});
    all.push_back({"early stopping", {b, 1.0, {0}, b, true}});
    all.push_back({"two end-of-sequence ids", {b, 1.0, {3, 0}, b}});
  }
  return all;
}

// How many runs stopped before maxNewTokens, and how many returned an ended sequence: the
// comparisons below cover both.
struct Coverage {
  int stopped_early = 0;
  int returned_ended = 0;
  void count(const Outcome& outcome, const Settings& settings) {
    stopped_early += outcome.tokens.size() < settings.max_new_tokens;
    for (const auto& hypothesis : outcome.best) {
      const bool ended = std::find(settings.eos.begin(), settings.eos.end(), hypothesis.tokens.back()) != settings.eos.end();
      returned_ended += ended && hypothesis.tokens.size() < settings.max_new_tokens;
    }
  }
};

TEST(BeamSearch, EqualsTheReferenceOnRandomModels) {
  Coverage coverage;
  for (const auto& [name, settings] : cases()) {
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      RandomModel model(6, seed, 2.0);
      const std::string label = std::string(name) + ", width " + std::to_string(settings.beams) + ", seed " + std::to_string(seed);
      const auto core = run_core(model, settings);
      expect_same(core, run_reference(model, settings), label);
      coverage.count(core, settings);
    }
  }
  EXPECT_GT(coverage.stopped_early, 20);
  EXPECT_GT(coverage.returned_ended, 20);
}

// An end-of-sequence token that is often the best makes hypotheses finish at every step.
TEST(BeamSearch, EqualsTheReferenceWhenSequencesEndEarly) {
  Coverage coverage;
  for (const std::size_t b : {1, 2, 4}) {
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      RandomModel model(6, 100 + seed, 1.0, 1.5);
      const Settings settings{b, 1.0, {0}, b};
      const auto core = run_core(model, settings);
      expect_same(core, run_reference(model, settings), "width " + std::to_string(b) + ", seed " + std::to_string(seed));
      coverage.count(core, settings);
    }
  }
  EXPECT_GT(coverage.stopped_early, 10);
  EXPECT_GT(coverage.returned_ended, 10);
}

// With as many beams as tokens the beam holds every 1-token prefix, so its best of 2 tokens are
// the most probable of all V² sequences.
TEST(BeamSearch, AWideEnoughBeamIsExhaustive) {
  for (const std::size_t v : {8, 64}) {
    RandomModel model(v, 200 + v, 1.5);
    const auto log_softmax = [&](const Tokens& prefix, std::int32_t token) {
      const auto& z = model(prefix);
      const double max = *std::max_element(z.begin(), z.end());
      double total = 0.0;
      for (const float x : z) total += std::exp(x - max);
      return z[std::size_t(token)] - max - std::log(total);
    };
    std::vector<std::pair<double, Tokens>> all;
    for (std::int32_t a = 0; a < std::int32_t(v); ++a) {
      for (std::int32_t b = 0; b < std::int32_t(v); ++b) all.push_back({log_softmax({}, a) + log_softmax({a}, b), {a, b}});
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    const auto outcome = run_core(model, {v, 1.0, {}, v, false, 2});
    for (std::size_t k = 0; k < v; ++k) {
      EXPECT_EQ(outcome.best[k].tokens, all[k].second) << v << " tokens, rank " << k;
      EXPECT_NEAR(outcome.best[k].log_prob, all[k].first, 1e-5);
    }
  }
}

// A beam whose text completes a stop string ends where it is, as at an end-of-sequence token,
// and the step's next candidates fill its place: the reference ends such candidates as it walks.
TEST(BeamSearch, BeamsEndedByTheCallerEqualTheReferenceThatEndsThemInItsWalk) {
  const auto stops = [](const Tokens& t) { return t.back() == 4 || (t.size() >= 2 && t[t.size() - 2] == 1 && t.back() == 2); };
  int ended = 0;
  for (const std::size_t b : {1, 2, 4}) {
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      RandomModel model(6, 500 + seed, 1.5);
      for (const bool early : {false, true}) {
        const Settings settings{b, 1.0, {0}, b, early, 6, +stops};
        const auto core = run_core(model, settings);
        expect_same(core, run_reference(model, settings), "width " + std::to_string(b) + ", seed " + std::to_string(seed));
        for (const auto& hypothesis : core.best) ended += stops(hypothesis.tokens);
      }
    }
  }
  EXPECT_GT(ended, 20);
  // Negative control: the same searches without ending those beams differ.
  RandomModel model(6, 500, 1.5);
  EXPECT_NE(run_core(model, {4, 1.0, {0}, 4}).tokens, run_core(model, {4, 1.0, {0}, 4, false, 6, +stops}).tokens);
}

TEST(BeamSearch, WidthOneIsGreedy) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    RandomModel model(6, 300 + seed, 2.0);
    Tokens greedy;
    while (greedy.size() < 6) {
      const auto& z = model(greedy);
      greedy.push_back(std::int32_t(std::max_element(z.begin(), z.end()) - z.begin()));
      if (greedy.back() == 0) break;
    }
    EXPECT_EQ(run_core(model, {1, 1.0, {0}, 1}).best.front().tokens, greedy) << "seed " << seed;
  }
}

TEST(BeamSearch, EqualsTheReferenceAtVocabularyScale) {
  RandomModel model(sl::kQwen3Vocabulary, 0, 0.0);
  const Settings settings{4, 1.0, {1499}, 2, false, 3};
  expect_same(run_core(model, settings), run_reference(model, settings), "151,936 tokens");
}

// Every sequence of the model up to `depth` tokens or an end-of-sequence token, with its
// probability.
std::map<Tokens, double> sequences(RandomModel& model, std::size_t depth, std::int32_t eos) {
  std::map<Tokens, double> all;
  std::vector<std::pair<Tokens, double>> open = {{{}, 1.0}};
  while (!open.empty()) {
    auto [prefix, prob] = open.back();
    open.pop_back();
    if (prefix.size() == depth || (!prefix.empty() && prefix.back() == eos)) {
      all[prefix] = prob;
      continue;
    }
    const auto& z = model(prefix);
    const double max = *std::max_element(z.begin(), z.end());
    double total = 0.0;
    for (const float x : z) total += std::exp(x - max);
    for (std::size_t t = 0; t < z.size(); ++t) {
      Tokens next = prefix;
      next.push_back(std::int32_t(t));
      open.push_back({next, prob * std::exp(z[t] - max) / total});
    }
  }
  return all;
}

// Stochastic beam search with one beam samples a sequence from the model (Gumbel-max at every
// step); with several beams (no end-of-sequence token) the best of them is a sample too and they
// are distinct (Gumbel-top-k samples without replacement). χ² over every sequence, p > 1e-4 each.
TEST(StochasticBeamSearch, SamplesFollowTheSequenceDistribution) {
  struct Sampled {
    std::size_t beams;
    std::int32_t eos;
    std::size_t depth;
  };
  for (const auto [beams, eos, depth] : {Sampled{1, 0, 3}, Sampled{3, -1, 3}}) {
    RandomModel model(3, 400, 1.0);
    const auto all = sequences(model, depth, eos);
    std::map<Tokens, std::uint64_t> observed;
    const Settings settings{beams, 1.0, eos >= 0 ? Tokens{eos} : Tokens{}, beams, false, depth};
    for (std::uint64_t seed = 0; seed < 20'000; ++seed) {
      const auto outcome = run_core(model, settings, true, seed);
      ++observed[outcome.best.front().tokens];
      for (std::size_t k = 1; k < outcome.best.size(); ++k) {
        EXPECT_NE(outcome.best[k].tokens, outcome.best[k - 1].tokens);
        EXPECT_LE(outcome.best[k].score, outcome.best[k - 1].score);
      }
    }
    std::vector<std::uint64_t> counts;
    std::vector<float> probs;
    for (const auto& [tokens, prob] : all) {
      counts.push_back(observed[tokens]);
      probs.push_back(float(prob));
    }
    EXPECT_EQ(observed.size(), all.size()) << "a sampled sequence the model cannot produce";
    const auto fit = sl::chi_square(counts, probs);
    RecordProperty("chi_square_p_" + std::to_string(beams) + "_beams", std::to_string(fit.p_value));
    EXPECT_GT(fit.p_value, 1e-4) << beams << " beams: χ² " << fit.statistic << " on " << fit.dof << " dof";
  }
}

// The pruned race finds the same candidates as every token's Gumbel computed plainly from its
// Philox words (64-bit uniforms), at vocabulary scale.
TEST(StochasticBeamSearch, PrunedNoiseMatchesEveryTokensGumbel) {
  RandomModel model(sl::kQwen3Vocabulary, 0, 0.0);
  const std::size_t beams = 4;
  const std::uint64_t seed = 77;
  const auto outcome = run_core(model, {beams, 1.0, {}, 1, false, 3}, true, seed);
  struct Beam {
    Tokens tokens;
    double log_prob;
    double perturbed;
  };
  std::vector<Beam> running = {{{}, 0.0, 0.0}};
  for (std::size_t step = 0; step < 3; ++step) {
    struct Candidate {
      double key;
      std::size_t row;
      std::int32_t token;
      double log_prob;
    };
    std::vector<Candidate> candidates;
    for (std::size_t r = 0; r < running.size(); ++r) {
      const auto& z = model(running[r].tokens);
      const double max = *std::max_element(z.begin(), z.end());
      double total = 0.0;
      for (const float x : z) total += std::exp(x - max);
      const std::uint64_t first = (64 * step + r) << 24;
      std::vector<Candidate> row;
      double max_child = -INFINITY;
      for (std::size_t t = 0; t < z.size(); ++t) {
        const auto word = [&](std::uint64_t stream) {
          sl::Philox rng(seed, stream);
          rng.seek_word(first + t);
          return rng.next_u32();
        };
        const double e = sl::exponential_from(word(0), word(sl::kExtensionStream));
        const double log_prob = running[r].log_prob + (z[t] - max - std::log(total));
        row.push_back({log_prob - std::log(e), r, std::int32_t(t), log_prob});
        max_child = std::max(max_child, row.back().key);
      }
      std::partial_sort(row.begin(), row.begin() + beams, row.end(), [](const Candidate& a, const Candidate& b) { return a.key > b.key; });
      for (std::size_t k = 0; k < beams; ++k) {
        // −log(e^−G − e^−Z + e^−g), Kool et al. 2019 eq. 23, directly (these are all moderate).
        const double g = row[k].key;
        row[k].key = -std::log(std::exp(-running[r].perturbed) - std::exp(-max_child) + std::exp(-g));
        candidates.push_back(row[k]);
      }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.key > b.key; });
    std::vector<Beam> next;
    Tokens indices, tokens;
    for (std::size_t j = 0; j < beams; ++j) {
      const auto& c = candidates[j];
      next.push_back({running[c.row].tokens, c.log_prob, c.key});
      next.back().tokens.push_back(c.token);
      indices.push_back(std::int32_t(c.row));
      tokens.push_back(c.token);
    }
    running = std::move(next);
    EXPECT_EQ(outcome.beam_indices[step], indices) << "step " << step;
    EXPECT_EQ(outcome.tokens[step], tokens) << "step " << step;
  }
  EXPECT_NEAR(outcome.best.front().score, running.front().perturbed, 1e-4);
}

// Logits 200 below the largest weigh 0 in float: their clocks still rank them, and every beam
// is filled (a fuzz input once left fewer candidates than beams).
TEST(StochasticBeamSearch, UnderflowedWeightsStillFillEveryBeam) {
  sl::BeamSearchOptions options;
  options.num_beams = 3;
  options.stochastic = true;
  options.max_new_tokens = 1;
  const std::vector<float> row = {0, 200, 0, 0, 0};
  std::map<std::int32_t, int> second;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    options.seed = double(seed);
    auto search = std::get<sl::BeamSearch>(sl::BeamSearch::create(options));
    const auto step = std::get<sl::BeamStep>(search.step(row));
    ASSERT_EQ(step.tokens.size(), 3u);
    EXPECT_EQ(step.tokens[0], 1);
    EXPECT_NE(step.tokens[1], step.tokens[2]);
    ++second[step.tokens[1]];
  }
  EXPECT_EQ(second.size(), 4u);  // the Gumbels decide among the four equal tokens
}

TEST(StochasticBeamSearch, TheSameKeyGivesTheSameSequences) {
  RandomModel model(50, 500, 2.0);
  const Settings settings{4, 1.0, {0}, 4};
  const auto a = run_core(model, settings, true, 9);
  const auto b = run_core(model, settings, true, 9);
  const auto c = run_core(model, settings, true, 10);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_NE(a.tokens, c.tokens);
}

TEST(BeamSearch, BadInputNamesTheArgument) {
  const auto create_error = [](auto change) {
    sl::BeamSearchOptions options;
    options.num_beams = 2;
    options.max_new_tokens = 4;
    change(options);
    const auto created = sl::BeamSearch::create(options);
    return std::holds_alternative<sl::ArgumentError>(created) ? std::get<sl::ArgumentError>(created).argument : "(no error)";
  };
  const Tokens many(65, 1), negative = {-1}, two = {0, 1};
  EXPECT_EQ(create_error([](auto&) {}), "(no error)");
  EXPECT_EQ(create_error([](auto& o) { o.num_beams = 0; }), "numBeams");
  EXPECT_EQ(create_error([](auto& o) { o.num_beams = 65; }), "numBeams");
  EXPECT_EQ(create_error([](auto& o) { o.num_beams = 1.5; }), "numBeams");
  EXPECT_EQ(create_error([](auto& o) { o.num_beams = NAN; }), "numBeams");
  EXPECT_EQ(create_error([](auto& o) { o.num_return_sequences = 3; }), "numReturnSequences");
  EXPECT_EQ(create_error([](auto& o) { o.max_new_tokens = 0; }), "maxNewTokens");
  EXPECT_EQ(create_error([](auto& o) { o.max_new_tokens = 65537; }), "maxNewTokens");
  EXPECT_EQ(create_error([](auto& o) { o.length_penalty = 11; }), "lengthPenalty");
  EXPECT_EQ(create_error([](auto& o) { o.length_penalty = NAN; }), "lengthPenalty");
  EXPECT_EQ(create_error([](auto& o) {
              o.length_penalty = 1;
              o.stochastic = true;
            }),
            "lengthPenalty");
  EXPECT_EQ(create_error([](auto& o) { o.seed = -1; }), "seed");
  EXPECT_EQ(create_error([](auto& o) { o.stream = 0x1p53; }), "stream");
  EXPECT_EQ(create_error([&](auto& o) { o.eos_token_ids = many; }), "eosTokenIds");
  EXPECT_EQ(create_error([&](auto& o) { o.eos_token_ids = negative; }), "eosTokenIds");

  sl::BeamSearchOptions options;
  options.num_beams = 2;
  options.max_new_tokens = 2;
  options.eos_token_ids = two;
  const auto step_error = [&](std::vector<std::vector<float>> steps) {
    auto search = std::get<sl::BeamSearch>(sl::BeamSearch::create(options));
    for (const auto& rows : steps) {
      const auto stepped = search.step(rows);
      if (const auto* error = std::get_if<sl::ArgumentError>(&stepped)) return error->argument;
    }
    return std::string("(no error)");
  };
  const std::vector<float> four = {1, 2, 3, 4};
  std::vector<float> eight = four;
  eight.insert(eight.end(), four.begin(), four.end());
  EXPECT_EQ(step_error({four, eight}), "(no error)");
  EXPECT_EQ(step_error({{5}}), "eosTokenIds");              // id 1 is outside a row of 1 token
  EXPECT_EQ(step_error({{1, 2, 3}}), "logitsRows");         // one token left that does not end a sequence
  EXPECT_EQ(step_error({{}}), "logitsRows");
  EXPECT_EQ(step_error({four, four}), "logitsRows");        // two beams need two rows
  EXPECT_EQ(step_error({{1, NAN, 3, 4}}), "logitsRows");
  EXPECT_EQ(step_error({four, eight, eight}), "search");    // done after maxNewTokens
  const auto search = std::get<sl::BeamSearch>(sl::BeamSearch::create(options));
  EXPECT_EQ(std::get<sl::ArgumentError>(search.finish()).argument, "search");
  auto ending = std::get<sl::BeamSearch>(sl::BeamSearch::create(options));
  const Tokens first = {0}, twice = {1, 1}, outside = {2};
  EXPECT_EQ(std::get<sl::ArgumentError>(ending.finish_beams(first)).argument, "beams");  // before a step
  ASSERT_TRUE(std::holds_alternative<sl::BeamStep>(ending.step(four)));
  EXPECT_EQ(std::get<sl::ArgumentError>(ending.finish_beams(twice)).argument, "beams");
  EXPECT_EQ(std::get<sl::ArgumentError>(ending.finish_beams(outside)).argument, "beams");
  EXPECT_EQ(std::get<sl::ArgumentError>(ending.finish_beams(negative)).argument, "beams");
}

}  // namespace

}  // namespace beam_search_test
