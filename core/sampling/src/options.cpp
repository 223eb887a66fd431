#include "sampling_lab/options.hpp"

#include <string>

namespace sampling_lab {

namespace {

// Reads the next raw value of one option into its typed field, checking it first.
struct RawReader {
  RawOptions raw;
  std::size_t scalar = 0;
  std::size_t list = 0;

  template <typename Number>
  Check read(Number& field, Kind kind, const Range& range, std::string_view name) {
    const double value = raw.scalars[scalar++];
    if (auto error = check_scalar(value, kind, range, name)) return error;
    field = Number(value);
    return std::nullopt;
  }

  Check read(std::span<const std::int32_t>& field, Kind, const Range&, std::string_view) {
    field = raw.lists[list++];
    return std::nullopt;
  }
};

Check check_field(double value, Kind kind, const Range& range, std::string_view name, std::size_t) {
  return check_scalar(value, kind, range, name);
}

Check check_field(std::span<const std::int32_t> ids, Kind, const Range&, std::string_view name,
                  std::size_t vocabulary) {
  for (const std::int32_t id : ids) {
    if (id < 0 || std::size_t(id) >= vocabulary) {
      return ArgumentError{std::string(name), std::string(name) + " holds " + std::to_string(id) +
                                                  ", outside [0, " + std::to_string(vocabulary) + ")"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<SamplingOptions, ArgumentError> options_from_raw(RawOptions raw) {
  if (raw.scalars.size() != kScalarOptions) {
    return ArgumentError{"options", "expected " + std::to_string(kScalarOptions) + " option values"};
  }
  SamplingOptions options;
  RawReader reader{raw};
#define SAMPLING_LAB_READ(field, name, kind, group, default_value, range, slider, doc) \
  if (auto error = reader.read(options.field, Kind::kind, range, name)) return *error;
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_READ)
#undef SAMPLING_LAB_READ
  return options;
}

Check check_options(const SamplingOptions& options, std::size_t vocabulary) {
#define SAMPLING_LAB_CHECK(field, name, kind, group, default_value, range, slider, doc) \
  if (auto error = check_field(options.field, Kind::kind, range, name, vocabulary)) return error;
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_CHECK)
#undef SAMPLING_LAB_CHECK
  return std::nullopt;
}

}  // namespace sampling_lab
