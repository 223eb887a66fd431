// The experiment runner on outside JSON: any parameters must give a result or an ArgumentError,
// within its work budget; a progress callback stops long runs after a few reports.
#include <string>

#include "fuzz_input.hpp"
#include "sampling_lab/experiments.hpp"

namespace sl = sampling_lab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const auto& all = sl::experiments();
  const auto& experiment = all[input.read<std::uint8_t>() % all.size()];
  const auto text = input.rest();
  const sl::Json params = sl::Json::parse({reinterpret_cast<const char*>(text.data()), text.size()});
  if (params.is_discarded()) return 0;
  int reports = 0;
  const sl::Progress stop_soon = [&reports](double fraction) {
    FUZZ_EXPECT(fraction >= 0.0 && fraction <= 1.0 + 1e-9);
    return ++reports < 8;
  };
  auto outcome = sl::run_experiment(experiment.name, params, stop_soon);
  if (auto* error = std::get_if<sl::ArgumentError>(&outcome)) FUZZ_EXPECT(!error->argument.empty() && !error->message.empty());
  return 0;
}
