#pragma once
#include <string_view>

namespace sampling_lab {

// A JSON number's text (-?digits[.digits][e[+-]digits], already checked) as the nearest double,
// ties to even, as strtod reads it: Clinger's fast path (1990) when the digits and the power of
// ten are exact doubles, else exact big-integer division. Without strtod, whose long-double
// arithmetic would ship in software with the WebAssembly module.
double decimal_to_double(std::string_view text);

}  // namespace sampling_lab
