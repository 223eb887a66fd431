#pragma once
// Sequence probability under a small autoregressive model, and the decoders that search it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling_lab/rng.hpp"

namespace sampling_lab {

// Next-token distributions for every prefix shorter than depth() (a complete V-ary tree).
class SequenceModel {
 public:
  // `distributions` holds one distribution of `vocabulary` probabilities per tree node, nodes in
  // breadth-first order: the root, then the V children of the root, and so on.
  SequenceModel(std::size_t vocabulary, std::size_t depth, std::vector<float> distributions);

  // Random distributions softmax(sharpness · N(0, 1)) at every node.
  static SequenceModel random(std::size_t vocabulary, std::size_t depth, double sharpness,
                              Philox& rng);

  std::size_t vocabulary() const { return vocabulary_; }
  std::size_t depth() const { return depth_; }
  std::span<const float> next(std::span<const std::int32_t> prefix) const;
  // The distribution at a node (breadth-first index); node n's children are n·V + 1 … n·V + V.
  std::span<const float> at(std::size_t node) const;

 private:
  std::size_t vocabulary_;
  std::size_t depth_;
  std::vector<float> distributions_;
};

// Nodes of a complete V-ary tree of the given depth (the prefixes shorter than depth).
std::size_t tree_nodes(std::size_t vocabulary, std::size_t depth);

struct Path {
  std::vector<std::int32_t> tokens;
  double log_prob;  // chain rule, summed in log space
};

double log_probability(const SequenceModel& model, std::span<const std::int32_t> tokens);

Path greedy(const SequenceModel& model);                  // argmax at every step
Path exhaustive_best(const SequenceModel& model);         // all V^depth sequences, depth first
// One step of beam search: every expansion of the beam, best first, each kept or pruned.
struct BeamCandidate {
  std::vector<std::int32_t> tokens;
  double log_prob;
  bool kept;
};
using BeamFrontier = std::vector<BeamCandidate>;

// Best first; with `trace`, each step's frontier is appended to it.
std::vector<Path> beam_search(const SequenceModel& model, std::size_t width, std::vector<BeamFrontier>* trace = nullptr);
Path ancestral_sample(const SequenceModel& model, Philox& rng);
// The leaf an ancestral sample reaches, numbered 0 … V^depth − 1 in lexicographic order.
std::size_t ancestral_leaf(const SequenceModel& model, Philox& rng);

// k sequences sampled without replacement: top-down Gumbel perturbation of every prefix,
// conditioned on its parent's maximum (stochastic beam search, Kool et al. 2019). Best first.
std::vector<Path> gumbel_top_k(const SequenceModel& model, std::size_t k, Philox& rng);

}  // namespace sampling_lab
