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

// Largest vocabulary (or batch of rows × vocabulary) and draw count accepted: bigger sizes are a
// caller's mistake, not a workload, and every buffer they size stays well inside WebAssembly's
// 2 GB.
inline constexpr std::size_t kMaxVocabulary = std::size_t{1} << 24;
inline constexpr std::size_t kMaxSamples = std::size_t{1} << 24;
// Rows of one sampleBatch call: each row's options are read on their own, so more rows would take
// seconds in JavaScript alone.
inline constexpr std::size_t kMaxBatchRows = std::size_t{1} << 14;
// Gumbel-max and the race draw one variate per token per draw: n · V stays below this (under a
// second in WebAssembly).
inline constexpr double kMaxNoiseVariates = 1.25e8;
// The inverse CDF and alias draw from tables as long as the vocabulary: on one beyond the caches
// each draw waits on memory, so n · V stays below this (n = 2^24 up to V = 2^18, 2^18 at 2^24).
inline constexpr double kMaxTableReads = 0x1p42;

// A length that will be allocated: at most `max` entries (checked before any allocation).
Check check_length(double length, const std::string& argument, double max = double(kMaxVocabulary));

// Whether `bytes` more can be allocated now: asks the allocator (which returns null rather than
// aborting) and gives the block straight back, so that a call too large for the memory left
// fails with an error instead of ending the WebAssembly instance.
Check check_memory(std::size_t bytes, const std::string& argument);

// A vocabulary-sized input's length: not empty, at most kMaxVocabulary.
Check check_entries(std::size_t size, const std::string& argument);
Check check_logits(std::span<const float> logits, const std::string& argument);
Check check_probabilities(std::span<const float> probs, const std::string& argument);
Check check_probabilities(std::span<const double> probs, const std::string& argument);
Check check_temperature(double temperature);
Check check_mass(double mass, const std::string& argument);  // in (0, 1]

}  // namespace sampling_lab
