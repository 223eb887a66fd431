// Native baseline for `npm run bench`: along the paths of bench/paths.json (the same file the
// WebAssembly benchmark reads; results are matched by the path's key), the entry the bindings'
// sampleToken runs — the options read from their raw form and checked, then checked_draw_token,
// which tests the logits' finiteness — and, as yardsticks, one read of the logits (a min/max
// pass) and one SIMD exp pass, over the same 151,936 synthetic logits.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/schema.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sl = sampling_lab;

namespace {

const std::vector<float>& logits() {
  static const auto values = sl::synthetic_logits();
  return values;
}

// paths.json writes options as JavaScript gives them (objects for xtc, dry, …; badWords as
// sequences; logitBias as a map): the table's flat names, as lab.ts lays them out.
sl::Json flat_options(const sl::Json& given) {
  sl::Json flat = sl::Json::object();
  for (const auto& [key, value] : given.items()) {
    if (key == "badWords") {
      std::vector<int> ids, lengths;
      for (const auto& word : value) {
        for (const auto& id : word) ids.push_back(id.get<int>());
        lengths.push_back(int(word.size()));
      }
      flat["badWords.ids"] = ids;
      flat["badWords.lengths"] = lengths;
    } else if (key == "logitBias") {
      std::vector<double> ids, biases;
      for (const auto& [id, bias] : value.items()) ids.push_back(std::stod(id)), biases.push_back(bias.get<double>());
      flat["logitBias.ids"] = ids;
      flat["logitBias.values"] = biases;
    } else if (value.is_object()) {
      for (const auto& [field, inner] : value.items()) flat[key + "." + field] = inner;
    } else {
      flat[key] = value;
    }
  }
  flat["seed"] = 1;
  return flat;
}

// A path's options as the bindings receive them: every option of the table, given or default.
struct Path {
  sl::JsonOptions given;
  explicit Path(const sl::Json& options) : given(flat_options(options)) {}
};

void sample_token(benchmark::State& state, const Path& path) {
  sl::FilterWorkspace workspace;
  std::uint64_t step = 0;
  for (auto _ : state) {
    auto parsed = sl::options_from_raw(path.given.raw());
    auto& options = std::get<sl::SamplingOptions>(parsed);
    options.step = step++;
    if (sl::check_options(options, logits().size())) state.SkipWithError("options rejected");
    benchmark::DoNotOptimize(sl::checked_draw_token(logits(), options, workspace));
  }
}

void read_pass(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sl::kernels::min_max(logits()));
}

void exp_pass(benchmark::State& state) {
  const float max = sl::kernels::min_max(logits()).max;
  for (auto _ : state) benchmark::DoNotOptimize(sl::kernels::exp_sum(logits(), max, 1.0f));
}

}  // namespace

int main(int argc, char** argv) {
  std::stringstream text;
  text << std::ifstream(SAMPLING_LAB_BENCH_PATHS).rdbuf();
  static std::vector<Path> paths;
  const auto list = sl::Json::parse(text.str());
  paths.reserve(list.size());
  for (const auto& path : list) {
    paths.emplace_back(path["options"]);
    benchmark::RegisterBenchmark(("sample_token/" + path["key"].get<std::string>()).c_str(), sample_token, paths.back())
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("read_pass", read_pass)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("exp_pass", exp_pass)->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
