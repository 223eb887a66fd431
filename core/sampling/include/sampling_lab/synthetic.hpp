#pragma once
// Reproducible stand-ins for a language model's next-token logits.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sampling_lab {

inline constexpr std::size_t kQwen3Vocabulary = 151936;

// A vocabulary-sized logit vector shaped like a real model's: every token draws a bulk logit
// 2·N(0, 1), and "head" tokens of rank r, spread over the vocabulary, get
// 18 − ln r − ln²(r / 100) + 0.3·N(0, 1): a Zipf head (p ∝ r^(−1/T)) over the first 100 ranks that
// bends down until it meets the bulk's expected order statistics (about 1,180 head tokens at
// 151,936), so the ranked logits fall without a gap. Normals come from Philox(seed, 0).
// At T = 0.5 / 1 / 1.5 a handful / about a hundred / thousands of tokens make up 90 % of the
// mass, like the chapter's Qwen3 position.
std::vector<float> synthetic_logits(std::size_t vocabulary = kQwen3Vocabulary,
                                    std::uint64_t seed = 0);

}  // namespace sampling_lab
