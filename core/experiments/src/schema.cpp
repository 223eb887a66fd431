#include "sampling_lab/schema.hpp"

#include <algorithm>
#include <cmath>

#include "sampling_lab/filters.hpp"

namespace sampling_lab {

namespace {
ValueSpec value_of(Kind kind, Json default_value, Range range = {}) {
  ValueSpec spec;
  spec.kind = kind;
  spec.default_value = std::move(default_value);
  spec.range = range;
  return spec;
}
}  // namespace

ValueSpec number(double default_value, Range range) { return value_of(Kind::kNumber, default_value, range); }

ValueSpec integer(std::int64_t default_value, Range range) { return value_of(Kind::kInteger, default_value, range); }

ValueSpec seed() { return value_of(Kind::kSeed, 0, closed(0, kMaxSeed)); }

ValueSpec probability(double default_value, Range range) {
  return value_of(Kind::kProbability, default_value, range);
}

ValueSpec choice(std::vector<std::string> choices) {
  ValueSpec spec = value_of(Kind::kChoice, choices.front());
  spec.choices = std::move(choices);
  return spec;
}

ValueSpec array(ValueSpec item, Json default_value, std::size_t min_length, std::size_t max_length) {
  ValueSpec spec = value_of(Kind::kArray, std::move(default_value));
  spec.item = std::make_shared<const ValueSpec>(std::move(item));
  spec.min_length = min_length;
  spec.max_length = max_length;
  return spec;
}

ValueSpec single(ValueSpec array) {
  array.single = true;
  return array;
}

ValueSpec optional(ValueSpec value) {
  ValueSpec spec = value_of(Kind::kOptional, nullptr);
  spec.item = std::make_shared<const ValueSpec>(std::move(value));
  return spec;
}

namespace {
// An array of 32-bit words published as a bitmask.
ValueSpec bitmask(ValueSpec words) {
  words.kind = Kind::kBitmask;
  return words;
}

ParamSpec option_param(const OptionSpec& option) {
  // Token-id lists hold up to a vocabulary; the stage order names each stage at most once.
  const bool tokens = option.kind != Kind::kArray || option.range.max == kTokenIds.max;
  const std::size_t max_ids = tokens ? kMaxVocabulary : std::size_t(option.range.max) + 1;
  const ValueSpec value = option.kind == Kind::kArray        ? array(integer(0, option.range), Json::array(), 0, max_ids)
                          : option.kind == Kind::kBitmask     ? bitmask(array(integer(0, option.range), Json::array(), 0, kMaxMaskWords))
                          : option.kind == Kind::kNumberArray ? array(number(0, option.range), Json::array(), 0, kMaxVocabulary)
                          : option.kind == Kind::kOptional    ? optional(number(0, option.range))
                                                              : value_of(option.kind, option.default_value, option.range);
  return {std::string(option.name), value, std::string(option.doc), option.slider};
}
}  // namespace

Schema option_params(std::initializer_list<OptionGroup> groups) {
  Schema params;
  for (const OptionSpec& option : kOptionSpecs) {
    if (std::find(groups.begin(), groups.end(), option.group) == groups.end()) continue;
    ParamSpec param = option_param(option);
    param.value.max_length = std::min(param.value.max_length, kMaxExperimentArray);
    params.push_back(std::move(param));
  }
  return params;
}

Check check_value(const ValueSpec& spec, const Json& value, const std::string& name) {
  switch (spec.kind) {
    case Kind::kChoice: {
      std::string known;
      for (const auto& option : spec.choices) {
        if (value.is_string() && value.get<std::string>() == option) return std::nullopt;
        known += (known.empty() ? "" : ", ") + option;
      }
      return ArgumentError{name, name + " must be one of: " + known};
    }
    case Kind::kOptional:
      return value.is_null() ? std::nullopt : check_value(*spec.item, value, name);
    case Kind::kArray:
    case Kind::kBitmask: {
      if (!value.is_array() || value.size() < spec.min_length || value.size() > spec.max_length) {
        return ArgumentError{name, name + " must be an array of " + std::to_string(spec.min_length) +
                                       " to " + std::to_string(spec.max_length) + " " +
                                       std::string(kind_name(spec.item->kind)) + " values"};
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (auto error = check_value(*spec.item, value[i], name + "[" + std::to_string(i) + "]")) {
          return ArgumentError{name, error->message};
        }
      }
      return std::nullopt;
    }
    default:
      return check_scalar(value.is_number() ? value.get<double>() : NAN, spec.kind, spec.range, name);
  }
}

namespace {

Json value_json(const ValueSpec& spec) {
  Json json = {{"kind", kind_name(spec.kind)}, {"default", spec.default_value}};
  const bool numeric = spec.kind == Kind::kNumber || spec.kind == Kind::kInteger ||
                       spec.kind == Kind::kSeed || spec.kind == Kind::kProbability;
  if (numeric) {
    // JSON has no infinity: an unbounded end is left out.
    if (std::isfinite(spec.range.min)) json["min"] = spec.range.min;
    if (std::isfinite(spec.range.max)) json["max"] = spec.range.max;
    if (spec.range.min_open) json["minExclusive"] = true;
    if (spec.range.max_open) json["maxExclusive"] = true;
  }
  if (spec.kind == Kind::kChoice) json["choices"] = spec.choices;
  if (spec.kind == Kind::kArray || spec.kind == Kind::kBitmask) {
    json["items"] = value_json(*spec.item);
    json["items"].erase("default");
    json["minLength"] = spec.min_length;
    json["maxLength"] = spec.max_length;
  }
  if (spec.kind == Kind::kOptional) {
    json["of"] = value_json(*spec.item);
    json["of"].erase("default");
  }
  return json;
}

}  // namespace

Json to_json(const ParamSpec& param) {
  Json json = {{"name", param.name}};
  json.update(value_json(param.value));
  json["doc"] = param.doc;
  if (param.slider.step > 0) {
    json["slider"] = {{"min", param.slider.min}, {"max", param.slider.max}, {"step", param.slider.step}};
  }
  return json;
}

Json to_json(const Schema& schema) {
  Json list = Json::array();
  for (const auto& param : schema) list.push_back(to_json(param));
  return list;
}

Json option_table_json() {
  constexpr const char* kGroups[] = {"filter", "mask", "history", "randomKey"};
  Json table = Json::array();
  std::size_t scalar = 0;
  std::size_t list = 0;
  std::size_t number_list = 0;
  for (const OptionSpec& option : kOptionSpecs) {
    Json json = to_json(option_param(option));
    json["group"] = kGroups[int(option.group)];
    json["slot"] = is_id_list(option.kind) ? list++ : option.kind == Kind::kNumberArray ? number_list++ : scalar++;
    table.push_back(std::move(json));
  }
  return table;
}

Json stage_table_json() {
  const auto names = [](std::span<const Stage> order) {
    Json list = Json::array();
    for (const Stage stage : order) list.push_back(kStageNames[std::size_t(stage)]);
    return list;
  };
  Json stages = Json::array();
  Json abbreviations = Json::object();
  for (const auto& stage : kStageSpecs) {
    stages.push_back(stage.name);
    abbreviations[std::string(stage.name)] = stage.abbreviation;
  }
  abbreviations["masks"] = "∅";
  return {{"stages", stages},
          {"presets", {{"handbook", names(kHandbookOrder)}, {"llama.cpp", names(kLlamaCppOrder)}}},
          {"abbreviations", abbreviations},
          {"masksCode", kMasksCode}};
}

JsonOptions::JsonOptions(const Json& scalars, const std::function<std::vector<double>(std::string_view)>& list) {
  std::size_t scalar = 0, id_list = 0, number_list = 0;
  for (const OptionSpec& option : kOptionSpecs) {
    if (option.kind == Kind::kArray) {
      const auto values = list(option.name);
      lists_[id_list++].assign(values.begin(), values.end());  // whole numbers, checked in range
    } else if (option.kind == Kind::kBitmask) {
      // Words in [−2^31, 2^32 − 1]: a negative one is the int32 reading of the same bits.
      auto& words = lists_[id_list++];
      words.clear();
      for (const double word : list(option.name)) words.push_back(std::int32_t(std::uint32_t(std::int64_t(word))));
    } else if (option.kind == Kind::kNumberArray) {
      const auto values = list(option.name);
      number_lists_[number_list++].assign(values.begin(), values.end());
    } else {
      const auto given = scalars.find(std::string(option.name));
      const bool present = given != scalars.end() && !given->is_null();
      scalars_[scalar++] = present ? given->get<double>() : option.kind == Kind::kOptional ? std::nan("") : option.default_value;
    }
  }
}

JsonOptions::JsonOptions(const Json& object)
    : JsonOptions(object, [&](std::string_view name) {
        const auto list = object.find(std::string(name));
        return list != object.end() && list->is_array() ? list->get<std::vector<double>>() : std::vector<double>{};
      }) {}

std::variant<SamplingOptions, ArgumentError> JsonOptions::options() const { return options_from_raw(raw()); }

RawOptions JsonOptions::raw() const {
  for (std::size_t l = 0; l < kListOptions; ++l) list_views_[l] = lists_[l];
  for (std::size_t l = 0; l < kNumberListOptions; ++l) number_list_views_[l] = number_lists_[l];
  return {scalars_, list_views_, number_list_views_};
}

}  // namespace sampling_lab
