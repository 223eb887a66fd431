#include "params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sampling_lab/kernels.hpp"

namespace sampling_lab::detail {

namespace {

// The array spec of an array parameter (itself, or what an optional holds); null otherwise.
const ValueSpec* array_spec(const ValueSpec& spec) {
  if (spec.kind == Kind::kArray || spec.kind == Kind::kBitmask) return &spec;
  if (spec.kind == Kind::kOptional && spec.item->kind == Kind::kArray) return spec.item.get();
  return nullptr;
}

std::string known_names(const Schema& schema) {
  std::string names;
  for (const auto& param : schema) names += (names.empty() ? "" : ", ") + param.name;
  return names;
}

}  // namespace

Params::Params(Json given, std::span<const ArrayParam> arrays, const Schema& schema, std::string_view experiment)
    : given_(std::move(given)), schema_(schema) {
  if (auto error = validate(arrays, experiment)) fail(*error);
}

Check Params::validate(std::span<const ArrayParam> arrays, std::string_view experiment) {
  if (!given_.is_object()) return ArgumentError{"params", "params must be an object"};
  const auto unknown = [&](const std::string& key) {
    return ArgumentError{key.empty() ? "params" : key, "unknown parameter '" + key + "' for experiment '" +
                                                           std::string(experiment) + "'; it takes: " + known_names(schema_)};
  };
  const auto find = [&](std::string_view key) {
    return std::find_if(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == key; });
  };
  for (const auto& entry : given_.items()) {
    if (find(entry.key()) == schema_.end()) return unknown(entry.key());
  }
  double total = 0;
  for (const auto& [name, length] : arrays) {
    const auto param = find(name);
    if (param == schema_.end()) return unknown(name);
    if (given_.contains(name) || std::find(array_names_.begin(), array_names_.end(), name) != array_names_.end()) {
      return ArgumentError{name, name + " is given twice"};
    }
    const ValueSpec* spec = array_spec(param->value);
    if (spec == nullptr) {
      // The message a wrong kind of value gets.
      return check_value(param->value, Json::array(), name).value_or(ArgumentError{name, name + " is not an array"});
    }
    if (length < spec->min_length || length > spec->max_length) {
      return ArgumentError{name, name + " must be an array of " + std::to_string(spec->min_length) + " to " +
                                     std::to_string(spec->max_length) + " " + std::string(kind_name(spec->item->kind)) +
                                     " values, not " + std::to_string(length)};
    }
    array_names_.push_back(name);
    total += double(length);
  }
  for (const auto& param : schema_) {
    if (std::find(array_names_.begin(), array_names_.end(), param.name) != array_names_.end()) continue;
    if (auto error = check_value(param.value, value(param.name), param.name)) return error;
  }
  if (auto error = check_memory(std::size_t(total) * sizeof(double), arrays.empty() ? "params" : arrays.front().name)) {
    return error;
  }
  for (const auto& [name, length] : arrays) {
    ArrayValues values;
    values.single = array_spec(spec(name).value)->single;
    if (values.single) values.singles.resize(length);
    else values.doubles.resize(length);
    arrays_.push_back(std::move(values));
  }
  return std::nullopt;
}

void Params::check_arrays() {
  for (std::size_t a = 0; a < arrays_.size() && !error_; ++a) {
    const std::string& name = array_names_[a];
    const ValueSpec& item = *array_spec(spec(name).value)->item;
    // Numbers that are not integers: one closed interval and a finiteness test per value (both
    // fail for NaN), in a loop with no call, which code built for size keeps tight; a refused value
    // goes to check_scalar for its message. The call per value was a tenth of a filters experiment.
    const Range& range = item.range;
    const bool plain = item.kind != Kind::kSeed && item.kind != Kind::kInteger;
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const double low = range.min_open ? std::nextafter(range.min, kInfinity) : range.min;
    const double high = range.max_open ? std::nextafter(range.max, -kInfinity) : range.max;
    const auto check = [&](const auto* values, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) {
        const double x = values[i];
        if (plain ? x >= low && x <= high && x - x == 0.0 : accepts(x, item.kind, range)) continue;
        if (plain && range.masked && x == -kInfinity) continue;
        const auto error = check_scalar(x, item.kind, item.range, name + "[" + std::to_string(i) + "]");
        return fail({name, error->message});
      }
    };
    const ArrayValues& values = arrays_[a];
    if (!values.single) {
      check(values.doubles.data(), values.doubles.size());
      continue;
    }
    // float32 (logits, probabilities): one SIMD pass decides, where every value is finite.
    if (values.singles.empty()) continue;
    const auto extent = kernels::min_max(values.singles);
    if (plain && extent.finite && extent.min >= low && extent.max <= high) continue;
    check(values.singles.data(), values.singles.size());
  }
}

void Params::fail(ArgumentError error) {
  if (!error_) error_ = std::move(error);
}

const ParamSpec& Params::spec(std::string_view name) const {
  const auto found = std::find_if(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == name; });
  if (found == schema_.end()) std::abort();  // an experiment reads a parameter it never declared
  return *found;
}

const Json& Params::value(std::string_view name) const {
  const ParamSpec& param = spec(name);
  const auto found = given_.is_object() ? given_.find(param.name) : given_.end();
  return given_.is_object() && found != given_.end() ? *found : param.value.default_value;
}

const Params::ArrayValues* Params::bulk(std::string_view name) const {
  const auto found = std::find(array_names_.begin(), array_names_.end(), name);
  const auto index = std::size_t(found - array_names_.begin());
  return index < arrays_.size() ? &arrays_[index] : nullptr;
}

double Params::number(std::string_view name) const { return value(name).get<double>(); }

std::int64_t Params::integer(std::string_view name) const { return std::int64_t(value(name).get<double>()); }

std::uint64_t Params::seed(std::string_view name) const { return std::uint64_t(value(name).get<double>()); }

std::string Params::choice(std::string_view name) const { return value(name).get<std::string>(); }

std::vector<double> Params::numbers(std::string_view name) const {
  if (const auto* values = bulk(name)) {
    if (values->single) return {values->singles.begin(), values->singles.end()};
    return values->doubles;
  }
  const Json& list = value(name);
  if (list.is_null()) return {};
  std::vector<double> result;
  result.reserve(list.size());
  for (const auto& x : list) result.push_back(x.get<double>());
  return result;
}

std::vector<float> Params::floats(std::string_view name) const {
  if (const auto* values = bulk(name)) {
    if (values->single) return {values->singles.begin(), values->singles.end()};
    return {values->doubles.begin(), values->doubles.end()};
  }
  const auto list = numbers(name);
  return {list.begin(), list.end()};
}

std::span<const float> Params::floats(std::string_view name, std::vector<float>& storage) const {
  if (const auto* values = bulk(name); values && values->single) return values->singles;
  storage = floats(name);
  return storage;
}

std::size_t Params::length(std::string_view name) const {
  if (const auto* values = bulk(name)) return values->single ? values->singles.size() : values->doubles.size();
  const Json& list = value(name);
  return list.is_array() ? list.size() : 0;
}

bool Params::given(std::string_view name) const { return bulk(name) != nullptr || !value(name).is_null(); }

SamplingOptions Params::options() {
  Json scalars = Json::object();
  for (const OptionSpec& option : kOptionSpecs) {
    const bool in_schema = std::any_of(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == option.name; });
    if (in_schema && !is_id_list(option.kind) && option.kind != Kind::kNumberArray) {
      scalars[std::string(option.name)] = value(option.name);
    }
  }
  options_.emplace(scalars, [&](std::string_view name) {
    const bool in_schema = std::any_of(schema_.begin(), schema_.end(), [&](const ParamSpec& p) { return p.name == name; });
    return in_schema ? numbers(name) : std::vector<double>{};
  });
  // Every value was checked against the same table on construction and by check_arrays.
  return std::get<SamplingOptions>(options_->options());
}

}  // namespace sampling_lab::detail
