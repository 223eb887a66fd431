#include "peer.hpp"

namespace llama_peer {

// penalty_last_n, min_keep and the temp_ext arguments are common_params_sampling's defaults.
constexpr int32_t kPenaltyLastN = 64;
constexpr size_t kMinKeep = 0;

Sampler::Sampler(const PathOptions& o, int32_t n_vocab, uint32_t seed) {
  context_.n_vocab = n_vocab;
  // llama_sampler_chain_default_params() of src/llama.cpp (not extracted): no_perf = true.
  const llama_sampler_chain_params params = {/*.no_perf =*/true};
  chain_ = llama_sampler_chain_init(params);
  if (o.repetition_penalty != 1.0f) {
    llama_sampler* penalties = llama_sampler_init_penalties(n_vocab, kPenaltyLastN, o.repetition_penalty, 0.0f, 0.0f);
    // The path's earlier tokens, as the decode loop would have accepted them; the tokens this
    // chain samples roll into the window after them.
    for (const llama_token id : o.generated_ids) llama_sampler_accept(penalties, id);
    llama_sampler_chain_add(chain_, penalties);
  }
  if (o.temperature <= 0.0f) {  // greedy, as the path's "temperature 0" means
    llama_sampler_chain_add(chain_, llama_sampler_init_greedy());
    return;
  }
  if (o.top_k > 0) llama_sampler_chain_add(chain_, llama_sampler_init_top_k(o.top_k));
  if (o.top_p < 1.0f) llama_sampler_chain_add(chain_, llama_sampler_init_top_p(o.top_p, kMinKeep));
  if (o.min_p > 0.0f) llama_sampler_chain_add(chain_, llama_sampler_init_min_p(o.min_p, kMinKeep));
  llama_sampler_chain_add(chain_, llama_sampler_init_temp_ext(o.temperature, 0.0f, 1.0f));
  llama_sampler_chain_add(chain_, llama_sampler_init_dist(seed));
}

Sampler::~Sampler() { llama_sampler_free(chain_); }

llama_token Sampler::sample(const float* logits) {
  context_.logits = logits;
  return llama_sampler_sample(chain_, &context_, -1);
}

}  // namespace llama_peer
