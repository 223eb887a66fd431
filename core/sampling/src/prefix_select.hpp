#pragma once
// Prefixes of the ranking (key desc, index asc) -- the order a stable descending sort gives --
// without sorting the vocabulary: a histogram over key buckets, then an exact sort of the single
// bucket that holds the boundary (radix/bucket select, as in GPU top-k kernels).
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "sampling_lab/workspace.hpp"

namespace sampling_lab::detail {

// Buckets of the key histogram, and the interleaved copies a large one is counted into.
inline constexpr std::size_t kPrefixBuckets = 4096;
inline constexpr std::size_t kPrefixHistogramCopies = 4;

// Buckets per unit of key over [min, max]: in double and saturated at the largest float, since
// max − min can overflow float (logits saturated at ±FLT_MAX) or be tiny enough for its inverse
// to overflow; 0 when all keys are equal.
float bucket_scale(float max_key, float min_key, std::size_t buckets);

struct Prefix {
  std::size_t count;        // tokens in the prefix
  double mass;              // sum of their weights
  float last_key;           // key of the last token in the prefix
  std::size_t ties_at_key;  // tokens of the prefix whose key equals last_key
};

// Whether every partial sum mass_before + k·w (k <= members) of tokens of one weight w > 0 is
// exact: mass_before a whole multiple of w's last bit q and the total below 2^53 q, as when every
// token before weighs at least w.
bool exact_tied_sums(std::size_t members, double w, double mass_before);
// Then: how many of them a prefix takes after mass_before to reach target_mass (at least one; all
// of them if they fall short).
std::size_t tied_prefix_length(std::size_t members, double w, double mass_before, double target_mass);

// For a draw, which reads only the weights: the tokens outside the prefix weigh 0 where they are
// (no copy: the prefix holds every token above its last key and the first ties_at_key at it, in
// id order), and the weights are summed per block again; returns their sum.
double zero_outside(const Prefix& prefix, std::span<const float> keys, std::span<float> weights,
                    std::vector<double>& block_sums);

class PrefixSelector {
 public:
  // keys must be non-NaN with at least one finite value; weights (may be empty) must be >= 0.
  PrefixSelector(std::span<const float> keys, std::span<const float> weights, float max_key,
                 float min_key, PrefixScratch& scratch);

  Prefix first(std::size_t count);           // count in [1, V]
  Prefix reaching_mass(double target_mass);  // shortest prefix whose mass >= target

 private:
  Prefix resolve_in_bucket(std::size_t bucket, std::size_t count_before, double mass_before,
                           std::size_t wanted_count, double target_mass);
  std::optional<Prefix> resolve_tied(std::size_t count_before, double mass_before, std::size_t wanted_count,
                                     double target_mass);
  Prefix one_key_prefix(std::size_t count_before, double mass_before, std::size_t wanted_count, double target_mass);
  template <typename Position>
  Prefix tied_prefix(Position position, std::size_t members, float key, double weight, bool one_weight,
                     std::size_t count_before, double mass_before, std::size_t wanted_count, double target_mass) const;

  std::span<const float> keys_;
  std::span<const float> weights_;
  float max_key_;
  float scale_;
  PrefixScratch& scratch_;
};

// PrefixSelector(keys, weights, max_key, min_key).reaching_mass(fraction · total), total being Σ
// weights: placed from an evenly spaced sample where the mass below the cut is spread over many
// light tokens (most of a vocabulary's), else by the histogram. Same prefix either way.
Prefix prefix_reaching_fraction(std::span<const float> keys, std::span<const float> weights, float max_key, float min_key,
                                double fraction, double total, PrefixScratch& scratch);

}  // namespace sampling_lab::detail
