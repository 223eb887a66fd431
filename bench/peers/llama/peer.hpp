// llama.cpp's sampler chain on one row of logits, as in its decode loop: the chain common/sampling.cpp
// builds (order penalties → top-k → top-p → min-p → temperature → dist; only the samplers a path
// turns on), sampled with llama_sampler_sample, which copies the logits into a
// llama_token_data_array, applies the chain and accepts the token, every call.
#pragma once

#include <cstdint>
#include <vector>

#include "llama.h"

// The stand-in context of stubs.cpp: the row of logits llama_get_logits_ith returns.
struct llama_context {
  const float* logits = nullptr;
  int32_t n_vocab = 0;
};

namespace llama_peer {

// A path's options, Sampling Lab's names and defaults (temperature 1, no top-k/top-p/min-p/penalty).
struct PathOptions {
  float temperature = 1.0f;
  int32_t top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
  float repetition_penalty = 1.0f;
  std::vector<llama_token> generated_ids;
};

class Sampler {
 public:
  Sampler(const PathOptions& options, int32_t n_vocab, uint32_t seed);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // One token from the row of n_vocab logits: llama_sampler_sample(chain, ctx, -1).
  llama_token sample(const float* logits);

 private:
  llama_sampler* chain_;
  llama_context context_;
};

}  // namespace llama_peer
