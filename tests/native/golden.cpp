// Prints {"<experiment>": <result with default parameters>, …}: the native build's golden output,
// which the Node tests compare with the WebAssembly build's.
#include <cstdio>

#include "sampling_lab/experiments.hpp"

int main() {
  sampling_lab::Json golden = sampling_lab::Json::object();
  for (const auto& info : sampling_lab::experiments()) {
    auto outcome = sampling_lab::run_experiment(info.name, sampling_lab::Json::object());
    if (auto* error = std::get_if<sampling_lab::ArgumentError>(&outcome)) {
      std::fprintf(stderr, "%s: %s: %s\n", info.name.c_str(), error->argument.c_str(), error->message.c_str());
      return 1;
    }
    golden[info.name] = sampling_lab::plain_json(std::get<sampling_lab::Json>(outcome));
  }
  std::printf("%s\n", golden.dump().c_str());
  return 0;
}
