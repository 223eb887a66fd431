#pragma once
// The typed parameters of an experiment, each written once: name, kind, default, range,
// choices, documentation and the slider a widget shows for it. The parameter reader validates
// against it (one message per kind), the bindings publish it, the CLI parses flags by kind, the
// TypeScript types are generated from it and the widgets take their defaults and ranges from it.
#include <cstddef>
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/json.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/values.hpp"

namespace sampling_lab {

// The longest array any experiment takes (a vocabulary of up to a million tokens): every run
// within it, at its work budget, takes about two seconds at most and stays far inside memory.
inline constexpr std::size_t kMaxExperimentArray = std::size_t{1} << 20;

struct ValueSpec {
  Kind kind = Kind::kNumber;
  Json default_value;                     // null: the documented built-in of an optional
  Range range;                            // of a number, or of each element of an array
  std::vector<std::string> choices;       // kChoice
  std::shared_ptr<const ValueSpec> item;  // kArray: each element; kOptional: the value if given
  std::size_t min_length = 0;             // kArray
  std::size_t max_length = 0;
  bool single = false;                    // kArray of numbers held as float32 (logits, a sampler's p)
};

struct ParamSpec {
  std::string name;
  ValueSpec value;
  std::string doc;
  SliderHint slider = kNoSlider;
};

using Schema = std::vector<ParamSpec>;

ValueSpec number(double default_value, Range range);
ValueSpec integer(std::int64_t default_value, Range range);
ValueSpec seed();  // default 0
ValueSpec probability(double default_value, Range range = closed(0, 1));
ValueSpec choice(std::vector<std::string> choices);  // the first is the default
ValueSpec array(ValueSpec item, Json default_value, std::size_t min_length, std::size_t max_length);
ValueSpec optional(ValueSpec value);  // default null
// An array of numbers the experiment reads as float32: it crosses from JavaScript as float32.
ValueSpec single(ValueSpec array);

// The sampler's options of the given groups, as experiment parameters.
Schema option_params(std::initializer_list<OptionGroup> groups);

// Checks a value (given or default) against its spec; `name` labels the message.
Check check_value(const ValueSpec& spec, const Json& value, const std::string& name);

Json to_json(const ParamSpec& param);
Json to_json(const Schema& schema);

// The sampler's option table as the bindings publish it: each option's spec, its group and its
// slot (the index of its value among the scalar options, or among the id lists).
Json option_table_json();

// The stages `order` arranges: {"stages": names by index, "presets": {"handbook": […],
// "llama.cpp": […]}, "abbreviations": the widgets' label of each stage and of the masks, "masksCode": the
// filter_stages code of the masks}.
Json stage_table_json();

// Sampling options read from a JSON object of the scalar options, keyed by the table's public
// names ("topP", "xtc.probability"), and the lists `list(name)` gives (empty = none); absent
// names keep their defaults, null leaves an optional unset. The options' lists point into this
// object.
class JsonOptions {
 public:
  JsonOptions(const Json& scalars, const std::function<std::vector<double>(std::string_view)>& list);
  // Scalars and lists in one object (lists as JSON arrays of numbers).
  explicit JsonOptions(const Json& object);
  // Checked by kind and range (not yet against a vocabulary: see check_options).
  std::variant<SamplingOptions, ArgumentError> options() const;
  // The values as they cross from JavaScript, for options_from_raw: spans into this object.
  RawOptions raw() const;

 private:
  std::array<double, kScalarOptions> scalars_{};
  std::array<std::vector<std::int32_t>, kListOptions> lists_;
  std::array<std::vector<float>, kNumberListOptions> number_lists_;
  mutable std::array<std::span<const std::int32_t>, kListOptions> list_views_;
  mutable std::array<std::span<const float>, kNumberListOptions> number_list_views_;
};

}  // namespace sampling_lab
