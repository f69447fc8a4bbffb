// The benchmark harness: times recorded work with GPU timestamps and prints one JSON row per case.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "onegpu/onegpu.h"

namespace onegpu::bench {

struct Options {
  int reps = 30;     // timed repetitions (the median is reported)
  int warmup = 5;
  bool quick = false;  // tiny shapes: a smoke test of the harness itself
  int settle_ms = 1000;  // every case in turn before the first timing
  int passes = 1;        // times the whole case list is timed (rows printed each time)
  std::string filter;  // substring of "op dtype shape" to run
  bool pass_times = false;  // add each compute pass's median time to the row ("pass_ms")
};

struct Case {
  std::string op, dtype, shape, variant;
  double flops = 0;  // per repetition
  double bytes = 0;  // moved per repetition (compulsory traffic)
  // Records one repetition into the encoder.
  std::function<void(CommandEncoder&)> record;
};

struct Result {
  Case c;
  double ms = 0;  // median GPU time of one repetition
  double ms_min = 0, ms_max = 0;
  std::vector<double> pass_ms;  // with Options::pass_times: each pass's median, in recording order
};

// Runs each case: warm-up, then `reps` repetitions in one submission, each timed from the start of
// its first pass to the end of its last.
std::vector<Result> run(Device& device, std::vector<Case>& cases, const Options& options);
std::string json_row(const Result& r, const Device& device);

// Random data, never zeros.
std::vector<float> random_values(size_t n, uint32_t seed);

// What the case builders share: buffers kept alive for the run, and the filter.
class CaseBuilder {
 public:
  CaseBuilder(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep)
      : device_(device), options_(options), keep_(keep) {}
  // A float32 buffer of random values, kept alive for the run.
  std::shared_ptr<Buffer<float>> tensor(uint64_t n, uint32_t seed) {
    auto b = std::make_shared<Buffer<float>>(device_.create_buffer(random_values(n, seed)));
    keep_.push_back(b);
    return b;
  }
  // A buffer of random integers in [lo, hi], kept alive for the run.
  template <class T>
  std::shared_ptr<Buffer<T>> integers(uint64_t n, uint32_t seed, int64_t lo, int64_t hi) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> d(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(d(rng));
    auto b = std::make_shared<Buffer<T>>(device_.create_buffer(v));
    keep_.push_back(b);
    return b;
  }
  template <class T>
  std::shared_ptr<T> keep(std::shared_ptr<T> p) {
    keep_.push_back(p);
    return p;
  }
  // Whether the filter keeps a case: callers check before allocating its buffers, so a filtered run
  // uploads only what it times.
  bool wants(const std::string& op, const std::string& dtype, const std::string& shape) const {
    return options_.filter.empty() || (op + " " + dtype + " " + shape).find(options_.filter) != std::string::npos;
  }
  // Adds the case unless the filter excludes it.
  void add(Case c) {
    if (wants(c.op, c.dtype, c.shape)) cases_.push_back(std::move(c));
  }
  std::vector<Case> take() { return std::move(cases_); }

 private:
  Device& device_;
  const Options& options_;
  std::vector<std::shared_ptr<void>>& keep_;
  std::vector<Case> cases_;
};

// A family's cases. Each family's cases file registers its builder once, at static initialisation:
//   const bench::FamilyCases kRegistered("gemm", &gemm_cases);
// so a new family adds its file to the benchmark and touches nothing else here.
using CaseBuilderFn = std::vector<Case> (*)(Device& device, const Options& options,
                                            std::vector<std::shared_ptr<void>>& keep);
struct FamilyCases {
  FamilyCases(const char* family, CaseBuilderFn build);
};
// The registered families in registration order, as (name, builder).
const std::vector<std::pair<std::string, CaseBuilderFn>>& registered_families();

}  // namespace onegpu::bench
