// Native timing of llama.cpp's sampler chain (peer.hpp) along the paths that bench/run.mjs
// resolved: `llama_peer_bench LOGITS.f32 PATHS.txt [Google Benchmark flags]`, where LOGITS.f32 is
// the raw float32 row (lab.syntheticLogits()) and each line of PATHS.txt is
// `key temperature top_k top_p min_p repetition_penalty n_ids id...`. Reports sample/<key>.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "peer.hpp"

namespace {

std::vector<float> read_logits(const char* path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  std::vector<float> values(static_cast<std::size_t>(file.tellg()) / sizeof(float));
  file.seekg(0);
  file.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
  return values;
}

struct Path {
  std::string key;
  llama_peer::PathOptions options;
};

std::vector<Path> read_paths(const char* path) {
  std::ifstream file(path);
  std::vector<Path> paths;
  Path p;
  std::size_t n_ids = 0;
  while (file >> p.key >> p.options.temperature >> p.options.top_k >> p.options.top_p >> p.options.min_p >>
         p.options.repetition_penalty >> n_ids) {
    p.options.generated_ids.resize(n_ids);
    for (auto& id : p.options.generated_ids) file >> id;
    paths.push_back(p);
  }
  return paths;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: llama_peer_bench LOGITS.f32 PATHS.txt [benchmark flags]\n";
    return 2;
  }
  static const std::vector<float> logits = read_logits(argv[1]);
  static const std::vector<Path> paths = read_paths(argv[2]);
  for (const Path& path : paths) {
    benchmark::RegisterBenchmark(("sample/" + path.key).c_str(), [&path](benchmark::State& state) {
      llama_peer::Sampler sampler(path.options, static_cast<int32_t>(logits.size()), 1);
      for (auto _ : state) benchmark::DoNotOptimize(sampler.sample(logits.data()));
    })->Unit(benchmark::kMicrosecond);
  }
  argv[2] = argv[0];
  int rest = argc - 2;
  benchmark::Initialize(&rest, argv + 2);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
