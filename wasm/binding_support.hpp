// What both WebAssembly modules' bindings share: errors, views and progress callbacks as
// JavaScript sees them.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/progress.hpp"

namespace sampling_lab::bindings {

using emscripten::val;

inline val error_value(const ArgumentError& error) {
  val details = val::object();
  details.set("argument", error.argument);
  details.set("message", error.message);
  val result = val::object();
  result.set("error", details);
  return result;
}

template <typename T>
val view_value(const char* name, std::vector<T>& values) {
  val out = val::object();
  out.set(name, val(emscripten::typed_memory_view(values.size(), values.data())));
  return out;
}

// A JavaScript progress callback (a function or undefined) as the core's Progress; the wrapper's
// callbacks never throw, and return false to stop.
inline Progress progress_of(const val& on_progress) {
  if (on_progress.typeOf().as<std::string>() != "function") return {};
  return [on_progress](double fraction) { return on_progress(fraction).as<bool>(); };
}

inline const ArgumentError kStopped{"onProgress", "the run was stopped by onProgress"};

}  // namespace sampling_lab::bindings
