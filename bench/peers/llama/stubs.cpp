// What llama-sampler.cpp links against besides itself, llama-impl.cpp and ggml-base, for a
// sampler chain run without a model:
// - a llama_context that holds one row of logits (the one thing llama_sampler_sample reads from
//   it) and reports no backend-sampled token, so the chain runs on the CPU exactly as in
//   llama.cpp's decode loop;
// - llama_vocab and llama_grammar, used only by the grammar, DRY and infill samplers, which the
//   chains here never create: each stub aborts if reached.
#include <cstdio>
#include <cstdlib>

#include "llama-grammar.h"
#include "llama-vocab.h"
#include "peer.hpp"

namespace {
[[noreturn]] void unused(const char* what) {
  std::fprintf(stderr, "llama peer: %s is stubbed out and must not be reached\n", what);
  std::abort();
}
}  // namespace

// ---- the context: one row of logits -------------------------------------------------------
extern "C" {
float* llama_get_logits_ith(llama_context* ctx, int32_t) { return const_cast<float*>(ctx->logits); }
llama_token llama_get_sampled_token_ith(llama_context*, int32_t) { return LLAMA_TOKEN_NULL; }
float* llama_get_sampled_probs_ith(llama_context*, int32_t) { return nullptr; }
uint32_t llama_get_sampled_probs_count_ith(llama_context*, int32_t) { return 0; }
float* llama_get_sampled_logits_ith(llama_context*, int32_t) { return nullptr; }
uint32_t llama_get_sampled_logits_count_ith(llama_context*, int32_t) { return 0; }
llama_token* llama_get_sampled_candidates_ith(llama_context*, int32_t) { return nullptr; }
// The context stands in for the model and the vocabulary too: only n_tokens is asked of them.
const llama_model* llama_get_model(const llama_context* ctx) { return reinterpret_cast<const llama_model*>(ctx); }
const llama_vocab* llama_model_get_vocab(const llama_model* model) { return reinterpret_cast<const llama_vocab*>(model); }
int32_t llama_vocab_n_tokens(const llama_vocab* vocab) { return reinterpret_cast<const llama_context*>(vocab)->n_vocab; }
}

// ---- vocabulary and grammar: not used by these chains -------------------------------------
struct llama_vocab::impl {};
llama_vocab::llama_vocab() { unused("llama_vocab"); }
llama_vocab::~llama_vocab() = default;
uint32_t llama_vocab::n_tokens() const { unused("llama_vocab::n_tokens"); }
bool llama_vocab::is_eog(llama_token) const { unused("llama_vocab::is_eog"); }
llama_token llama_vocab::token_eos() const { unused("llama_vocab::token_eos"); }
llama_token llama_vocab::token_eot() const { unused("llama_vocab::token_eot"); }
int32_t llama_vocab::token_to_piece(llama_token, char*, int32_t, int32_t, bool) const { unused("llama_vocab::token_to_piece"); }
std::vector<llama_token> llama_vocab::tokenize(const std::string&, bool, bool) const { unused("llama_vocab::tokenize"); }
std::string llama_vocab::detokenize(const std::vector<llama_token>&, bool) const { unused("llama_vocab::detokenize"); }

llama_grammar* llama_grammar_init_impl(const llama_vocab*, const char*, const char*, bool, const char**, size_t,
                                       const llama_token*, size_t) {
  unused("llama_grammar_init_impl");
}
void llama_grammar_free_impl(llama_grammar*) { unused("llama_grammar_free_impl"); }
llama_grammar* llama_grammar_clone_impl(const llama_grammar&) { unused("llama_grammar_clone_impl"); }
void llama_grammar_apply_impl(const llama_grammar&, llama_token_data_array*) { unused("llama_grammar_apply_impl"); }
void llama_grammar_accept_impl(llama_grammar&, llama_token) { unused("llama_grammar_accept_impl"); }
