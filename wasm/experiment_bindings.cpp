// Bindings of the experiments (the C ABI of binding_support.hpp), linked with bindings.cpp into
// sampling-lab-experiments only: the chapter's experiments, their parameter schemas and the
// option and stage tables, all through JSON. The sampler module (sampling-lab-core) has none of this.
#include <optional>
#include <string>
#include <vector>

#include "binding_support.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/schema.hpp"

namespace {

using namespace sampling_lab::bindings;
using sampling_lab::ArgumentError;
using sampling_lab::Json;

// The experiment a run prepares, runs and releases, one at a time.
class Experiments {
 public:
  // An experiment's JSON parameters (without arrays) and its arrays' lengths as a JSON object
  // ({"p": 151936}): every check that sizes allow runs here, then the arrays' buffers are sized.
  // Replies their views in the order of `lengths_text`, to be filled before run.
  int prepare(const std::string& name, const std::string& params_text, const std::string& lengths_text) {
    release();
    // Both texts hold scalars only; a parsed JSON value takes about 16 bytes per character.
    if (auto error = sampling_lab::check_memory((params_text.size() + lengths_text.size()) * 16, "params")) {
      return fail(*error);
    }
    const Json params = Json::parse(params_text);
    const Json lengths = Json::parse(lengths_text);
    if (params.is_discarded() || !lengths.is_object()) return fail({"params", "params is not valid JSON"});
    std::vector<sampling_lab::ArrayParam> arrays;
    for (const auto& [key, length] : lengths.items()) {
      const double entries = length.is_number() ? length.get<double>() : -1.0;
      if (auto error = sampling_lab::check_length(entries, key, double(sampling_lab::kMaxVocabulary))) return fail(*error);
      arrays.push_back({key, std::size_t(entries)});
    }
    auto prepared = sampling_lab::prepare_experiment(name, params, arrays);
    if (auto* error = std::get_if<ArgumentError>(&prepared)) return fail(*error);
    prepared_.emplace(std::move(std::get<sampling_lab::PreparedExperiment>(prepared)));
    Reply& out = answer();
    for (std::size_t a = 0; a < arrays.size(); ++a) out.view(prepared_->array(a));
    return done(out);
  }

  // Runs the prepared experiment: replies the result's JSON text with each vocabulary-sized array
  // replaced by {"$bulk": i}, then (type, bytes view) of each bulk[i], valid until release.
  // The wrapper's progress callback, if `with_progress`, hears the fraction done.
  int run(bool with_progress) {
    if (!prepared_) return fail({"experiment", "no experiment was prepared"});
    auto outcome = prepared_->run(progress_of(with_progress));
    prepared_.reset();  // the parameters' arrays are no longer needed
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return fail(*error);
    Json result = std::move(std::get<Json>(outcome));
    set_aside_bulk(result);
    Reply& out = answer().text(result.dump());
    for (auto& bytes : bulk_) out.number(double(bytes.subtype())).view(bytes);
    return done(out);
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

}  // namespace

SL_EXPORT Experiments* sl_experiments_new() { return new Experiments(); }
// The name, parameters and lengths in text slots 0, 1 and 2.
SL_EXPORT int sl_experiments_prepare(Experiments* experiments) { return experiments->prepare(text(0), text(1), text(2)); }
SL_EXPORT int sl_experiments_run(Experiments* experiments, int with_progress) { return experiments->run(with_progress != 0); }
SL_EXPORT void sl_experiments_release(Experiments* experiments) { experiments->release(); }

// JSON texts: [{ name, summary, params }], the option table, the stage table.
SL_EXPORT int sl_list_experiments() {
  Json list = Json::array();
  for (const auto& info : sampling_lab::experiments()) {
    list.push_back({{"name", info.name}, {"summary", info.summary}, {"params", sampling_lab::to_json(info.params)}});
  }
  return done(answer().text(list.dump()));
}
SL_EXPORT int sl_option_table() { return done(answer().text(sampling_lab::option_table_json().dump())); }
SL_EXPORT int sl_stage_table() { return done(answer().text(sampling_lab::stage_table_json().dump())); }
