#pragma once
// Runs an experiment in a test, failing the test on an ArgumentError; bulk arrays as JSON arrays.
#include <gtest/gtest.h>

#include <string>

#include "sampling_lab/experiments.hpp"

inline sampling_lab::Json run(const std::string& name, const sampling_lab::Json& params) {
  auto outcome = sampling_lab::run_experiment(name, params);
  if (auto* error = std::get_if<sampling_lab::ArgumentError>(&outcome)) {
    ADD_FAILURE() << error->argument << ": " << error->message;
    return nullptr;
  }
  return sampling_lab::plain_json(std::get<sampling_lab::Json>(outcome));
}
