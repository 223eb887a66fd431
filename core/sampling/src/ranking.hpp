#pragma once
// The one order every filter's kept set is a prefix of: key descending, ties to the lower id
// (what a stable descending sort gives).
#include "sampling_lab/workspace.hpp"

namespace sampling_lab::detail {

// A function object rather than a function, so that heap and sort algorithms inline it.
inline constexpr auto ranks_before = [](const RankedToken& a, const RankedToken& b) {
  return a.key > b.key || (a.key == b.key && a.id < b.id);
};

}  // namespace sampling_lab::detail
