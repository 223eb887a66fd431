#include "prefix_select.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ranking.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab::detail {

namespace {
constexpr std::size_t kBuckets = kPrefixBuckets;
constexpr std::size_t kWays = kPrefixHistogramCopies;
// Below this many keys one histogram is cheaper than zeroing and folding four.
constexpr std::size_t kInterleavedFrom = 16 * kBuckets;
// From this many members a boundary bucket is first tested for one key and one weight.
constexpr std::size_t kListedBucket = 4096;
// Keys a mass cut samples, evenly spaced.
constexpr std::size_t kCutSample = 4096;
}

float bucket_scale(float max_key, float min_key, std::size_t buckets) {
  if (!(max_key > min_key)) return 0.0f;
  return float(std::min(double(buckets) / (double(max_key) - double(min_key)), double(std::numeric_limits<float>::max())));
}

PrefixSelector::PrefixSelector(std::span<const float> keys, std::span<const float> weights,
                               float max_key, float min_key, PrefixScratch& scratch)
    : keys_(keys),
      weights_(weights),
      max_key_(max_key),
      scale_(bucket_scale(max_key, min_key, kBuckets)),
      scratch_(scratch) {
  auto& counts = scratch_.bucket_counts;
  auto& mass = scratch_.bucket_mass;
  if (scale_ == 0.0f) {
    // One key throughout: one bucket, taken in id order (one_key_prefix), with no histogram. Its
    // mass is left unbounded, so that every target ends in it.
    counts.assign(kBuckets, 0);
    counts[0] = keys_.size();
    mass.assign(kBuckets, 0.0);
    mass[0] = std::numeric_limits<double>::infinity();
    return;
  }
  // Buckets are monotone in the key, so each holds a contiguous run of the ranking.
  auto& bucket_of = scratch_.bucket_of;
  bucket_of.resize(keys_.size());
  kernels::bucket_indices(keys_, max_key_, scale_, kBuckets - 1, bucket_of);
  // Runs of one bucket (ties, flat tails, sorted keys) would chain every count and mass through
  // memory, one store waiting on the last: a large histogram is kept in kWays interleaved copies,
  // folded after.
  const std::size_t ways = keys_.size() >= kInterleavedFrom ? kWays : 1;
  counts.assign(ways * kBuckets, 0);
  mass.assign(weights_.empty() ? 0 : ways * kBuckets, 0.0);
  const std::size_t whole = keys_.size() - keys_.size() % ways;
  for (std::size_t i = 0; i < whole; i += ways) {
    for (std::size_t w = 0; w < ways; ++w) {
      const std::size_t at = w * kBuckets + bucket_of[i + w];
      ++counts[at];
      if (!weights_.empty()) mass[at] += weights_[i + w];
    }
  }
  for (std::size_t i = whole; i < keys_.size(); ++i) {
    ++counts[bucket_of[i]];
    if (!weights_.empty()) mass[bucket_of[i]] += weights_[i];
  }
  for (std::size_t w = 1; w < ways; ++w) {
    for (std::size_t b = 0; b < kBuckets; ++b) {
      counts[b] += counts[w * kBuckets + b];
      if (!weights_.empty()) mass[b] += mass[w * kBuckets + b];
    }
  }
  counts.resize(kBuckets);
  mass.resize(kBuckets, 0.0);
}

Prefix PrefixSelector::first(std::size_t count) {
  count = std::min(count, keys_.size());
  std::size_t before = 0;
  double mass_before = 0.0;
  std::size_t bucket = 0;
  while (before + scratch_.bucket_counts[bucket] < count) {
    before += scratch_.bucket_counts[bucket];
    mass_before += scratch_.bucket_mass[bucket];
    ++bucket;
  }
  return resolve_in_bucket(bucket, before, mass_before, count, 0.0);
}

Prefix PrefixSelector::reaching_mass(double target_mass) {
  std::size_t before = 0;
  double mass_before = 0.0;
  for (std::size_t bucket = 0; bucket < kBuckets; ++bucket) {
    const std::size_t in_bucket = scratch_.bucket_counts[bucket];
    if (in_bucket > 0 && mass_before + scratch_.bucket_mass[bucket] >= target_mass) {
      return resolve_in_bucket(bucket, before, mass_before, 0, target_mass);
    }
    before += in_bucket;
    mass_before += scratch_.bucket_mass[bucket];
  }
  // Rounding left the total short of the target: the whole vocabulary is the prefix.
  return first(keys_.size());
}

Prefix PrefixSelector::resolve_in_bucket(std::size_t bucket, std::size_t count_before,
                                         double mass_before, std::size_t wanted_count,
                                         double target_mass) {
  if (scale_ == 0.0f) return one_key_prefix(count_before, mass_before, wanted_count, target_mass);
  // A large bucket of one key and one weight (a flat tail, ties) needs no list of its members; a
  // small one is listed and sorted for less than the pass that would tell.
  if (scratch_.bucket_counts[bucket] >= kListedBucket) {
    const auto extent = kernels::bucket_extent(scratch_.bucket_of, std::uint32_t(bucket), keys_, weights_);
    if (extent.key_min == extent.key_max && extent.weight_min == extent.weight_max) {
      return tied_prefix([](std::size_t) { return std::size_t{0}; }, scratch_.bucket_counts[bucket], extent.key_min,
                         extent.weight_min, true, count_before, mass_before, wanted_count, target_mass);
    }
  }
  scratch_.members.clear();
  kernels::find_equal(scratch_.bucket_of, std::uint32_t(bucket), scratch_.members);
  if (const auto tied = resolve_tied(count_before, mass_before, wanted_count, target_mass)) return *tied;
  auto& members = scratch_.boundary;
  members.clear();
  for (const std::uint32_t i : scratch_.members) {
    members.push_back({keys_[i], i, weights_.empty() ? 0.0f : weights_[i]});
  }
  if (!std::is_sorted(members.begin(), members.end(), ranks_before)) std::sort(members.begin(), members.end(), ranks_before);
  double mass = mass_before;
  std::size_t taken = 0;
  while (taken < members.size()) {
    mass += members[taken].weight;
    ++taken;
    const bool done = wanted_count > 0 ? count_before + taken >= wanted_count : mass >= target_mass;
    if (done) break;
  }
  const float last_key = members[taken - 1].key;
  std::size_t ties = 0;
  for (std::size_t j = 0; j < taken; ++j) ties += members[j].key == last_key;
  return {count_before + taken, mass, last_key, ties};
}

// A bucket of one key (a flat tail, or ties the histogram cannot split) is ranked by id as its
// members arrive: its prefix is taken in place, adding the same weights in the same order as the
// general case, without building and sorting a record per member.
std::optional<Prefix> PrefixSelector::resolve_tied(std::size_t count_before, double mass_before,
                                                   std::size_t wanted_count, double target_mass) {
  const auto& positions = scratch_.members;
  const float key = keys_[positions.front()];
  const float weight = weights_.empty() ? 0.0f : weights_[positions.front()];
  bool one_weight = true;
  for (const std::uint32_t i : positions) {
    if (keys_[i] != key) return std::nullopt;
    one_weight = one_weight && (weights_.empty() || weights_[i] == weight);
  }
  return tied_prefix([&](std::size_t j) { return positions[j]; }, positions.size(), key, weight, one_weight, count_before,
                     mass_before, wanted_count, target_mass);
}

Prefix PrefixSelector::one_key_prefix(std::size_t count_before, double mass_before, std::size_t wanted_count,
                                      double target_mass) {
  // Equal keys weigh the same when the weights are the keys' exponentials; a ranking by another
  // key (typical-p's closeness) may not.
  const auto range = weights_.empty() ? kernels::MinMax{0.0f, 0.0f} : kernels::min_max(weights_);
  const bool one_weight = range.min == range.max;
  return tied_prefix([](std::size_t j) { return j; }, keys_.size(), keys_.front(), range.min, one_weight, count_before,
                     mass_before, wanted_count, target_mass);
}

bool exact_tied_sums(std::size_t members, double w, double mass_before) {
  if (!(w > 0.0)) return false;
  int exponent = 0;
  std::frexp(w, &exponent);
  const double last_bit = std::ldexp(1.0, exponent - 24);
  return std::fmod(mass_before, last_bit) == 0.0 && mass_before + double(members) * w < std::ldexp(last_bit, 53);
}

std::size_t tied_prefix_length(std::size_t members, double w, double mass_before, double target_mass) {
  const auto mass_after = [&](std::size_t k) { return mass_before + double(k) * w; };
  auto taken = std::size_t(std::clamp(std::ceil((target_mass - mass_before) / w), 1.0, double(members)));
  while (taken > 1 && mass_after(taken - 1) >= target_mass) --taken;
  while (taken < members && mass_after(taken) < target_mass) ++taken;
  return taken;
}

// `members` tokens of one key follow `count_before` tokens of mass `mass_before`; the prefix takes
// them in id order (position(j) is the j-th) until it is done, adding each one's weight. When they
// all weigh one w (`one_weight`) and every partial sum is exact (exact_tied_sums), the mass after
// k of them is mass_before + k·w, and the prefix's length is solved for instead of walked.
template <typename Position>
Prefix PrefixSelector::tied_prefix(Position position, std::size_t members, float key, double w, bool one_weight,
                                   std::size_t count_before, double mass_before, std::size_t wanted_count,
                                   double target_mass) const {
  const auto weight_of = [&](std::size_t j) {
    return one_weight ? w : weights_.empty() ? 0.0 : double(weights_[position(j)]);
  };
  if (!one_weight || !exact_tied_sums(members, w, mass_before)) {
    std::size_t taken = 0;
    double mass = mass_before;
    while (taken < members) {
      mass += weight_of(taken);
      ++taken;
      if (wanted_count > 0 ? count_before + taken >= wanted_count : mass >= target_mass) break;
    }
    return {count_before + taken, mass, key, taken};
  }
  const std::size_t taken = wanted_count > 0 ? std::min(wanted_count - count_before, members)
                                             : tied_prefix_length(members, w, mass_before, target_mass);
  return {count_before + taken, mass_before + double(taken) * w, key, taken};
}

double zero_outside(const Prefix& prefix, std::span<const float> keys, std::span<float> weights, std::vector<double>& block_sums) {
  const std::size_t after_last_tie = kernels::after_nth_equal(keys, prefix.last_key, prefix.ties_at_key);
  kernels::zero_below(keys.first(after_last_tie), prefix.last_key, weights.first(after_last_tie));
  kernels::zero_below(keys.subspan(after_last_tie), std::nextafter(prefix.last_key, std::numeric_limits<float>::infinity()),
                      weights.subspan(after_last_tie));
  block_sums.resize(kernels::block_count(weights.size()));
  return kernels::block_sum(weights, block_sums);
}

namespace {

// A mass cut over every token's weight, placed from an evenly spaced sample (Sample sort's
// splitters, Frazer & McKellar 1970): the mass at or below a key, estimated from the sampled
// weights, crosses (1 − fraction)·W at the cut. That mass is spread over many light tokens, which a
// sample sees (the few heavy ones above the cut need not be sampled). Keys within three standard
// errors of the estimate either side form a band; one pass sums the exact mass above the band and
// gathers it, and the band is ranked exactly. None when the band misses the cut or is large.
std::optional<Prefix> prefix_from_sample(std::span<const float> logits, std::span<const float> weights, float max_key,
                                         float min_key, double fraction, double total, PrefixScratch& scratch) {
  constexpr std::size_t kSampleBuckets = 256;
  const std::size_t v = logits.size();
  const float scale = bucket_scale(max_key, min_key, kSampleBuckets);
  if (scale == 0.0f) return std::nullopt;
  std::array<double, kSampleBuckets> mass{}, squares{};
  const std::size_t stride = std::max<std::size_t>(v / kCutSample, 1);
  std::size_t sampled = 0;
  for (std::size_t i = 0; i < v; i += stride, ++sampled) {
    // max − key overflows to +∞ across float's whole range (3e38 − −3e38): the last bucket.
    const float offset = (max_key - logits[i]) * scale;
    const std::size_t bucket = offset < float(kSampleBuckets - 1) ? std::size_t(offset) : kSampleBuckets - 1;
    mass[bucket] += weights[i];
    squares[bucket] += double(weights[i]) * weights[i];
  }
  // Bucket j holds keys in (max − (j + 1)/scale, max − j/scale]; below(j) estimates the mass of
  // the keys at or below its upper edge.
  const double per_sample = double(v) / double(sampled);
  const double light = (1.0 - fraction) * total;
  std::size_t high_edge = 0;     // the cut lies at or below max − high_edge/scale
  std::size_t low_edge = kSampleBuckets;  // and at or above max − low_edge/scale
  // A band that misses the cut costs one pass more, not a wrong token.
  const auto spread = [&](double variance) { return 3.0 * std::sqrt(variance) * per_sample; };
  double below = 0.0, variance = 0.0;
  for (std::size_t j = kSampleBuckets; j-- > 0;) {
    if (below * per_sample + spread(variance) < light) low_edge = j + 1;
    below += mass[j];
    variance += squares[j];
    if (below * per_sample - spread(variance) > light) {
      high_edge = j;
      break;
    }
  }
  const float high = high_edge == 0 ? max_key : max_key - float(high_edge) / scale;
  const float low = low_edge == kSampleBuckets ? min_key : max_key - float(low_edge) / scale;
  const double target = fraction * total;
  // A band past an eighth of the vocabulary is left to the histogram.
  auto& band_ids = scratch.band_ids;
  auto& band_keys = scratch.band_keys;
  auto& band_weights = scratch.band_weights;
  const auto split = kernels::band_split(logits, weights, low, high, scratch.band_bits, band_ids, band_keys, band_weights, v / 8);
  if (split.band_count == 0 || split.above >= target) return std::nullopt;
  if (split.one_key) {
    // One key (a flat tail, ties): one weight, taken in id order, its length solved.
    const double weight = band_weights.front();  // the band's first members are listed
    if (!exact_tied_sums(split.band_count, weight, split.above) ||
        split.above + double(split.band_count) * weight < target) {
      return std::nullopt;
    }
    const std::size_t taken = tied_prefix_length(split.band_count, weight, split.above, target);
    return Prefix{split.above_count + taken, split.above + double(taken) * weight, band_keys.front(), taken};
  }
  if (!split.complete) return std::nullopt;
  const auto band_range = kernels::min_max(band_keys);
  PrefixSelector band(band_keys, band_weights, band_range.max, band_range.min, scratch);
  Prefix prefix = band.reaching_mass(target - split.above);
  if (prefix.mass < target - split.above) return std::nullopt;  // the cut lies below the band
  prefix.count += split.above_count;
  prefix.mass += split.above;
  return prefix;
}

}  // namespace

Prefix prefix_reaching_fraction(std::span<const float> keys, std::span<const float> weights, float max_key, float min_key,
                                double fraction, double total, PrefixScratch& scratch) {
  if (auto sampled = prefix_from_sample(keys, weights, max_key, min_key, fraction, total, scratch)) return *sampled;
  return PrefixSelector(keys, weights, max_key, min_key, scratch).reaching_mass(fraction * total);
}

}  // namespace sampling_lab::detail
