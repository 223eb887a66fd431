#include "params.hpp"

#include <cmath>

namespace sampling_lab::detail {

ParamReader::ParamReader(const Json& params, const Json& defaults, const std::string& experiment)
    : params_(params), defaults_(defaults) {
  if (!params_.is_object()) {
    fail({"params", "params must be an object"});
    return;
  }
  for (const auto& [key, unused] : params_.items()) {
    if (!defaults_.contains(key)) {
      std::string known;
      for (const auto& [name, default_value] : defaults_.items()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      fail({key, "unknown parameter '" + key + "' for experiment '" + experiment +
                     "'; it takes: " + known});
      return;
    }
  }
}

void ParamReader::fail(ArgumentError error) {
  if (!error_) error_ = std::move(error);
}

const Json& ParamReader::value(const std::string& key) const {
  const auto given = params_.is_object() ? params_.find(key) : params_.end();
  return params_.is_object() && given != params_.end() ? *given : defaults_.at(key);
}

std::optional<double> ParamReader::as_number(const Json& value, const std::string& key,
                                             const std::string& label) {
  const double number = value.is_number() ? value.get<double>() : NAN;
  if (!std::isfinite(number)) {
    fail({key, label + " must be a finite number"});
    return std::nullopt;
  }
  return number;
}

double ParamReader::number(const std::string& key) {
  return as_number(value(key), key, key).value_or(0.0);
}

std::int64_t ParamReader::integer(const std::string& key) {
  const auto number = as_number(value(key), key, key);
  if (!number) return 0;
  if (*number != std::floor(*number) || std::abs(*number) > 9.0e15) {
    fail({key, key + " must be an integer"});
    return 0;
  }
  return std::int64_t(*number);
}

std::vector<double> ParamReader::numbers(const std::string& key) {
  const Json& list = value(key);
  std::vector<double> result;
  if (!list.is_array()) {
    fail({key, key + " must be an array of numbers"});
    return result;
  }
  if (list.size() > kMaxVocabulary) {
    fail({key, key + " has more than " + std::to_string(kMaxVocabulary) + " entries"});
    return result;
  }
  result.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto number = as_number(list[i], key, key + "[" + std::to_string(i) + "]");
    if (!number) return {};
    result.push_back(*number);
  }
  return result;
}

std::vector<double> ParamReader::numbers_or_empty(const std::string& key) {
  return value(key).is_null() ? std::vector<double>{} : numbers(key);
}

std::string ParamReader::choice(const std::string& key, std::initializer_list<const char*> choices) {
  const Json& given = value(key);
  std::string known;
  for (const char* option : choices) {
    if (given.is_string() && given.get<std::string>() == option) return option;
    known += (known.empty() ? "" : ", ") + std::string(option);
  }
  fail({key, key + " must be one of: " + known});
  return *choices.begin();
}

std::vector<float> ParamReader::floats(const std::string& key) {
  if (value(key).is_null()) return {};
  const auto list = numbers(key);
  return {list.begin(), list.end()};
}

}  // namespace sampling_lab::detail
