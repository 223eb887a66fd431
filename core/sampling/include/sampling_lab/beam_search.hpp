#pragma once
// Beam search over a model's next-token rows, one step per forward pass, with the semantics of
// Hugging Face transformers' BeamSearchScorer (length_penalty, end-of-sequence tokens,
// early_stopping, num_return_sequences); and stochastic beam search (Kool, van Hoof & Welling
// 2019, "Stochastic beams and where to find them: the Gumbel-top-k trick for sampling sequences
// without replacement"). Each step selects per row, then merges: nothing sorts a vocabulary.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

inline constexpr std::size_t kMaxBeams = 64;
inline constexpr std::size_t kMaxEosTokens = 64;
inline constexpr std::size_t kMaxNewTokens = std::size_t{1} << 16;
// lengthPenalty's range: length^penalty stays finite and non-zero for every length allowed.
inline constexpr double kMaxLengthPenalty = 10.0;

// As they arrive from JavaScript: numbers are checked by kind before any narrowing.
struct BeamSearchOptions {
  double num_beams = 1;
  std::optional<double> length_penalty;  // unset = 1; deterministic search only
  std::span<const std::int32_t> eos_token_ids;
  double num_return_sequences = 1;
  bool early_stopping = false;
  bool stochastic = false;
  double seed = 0;
  double stream = 0;
  double max_new_tokens = 0;
};

struct BeamStep {
  std::span<const std::int32_t> beam_indices;  // new beam j extends the beam of row beam_indices[j]
  std::span<const std::int32_t> tokens;        // with tokens[j]
  bool done;                                   // no further step: call finish()
};

struct Hypothesis {
  std::vector<std::int32_t> tokens;  // generated tokens, the end-of-sequence token that ended it included
  double log_prob;                   // Σ of each token's log-softmax in its row
  double score;                      // log_prob / length^lengthPenalty; stochastic: the perturbed log_prob
};

class BeamSearch {
 public:
  // Checks every option (numBeams ≤ kMaxBeams, numReturnSequences ≤ numBeams, at most
  // kMaxEosTokens end-of-sequence ids, maxNewTokens ≤ kMaxNewTokens, lengthPenalty in
  // [−10, 10] and not with stochastic, seeds and streams < 2^53).
  static std::variant<BeamSearch, ArgumentError> create(const BeamSearchOptions& options);

  // One step on the rows of logits the running beams gave: 1 row (the prompt's last position) at
  // the first step, numBeams after, each of the V logits of the first (V − the end-of-sequence
  // ids among them ≥ numBeams; rows × V ≤ kMaxVocabulary; finite or −∞, some finite).
  // Candidates score the beam's log-probability plus each token's log-softmax; per row the best
  // numBeams tokens that do not end a sequence and every end-of-sequence token are merged (ties to
  // the lower row, then the lower token), a −∞ logit being a masked token that is never a
  // candidate; walking them best first, an end-of-sequence token ranked within the first
  // numBeams becomes a finished hypothesis, scored log_prob / length^lengthPenalty with the
  // length counting it; the others become the next beams until numBeams are chosen. Done when
  // numBeams hypotheses are finished and either earlyStopping or the best candidate's
  // log_prob / steps^lengthPenalty is no better than the worst of them; or at maxNewTokens.
  // Stochastic: each candidate's key is its Gumbel-perturbed log-probability conditioned on its
  // parent's (the root's is 0), the Gumbel of token t in row r at step s (from 0) being −ln E
  // of word (64 s + r) · 2^24 + t of the Philox stream (seed, stream), E as the exponential race
  // draws it; keys replace every score above and lengthPenalty does not apply.
  std::variant<BeamStep, ArgumentError> step(std::span<const float> logits_rows);

  // After a step (also the last), the new beams at `ended` (distinct places in its beams) end there, as an
  // end-of-sequence token would have ended them (a stop string completed: the caller knows text,
  // the search only ids): each becomes a finished hypothesis of its length, and the step's next
  // unchosen candidates that do not end a sequence replace them (fewer beams when none is left).
  // Returns the step as it now stands, its beams ordered by their candidates' rank as a step's.
  std::variant<BeamStep, ArgumentError> finish_beams(std::span<const std::int32_t> ended);

  // The best numReturnSequences hypotheses, best first (ties: the later finished first), after
  // adding the running beams unless the hypotheses were complete. Needs one step at least.
  std::variant<std::vector<Hypothesis>, ArgumentError> finish() const;

  bool done() const { return done_; }
  std::size_t num_beams() const { return num_beams_; }

 private:
  struct Node {
    std::int32_t token;
    std::int32_t parent;  // −1: the first generated token
  };
  struct Beam {
    std::int32_t node;  // −1: the prompt, before the first step
    double log_prob;
    double perturbed;
  };
  struct Finished {
    std::int32_t node;
    std::int32_t eos;  // −1 for a running beam added at finish
    double log_prob;
    double score;
  };
  // transformers' BeamHypotheses: the best numBeams finished hypotheses and the worst score.
  struct Hypotheses {
    std::vector<Finished> entries;
    double worst = std::numeric_limits<double>::infinity();
    void add(const Finished& hypothesis, std::size_t capacity);
  };
  struct Candidate {
    double key;
    double log_prob;
    std::uint32_t row;
    std::int32_t token;
    bool eos;
  };

  BeamSearch() = default;
  // Best first: the larger key, ties to the lower row, then the lower token.
  static bool better(const Candidate& a, const Candidate& b);
  Check check_rows(std::span<const float> logits_rows) const;
  bool is_eos(std::uint32_t token) const;
  void add_row(std::size_t row, std::span<const float> logits);
  void add_perturbed_row(std::size_t row, std::span<const float> logits);
  double finished_score(double log_prob, double key, std::size_t length) const;
  // complete_ and done_ after the step's hypotheses changed.
  void settle();

  std::size_t num_beams_ = 1;
  std::size_t num_return_sequences_ = 1;
  std::size_t max_new_tokens_ = 1;
  double length_penalty_ = 1.0;
  std::vector<std::int32_t> eos_;  // ascending, distinct
  bool early_stopping_ = false;
  bool stochastic_ = false;
  std::uint64_t seed_ = 0;
  std::uint64_t stream_ = 0;
  std::size_t vocabulary_ = 0;
  std::size_t steps_ = 0;
  bool complete_ = false;  // numBeams hypotheses that no running beam can beat
  bool done_ = false;
  std::vector<Node> nodes_;
  std::vector<Beam> beams_;
  std::vector<Beam> parents_;      // the beams the last step extended
  std::size_t next_candidate_ = 0;  // the last step's first candidate not yet walked
  double best_key_ = 0.0;           // the last step's best candidate, for the done test
  double best_log_prob_ = 0.0;
  Hypotheses finished_;
  std::vector<std::int32_t> beam_indices_;
  std::vector<std::int32_t> tokens_;
  std::vector<Candidate> candidates_;
  std::vector<Candidate> row_candidates_;
  std::vector<RankedToken> top_;
  std::vector<float> weights_;
  std::vector<float> arrivals_;
  SamplerWorkspace noise_;
};

}  // namespace sampling_lab
