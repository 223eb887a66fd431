#include "sampling_lab/options.hpp"

#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace sampling_lab {

namespace {

// Reads the next raw value of one option into its typed field, checking it first. After an
// error the reads only advance: the first error is the one kept, and no call site handles one.
struct RawReader {
  explicit RawReader(RawOptions options) : raw(options) {}

  RawOptions raw;
  std::size_t scalar = 0;
  std::size_t list = 0;
  std::size_t number_list = 0;
  Check error;

  template <typename Number>
  void read(Number& field, Kind kind, const Range& range, std::string_view name) {
    const double value = raw.scalars[scalar++];
    if (error) return;
    error = check_scalar(value, kind, range, name);
    if (!error) field = Number(value);
  }

  // An unset optional crosses as NaN.
  void read(std::optional<double>& field, Kind, const Range& range, std::string_view name) {
    const double value = raw.scalars[scalar++];
    if (error || std::isnan(value)) return;
    error = check_scalar(value, Kind::kNumber, range, name);
    if (!error) field = value;
  }

  void read(std::span<const std::int32_t>& field, Kind, const Range&, std::string_view) { field = raw.lists[list++]; }

  // A bitmask's words cross among the id lists, as int32 bit patterns.
  void read(std::span<const std::uint32_t>& field, Kind, const Range&, std::string_view) {
    const auto words = raw.lists[list++];
    field = {reinterpret_cast<const std::uint32_t*>(words.data()), words.size()};
  }

  void read(std::span<const float>& field, Kind, const Range&, std::string_view) { field = raw.number_lists[number_list++]; }
};

Check check_field(double value, Kind kind, const Range& range, std::string_view name, std::size_t) {
  return check_scalar(value, kind, range, name);
}

Check check_field(std::optional<double> value, Kind, const Range& range, std::string_view name, std::size_t) {
  return value ? check_scalar(*value, Kind::kNumber, range, name) : std::nullopt;
}

// Token ids lie inside the vocabulary; other lists (the stage order) inside their range.
Check check_field(std::span<const std::int32_t> ids, Kind, const Range& range, std::string_view name,
                  std::size_t vocabulary) {
  const bool tokens = range.max == kTokenIds.max;
  const double end = tokens ? double(vocabulary) : range.max + 1;
  for (const std::int32_t id : ids) {
    if (id < 0 || double(id) >= end) {
      return ArgumentError{std::string(name), std::string(name) + " holds " + std::to_string(id) + ", outside [0, " +
                                                  std::to_string(std::int64_t(end)) + ")"};
    }
  }
  return std::nullopt;
}

Check check_field(std::span<const float> values, Kind, const Range& range, std::string_view name, std::size_t) {
  for (const float value : values) {
    if (accepts(value, Kind::kNumber, range)) continue;
    const auto error = check_scalar(value, Kind::kNumber, range, std::string(name) + " entry");
    return ArgumentError{std::string(name), error->message};
  }
  return std::nullopt;
}

Check check_mask_length(std::size_t words, std::string_view name, std::size_t vocabulary) {
  if (words == 0 || words == mask_words(vocabulary)) return std::nullopt;
  return ArgumentError{std::string(name), std::string(name) + " has " + std::to_string(words) + " words; " +
                                              std::to_string(vocabulary) + " tokens need " + std::to_string(mask_words(vocabulary))};
}

Check check_bias_lengths(std::size_t ids, std::size_t values) {
  if (ids == values) return std::nullopt;
  return ArgumentError{"logitBias", "logitBias has " + std::to_string(ids) + " ids and " + std::to_string(values) + " values"};
}

// A mask is ceil(V / 32) words (bits past V are not read) and allows some token.
Check check_field(std::span<const std::uint32_t> mask, Kind, const Range&, std::string_view name, std::size_t vocabulary) {
  if (mask.empty()) return std::nullopt;
  if (auto error = check_mask_length(mask.size(), name, vocabulary)) return error;
  if (kernels::mask_count(mask, vocabulary) == 0) {
    return ArgumentError{std::string(name), std::string(name) + " allows no token (every bit is 0)"};
  }
  return std::nullopt;
}

bool mask_allows(std::span<const std::uint32_t> mask, std::int32_t id) {
  return mask.empty() || (mask[std::size_t(id) / 32] >> (std::size_t(id) % 32) & 1u) != 0;
}

bool contains(std::span<const std::int32_t> ids, std::int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

Check check_masks(const SamplingOptions& options, std::size_t vocabulary) {
  const auto& mask = options.allowed_mask;
  // A mask alone allows some token (checked with it); with a list, the tokens both allow.
  if (options.allowed_tokens.empty() && options.banned_tokens.empty()) return std::nullopt;
  const bool some_allowed_left = options.allowed_tokens.empty()
      ? (mask.empty() && options.banned_tokens.size() < vocabulary) ||
            [&] {
              std::vector<bool> banned(vocabulary);
              for (const auto id : options.banned_tokens) banned[std::size_t(id)] = true;
              for (std::size_t id = 0; id < vocabulary; ++id) {
                if (!banned[id] && mask_allows(mask, std::int32_t(id))) return true;
              }
              return false;
            }()
      : std::any_of(options.allowed_tokens.begin(), options.allowed_tokens.end(), [&](std::int32_t id) {
          return mask_allows(mask, id) && !contains(options.banned_tokens, id);
        });
  if (some_allowed_left) return std::nullopt;
  return ArgumentError{options.banned_tokens.empty() ? "allowedTokens" : "bannedTokens",
                       "allowedTokens, allowedMask and bannedTokens leave no token to draw"};
}

Check check_order(const SamplingOptions& options) {
  if (options.order.empty()) return std::nullopt;
  std::array<bool, kStageCount> listed{};
  for (const std::int32_t stage : options.order) {
    if (listed[std::size_t(stage)]) {
      return ArgumentError{"order", "order names " + std::string(kStageNames[stage]) + " twice"};
    }
    listed[std::size_t(stage)] = true;
  }
  for (std::size_t stage = 0; stage < kStageCount; ++stage) {
    if (!listed[stage] && stage_on(Stage(stage), options)) {
      return ArgumentError{"order", "order leaves out " + std::string(kStageNames[stage]) + ", which is on"};
    }
  }
  // The stage that samples comes last (adaptive-p after mirostat, as both cannot be on).
  const auto tail = options.order.back() == std::int32_t(Stage::kAdaptiveP) && options.order.size() > 1
      ? options.order[options.order.size() - 2] : options.order.back();
  if (listed[std::size_t(Stage::kAdaptiveP)] && Stage(options.order.back()) != Stage::kAdaptiveP) {
    return ArgumentError{"order", "adaptiveP samples the token, so it must be the last stage of order"};
  }
  if (listed[std::size_t(Stage::kMirostat)] && Stage(tail) != Stage::kMirostat) {
    return ArgumentError{"order", "mirostat samples the token, so it must be the last stage of order"};
  }
  return std::nullopt;
}

// check_field's error into `error`, unless it already holds one: the first error is kept, and no
// call site handles one.
template <typename Value>
void check_unless_failed(Check& error, const Value& value, Kind kind, const Range& range, std::string_view name,
                         std::size_t vocabulary) {
  if (!error) error = check_field(value, kind, range, name, vocabulary);
}

Check check_bad_word_count(std::size_t ids) {
  if (ids <= kMaxBadWordIds) return std::nullopt;
  return ArgumentError{"badWords", "badWords holds " + std::to_string(ids) + " ids, more than " + std::to_string(kMaxBadWordIds)};
}

// Transformers' bad_words_ids: sequences of ids, none empty.
Check check_bad_words(const SamplingOptions& options) {
  const auto lengths = options.bad_words_lengths;
  if (auto error = check_bad_word_count(options.bad_words_ids.size())) return error;
  std::size_t total = 0;
  for (const std::int32_t length : lengths) {
    if (length == 0) return ArgumentError{"badWords", "badWords holds an empty sequence"};
    total += std::size_t(length);
  }
  if (total != options.bad_words_ids.size()) {
    return ArgumentError{"badWords", "badWords' lengths add up to " + std::to_string(total) + ", not its " +
                                         std::to_string(options.bad_words_ids.size()) + " ids"};
  }
  return std::nullopt;
}

}  // namespace

std::variant<SamplingOptions, ArgumentError> options_from_raw(RawOptions raw) {
  if (raw.scalars.size() != kScalarOptions) {
    return ArgumentError{"options", "expected " + std::to_string(kScalarOptions) + " option values"};
  }
  SamplingOptions options;
  RawReader reader(raw);
#define SAMPLING_LAB_READ(field, name, kind, group, default_value, range, slider, doc) \
  reader.read(options.field, Kind::kind, range, name);
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_READ)
#undef SAMPLING_LAB_READ
  if (reader.error) return std::move(*reader.error);
  return options;
}

Check check_options(const SamplingOptions& options, std::size_t vocabulary) {
  Check error;
#define SAMPLING_LAB_CHECK(field, name, kind, group, default_value, range, slider, doc) \
  check_unless_failed(error, options.field, Kind::kind, range, name, vocabulary);
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_CHECK)
#undef SAMPLING_LAB_CHECK
  if (error) return error;
  if (auto error = check_bias_lengths(options.logit_bias_ids.size(), options.logit_bias_values.size())) return error;
  if (auto error = check_bad_words(options)) return error;
  if (auto error = check_masks(options, vocabulary)) return error;
  if (auto error = check_bans_leave_a_token(options, vocabulary)) return error;
  if (stage_on(Stage::kMirostat, options) && stage_on(Stage::kAdaptiveP, options)) {
    return ArgumentError{"adaptiveP", "adaptiveP and mirostat both sample the token: use one"};
  }
  return check_order(options);
}

Check check_option_lengths(std::size_t bias_ids, std::size_t bias_values, std::size_t mask_words, std::size_t bad_word_ids,
                           std::size_t vocabulary) {
  if (auto error = check_bias_lengths(bias_ids, bias_values)) return error;
  if (auto error = check_bad_word_count(bad_word_ids)) return error;
  return check_mask_length(mask_words, "allowedMask", vocabulary);
}

StageOrder stage_order(const SamplingOptions& options) {
  StageOrder order;
  if (options.order.empty()) {
    std::copy(std::begin(kHandbookOrder), std::end(kHandbookOrder), order.stages.begin());
    order.size = std::size(kHandbookOrder);
    return order;
  }
  for (const std::int32_t stage : options.order) order.stages[order.size++] = Stage(stage);  // checked < kStageCount
  return order;
}

bool stage_on(Stage stage, const SamplingOptions& options) { return kStageSpecs[std::size_t(stage)].on(options); }

}  // namespace sampling_lab
