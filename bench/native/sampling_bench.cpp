// Native baseline for `npm run bench`: the per-token paths of sample_token and one SIMD exp pass
// over the same 151,936 synthetic logits the WebAssembly benchmark uses.
#include <benchmark/benchmark.h>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sl = sampling_lab;

namespace {
const std::vector<float>& logits() {
  static const auto values = sl::synthetic_logits();
  return values;
}

const std::vector<std::int32_t> kGenerated = {11, 523, 523, 7001, 15000, 99, 151000, 42};

// The paths of the benchmark: (a) temperature only … (e) the full chain.
sl::FilterParams path(char name) {
  sl::FilterParams p;
  switch (name) {
    case 'a': break;
    case 'b': p.top_k = 50; break;
    case 'c': p.top_p = 0.9; break;
    case 'd': p.min_p = 0.05; break;
    case 'e':
      p.temperature = 0.7;
      p.top_k = 50;
      p.top_p = 0.95;
      p.min_p = 0.05;
      p.penalties = {1.1, 0.0, 0.0, kGenerated};
      break;
  }
  return p;
}

void BM_SampleToken(benchmark::State& state) {
  const auto params = path(char('a' + state.range(0)));
  sl::Workspace workspace;
  std::uint64_t step = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sl::sample_token(logits(), params, {1, 0}, step++, workspace));
  }
}
BENCHMARK(BM_SampleToken)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_ExpPass(benchmark::State& state) {
  const float max = sl::kernels::min_max(logits()).max;
  for (auto _ : state) benchmark::DoNotOptimize(sl::kernels::exp_sum(logits(), max, 1.0f));
}
BENCHMARK(BM_ExpPass)->Unit(benchmark::kMicrosecond);
}  // namespace

BENCHMARK_MAIN();
