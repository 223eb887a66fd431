// The JSON reader on outside text: any bytes give a value or a discarded one, and a value's text
// reads back to an equal value (numbers to the same double, strings to the same UTF-8); every
// number reads as glibc's strtod reads it.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_input.hpp"
#include "sampling_lab/json.hpp"

namespace sl = sampling_lab;

namespace {

// Each number of `json` against strtod on its own text.
void check_numbers(const std::string& text) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    const bool starts = (text[at] == '-' || (text[at] >= '0' && text[at] <= '9')) &&
                        (at == 0 || std::strchr("[{,: \t\n\r", text[at - 1]) != nullptr);
    if (!starts) continue;
    std::size_t end = at + 1;
    while (end < text.size() && std::strchr("0123456789.eE+-", text[end]) != nullptr) ++end;
    const std::string number = text.substr(at, end - at);
    const sl::Json parsed = sl::Json::parse(number);
    if (parsed.is_number()) {
      const double ours = parsed.get<double>();
      const double theirs = std::strtod(number.c_str(), nullptr);
      FUZZ_EXPECT(std::memcmp(&ours, &theirs, sizeof ours) == 0);
    }
    at = end;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const sl::Json value = sl::Json::parse(text);
  if (value.is_discarded()) return 0;
  const std::string written = value.dump();
  const sl::Json again = sl::Json::parse(written);
  FUZZ_EXPECT(!again.is_discarded());
  FUZZ_EXPECT(again.dump() == written);
  check_numbers(text);
  return 0;
}
