#include "sampling_lab/error.hpp"

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/values.hpp"

#include <cmath>
#include <cstdlib>
#include <cstdint>

namespace sampling_lab {

Check check_entries(std::size_t size, const std::string& argument) {
  if (size == 0) return ArgumentError{argument, argument + " must not be empty"};
  if (size > kMaxVocabulary) {
    return ArgumentError{argument, argument + " has " + std::to_string(size) +
                                       " entries; at most " + std::to_string(kMaxVocabulary) +
                                       " are supported"};
  }
  return std::nullopt;
}

Check check_length(double length, const std::string& argument, double max) {
  if (!(length >= 0 && length <= max)) {
    return ArgumentError{argument, argument + " has " + fixed_text(length) + " entries; at most " +
                                       std::to_string(std::uint64_t(max)) + " are supported"};
  }
  return std::nullopt;
}

Check check_memory(std::size_t bytes, const std::string& argument) {
  void* block = std::malloc(bytes);
  if (block == nullptr) {
    return ArgumentError{argument, argument + " needs " + std::to_string(bytes >> 20) +
                                       " MB more than the memory left; use a smaller one"};
  }
  std::free(block);
  return std::nullopt;
}

Check check_logits(std::span<const float> logits, const std::string& argument) {
  if (auto error = check_entries(logits.size(), argument)) return error;
  const std::size_t i = kernels::first_non_finite(logits);
  if (i == logits.size()) return std::nullopt;
  return ArgumentError{argument, argument + "[" + std::to_string(i) + "] is " +
                                     (std::isnan(logits[i]) ? "NaN" : "infinite") + "; logits must be finite"};
}

namespace {

template <typename T>
Check check_probabilities_of(std::span<const T> probs, const std::string& argument) {
  if (auto error = check_entries(probs.size(), argument)) return error;
  double total = 0.0;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (!(probs[i] >= T(0)) || !std::isfinite(probs[i])) {
      return ArgumentError{argument, argument + "[" + std::to_string(i) +
                                         "] is not a finite, non-negative probability"};
    }
    total += probs[i];
  }
  // float32 storage of a vocabulary-sized distribution rounds its sum by ~1e-6.
  if (std::abs(total - 1.0) > 1e-3) {
    return ArgumentError{argument, argument + " sums to " + fixed_text(total) +
                                       "; probabilities must sum to 1"};
  }
  return std::nullopt;
}

}  // namespace

Check check_probabilities(std::span<const float> probs, const std::string& argument) { return check_probabilities_of(probs, argument); }
Check check_probabilities(std::span<const double> probs, const std::string& argument) { return check_probabilities_of(probs, argument); }

Check check_temperature(double temperature) {
  return check_scalar(temperature, Kind::kNumber, at_least(0), "temperature");
}

Check check_mass(double mass, const std::string& argument) {
  return check_scalar(mass, Kind::kProbability, open_closed(0, 1), argument);
}

}  // namespace sampling_lab
