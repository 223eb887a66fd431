#pragma once
// The chapter's experiments, each one pure function params -> JSON. The page, the CLI and the
// tests all go through prepare_experiment (or run_experiment, its one-step form), so every
// printed number has a single source.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/progress.hpp"
#include "sampling_lab/schema.hpp"

namespace sampling_lab {

struct ExperimentInfo {
  std::string name;
  std::string summary;
  Schema params;
};

const std::vector<ExperimentInfo>& experiments();

// An array parameter: its name and length. Arrays cross apart from the JSON parameters, as
// numbers the caller writes into buffers sized for them, so that their lengths and the work they
// imply are checked before anything is copied or converted.
struct ArrayParam {
  std::string name;
  std::size_t length = 0;
};

namespace detail {
struct Experiment;
class Params;
}  // namespace detail

// An experiment whose parameters passed every check that sizes alone allow.
class PreparedExperiment {
 public:
  PreparedExperiment(const detail::Experiment& experiment, std::unique_ptr<detail::Params> params);
  PreparedExperiment(PreparedExperiment&&) noexcept;
  PreparedExperiment& operator=(PreparedExperiment&&) noexcept;
  ~PreparedExperiment();

  // Where the caller writes the index-th array of prepare_experiment's list: float32 where its
  // schema says so (single_array), else double (array).
  bool is_single(std::size_t index) const;
  std::span<float> single_array(std::size_t index);
  std::span<double> array(std::size_t index);
  // Checks the arrays' values, then runs. A run that `progress` stopped is an ArgumentError
  // (argument "onProgress").
  std::variant<Json, ArgumentError> run(const Progress& progress = {});

 private:
  const detail::Experiment* experiment_;
  std::unique_ptr<detail::Params> params_;
};

// Checks the name, the JSON parameters (which hold no arrays: `arrays` lists those), each
// array's length against its schema, the memory for them and the experiment's work budget;
// then sizes the arrays' buffers.
std::variant<PreparedExperiment, ArgumentError> prepare_experiment(std::string_view name, const Json& params,
                                                                   std::span<const ArrayParam> arrays);

// prepare_experiment and run in one step, with the arrays inline in `params` (an object; missing
// keys take their defaults).
std::variant<Json, ArgumentError> run_experiment(std::string_view name, const Json& params,
                                                 const Progress& progress = {});

// Vocabulary-sized arrays of a result are held as JSON binary values, so that they cross to
// JavaScript as typed arrays rather than as text; the subtype says which.
enum class BulkType : std::uint8_t { kFloat32 = 1, kFloat64 = 2, kUint8 = 3 };
Json bulk(std::span<const float> values);
Json bulk(std::span<const double> values);
Json bulk(std::span<const std::uint8_t> values);

// The result with every bulk array as a plain JSON array of numbers (for JSON text).
Json plain_json(Json result);

}  // namespace sampling_lab
