#pragma once
// Invalid user input is reported as a value, never thrown: the WebAssembly build has no
// exception support, and one bad call must leave the module usable.
#include <optional>
#include <span>
#include <string>

namespace sampling_lab {

struct ArgumentError {
  std::string argument;  // the parameter's public (camelCase) name, e.g. "topP"
  std::string message;
};

using Check = std::optional<ArgumentError>;

// Largest vocabulary or sample count accepted; bigger sizes are a caller's mistake, not a workload.
inline constexpr std::size_t kMaxVocabulary = std::size_t{1} << 24;
inline constexpr std::size_t kMaxSamples = std::size_t{1} << 26;

// A length that will be allocated: at most `max` entries (checked before any allocation).
Check check_length(double length, const std::string& argument, double max = double(kMaxVocabulary));

Check check_logits(std::span<const float> logits, const std::string& argument);
Check check_probabilities(std::span<const float> probs, const std::string& argument);
Check check_temperature(double temperature);
Check check_mass(double mass, const std::string& argument);  // in (0, 1]

}  // namespace sampling_lab
