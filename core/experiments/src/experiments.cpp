#include "sampling_lab/experiments.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "registry.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

namespace {

const std::vector<detail::Experiment>& registry() {
  static const std::vector<detail::Experiment> all = [] {
    std::vector<detail::Experiment> list;
    for (auto topic : {detail::distribution_shape_experiments, detail::sampling_method_experiments,
                       detail::monte_carlo_experiments, detail::sequence_experiments,
                       detail::speculative_experiments, detail::importance_experiments,
                       detail::sample_size_experiments}) {
      for (auto& experiment : topic()) list.push_back(std::move(experiment));
    }
    return list;
  }();
  return all;
}

// The path of the first number in `json` that is not finite ("" when none): results document
// numbers, and JSON would turn NaN or ±∞ into null.
std::string non_finite(const Json& json, const std::string& path) {
  if (json.is_number_float()) return std::isfinite(json.get<double>()) ? "" : path;
  if (json.is_binary() && json.get_binary().subtype() != std::uint8_t(BulkType::kUint8)) {
    // Read back into numbers a chunk at a time and scanned (floats by SIMD): a copy per number, in
    // code built for size, was a tenth of a filters experiment, and a copy of the whole array a
    // fiftieth.
    const auto& bytes = json.get_binary();
    const bool single = bytes.subtype() == std::uint8_t(BulkType::kFloat32);
    const std::size_t size = single ? sizeof(float) : sizeof(double);
    constexpr std::size_t kChunk = 1024;
    for (std::size_t begin = 0; begin * size < bytes.size(); begin += kChunk) {
      const std::size_t count = std::min(kChunk, bytes.size() / size - begin);
      std::size_t bad = count;
      if (single) {
        std::array<float, kChunk> numbers;
        std::memcpy(numbers.data(), bytes.data() + begin * size, count * size);
        bad = kernels::first_non_finite(std::span(numbers).first(count));
      } else {
        std::array<double, kChunk> numbers;
        std::memcpy(numbers.data(), bytes.data() + begin * size, count * size);
        bad = std::size_t(std::find_if(numbers.begin(), numbers.begin() + std::ptrdiff_t(count),
                                       [](double x) { return !std::isfinite(x); }) - numbers.begin());
      }
      if (bad < count) return path + "[" + std::to_string(begin + bad) + "]";
    }
    return "";
  }
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (auto found = non_finite(value, path.empty() ? key : path + "." + key); !found.empty()) return found;
    }
  }
  if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      if (auto found = non_finite(json[i], path + "[" + std::to_string(i) + "]"); !found.empty()) return found;
    }
  }
  return "";
}

template <typename T>
Json bulk_of(std::span<const T> values, BulkType type) {
  // Built from the range: a vector sized first would be zeroed, then overwritten.
  const auto* first = reinterpret_cast<const std::uint8_t*>(values.data());
  return Json::binary(std::vector<std::uint8_t>(first, first + values.size_bytes()), std::uint8_t(type));
}

template <typename T>
Json numbers_of(const Json::binary_t& bytes) {
  Json list = Json::array();
  for (std::size_t at = 0; at < bytes.size(); at += sizeof(T)) {
    T x;
    std::memcpy(&x, bytes.data() + at, sizeof(T));
    list.push_back(x);
  }
  return list;
}

}  // namespace

const std::vector<ExperimentInfo>& experiments() {
  static const std::vector<ExperimentInfo> infos = [] {
    std::vector<ExperimentInfo> list;
    for (const auto& experiment : registry()) list.push_back(experiment.info);
    return list;
  }();
  return infos;
}

PreparedExperiment::PreparedExperiment(const detail::Experiment& experiment, std::unique_ptr<detail::Params> params)
    : experiment_(&experiment), params_(std::move(params)) {}
PreparedExperiment::PreparedExperiment(PreparedExperiment&&) noexcept = default;
PreparedExperiment& PreparedExperiment::operator=(PreparedExperiment&&) noexcept = default;
PreparedExperiment::~PreparedExperiment() = default;

bool PreparedExperiment::is_single(std::size_t index) const { return params_->is_single(index); }
std::span<float> PreparedExperiment::single_array(std::size_t index) { return params_->single_array(index); }
std::span<double> PreparedExperiment::array(std::size_t index) { return params_->array(index); }

std::variant<Json, ArgumentError> PreparedExperiment::run(const Progress& progress) {
  params_->check_arrays();
  if (params_->error()) return *params_->error();
  Json result = experiment_->run(*params_, progress);
  if (params_->error()) return *params_->error();
  if (const auto path = non_finite(result, ""); !path.empty()) {
    return ArgumentError{"params", "these parameters make " + path + " too large or too small to represent"};
  }
  return result;
}

std::variant<PreparedExperiment, ArgumentError> prepare_experiment(std::string_view name, const Json& params,
                                                                   std::span<const ArrayParam> arrays) {
  for (const auto& experiment : registry()) {
    if (experiment.info.name != name) continue;
    auto reader = std::make_unique<detail::Params>(params, arrays, experiment.info.params, experiment.info.name);
    if (!reader->error() && experiment.budget) {
      if (auto error = experiment.budget(*reader)) reader->fail(*error);
    }
    if (reader->error()) return *reader->error();
    return PreparedExperiment(experiment, std::move(reader));
  }
  std::string known;
  for (const auto& experiment : registry()) known += (known.empty() ? "" : ", ") + experiment.info.name;
  return ArgumentError{"experiment", "unknown experiment '" + std::string(name) + "'; known: " + known};
}

std::variant<Json, ArgumentError> run_experiment(std::string_view name, const Json& params, const Progress& progress) {
  // Names the error: an unknown experiment, or params that are not an object.
  if (!params.is_object()) return std::get<ArgumentError>(prepare_experiment(name, params, {}));
  Json scalars = Json::object();
  std::vector<ArrayParam> arrays;
  std::vector<const Json*> contents;
  for (const auto& [key, value] : params.items()) {
    if (!value.is_array()) {
      scalars[key] = value;
      continue;
    }
    arrays.push_back({key, value.size()});
    contents.push_back(&value);
  }
  // Names and lengths first: an unknown key (even "") is refused as unknown before its items are read.
  auto prepared = prepare_experiment(name, scalars, arrays);
  if (auto* error = std::get_if<ArgumentError>(&prepared)) return *error;
  auto& experiment = std::get<PreparedExperiment>(prepared);
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const std::string& key = arrays[a].name;
    const bool single = experiment.is_single(a);
    for (std::size_t i = 0; i < arrays[a].length; ++i) {
      const Json& item = (*contents[a])[i];
      if (!item.is_number()) return ArgumentError{key, key + "[" + std::to_string(i) + "] must be a number"};
      const double x = item.get<double>();
      // Past float32's range a float32 buffer gets NaN, which run() refuses with the message x
      // would get (a cast would make it ±∞, and −∞ a mask).
      constexpr double kFloatMax = std::numeric_limits<float>::max();
      if (single) experiment.single_array(a)[i] = std::isfinite(x) && std::abs(x) > kFloatMax ? NAN : float(x);
      else experiment.array(a)[i] = x;
    }
  }
  return experiment.run(progress);
}

Json bulk(std::span<const float> values) { return bulk_of(values, BulkType::kFloat32); }
Json bulk(std::span<const double> values) { return bulk_of(values, BulkType::kFloat64); }
Json bulk(std::span<const std::uint8_t> values) { return bulk_of(values, BulkType::kUint8); }

Json plain_json(Json result) {
  if (result.is_binary()) {
    const auto& bytes = result.get_binary();
    switch (BulkType(bytes.subtype())) {
      case BulkType::kFloat32: return numbers_of<float>(bytes);
      case BulkType::kFloat64: return numbers_of<double>(bytes);
      case BulkType::kUint8: return numbers_of<std::uint8_t>(bytes);
    }
  }
  if (result.is_structured()) {
    for (auto& value : result) value = plain_json(std::move(value));
  }
  return result;
}

}  // namespace sampling_lab
