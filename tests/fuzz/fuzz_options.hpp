#pragma once
// Sampling options off a fuzzer's bytes, as they would arrive from JavaScript: each scalar half
// the time a raw double and half a small valid-looking one (so that the checks do not reject
// everything), every id list (history, masks, bias ids, breakers, stage order), allowedMask's words and the
// bias values.
#include <array>
#include <span>
#include <vector>

#include "fuzz_input.hpp"
#include "sampling_lab/options.hpp"

struct FuzzOptions {
  std::array<double, sampling_lab::kScalarOptions> scalars;
  std::array<std::vector<std::int32_t>, sampling_lab::kListOptions> id_lists;
  std::array<std::span<const std::int32_t>, sampling_lab::kListOptions> lists;
  std::vector<float> biases;
  std::array<std::span<const float>, sampling_lab::kNumberListOptions> number_lists;

  // Ids fall in [0, vocabulary + 2): mostly valid, some just outside.
  FuzzOptions(FuzzInput& input, std::size_t vocabulary) {
    for (double& value : scalars) {
      const auto raw = input.read<double>();
      value = input.read<std::uint8_t>() % 2 ? raw : double(input.read<std::uint8_t>()) / 64.0;
    }
    for (std::size_t l = 0; l < sampling_lab::kListOptions; ++l) {
      if (l == mask_slot()) {
        // allowedMask: off, or about ceil(V / 32) raw words (a word off now and then).
        const auto shape = input.read<std::uint8_t>();
        id_lists[l].resize(shape % 2 ? sampling_lab::mask_words(vocabulary) + shape % 3 - std::size_t(shape % 3 > 0) : 0);
        for (auto& word : id_lists[l]) word = input.read<std::int32_t>() | (shape & 4 ? -1 : 0);
      } else {
        id_lists[l].resize(input.read<std::uint8_t>() % 16);
        for (auto& id : id_lists[l]) id = input.read<std::int32_t>() % std::int32_t(vocabulary + 2);
      }
      lists[l] = id_lists[l];
    }
    biases.resize(input.read<std::uint8_t>() % 16);
    for (float& bias : biases) bias = input.read<float>();
    number_lists = {biases};
  }
  FuzzOptions(const FuzzOptions&) = delete;

  // allowedMask's place among the id lists.
  static constexpr std::size_t mask_slot() {
    std::size_t slot = 0;
    for (const auto& spec : sampling_lab::kOptionSpecs) {
      if (spec.kind == sampling_lab::Kind::kBitmask) return slot;
      slot += sampling_lab::is_id_list(spec.kind);
    }
    return slot;
  }

  sampling_lab::RawOptions raw() const { return {scalars, lists, number_lists}; }
};
