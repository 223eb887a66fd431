#pragma once
// Options, the chain's distribution, and its comparison with the float64 reference (chain_reference.hpp).
#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "chain_reference.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/samplers.hpp"

namespace chain_match {

// Default options with some fields set, written in place: with([](auto& o) { o.top_k = 50; }).
inline sampling_lab::SamplingOptions with(const std::function<void(sampling_lab::SamplingOptions&)>& set) {
  sampling_lab::SamplingOptions options;
  set(options);
  return options;
}

inline std::vector<float> distribution(std::span<const float> logits, const sampling_lab::SamplingOptions& options) {
  sampling_lab::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  sampling_lab::filter_distribution(logits, options, probs, workspace);
  return probs;
}

// The same kept set as the reference (up to one token at a boundary within float rounding) and
// the probabilities within `tolerance` (relative).
inline void expect_matches_reference(std::span<const float> logits, const sampling_lab::SamplingOptions& options,
                                     const std::string& what, double tolerance = 2e-6) {
  const auto probs = distribution(logits, options);
  const auto expected = reference::chain(logits, options, sampling_lab::token_uniforms(options).xtc);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) differing += (probs[i] > 0) != bool(expected.kept[i]);
  if (differing > 0) {
    EXPECT_TRUE(expected.near_boundary) << what << ": " << differing << " tokens differ away from any boundary";
    EXPECT_LE(differing, 1u) << what;
    return;
  }
  for (std::size_t i = 0; i < logits.size(); ++i) {
    ASSERT_NEAR(probs[i], expected.probs[i], tolerance * expected.probs[i] + 1e-12) << what << " token " << i;
  }
}

}  // namespace chain_match
