#pragma once
// Reads typed values off a fuzzer's bytes; past the end every read gives zeros.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  T read() {
    T value{};
    const std::size_t n = std::min(sizeof(T), size_ - position_);
    std::memcpy(&value, data_ + position_, n);
    position_ += n;
    return value;
  }

  std::size_t remaining() const { return size_ - position_; }
  std::span<const std::uint8_t> rest() const { return {data_ + position_, size_ - position_}; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

// A broken invariant: libFuzzer records the input that reached it.
#define FUZZ_EXPECT(condition) \
  do {                          \
    if (!(condition)) std::abort(); \
  } while (false)
