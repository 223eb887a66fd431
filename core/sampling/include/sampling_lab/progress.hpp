#pragma once
// Long calls report the fraction done now and then; a callback returning false stops them early,
// with every buffer released as on any other return.
#include <functional>

namespace sampling_lab {

using Progress = std::function<bool(double fraction)>;

}  // namespace sampling_lab
