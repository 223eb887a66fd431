// Prints the first n Philox4x32-10 words of (seed, stream), one per line, so the Node tests can
// check that the WebAssembly build produces the identical stream.
#include <cstdio>
#include <cstdlib>

#include "sampling_lab/rng.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s seed stream n\n", argv[0]);
    return 2;
  }
  sampling_lab::Philox rng{std::strtoull(argv[1], nullptr, 10), std::strtoull(argv[2], nullptr, 10)};
  for (unsigned long long i = 0, n = std::strtoull(argv[3], nullptr, 10); i < n; ++i) {
    std::printf("%u\n", rng.next_u32());
  }
  return 0;
}
