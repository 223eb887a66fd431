#pragma once
// An experiment's parameters, validated against its schema: unknown keys, wrong kinds,
// out-of-range values and array lengths become one ArgumentError. Array parameters arrive apart
// from the JSON ones, as numbers written into buffers that are sized (after their lengths are
// checked) before they are filled; their values are checked by check_arrays(). The typed getters
// then only convert; asking for a name the schema lacks is a programming error.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sampling_lab/experiments.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/schema.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab::detail {

class Params {
 public:
  // `given` holds the JSON parameters (no arrays); `arrays` names the array parameters and their
  // lengths.
  Params(Json given, std::span<const ArrayParam> arrays, const Schema& schema, std::string_view experiment);

  // The buffer of the index-th array of the constructor's list, to be filled by the caller:
  // float32 where the schema says so, else double.
  bool is_single(std::size_t index) const { return arrays_[index].single; }
  std::span<float> single_array(std::size_t index) { return arrays_[index].singles; }
  std::span<double> array(std::size_t index) { return arrays_[index].doubles; }
  // Each array's values against its item kind and range.
  void check_arrays();

  double number(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  std::uint64_t seed(std::string_view name) const;
  std::string choice(std::string_view name) const;
  std::vector<double> numbers(std::string_view name) const;
  std::vector<float> floats(std::string_view name) const;
  // The same without a copy where the array crossed as float32; else floats(name), in `storage`.
  std::span<const float> floats(std::string_view name, std::vector<float>& storage) const;
  // Entries of an array parameter, given or default (0 for an unset optional); known before the
  // arrays are filled, for work budgets.
  std::size_t length(std::string_view name) const;
  bool given(std::string_view name) const;  // a non-null value (for optionals)

  // The sampler's options among the parameters; the rest keep their defaults. Lists point into
  // this object.
  SamplingOptions options();

  // Rejects the run; the first error wins.
  void fail(ArgumentError error);
  const Check& error() const { return error_; }

 private:
  // Every check the JSON parameters and the arrays' lengths allow; sizes the arrays' buffers.
  Check validate(std::span<const ArrayParam> arrays, std::string_view experiment);
  const ParamSpec& spec(std::string_view name) const;
  const Json& value(std::string_view name) const;  // given or default; not the arrays
  // An array parameter's buffer, in one of two widths.
  struct ArrayValues {
    bool single = false;
    std::vector<double> doubles;
    Buffer<float> singles;  // written whole by the caller before it is read
  };
  const ArrayValues* bulk(std::string_view name) const;

  Json given_;
  const Schema& schema_;
  std::vector<std::string> array_names_;
  std::vector<ArrayValues> arrays_;
  std::optional<JsonOptions> options_;
  Check error_;
};

}  // namespace sampling_lab::detail
