// embind bindings: buffers in, results out. Validation and math live in core/.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <vector>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/synthetic.hpp"

namespace {

using emscripten::val;
using sampling_lab::ArgumentError;
using sampling_lab::Json;

val error_value(const ArgumentError& error) {
  val details = val::object();
  details.set("argument", error.argument);
  details.set("message", error.message);
  val result = val::object();
  result.set("error", details);
  return result;
}

// Parameter names echo user input, which need not be valid UTF-8.
std::string to_text(const Json& json) { return json.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string error_json(const ArgumentError& error) {
  return to_text({{"error", {{"argument", error.argument}, {"message", error.message}}}});
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

  val ids(std::size_t length) {
    ids_.resize(length);
    return val(emscripten::typed_memory_view(ids_.size(), ids_.data()));
  }

  val distribution(double temperature, double top_k, double top_p, double min_p,
                   double repetition, double presence, double frequency) {
    const std::vector<float>& logits = inputs_[0];
    if (auto error = sampling_lab::check_logits(logits, "logits")) return error_value(*error);
    if (top_k != std::floor(top_k) || std::abs(top_k) > 9.0e15) {
      return error_value({"topK", "topK must be an integer >= 0 (0 = no limit)"});
    }
    const sampling_lab::FilterParams params{
        temperature, std::int64_t(top_k), top_p, min_p, {repetition, presence, frequency, ids_}};
    if (auto error = sampling_lab::check_filter_params(params, logits.size())) {
      return error_value(*error);
    }
    output_.resize(logits.size());
    const auto result = sampling_lab::filter_distribution(logits, params, output_, workspace_);
    val out = val::object();
    out.set("probs", val(emscripten::typed_memory_view(output_.size(), output_.data())));
    out.set("kept", double(result.kept));
    out.set("keptMass", result.kept_mass);
    out.set("entropyBits", result.entropy_bits);
    out.set("topProb", result.top_prob);
    return out;
  }

  val cover_count(double mass, double temperature, bool is_probs) {
    const std::vector<float>& values = inputs_[0];
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

  val ranking() {
    if (auto error = sampling_lab::check_logits(inputs_[0], "values")) return error_value(*error);
    ranking_ = sampling_lab::ranking(inputs_[0]);
    val out = val::object();
    out.set("order", val(emscripten::typed_memory_view(ranking_.size(), ranking_.data())));
    return out;
  }

  val synthetic_logits(double vocabulary, double seed) {
    if (!(vocabulary >= 1 && vocabulary <= double(sampling_lab::kMaxVocabulary)) ||
        vocabulary != std::floor(vocabulary)) {
      return error_value({"vocabSize", "vocabSize must be an integer in [1, " +
                                           std::to_string(sampling_lab::kMaxVocabulary) + "]"});
    }
    if (!(seed >= 0 && seed < 0x1p53) || seed != std::floor(seed)) {
      return error_value({"seed", "seed must be an integer in [0, 2^53)"});
    }
    output_ = sampling_lab::synthetic_logits(std::size_t(vocabulary), std::uint64_t(seed));
    val out = val::object();
    out.set("logits", val(emscripten::typed_memory_view(output_.size(), output_.data())));
    return out;
  }

  val distance() {
    if (auto error = sampling_lab::check_distance_inputs(inputs_[0], inputs_[1])) {
      return error_value(*error);
    }
    const auto d = sampling_lab::distances(inputs_[0], inputs_[1]);
    val out = val::object();
    out.set("tv", d.tv);
    out.set("kl", d.kl);
    out.set("overlap", d.overlap);
    return out;
  }

 private:
  std::array<std::vector<float>, 2> inputs_;
  std::vector<std::int32_t> ids_;
  std::vector<float> output_;
  std::vector<std::uint32_t> ranking_;
  sampling_lab::Workspace workspace_;
};

// JSON text in and out: the same contract the CLI prints and the tests read.
std::string run_experiment(const std::string& name, const std::string& params_text) {
  const Json params = Json::parse(params_text, nullptr, /*allow_exceptions=*/false);
  if (params.is_discarded()) return error_json({"params", "params is not valid JSON"});
  auto outcome = sampling_lab::run_experiment(name, params);
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
      .function("ids", &Engine::ids)
      .function("distribution", &Engine::distribution)
      .function("coverCount", &Engine::cover_count)
      .function("distance", &Engine::distance)
      .function("ranking", &Engine::ranking)
      .function("syntheticLogits", &Engine::synthetic_logits);
  emscripten::function("runExperiment", &run_experiment);
  emscripten::function("listExperiments", &list_experiments);
  emscripten::constant("maxVocabulary", double(sampling_lab::kMaxVocabulary));
}
