#include "prefix_select.hpp"

#include <algorithm>
#include <limits>

#include "ranking.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab::detail {

namespace {
constexpr std::size_t kBuckets = kPrefixBuckets;
constexpr std::size_t kWays = kPrefixHistogramCopies;
// Below this many keys one histogram is cheaper than zeroing and folding four.
constexpr std::size_t kInterleavedFrom = 16 * kBuckets;
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
  // Buckets are monotone in the key, so each holds a contiguous run of the ranking.
  auto& bucket_of = scratch_.bucket_of;
  bucket_of.resize(keys_.size());
  kernels::bucket_indices(keys_, max_key_, scale_, kBuckets - 1, bucket_of);
  auto& counts = scratch_.bucket_counts;
  auto& mass = scratch_.bucket_mass;
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
// members arrive: its prefix is walked in place, adding the same weights in the same order as the
// general case, without building and sorting a record per member.
std::optional<Prefix> PrefixSelector::resolve_tied(std::size_t count_before, double mass_before,
                                                   std::size_t wanted_count, double target_mass) {
  const auto& positions = scratch_.members;
  const float key = keys_[positions.front()];
  double mass = mass_before;
  std::size_t taken = 0;
  for (const std::uint32_t i : positions) {
    if (keys_[i] != key) return std::nullopt;
    mass += weights_.empty() ? 0.0 : double(weights_[i]);
    ++taken;
    const bool done = wanted_count > 0 ? count_before + taken >= wanted_count : mass >= target_mass;
    if (done) break;
  }
  // The prefix may end before a different key further on: the bucket is one key only if all are.
  for (std::size_t j = taken; j < positions.size(); ++j) {
    if (keys_[positions[j]] != key) return std::nullopt;
  }
  return Prefix{count_before + taken, mass, key, taken};
}

}  // namespace sampling_lab::detail
