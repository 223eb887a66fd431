// embind bindings: buffers in, results out. Validation and math live in core/.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/synthetic.hpp"

namespace {

using emscripten::val;
using sampling_lab::ArgumentError;
using sampling_lab::Check;
using sampling_lab::Json;

val error_value(const ArgumentError& error) {
  val details = val::object();
  details.set("argument", error.argument);
  details.set("message", error.message);
  val result = val::object();
  result.set("error", details);
  return result;
}

template <typename T>
val view_value(const char* name, std::vector<T>& values) {
  val out = val::object();
  out.set(name, val(emscripten::typed_memory_view(values.size(), values.data())));
  return out;
}

// Parameter names echo user input, which need not be valid UTF-8.
std::string to_text(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string error_json(const ArgumentError& error) {
  return to_text({{"error", {{"argument", error.argument}, {"message", error.message}}}});
}

// JS numbers that must be whole: counts, seeds, stream ids, steps.
Check check_whole(double value, const char* name, double min, double max) {
  if (!(value >= min && value <= max) || value != std::floor(value)) {
    return ArgumentError{name, std::string(name) + " must be an integer in [" +
                                   std::to_string(std::int64_t(min)) + ", " +
                                   std::to_string(std::int64_t(max)) + "]"};
  }
  return std::nullopt;
}

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 − 1

// Filter options and random key of one row, as the wrapper lays them out.
struct RowOptions {
  double temperature, top_k, top_p, min_p, repetition, presence, frequency, seed, stream, step;
};
constexpr std::size_t kRowFields = sizeof(RowOptions) / sizeof(double);

struct Row {
  sampling_lab::FilterParams params;
  sampling_lab::RandomKey key;
  std::uint64_t step;
};

std::variant<Row, ArgumentError> parse_row(const RowOptions& o,
                                            std::span<const std::int32_t> generated_ids,
                                            std::size_t vocabulary) {
  if (auto error = check_whole(o.top_k, "topK", 0, kMaxSafeInteger)) return *error;
  if (auto error = check_whole(o.seed, "seed", 0, kMaxSafeInteger)) return *error;
  if (auto error = check_whole(o.stream, "stream", 0, kMaxSafeInteger)) return *error;
  if (auto error = check_whole(o.step, "step", 0, kMaxSafeInteger)) return *error;
  Row row{{o.temperature, std::int64_t(o.top_k), o.top_p, o.min_p,
           {o.repetition, o.presence, o.frequency, generated_ids}},
          {std::uint64_t(o.seed), std::uint64_t(o.stream)},
          std::uint64_t(o.step)};
  if (auto error = sampling_lab::check_filter_params(row.params, vocabulary)) return *error;
  return row;
}

// One engine per module instance. The wrapper writes inputs straight into its buffers through
// typed-array views, so vocabulary-sized arrays cross the boundary with a single copy.
class Engine {
 public:
  // Views are detached by memory growth: the caller fills them before any other call.
  val floats(unsigned slot, std::size_t length) {
    auto& buffer = inputs_.at(slot);
    buffer.resize(length);
    return val(emscripten::typed_memory_view(buffer.size(), buffer.data()));
  }

  // Later calls read their logits from this input slot (2: the caller's resident buffer).
  void use(unsigned slot) { current_ = &inputs_.at(slot); }

  // Sizes the buffers for `vocabulary` tokens, so sampling then never grows memory (and never
  // detaches the caller's views).
  void reserve(std::size_t vocabulary) {
    for (auto& buffer : inputs_) buffer.reserve(vocabulary);
    output_.reserve(vocabulary);
    workspace_.reserve(vocabulary);
  }

  val log_sum_exp(double temperature) {
    const std::vector<float>& logits = *current_;
    if (auto error = sampling_lab::check_logits(logits, "logits")) return error_value(*error);
    if (!(temperature > 0.0) || !std::isfinite(temperature)) {
      return error_value({"temperature", "temperature must be a finite number > 0"});
    }
    val out = val::object();
    out.set("value", sampling_lab::log_sum_exp(logits, temperature));
    return out;
  }

  val ints(unsigned slot, std::size_t length) {
    auto& buffer = int_inputs_.at(slot);
    buffer.resize(length);
    return val(emscripten::typed_memory_view(buffer.size(), buffer.data()));
  }

  val doubles(std::size_t length) {
    double_input_.resize(length);
    return val(emscripten::typed_memory_view(double_input_.size(), double_input_.data()));
  }

  val distribution(double temperature, double top_k, double top_p, double min_p,
                   double repetition, double presence, double frequency) {
    const std::vector<float>& logits = *current_;
    if (auto error = sampling_lab::check_logits(logits, "logits")) return error_value(*error);
    const RowOptions options{temperature, top_k, top_p, min_p, repetition, presence, frequency, 0, 0, 0};
    auto row = parse_row(options, int_inputs_[0], logits.size());
    if (auto* error = std::get_if<ArgumentError>(&row)) return error_value(*error);
    output_.resize(logits.size());
    const auto result = sampling_lab::filter_distribution(logits, std::get<Row>(row).params,
                                                          output_, workspace_);
    val out = view_value("probs", output_);
    out.set("kept", double(result.kept));
    out.set("keptMass", result.kept_mass);
    out.set("entropyBits", result.entropy_bits);
    out.set("topProb", result.top_prob);
    return out;
  }

  val sample_token(double temperature, double top_k, double top_p, double min_p,
                   double repetition, double presence, double frequency, double seed,
                   double stream, double step) {
    const std::vector<float>& logits = *current_;
    if (auto error = sampling_lab::check_logits(logits, "logits")) return error_value(*error);
    const RowOptions options{temperature, top_k, top_p, min_p, repetition, presence, frequency, seed, stream, step};
    auto parsed = parse_row(options, int_inputs_[0], logits.size());
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return error_value(*error);
    const Row& row = std::get<Row>(parsed);
    val out = val::object();
    out.set("token", sampling_lab::sample_token(logits, row.params, row.key, row.step, workspace_));
    return out;
  }

  // Rows of logits in the current input; RowOptions per row in doubles(); generated ids of all rows in
  // ints(0), row r owning ints(0)[offsets[r] .. offsets[r + 1]) with offsets in ints(1).
  val sample_batch(double rows) {
    const std::vector<float>& logits = *current_;
    const auto& offsets = int_inputs_[1];
    if (auto error = check_whole(rows, "logitsRows", 1, double(sampling_lab::kMaxVocabulary))) {
      return error_value(*error);
    }
    const auto row_count = std::size_t(rows);
    if (logits.size() % row_count != 0) {
      return error_value({"logitsRows", "logitsRows must all have the same length"});
    }
    if (double_input_.size() != row_count * kRowFields || offsets.size() != row_count + 1) {
      return error_value({"paramsPerRow", "paramsPerRow must have one entry per row"});
    }
    const auto& ids = int_inputs_[0];
    for (std::size_t r = 0; r < row_count; ++r) {
      if (offsets[0] != 0 || offsets[r + 1] < offsets[r] || std::size_t(offsets[row_count]) != ids.size()) {
        return error_value({"paramsPerRow", "generatedIds offsets are inconsistent"});
      }
    }
    const std::size_t vocabulary = logits.size() / row_count;
    tokens_.resize(row_count);
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::span<const float> row_logits(logits.data() + r * vocabulary, vocabulary);
      if (auto error = sampling_lab::check_logits(row_logits, "logitsRows")) {
        return error_value({error->argument, "row " + std::to_string(r) + ": " + error->message});
      }
      RowOptions options;
      std::copy_n(double_input_.data() + r * kRowFields, kRowFields, &options.temperature);
      const std::span<const std::int32_t> row_ids(ids.data() + offsets[r],
                                                  std::size_t(offsets[r + 1] - offsets[r]));
      auto parsed = parse_row(options, row_ids, vocabulary);
      if (auto* error = std::get_if<ArgumentError>(&parsed)) {
        return error_value({error->argument, "row " + std::to_string(r) + ": " + error->message});
      }
      const Row& row = std::get<Row>(parsed);
      tokens_[r] = sampling_lab::sample_token(row_logits, row.params, row.key, row.step, workspace_);
    }
    return view_value("tokens", tokens_);
  }

  val sample(std::string method_name, double n, double seed, double stream, double temperature,
             bool is_probs) {
    const std::vector<float>& values = *current_;
    const auto method = sampling_lab::parse_method(method_name);
    if (!method) {
      return error_value({"method", "method must be inverse-cdf, gumbel-max, exponential-race or alias"});
    }
    if (auto error = check_whole(n, "n", 1, double(sampling_lab::kMaxSamples))) return error_value(*error);
    if (auto error = check_whole(seed, "seed", 0, kMaxSafeInteger)) return error_value(*error);
    if (auto error = check_whole(stream, "stream", 0, kMaxSafeInteger)) return error_value(*error);
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, "probs")
                              : sampling_lab::check_logits(values, "logits")) {
      return error_value(*error);
    }
    if (auto error = sampling_lab::check_temperature(temperature)) return error_value(*error);
    tokens_.resize(std::size_t(n));
    const sampling_lab::RandomKey key{std::uint64_t(seed), std::uint64_t(stream)};
    if (is_probs) {
      sampling_lab::sample_probs(values, *method, key, tokens_, workspace_);
    } else {
      sampling_lab::sample_logits(values, temperature, *method, key, tokens_, workspace_);
    }
    return view_value("draws", tokens_);
  }

  val random_words(double seed, double stream, double n) {
    if (auto error = check_whole(seed, "seed", 0, kMaxSafeInteger)) return error_value(*error);
    if (auto error = check_whole(stream, "stream", 0, kMaxSafeInteger)) return error_value(*error);
    if (auto error = check_whole(n, "n", 1, double(sampling_lab::kMaxSamples))) return error_value(*error);
    sampling_lab::Philox rng{std::uint64_t(seed), std::uint64_t(stream)};
    words_.resize(std::size_t(n));
    for (auto& word : words_) word = rng.next_u32();
    return view_value("words", words_);
  }

  val cover_count(double mass, double temperature, bool is_probs) {
    const std::vector<float>& values = *current_;
    const char* name = is_probs ? "probs" : "logits";
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, name)
                              : sampling_lab::check_logits(values, name)) {
      return error_value(*error);
    }
    if (auto error = sampling_lab::check_mass(mass, "mass")) return error_value(*error);
    if (auto error = sampling_lab::check_temperature(temperature)) return error_value(*error);
    const std::size_t count =
        is_probs ? sampling_lab::cover_count(values, mass, workspace_)
                 : sampling_lab::cover_count_logits(values, temperature, mass, workspace_);
    val out = val::object();
    out.set("count", double(count));
    return out;
  }

  val distance() {
    if (auto error = sampling_lab::check_distance_inputs(*current_, inputs_[1])) {
      return error_value(*error);
    }
    const auto d = sampling_lab::distances(*current_, inputs_[1]);
    val out = val::object();
    out.set("tv", d.tv);
    out.set("kl", d.kl);
    out.set("overlap", d.overlap);
    return out;
  }

  val ranking() {
    if (auto error = sampling_lab::check_logits(*current_, "values")) return error_value(*error);
    ranking_ = sampling_lab::ranking(*current_);
    return view_value("order", ranking_);
  }

  val synthetic_logits(double vocabulary, double seed) {
    if (auto error = check_whole(vocabulary, "vocabSize", 1, double(sampling_lab::kMaxVocabulary))) {
      return error_value(*error);
    }
    if (auto error = check_whole(seed, "seed", 0, kMaxSafeInteger)) return error_value(*error);
    output_ = sampling_lab::synthetic_logits(std::size_t(vocabulary), std::uint64_t(seed));
    return view_value("logits", output_);
  }

 private:
  std::array<std::vector<float>, 3> inputs_;
  const std::vector<float>* current_ = &inputs_[0];
  std::array<std::vector<std::int32_t>, 2> int_inputs_;
  std::vector<double> double_input_;
  std::vector<float> output_;
  std::vector<std::int32_t> tokens_;
  std::vector<std::uint32_t> ranking_;
  std::vector<std::uint32_t> words_;
  sampling_lab::Workspace workspace_;
};

// JSON text in and out: the same contract the CLI prints and the tests read. `on_progress`
// (a function or undefined) hears the fraction done of long runs.
std::string run_experiment(const std::string& name, const std::string& params_text,
                           val on_progress) {
  const Json params = Json::parse(params_text, nullptr, /*allow_exceptions=*/false);
  if (params.is_discarded()) return error_json({"params", "params is not valid JSON"});
  sampling_lab::Progress progress;
  if (on_progress.typeOf().as<std::string>() == "function") {
    progress = [&on_progress](double fraction) { on_progress(fraction); };
  }
  auto outcome = sampling_lab::run_experiment(name, params, progress);
  if (auto* error = std::get_if<ArgumentError>(&outcome)) return error_json(*error);
  return to_text({{"result", std::get<Json>(outcome)}});
}

std::string list_experiments() {
  Json list = Json::array();
  for (const auto& info : sampling_lab::experiments()) {
    list.push_back({{"name", info.name}, {"summary", info.summary}, {"defaults", info.defaults}});
  }
  return to_text(list);
}

}  // namespace

EMSCRIPTEN_BINDINGS(sampling_lab) {
  emscripten::class_<Engine>("Engine")
      .constructor<>()
      .function("floats", &Engine::floats)
      .function("ints", &Engine::ints)
      .function("use", &Engine::use)
      .function("reserve", &Engine::reserve)
      .function("logSumExp", &Engine::log_sum_exp)
      .function("doubles", &Engine::doubles)
      .function("distribution", &Engine::distribution)
      .function("sampleToken", &Engine::sample_token)
      .function("sampleBatch", &Engine::sample_batch)
      .function("sample", &Engine::sample)
      .function("randomWords", &Engine::random_words)
      .function("coverCount", &Engine::cover_count)
      .function("distance", &Engine::distance)
      .function("ranking", &Engine::ranking)
      .function("syntheticLogits", &Engine::synthetic_logits);
  emscripten::function("runExperiment", &run_experiment);
  emscripten::function("listExperiments", &list_experiments);
  emscripten::constant("maxVocabulary", double(sampling_lab::kMaxVocabulary));
  emscripten::constant("rowFields", double(kRowFields));
}
