// The WebAssembly face of peer.hpp for bench/peers/llama.mjs: the logits live in this module's
// heap (written once, like Sampling Lab's logitsBuffer), one sampler at a time.
#include <emscripten/emscripten.h>

#include <memory>
#include <vector>

#include "peer.hpp"

namespace {
std::vector<float> logits;
std::unique_ptr<llama_peer::Sampler> sampler;
}  // namespace

extern "C" {

// A buffer for n logits; its address is valid until the next call to this function.
EMSCRIPTEN_KEEPALIVE float* llama_peer_logits(int32_t n) {
  logits.assign(static_cast<std::size_t>(n), 0.0f);
  return logits.data();
}

EMSCRIPTEN_KEEPALIVE void llama_peer_configure(float temperature, int32_t top_k, float top_p, float min_p,
                                               float repetition_penalty, const int32_t* ids, int32_t n_ids,
                                               uint32_t seed) {
  llama_peer::PathOptions options{temperature, top_k, top_p, min_p, repetition_penalty,
                                  std::vector<llama_token>(ids, ids + n_ids)};
  sampler.reset();
  sampler = std::make_unique<llama_peer::Sampler>(options, static_cast<int32_t>(logits.size()), seed);
}

EMSCRIPTEN_KEEPALIVE int32_t llama_peer_sample() { return sampler->sample(logits.data()); }

}
