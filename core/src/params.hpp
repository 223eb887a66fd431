#pragma once
// Reads an experiment's JSON parameters against its defaults, remembering the first error.
#include <optional>
#include <string>
#include <vector>

#include "sampling_lab/experiments.hpp"

namespace sampling_lab::detail {

class ParamReader {
 public:
  ParamReader(const Json& params, const Json& defaults, const std::string& experiment);

  double number(const std::string& key);
  std::int64_t integer(const std::string& key);
  std::vector<double> numbers(const std::string& key);
  // Empty when the value (or its default) is null.
  std::vector<float> floats(const std::string& key);
  std::vector<double> numbers_or_empty(const std::string& key);
  bool is_null(const std::string& key) const { return value(key).is_null(); }
  // One of `choices`.
  std::string choice(const std::string& key, std::initializer_list<const char*> choices);

  void fail(ArgumentError error);
  const Check& error() const { return error_; }

 private:
  const Json& value(const std::string& key) const;
  std::optional<double> as_number(const Json& value, const std::string& key,
                                  const std::string& label);

  const Json& params_;
  const Json& defaults_;
  Check error_;
};

}  // namespace sampling_lab::detail
