#include "params.hpp"

#include <algorithm>
#include <cstdlib>

namespace sampling_lab::detail {

Params::Params(const Json& given, const Schema& schema, std::string_view experiment)
    : given_(given), schema_(schema) {
  if (!given_.is_object()) {
    fail({"params", "params must be an object"});
    return;
  }
  for (const auto& entry : given_.items()) {
    const std::string& key = entry.key();
    const bool known = std::any_of(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == key; });
    if (!known) {
      std::string names;
      for (const auto& param : schema_) names += (names.empty() ? "" : ", ") + param.name;
      fail({key.empty() ? "params" : key, "unknown parameter '" + key + "' for experiment '" +
                                             std::string(experiment) + "'; it takes: " + names});
      return;
    }
  }
  for (const auto& param : schema_) {
    if (auto error = check_value(param.value, value(param.name), param.name)) {
      fail(*error);
      return;
    }
  }
}

void Params::fail(ArgumentError error) {
  if (!error_) error_ = std::move(error);
}

const Json& Params::value(std::string_view name) const {
  const auto spec = std::find_if(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == name; });
  if (spec == schema_.end()) std::abort();  // an experiment reads a parameter it never declared
  const auto found = given_.is_object() ? given_.find(spec->name) : given_.end();
  return given_.is_object() && found != given_.end() ? *found : spec->value.default_value;
}

double Params::number(std::string_view name) const { return value(name).get<double>(); }

std::int64_t Params::integer(std::string_view name) const { return std::int64_t(value(name).get<double>()); }

std::uint64_t Params::seed(std::string_view name) const { return std::uint64_t(value(name).get<double>()); }

std::string Params::choice(std::string_view name) const { return value(name).get<std::string>(); }

std::vector<double> Params::numbers(std::string_view name) const {
  const Json& list = value(name);
  if (list.is_null()) return {};
  std::vector<double> result;
  result.reserve(list.size());
  for (const auto& x : list) result.push_back(x.get<double>());
  return result;
}

std::vector<float> Params::floats(std::string_view name) const {
  const auto list = numbers(name);
  return {list.begin(), list.end()};
}

bool Params::given(std::string_view name) const { return !value(name).is_null(); }

SamplingOptions Params::options() {
  Json declared = Json::object();
  for (const OptionSpec& option : kOptionSpecs) {
    const bool in_schema = std::any_of(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == option.name; });
    if (in_schema) declared[std::string(option.name)] = value(option.name);
  }
  options_.emplace(declared);
  // Every value was checked against the same table on construction.
  return std::get<SamplingOptions>(options_->options());
}

}  // namespace sampling_lab::detail
