// What both WebAssembly modules' bindings share: the plain C ABI that wasm/src/core-abi.ts reads.
// An exported call returns how many numbers it put in the reply (sl_reply()), or −1 with the
// error's argument and message there as texts; views and texts are (address, length) pairs, so
// typed arrays cross as views of the module's memory, never element by element.
#pragma once

#include <emscripten/emscripten.h>

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/progress.hpp"

#define SL_EXPORT extern "C" EMSCRIPTEN_KEEPALIVE

// Asks the wrapper's progress callback (Module.onProgress), which never throws: false stops.
extern "C" int sl_report_progress(double fraction);

namespace sampling_lab::bindings {

class Reply {
 public:
  Reply& number(double value) {
    numbers_.push_back(value);
    return *this;
  }
  template <typename T>
  Reply& view(std::span<T> values) {
    return number(double(reinterpret_cast<std::uintptr_t>(values.data()))).number(double(values.size()));
  }
  template <typename T>
  Reply& view(std::vector<T>& values) {
    return view(std::span(values));
  }
  // A text the reply keeps until the next call.
  Reply& text(std::string value) {
    const std::string& kept = texts_.emplace_back(std::move(value));
    return view(std::span(kept));
  }
  int size() const { return int(numbers_.size()); }
  const double* data() const { return numbers_.data(); }
  void clear() {
    numbers_.clear();
    texts_.clear();
  }

 private:
  std::vector<double> numbers_;
  std::deque<std::string> texts_;  // a deque: earlier texts stay where their addresses say
};

inline Reply& reply() {
  static Reply kept;
  return kept;
}

// The reply of a call, emptied.
inline Reply& answer() {
  reply().clear();
  return reply();
}

inline int done(Reply& out) { return out.size(); }
inline int done() { return reply().size(); }

inline int fail(const ArgumentError& error) {
  answer().text(error.argument).text(error.message);
  return -1;
}

// Texts the wrapper writes before a call (names, methods, JSON), by slot.
enum TextSlot { kFirstText, kSecondText, kThirdText, kTextSlots };

inline std::string& text(int slot) {
  static std::string texts[kTextSlots];
  return texts[slot];
}

// The progress callback when the wrapper has one.
inline Progress progress_of(bool wanted) {
  if (!wanted) return {};
  return [](double fraction) { return sl_report_progress(fraction) != 0; };
}

inline const ArgumentError kStopped{"onProgress", "the run was stopped by onProgress"};

}  // namespace sampling_lab::bindings
