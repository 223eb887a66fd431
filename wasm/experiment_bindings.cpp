// Bindings of the experiments (boundary.hpp's SAMPLING_LAB_EXPERIMENTS_METHODS and
// SAMPLING_LAB_EXPERIMENT_FUNCTIONS), linked with bindings.cpp into sampling-lab-experiments only:
// the chapter's experiments, their parameter schemas and the option and stage tables, as
// JavaScript values built from the core's Json trees (no JSON text crosses). The sampler module
// (sampling-lab-core) has none of this.
#include <emscripten/bind.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/schema.hpp"

namespace {

using emscripten::val;
using sampling_lab::ArgumentError;
using sampling_lab::Json;
using sampling_lab::boundary::failure;

// A Json tree as a JavaScript value. Non-finite numbers are null, as JSON.stringify writes them;
// binary values are typed-array views of their bytes (valid while `json` lives).
val to_val(Json& json) {
  if (json.is_binary()) {
    auto& bytes = json.get_binary();
    switch (sampling_lab::BulkType(bytes.subtype())) {
      case sampling_lab::BulkType::kFloat32:
        return val(emscripten::typed_memory_view(bytes.size() / sizeof(float), reinterpret_cast<const float*>(bytes.data())));
      case sampling_lab::BulkType::kFloat64:
        return val(emscripten::typed_memory_view(bytes.size() / sizeof(double), reinterpret_cast<const double*>(bytes.data())));
      default:
        return val(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    }
  }
  if (json.is_array()) {
    val out = val::array();
    int index = 0;
    for (auto& item : json) out.set(index++, to_val(item));
    return out;
  }
  if (json.is_object()) {
    val out = val::object();
    for (auto& member : json.items()) out.set(member.key(), to_val(member.value()));
    return out;
  }
  if (json.is_number()) {
    const double number = json.get<double>();
    return std::isfinite(number) ? val(number) : val::null();
  }
  if (json.is_string()) return val(json.get<std::string>());
  if (json.is_boolean()) return val(json.get<bool>());
  return val::null();
}

val to_val(Json&& json) { return to_val(json); }

// A plain object's scalars (numbers, strings, booleans, null) as a Json object; the wrapper has
// refused anything else already, and this refuses it again for callers that skip the wrapper.
std::variant<Json, ArgumentError> scalars_of(const val& object, const char* argument) {
  if (object.typeOf().as<std::string>() != "object" || object.isNull() || object.isArray()) {
    return ArgumentError{argument, std::string(argument) + " must be an object"};
  }
  Json out = Json::object();
  const val keys = val::global("Object").call<val>("keys", object);
  const int count = keys["length"].as<int>();
  for (int k = 0; k < count; ++k) {
    const std::string key = keys[k].as<std::string>();
    const val value = object[key];
    const std::string type = value.typeOf().as<std::string>();
    if (value.isNull()) {
      out[key] = nullptr;
    } else if (type == "number") {
      out[key] = value.as<double>();
    } else if (type == "string") {
      out[key] = value.as<std::string>();
    } else if (type == "boolean") {
      out[key] = value.as<bool>();
    } else {
      return ArgumentError{key, key + " must be a number, a string, a boolean or null here"};
    }
  }
  return out;
}

// The experiment a run prepares, runs and releases, one at a time.
class Experiments {
 public:
  // An experiment's scalar parameters and its arrays' lengths ({ p: 151936 }): every check that
  // sizes allow runs here, then the arrays' buffers are sized. Their views (Float32Array where
  // the schema reads float32, else Float64Array), in the order of `lengths`, are to be filled
  // before run.
  val prepare(const std::string& name, const val& params_value, const val& lengths_value) {
    release();
    if (sampling_lab::boundary::reporting()) return failure(sampling_lab::boundary::kReentered);
    auto params = scalars_of(params_value, "params");
    if (auto* error = std::get_if<ArgumentError>(&params)) return failure(*error);
    auto lengths = scalars_of(lengths_value, "lengths");
    if (auto* error = std::get_if<ArgumentError>(&lengths)) return failure(*error);
    std::vector<sampling_lab::ArrayParam> arrays;
    for (const auto& [key, length] : std::get<Json>(lengths).items()) {
      const double entries = length.is_number() ? length.get<double>() : -1.0;
      if (auto error = sampling_lab::check_length(entries, key, double(sampling_lab::kMaxVocabulary))) return failure(*error);
      arrays.push_back({key, std::size_t(entries)});
    }
    auto prepared = sampling_lab::prepare_experiment(name, std::get<Json>(params), arrays);
    if (auto* error = std::get_if<ArgumentError>(&prepared)) return failure(*error);
    prepared_.emplace(std::move(std::get<sampling_lab::PreparedExperiment>(prepared)));
    val views = val::array();
    for (std::size_t a = 0; a < arrays.size(); ++a) {
      views.set(int(a), prepared_->is_single(a) ? sampling_lab::boundary::view(prepared_->single_array(a))
                                                : sampling_lab::boundary::view(prepared_->array(a)));
    }
    val out = val::object();
    out.set("arrays", views);
    return out;
  }

  // Runs the prepared experiment: { result } with each vocabulary-sized array a typed-array
  // view, valid until release. onProgress, if not undefined, hears the fraction done.
  val run(const val& on_progress) {
    if (!prepared_) return failure({"experiment", "no experiment was prepared"});
    auto outcome = prepared_->run(sampling_lab::boundary::progress_of(on_progress));
    prepared_.reset();  // the parameters' arrays are no longer needed
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return failure(*error);
    result_ = std::move(std::get<Json>(outcome));
    val out = val::object();
    out.set("result", to_val(result_));
    return out;
  }

  // Hands back the memory of the last experiment's parameters and result.
  void release() {
    prepared_.reset();
    result_ = Json();
  }

 private:
  std::optional<sampling_lab::PreparedExperiment> prepared_;
  Json result_;
};

val list_experiments() {
  Json list = Json::array();
  for (const auto& info : sampling_lab::experiments()) {
    list.push_back({{"name", info.name}, {"summary", info.summary}, {"params", sampling_lab::to_json(info.params)}});
  }
  return to_val(list);
}

val option_table() { return to_val(sampling_lab::option_table_json()); }
val stage_table() { return to_val(sampling_lab::stage_table_json()); }

}  // namespace

EMSCRIPTEN_BINDINGS(sampling_lab_experiments) {
  SAMPLING_LAB_EXPERIMENT_FUNCTIONS(SAMPLING_LAB_BIND_FUNCTION)
  SAMPLING_LAB_EXPERIMENT_CLASSES(SAMPLING_LAB_BIND_CLASS)
}
