#pragma once
// The few SIMD kernels (xsimd) that every vocabulary-sized pass goes through.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling_lab/rng.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab::kernels {

// The smallest and largest value, and whether every value is finite (NaN and ±∞ found in the
// same pass, so that a path whose first pass this is pays nothing extra for its input check).
struct MinMax {
  float min;
  float max;
  bool finite = true;
};
MinMax min_max(std::span<const float> values);

// Σ values in float lanes, four registers wide: nothing but one read of the values, the floor the
// benchmarks state every call's cost against (not compensated: use exp_shifted's block sums for sums
// that decide anything).
float lane_sum(std::span<const float> values);

// argmax's index, and whether every value was finite, from the same pass.
struct CheckedIndex {
  std::size_t index;
  bool finite;
};
CheckedIndex checked_argmax(std::span<const float> values);

// Copies `values` into `out` (as long), returning whether every value is finite.
bool checked_copy(std::span<const float> values, std::span<float> out);

// The largest value a packed bitmask allows (−∞ when none), the bits expanded a register at a time.
float masked_max(std::span<const std::uint32_t> mask, std::span<const float> values);

// Index of the first value that is NaN or ±∞, or values.size(): one SIMD pass (x − x is 0 only
// for finite x), then a scan only when it found one.
std::size_t first_non_finite(std::span<const float> values);

// Index of the largest value, ties to the lowest index (values not NaN): one max pass that keeps
// each block's maximum, then a scan of the first block holding the overall maximum.
std::size_t argmax(std::span<const float> values);

// Sums are also reported per block of kBlock values, exact to double precision (from
// Kahan-compensated float lanes), so an inverse-CDF draw can skip whole blocks exactly.
inline constexpr std::size_t kBlock = 1024;
constexpr std::size_t block_count(std::size_t size) { return (size + kBlock - 1) / kBlock; }

// out[i] = exp((values[i] - shift) * scale); returns the sum of out. Needs (values[i] − shift) ·
// scale <= 0, as with shift = max and scale = 1/T > 0. A polynomial exp accurate to about 2 ulp;
// arguments below −87.3 give 0. When `block_sums` is not empty (block_count(size) entries) each
// block's sum is written there.
double exp_shifted(std::span<const float> values, float shift, float scale, std::span<float> out,
                   std::span<double> block_sums = {});

// out[i] = −|(shift − values[i]) · scale + offset|, at least −FLT_MAX: with shift = max, scale =
// 1/T and offset = ln W − H, minus the distance of each token's surprise −ln p_i from the
// entropy H (locally typical sampling's ranking key).
void negative_distance(std::span<const float> values, float shift, float scale, float offset, std::span<float> out);

// Σ values, and the sum of each block of kBlock values into block_sums (block_count entries).
double block_sum(std::span<const float> values, std::span<double> block_sums);

// Σ weights[i] · y_i with y_i = (values[i] − shift) · scale, Kahan-compensated; a weight of 0
// adds 0 (its value may be −∞): with the weights exp_shifted wrote, Σ w ln w, from which the
// entropy follows without a log per token.
double weighted_exponent_sum(std::span<const float> values, std::span<const float> weights, float shift, float scale);

// Σ weights[i] · (y_i − center)², y_i as above: about the mean, the variance of ln w (the
// surprisal's) without a log per token, and without the cancellation of E[y²] − E[y]².
double weighted_squared_deviation(std::span<const float> values, std::span<const float> weights, float shift, float scale,
                                  float center);

// Σ w and Σ w·y with w = e^y, y = values[i] − shift (<= 0), Kahan-compensated, in one pass that
// stores nothing: ln Σ w − Σ w·y / Σ w is the entropy of the softmax at T 1.
struct EntropySums {
  double total;
  double weighted_exponent;
};
EntropySums entropy_sums(std::span<const float> values, float shift);

// Σ values[i], Kahan-compensated lanes read out in double.
double kahan_sum(std::span<const float> values);

// Σ (values[i] − shift)², Kahan-compensated: with exp_shifted's weights and no shift, W² times the
// collision probability; with the values' mean, V times their variance.
double sum_of_squares(std::span<const float> values, float shift = 0.0f);

// Σ exp((values[i] - shift) * scale), Kahan-compensated, without storing the terms.
double exp_sum(std::span<const float> values, float shift, float scale);
// exp_shifted's total and block sums, without storing the weights.
double exp_block_sums(std::span<const float> values, float shift, float scale, std::span<double> block_sums);

// Bounds on Σ exp((values[i] − shift) · scale) over the values below `threshold` (at most 0 after
// the shift), with no exp per value: each term read off the exponent bits (Schraudolph 1999),
// 2^y ≈ 2^⌊y⌋ (1 + y − ⌊y⌋), which is 2^y to within a factor 1.0861, and the rounding around it.
struct MassBounds {
  double low;
  double high;
};
MassBounds tail_mass(std::span<const float> values, float threshold, float shift, float scale);

// weights[i] = 0 wherever keys[i] < threshold (the others unchanged).
void zero_below(std::span<const float> keys, float threshold, std::span<float> weights);

// Ids and values of every value >= threshold, in id order (the buffers are resized to them). With
// a limit, the gather may stop once it holds `limit` or more (the count is then at least the limit
// and the buffers hold a first part only): a caller that only needs to know the head is large.
std::size_t gather_at_least(std::span<const float> values, float threshold, Buffer<std::uint32_t>& ids,
                            Buffer<float>& kept, std::size_t limit = SIZE_MAX);
// gather_at_least of the values `mask` allows (bit i of word i / 32 = token i).
std::size_t gather_allowed_at_least(std::span<const std::uint32_t> mask, std::span<const float> values, float threshold,
                                    Buffer<std::uint32_t>& ids, Buffer<float>& kept, std::size_t limit = SIZE_MAX);

// Tokens a packed bitmask allows among the first `vocabulary` (bit i of word i / 32 = token i,
// xgrammar's layout; bits past the vocabulary are not read).
std::size_t mask_count(std::span<const std::uint32_t> mask, std::size_t vocabulary);

// Ids and values of every value whose bit is set in `mask` (mask_words(values.size()) words), in
// id order: empty words are skipped, words with at most 4 holes copied run by run and the rest
// compressed a register at a time (the buffers are resized to them).
std::size_t gather_allowed(std::span<const std::uint32_t> mask, std::span<const float> values, Buffer<std::uint32_t>& ids,
                           Buffer<float>& kept);

// gather_allowed, and whether every value (allowed or not) is finite, from the same sweep.
struct CheckedCount {
  std::size_t count;
  bool finite;
};
CheckedCount checked_gather_allowed(std::span<const std::uint32_t> mask, std::span<const float> values,
                                    Buffer<std::uint32_t>& ids, Buffer<float>& kept);

// First index >= start whose value is > threshold, or values.size().
std::size_t next_above(std::span<const float> values, std::size_t start, float threshold);

// The inverse-CDF draw: the first index whose running sum of weights exceeds `target`, for
// weights >= 0 with the given block sums (as exp_shifted reports them) and target = u · Σ with u
// in [0, 1). Whole blocks are skipped on their sums; the one holding the target is scanned in
// double. Never returns a zero-weight index.
std::size_t inverse_cdf(std::span<const float> weights, std::span<const double> block_sums, double target);
// The same draw over the weights exp((values − shift) · scale) without storing them: the block
// sums are exp_block_sums', and only the blocks the scan enters are weighed again, each exactly as
// exp_shifted weighs it, so the index is the one inverse_cdf gives on exp_shifted's weights.
std::size_t inverse_cdf_of_exps(std::span<const float> values, float shift, float scale, std::span<const double> block_sums,
                                double target);
// The same draw over a small distribution, whose block sums are not at hand.
std::size_t inverse_cdf(std::span<const float> weights, double target);

// Words `first` … of the Philox4x32-10 stream of (key, stream), in stream order (block b gives
// words 4b … 4b + 3), several blocks per SIMD register; `first` and out.size() multiples of 4.
void philox_words(PhiloxKey key, std::uint64_t stream, std::uint64_t first, std::span<std::uint32_t> out);

// Exp(1) variates from Philox words, one word w per variate with U = (w + ½) / 2^32:
// E = −ln U, computed from U's distance S to the nearer end (−ln S or −log1p(−S)) so that both
// ends keep full relative precision. Where S < 2^-11 the 32-bit word is not resolution enough:
// the variate's index is appended to `extend`, and the caller redoes it from a second word
// (exponential_from).
void exponential_noise(std::span<const std::uint32_t> words, std::span<float> out,
                       std::vector<std::uint32_t>& extend);

// The exponential race's pruning: appends (ascending) every index i with 1 − U_i < bound · w_i,
// U_i = (words[i] + ½) / 2^32. Since E_i = −ln U_i ≥ 1 − U_i, no other token's clock
// E_i / w_i can arrive before `bound`.
void race_candidates(std::span<const std::uint32_t> words, std::span<const float> weights, float bound,
                     std::vector<std::uint32_t>& out);

// out[i] = min(⌊(top − keys[i]) · scale⌋, last) for keys <= top: the histogram bucket of each key.
void bucket_indices(std::span<const float> keys, float top, float scale, std::uint32_t last,
                    std::span<std::uint32_t> out);

// Indices i (ascending) with values[i] == wanted, appended to `out`.
void find_equal(std::span<const std::uint32_t> values, std::uint32_t wanted, std::vector<std::uint32_t>& out);

// One pass over keys and their weights: the weight and number of keys above `high`, summed as
// exp_shifted sums (Kahan-compensated lanes), and the tokens with low <= key <= high (the band),
// marked one bit each in band_bits: their number, whether they all have one key (the first's), and
// their ids, keys and weights in id order, unless there are more than `limit` (`complete` is false
// then, and the lists cut short).
struct BandSplit {
  double above;
  std::size_t above_count;
  std::size_t band_count;
  bool one_key;
  bool complete;
};
BandSplit band_split(std::span<const float> keys, std::span<const float> weights, float low, float high,
                     Buffer<std::uint32_t>& band_bits, Buffer<std::uint32_t>& ids, Buffer<float>& band_keys,
                     Buffer<float>& band_weights, std::size_t limit);

// The least and largest key and weight among the tokens of one histogram bucket (buckets[i] ==
// bucket); weights may be empty (their extent is then 0). One pass, no gather.
struct BucketExtent {
  float key_min;
  float key_max;
  float weight_min;
  float weight_max;
};
BucketExtent bucket_extent(std::span<const std::uint32_t> buckets, std::uint32_t bucket, std::span<const float> keys,
                           std::span<const float> weights);

// The index just past the n-th value equal to key (0 for n = 0); at least n values must equal it.
std::size_t after_nth_equal(std::span<const float> values, float key, std::size_t n);

// Number of values >= threshold.
std::size_t count_at_least(std::span<const float> values, float threshold);

}  // namespace sampling_lab::kernels
