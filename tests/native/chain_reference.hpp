#pragma once
// A float64, sort-based reference of the whole chain (bias, masks, every stage in any order),
// written from the papers' and llama.cpp's definitions rather than from the core's code.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <vector>

#include "sampling_lab/options.hpp"

namespace reference {

struct Chain {
  std::vector<double> probs;    // renormalised, 0 for cut tokens
  std::vector<bool> kept;
  // Some stage's decision sat within 1e-5 (relative) of its boundary, where float32 arithmetic
  // may keep one token more or less.
  bool near_boundary = false;
};

// DRY's penalty per token, by direct comparison of the window's end with every earlier position.
inline std::map<int, double> dry_penalties(const sampling_lab::SamplingOptions& o) {
  std::vector<int> w(o.generated_ids.begin(), o.generated_ids.end());
  if (o.dry_penalty_last_n > 0 && std::size_t(o.dry_penalty_last_n) < w.size()) {
    w.erase(w.begin(), w.end() - o.dry_penalty_last_n);
  }
  const auto n = int(w.size());
  const auto allowed = int(o.dry_allowed_length);
  const auto breaker = [&](int id) {
    return std::find(o.dry_sequence_breakers.begin(), o.dry_sequence_breakers.end(), id) != o.dry_sequence_breakers.end();
  };
  std::map<int, double> penalties;
  if (n <= allowed) return penalties;
  int limit = n;  // tokens since the newest breaker
  for (int i = 0; i < n; ++i) {
    if (breaker(w[n - 1 - i])) {
      limit = i;
      break;
    }
  }
  if (limit < allowed) return penalties;
  std::map<int, int> longest;
  for (int end = 0; end < n - 1; ++end) {
    int length = 0;
    while (length <= end && w[end - length] == w[n - 1 - length]) ++length;
    length = std::min(length, limit);
    if (length >= allowed) longest[w[end + 1]] = std::max(longest[w[end + 1]], length);
  }
  const int cap = o.dry_base > 1.000001 ? int(88.7228391 / std::log(o.dry_base)) : 0;
  for (const auto& [token, length] : longest) {
    if (breaker(token)) continue;
    int exponent = length - allowed;
    if (cap > 0) exponent = std::min(exponent, cap);
    penalties[token] = o.dry_multiplier * std::pow(o.dry_base, exponent);
  }
  return penalties;
}

// noRepeatNgramSize's and badWords' banned tokens, as transformers' processors define them: every
// start of an earlier n-gram whose first n − 1 tokens equal the history's last n − 1 bans its last
// token; a bad word's last id is banned when the history ends with the rest of it.
inline std::vector<int> history_bans(const sampling_lab::SamplingOptions& o) {
  const std::vector<int> h(o.generated_ids.begin(), o.generated_ids.end());
  const auto size = std::ptrdiff_t(h.size());
  std::vector<int> bans;
  const auto n = std::ptrdiff_t(o.no_repeat_ngram_size);
  if (n > 0 && size + 1 >= n) {
    for (std::ptrdiff_t start = 0; start + n <= size; ++start) {
      if (std::equal(h.begin() + start, h.begin() + start + n - 1, h.end() - (n - 1))) bans.push_back(h[std::size_t(start + n - 1)]);
    }
  }
  std::size_t offset = 0;
  for (const int length : o.bad_words_lengths) {
    const std::vector<int> word(o.bad_words_ids.begin() + std::ptrdiff_t(offset), o.bad_words_ids.begin() + std::ptrdiff_t(offset + length));
    offset += std::size_t(length);
    const auto prefix = std::ptrdiff_t(length - 1);
    if (prefix <= size && std::equal(word.begin(), word.end() - 1, h.end() - prefix)) bans.push_back(word.back());
  }
  return bans;
}

inline Chain chain(std::span<const float> input, const sampling_lab::SamplingOptions& o, double xtc_uniform) {
  namespace sl = sampling_lab;
  const std::size_t v = input.size();
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  std::vector<double> z(input.begin(), input.end());
  std::vector<bool> alive(v, true);
  Chain out;
  for (std::size_t i = 0; i < o.logit_bias_ids.size(); ++i) {
    double& zi = z[std::size_t(o.logit_bias_ids[i])];
    zi = std::clamp(zi + o.logit_bias_values[i], -kFloatMax, kFloatMax);
  }
  if (!o.allowed_tokens.empty()) {
    std::vector<bool> allowed(v, false);
    for (int id : o.allowed_tokens) allowed[std::size_t(id)] = true;
    for (std::size_t i = 0; i < v; ++i) alive[i] = alive[i] && allowed[i];
  }
  for (int id : o.banned_tokens) alive[std::size_t(id)] = false;
  for (int id : history_bans(o)) alive[std::size_t(id)] = false;

  double t = 1.0;
  const auto ranked = [&] {  // alive ids by (z desc, id asc)
    std::vector<std::size_t> ids;
    for (std::size_t i = 0; i < v; ++i) if (alive[i]) ids.push_back(i);
    std::stable_sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) { return z[a] > z[b]; });
    return ids;
  };
  const auto probs = [&] {
    double max = -kFloatMax;
    for (std::size_t i = 0; i < v; ++i) if (alive[i]) max = std::max(max, z[i]);
    std::vector<double> p(v, 0.0);
    double total = 0.0;
    for (std::size_t i = 0; i < v; ++i) if (alive[i]) total += p[i] = std::exp((z[i] - max) / t);
    for (double& x : p) x /= total;
    return p;
  };
  const auto entropy = [&](const std::vector<double>& p) {
    double h = 0.0;
    for (double x : p) if (x > 0) h -= x * std::log(x);
    return h;
  };
  const auto note = [&](double value, double boundary) {
    if (std::abs(value - boundary) <= 1e-5 * std::abs(boundary)) out.near_boundary = true;
  };
  // Keeps the ranking's prefix whose mass before each token is < target.
  const auto keep_mass = [&](const std::vector<std::size_t>& order, const std::vector<double>& p, double target) {
    double before = 0.0;
    for (std::size_t id : order) {
      if (before >= target) alive[id] = false;
      else note(before + p[id], target);
      before += p[id];
    }
  };
  const auto keep_at_least = [&](double bound, const std::vector<double>& p, std::size_t top) {
    for (std::size_t i = 0; i < v; ++i) {
      if (!alive[i]) continue;
      note(p[i], bound);
      if (i != top && p[i] < bound) alive[i] = false;
    }
  };

  const sl::StageOrder stages = sl::stage_order(o);
  for (const sl::Stage stage : stages.view()) {
    if (!sl::stage_on(stage, o)) continue;
    switch (stage) {
      case sl::Stage::kPenalties: {
        std::span<const std::int32_t> ids = o.generated_ids;
        if (o.penalty_last_n > 0 && std::size_t(o.penalty_last_n) < ids.size()) ids = ids.last(std::size_t(o.penalty_last_n));
        std::map<int, int> counts;
        for (int id : ids) ++counts[id];
        for (const auto& [id, count] : counts) {
          if (!alive[std::size_t(id)]) continue;
          double zi = z[std::size_t(id)];
          zi = zi > 0 ? zi / o.repetition_penalty : zi * o.repetition_penalty;
          z[std::size_t(id)] = std::clamp(zi - (o.presence_penalty + o.frequency_penalty * count), -kFloatMax, kFloatMax);
        }
        break;
      }
      case sl::Stage::kDry:
        for (const auto& [id, penalty] : dry_penalties(o)) {
          if (alive[std::size_t(id)]) z[std::size_t(id)] = std::clamp(z[std::size_t(id)] - penalty, -kFloatMax, kFloatMax);
        }
        break;
      case sl::Stage::kTemperature: {
        double temperature = o.temperature;
        if (o.dynatemp_range > 0.0) {  // llama.cpp's llama_sampler_temp_ext_apply
          const auto p = probs();
          const auto n = double(std::count(alive.begin(), alive.end(), true));
          if (n <= 1) break;
          const double low = std::max(0.0, temperature - o.dynatemp_range), high = temperature + o.dynatemp_range;
          temperature = low + (high - low) * std::pow(entropy(p) / std::log(n), o.dynatemp_exponent);
        }
        if (temperature == 0.0) {
          const auto order = ranked();
          for (std::size_t r = 1; r < order.size(); ++r) alive[order[r]] = false;
        } else {
          t = temperature;
        }
        break;
      }
      case sl::Stage::kTopK: {
        const auto order = ranked();
        for (std::size_t r = std::size_t(o.top_k); r < order.size(); ++r) alive[order[r]] = false;
        break;
      }
      case sl::Stage::kTopP: keep_mass(ranked(), probs(), o.top_p); break;
      case sl::Stage::kMinP: {
        const auto p = probs();
        keep_at_least(o.min_p * p[ranked()[0]], p, ranked()[0]);
        break;
      }
      case sl::Stage::kTypicalP: {
        const auto p = probs();
        const double h = entropy(p);
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < v; ++i) if (alive[i]) order.push_back(i);
        const auto distance = [&](std::size_t id) { return std::abs(-std::log(p[id]) - h); };
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return distance(a) < distance(b); });
        keep_mass(order, p, o.typical_p);
        // float32 ranks distances within about 1e-6 of each other either way: the boundary
        // token against the next one.
        for (std::size_t r = 0; r + 1 < order.size(); ++r) {
          if (alive[order[r]] && !alive[order[r + 1]] && std::abs(distance(order[r]) - distance(order[r + 1])) <= 1e-5 * (1 + distance(order[r]))) {
            out.near_boundary = true;
          }
        }
        break;
      }
      case sl::Stage::kTopNSigma: {
        double mean = 0.0, count = 0.0, max = -kFloatMax;
        for (std::size_t i = 0; i < v; ++i) if (alive[i]) mean += z[i], count += 1, max = std::max(max, z[i]);
        mean /= count;
        double squares = 0.0;
        for (std::size_t i = 0; i < v; ++i) if (alive[i]) squares += (z[i] - mean) * (z[i] - mean);
        const double bound = max - o.top_n_sigma * std::sqrt(squares / count);
        for (std::size_t i = 0; i < v; ++i) {
          if (!alive[i]) continue;
          note(z[i], bound);
          if (z[i] < bound) alive[i] = false;
        }
        break;
      }
      case sl::Stage::kEpsilonCutoff: keep_at_least(o.epsilon_cutoff, probs(), ranked()[0]); break;
      case sl::Stage::kEtaCutoff: {
        const auto p = probs();
        keep_at_least(std::min(o.eta_cutoff, std::sqrt(o.eta_cutoff) * std::exp(-entropy(p))), p, ranked()[0]);
        break;
      }
      case sl::Stage::kXtc: {
        if (!(xtc_uniform < o.xtc_probability)) break;
        const auto p = probs();
        const auto order = ranked();
        std::vector<std::size_t> above;
        for (std::size_t id : order) {
          note(p[id], o.xtc_threshold);
          if (p[id] >= o.xtc_threshold) above.push_back(id);
        }
        if (above.size() >= 2) for (std::size_t r = 0; r + 1 < above.size(); ++r) alive[above[r]] = false;
        break;
      }
      case sl::Stage::kMirostat: {
        const double mu = o.mirostat_mu.value_or(2 * o.mirostat_tau);
        const auto p = probs();
        const auto order = ranked();
        if (o.mirostat_version == 2) {
          keep_at_least(std::exp2(-mu), p, order[0]);
          break;
        }
        double tb = 0.0, tt = 0.0;
        for (std::size_t i = 0; i + 1 < std::min<std::size_t>(100, order.size()); ++i) {
          const double ti = std::log(double(i + 2) / double(i + 1));
          tb += ti * std::log(p[order[i]] / p[order[i + 1]]);
          tt += ti * ti;
        }
        const double s = tb / tt, e = s - 1;
        const double k = std::pow(e * std::exp2(mu) / (1 - std::pow(double(v), -e)), 1 / s);
        if (std::isfinite(k)) {
          note(k, std::round(k));
          const auto keep = std::size_t(std::clamp(k, 1.0, double(order.size())));
          for (std::size_t r = keep; r < order.size(); ++r) alive[order[r]] = false;
        }
        break;
      }
      case sl::Stage::kPLess: {  // Tan, Wu & Howard 2025
        const auto p = probs();
        double collision = 0.0;
        for (double x : p) collision += x * x;
        keep_at_least(collision, p, ranked()[0]);
        break;
      }
      case sl::Stage::kAdaptiveP: {  // llama.cpp's llama_sampler_adaptive_p_apply
        const auto p = probs();
        const double target = *o.adaptive_p_target;
        const double adapted = std::clamp(2 * target - o.adaptive_p_average.value_or(target), 0.0, 1.0);
        for (std::size_t i = 0; i < v; ++i) {
          const double d = std::abs(p[i] - adapted) / 0.3;
          if (alive[i]) z[i] = 5 - 10 * d * d / (1 + d);
        }
        t = 1.0;
        break;
      }
    }
  }
  out.probs = probs();
  out.kept = alive;
  return out;
}

}  // namespace reference
