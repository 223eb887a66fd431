#pragma once
// Reproducible stand-ins for a language model's next-token logits.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sampling_lab {

inline constexpr std::size_t kQwen3Vocabulary = 151936;

// A vocabulary-sized logit vector shaped like a real model's: every token draws a bulk logit
// 2·N(0, 1), and 100 "head" tokens, spread over the vocabulary, get 18 − ln(rank) + 0.3·N(0, 1),
// a Zipf-like head (p ∝ rank^(−1/T)) over a Gaussian tail. Normals come from Philox(seed, 0).
// At T = 0.5 / 1 / 1.5 a handful / tens / thousands of tokens make up 90 % of the mass,
// like the chapter's Qwen3 position.
std::vector<float> synthetic_logits(std::size_t vocabulary = kQwen3Vocabulary,
                                    std::uint64_t seed = 0);

}  // namespace sampling_lab
