#include "sampling_lab/sequence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

namespace {
constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

double log_of(float p) { return p > 0.0f ? std::log(double(p)) : kNegativeInfinity; }

// log(1 − exp(a)) for a <= 0, accurate near 0 and near −inf (Mächler 2012).
double log1mexp(double a) {
  return a > -std::numbers::ln2 ? std::log(-std::expm1(a)) : std::log1p(-std::exp(a));
}
}  // namespace

std::size_t tree_nodes(std::size_t vocabulary, std::size_t depth) {
  std::size_t nodes = 0;
  std::size_t level = 1;
  for (std::size_t d = 0; d < depth; ++d) {
    nodes += level;
    level *= vocabulary;
  }
  return nodes;
}

SequenceModel::SequenceModel(std::size_t vocabulary, std::size_t depth,
                             std::vector<float> distributions)
    : vocabulary_(vocabulary), depth_(depth), distributions_(std::move(distributions)) {}

SequenceModel SequenceModel::random(std::size_t vocabulary, std::size_t depth, double sharpness,
                                    Philox& rng) {
  const std::size_t nodes = tree_nodes(vocabulary, depth);
  std::vector<float> distributions(nodes * vocabulary);
  std::vector<float> logits(vocabulary);
  for (std::size_t node = 0; node < nodes; ++node) {
    for (float& z : logits) z = float(sharpness * rng.normal());
    softmax(logits, 1.0, std::span(distributions).subspan(node * vocabulary, vocabulary));
  }
  return SequenceModel(vocabulary, depth, std::move(distributions));
}

// Breadth-first numbering: the children of node n are n·V + 1 … n·V + V.
std::span<const float> SequenceModel::next(std::span<const std::int32_t> prefix) const {
  std::size_t node = 0;
  for (const auto token : prefix) node = node * vocabulary_ + std::size_t(token) + 1;
  return at(node);
}

std::span<const float> SequenceModel::at(std::size_t node) const {
  return std::span(distributions_).subspan(node * vocabulary_, vocabulary_);
}

double log_probability(const SequenceModel& model, std::span<const std::int32_t> tokens) {
  double log_prob = 0.0;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    log_prob += log_of(model.next(tokens.first(t))[std::size_t(tokens[t])]);
  }
  return log_prob;
}

Path greedy(const SequenceModel& model) {
  Path path{{}, 0.0};
  for (std::size_t t = 0; t < model.depth(); ++t) {
    const auto next = model.next(path.tokens);
    const auto token = std::int32_t(argmax(next));
    path.log_prob += log_of(next[std::size_t(token)]);
    path.tokens.push_back(token);
  }
  return path;
}

Path exhaustive_best(const SequenceModel& model) {
  // Depth first over every sequence in lexicographic order, keeping the first best: no sort and
  // no allocation per leaf.
  const std::size_t v = model.vocabulary();
  Path best{{}, kNegativeInfinity};
  std::vector<std::int32_t> tokens(model.depth());
  const auto visit = [&](auto&& self, std::size_t node, std::size_t t, double log_prob) -> void {
    if (t == model.depth()) {
      if (log_prob > best.log_prob || best.tokens.empty()) best = {tokens, log_prob};
      return;
    }
    const auto next = model.at(node);
    for (std::size_t token = 0; token < v; ++token) {
      tokens[t] = std::int32_t(token);
      self(self, node * v + token + 1, t + 1, log_prob + log_of(next[token]));
    }
  };
  visit(visit, 0, 0, 0.0);
  return best;
}

namespace {
// A beam of beam_search: (node, log-probability, its entry on the previous level). Paths are read
// back through these links at the end, so a step copies no token lists.
struct BeamLink {
  std::size_t node;
  double log_prob;
  std::size_t parent;
  std::int32_t token;
};

// The tokens of beam `at` on level `level` (level 0 is the empty root).
std::vector<std::int32_t> tokens_of(const std::vector<std::vector<BeamLink>>& levels, std::size_t level, std::size_t at) {
  std::vector<std::int32_t> tokens(level);
  for (std::size_t t = level; t > 0; --t) {
    tokens[t - 1] = levels[t][at].token;
    at = levels[t][at].parent;
  }
  return tokens;
}
}  // namespace

std::vector<Path> beam_search(const SequenceModel& model, std::size_t width, std::vector<BeamFrontier>* trace) {
  const std::size_t v = model.vocabulary();
  std::vector<std::vector<BeamLink>> levels = {{{0, 0.0, 0, 0}}};
  for (std::size_t t = 0; t < model.depth(); ++t) {
    std::vector<BeamLink> expanded;
    const auto& beams = levels.back();
    expanded.reserve(beams.size() * v);
    for (std::size_t b = 0; b < beams.size(); ++b) {
      const auto next = model.at(beams[b].node);
      for (std::size_t token = 0; token < v; ++token) {
        expanded.push_back({beams[b].node * v + token + 1, beams[b].log_prob + log_of(next[token]), b, std::int32_t(token)});
      }
    }
    // The best `width`, equal scores in expansion order (a stable choice), without sorting the rest.
    std::vector<std::size_t> order(expanded.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto before = [&](std::size_t a, std::size_t b) {
      return expanded[a].log_prob > expanded[b].log_prob || (expanded[a].log_prob == expanded[b].log_prob && a < b);
    };
    const std::size_t kept = std::min(width, order.size());
    // A trace ranks every candidate, the pruned too.
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(trace ? order.size() : kept), order.end(), before);
    std::vector<BeamLink> chosen(kept);
    for (std::size_t i = 0; i < kept; ++i) chosen[i] = expanded[order[i]];
    if (trace) {
      BeamFrontier frontier;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const BeamLink& candidate = expanded[order[i]];
        auto tokens = tokens_of(levels, levels.size() - 1, candidate.parent);
        tokens.push_back(candidate.token);
        frontier.push_back({std::move(tokens), candidate.log_prob, i < kept});
      }
      trace->push_back(std::move(frontier));
    }
    levels.push_back(std::move(chosen));
  }
  std::vector<Path> paths;
  for (std::size_t b = 0; b < levels.back().size(); ++b) {
    paths.push_back({tokens_of(levels, model.depth(), b), levels.back()[b].log_prob});
  }
  return paths;
}

std::size_t ancestral_leaf(const SequenceModel& model, Philox& rng) {
  const std::size_t v = model.vocabulary();
  std::size_t node = 0, leaf = 0;
  for (std::size_t t = 0; t < model.depth(); ++t) {
    const auto next = model.at(node);
    double total = 0.0;
    for (const float p : next) total += p;
    const std::size_t token = kernels::inverse_cdf(next, rng.uniform() * total);
    node = node * v + token + 1;
    leaf = leaf * v + token;
  }
  return leaf;
}

Path ancestral_sample(const SequenceModel& model, Philox& rng) {
  Path path{{}, 0.0};
  for (std::size_t t = 0; t < model.depth(); ++t) {
    const auto next = model.next(path.tokens);
    double total = 0.0;
    for (const float p : next) total += p;
    const std::size_t token = kernels::inverse_cdf(next, rng.uniform() * total);
    path.log_prob += log_of(next[token]);
    path.tokens.push_back(std::int32_t(token));
  }
  return path;
}

std::vector<Path> gumbel_top_k(const SequenceModel& model, std::size_t k, Philox& rng) {
  struct Beam {
    Path path;
    double perturbed;  // G_φ: the maximum Gumbel-perturbed log-probability in its subtree
  };
  std::vector<Beam> beams = {{{{}, 0.0}, 0.0}};  // the root's perturbation is 0 (Gumbel(0) conditioned)
  for (std::size_t t = 0; t < model.depth(); ++t) {
    std::vector<Beam> expanded;
    for (const auto& beam : beams) {
      const auto next = model.next(beam.path.tokens);
      const std::size_t first_child = expanded.size();
      double children_max = kNegativeInfinity;
      for (std::size_t token = 0; token < next.size(); ++token) {
        if (next[token] == 0.0f) continue;
        Beam child{beam.path, 0.0};
        child.path.tokens.push_back(std::int32_t(token));
        child.path.log_prob += log_of(next[token]);
        child.perturbed = child.path.log_prob + rng.gumbel();
        children_max = std::max(children_max, child.perturbed);
        expanded.push_back(std::move(child));
      }
      // Shift the children so their maximum equals the parent's (Kool et al. 2019, eq. 23-24).
      for (std::size_t i = first_child; i < expanded.size(); ++i) {
        const double g = expanded[i].perturbed;
        const double v = beam.perturbed - g + log1mexp(g - children_max);
        expanded[i].perturbed = beam.perturbed - std::max(v, 0.0) - std::log1p(std::exp(-std::abs(v)));
      }
    }
    std::stable_sort(expanded.begin(), expanded.end(),
                     [](const Beam& a, const Beam& b) { return a.perturbed > b.perturbed; });
    expanded.resize(std::min(k, expanded.size()));
    beams = std::move(expanded);
  }
  std::vector<Path> result;
  for (auto& beam : beams) result.push_back(std::move(beam.path));
  return result;
}

}  // namespace sampling_lab
