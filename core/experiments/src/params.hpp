#pragma once
// An experiment's JSON parameters, validated against its schema on construction: unknown keys,
// wrong kinds and out-of-range values become one ArgumentError. The typed getters then only
// convert; asking for a name the schema lacks is a programming error.
#include <array>
#include <optional>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sampling_lab/options.hpp"
#include "sampling_lab/schema.hpp"

namespace sampling_lab::detail {

class Params {
 public:
  Params(const Json& given, const Schema& schema, std::string_view experiment);

  double number(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  std::uint64_t seed(std::string_view name) const;
  std::string choice(std::string_view name) const;
  std::vector<double> numbers(std::string_view name) const;
  std::vector<float> floats(std::string_view name) const;
  bool given(std::string_view name) const;  // a non-null value (for optionals)

  // The sampler's options among the parameters; the rest keep their defaults. Lists point into
  // this object.
  SamplingOptions options();

  // Rejects the run; the first error wins.
  void fail(ArgumentError error);
  const Check& error() const { return error_; }

 private:
  const Json& value(std::string_view name) const;

  const Json& given_;
  const Schema& schema_;
  std::optional<JsonOptions> options_;
  Check error_;
};

}  // namespace sampling_lab::detail
