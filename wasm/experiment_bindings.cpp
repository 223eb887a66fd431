// embind bindings of the experiments, linked with bindings.cpp into sampling-lab-experiments
// only: the chapter's experiments, their parameter schemas and the option and stage tables, all
// through JSON. The sampler module (sampling-lab-core) has none of this.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>
#include <vector>

#include "binding_support.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/schema.hpp"

namespace {

using emscripten::val;
using sampling_lab::ArgumentError;
using sampling_lab::Json;
using sampling_lab::bindings::error_value;
using sampling_lab::bindings::progress_of;

// Parameter names echo user input, which need not be valid UTF-8.
std::string to_text(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The experiment a run prepares, runs and releases, one at a time.
class Experiments {
 public:
  // An experiment's JSON parameters (without arrays) and its arrays' lengths as a JSON object
  // ({"p": 151936}): every check that sizes allow runs here, then the arrays' buffers are sized.
  // Returns their views in the order of `lengths_text`, to be filled before run.
  val prepare(std::string name, std::string params_text, std::string lengths_text) {
    release();
    // Both texts hold scalars only; a parsed JSON value takes about 16 bytes per character.
    if (auto error = sampling_lab::check_memory((params_text.size() + lengths_text.size()) * 16, "params")) {
      return error_value(*error);
    }
    const Json params = Json::parse(params_text, nullptr, /*allow_exceptions=*/false);
    const Json lengths = Json::parse(lengths_text, nullptr, /*allow_exceptions=*/false);
    if (params.is_discarded() || !lengths.is_object()) return error_value({"params", "params is not valid JSON"});
    std::vector<sampling_lab::ArrayParam> arrays;
    for (const auto& [key, length] : lengths.items()) {
      const double entries = length.is_number() ? length.get<double>() : -1.0;
      if (auto error = sampling_lab::check_length(entries, key, double(sampling_lab::kMaxVocabulary))) return error_value(*error);
      arrays.push_back({key, std::size_t(entries)});
    }
    auto prepared = sampling_lab::prepare_experiment(name, params, arrays);
    if (auto* error = std::get_if<ArgumentError>(&prepared)) return error_value(*error);
    prepared_.emplace(std::move(std::get<sampling_lab::PreparedExperiment>(prepared)));
    val views = val::array();
    for (std::size_t a = 0; a < arrays.size(); ++a) {
      const auto buffer = prepared_->array(a);
      views.call<void>("push", val(emscripten::typed_memory_view(buffer.size(), buffer.data())));
    }
    val out = val::object();
    out.set("arrays", views);
    return out;
  }

  // Runs the prepared experiment: {text, bulk} where `text` is the result's JSON with each
  // vocabulary-sized array replaced by {"$bulk": i}, and bulk[i] = {type, bytes} its raw bytes
  // (a Uint8Array view, valid until release). `on_progress` hears the fraction done.
  val run(val on_progress) {
    if (!prepared_) return error_value({"experiment", "no experiment was prepared"});
    auto outcome = prepared_->run(progress_of(on_progress));
    prepared_.reset();  // the parameters' arrays are no longer needed
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return error_value(*error);
    Json result = std::move(std::get<Json>(outcome));
    set_aside_bulk(result);
    const std::string text = to_text(result);
    val bulk = val::array();
    for (const auto& bytes : bulk_) {
      val item = val::object();
      item.set("type", int(bytes.subtype()));
      item.set("bytes", val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
      bulk.call<void>("push", item);
    }
    val out = val::object();
    out.set("text", text);
    out.set("bulk", bulk);
    return out;
  }

  // Hands back the memory of the last experiment's parameters and result.
  void release() {
    prepared_.reset();
    std::vector<Json::binary_t>().swap(bulk_);
  }

 private:
  // Moves every bulk array of `json` into bulk_, leaving {"$bulk": index} in its place.
  void set_aside_bulk(Json& json) {
    if (json.is_binary()) {
      bulk_.push_back(std::move(json.get_binary()));
      json = Json{{"$bulk", bulk_.size() - 1}};
    } else if (json.is_structured()) {
      for (auto& value : json) set_aside_bulk(value);
    }
  }

  std::optional<sampling_lab::PreparedExperiment> prepared_;
  std::vector<Json::binary_t> bulk_;
};

std::string list_experiments() {
  Json list = Json::array();
  for (const auto& info : sampling_lab::experiments()) {
    list.push_back({{"name", info.name}, {"summary", info.summary}, {"params", sampling_lab::to_json(info.params)}});
  }
  return to_text(list);
}

std::string option_table() { return to_text(sampling_lab::option_table_json()); }
std::string stage_table() { return to_text(sampling_lab::stage_table_json()); }

}  // namespace

EMSCRIPTEN_BINDINGS(sampling_lab_experiments) {
  emscripten::class_<Experiments>("Experiments")
      .constructor<>()
      .function("prepare", &Experiments::prepare)
      .function("run", &Experiments::run)
      .function("release", &Experiments::release);
  emscripten::function("listExperiments", &list_experiments);
  emscripten::function("optionTable", &option_table);
  emscripten::function("stageTable", &stage_table);
}
