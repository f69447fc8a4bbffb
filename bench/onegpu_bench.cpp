// onegpu-bench: kernel timings from GPU timestamps, one JSON row per case on stdout.
//
//   onegpu-bench [--family NAME] [--filter TEXT] [--reps N] [--quick] [--settle-ms MS] [--passes N] [--pass-times]
//
// --pass-times adds each compute pass's median time to the row (pass_ms), in recording order.
// The validation layer is off unless ONEGPU_BENCH_VALIDATION=1; ONEGPU_REPORT=FILE appends the rows
// to FILE as well. bench/torch_compare.py runs the
// same cases through PyTorch and prints the ratio per row.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "harness.h"

namespace onegpu::bench {

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = d(rng);
    if (x == 0.0f) x = 0.5f;
  }
  return v;
}

namespace {
// Each pass's median duration over the repetitions (slots: a start and an end per pass, every
// repetition's passes in turn).
std::vector<double> pass_medians(const std::vector<uint64_t>& slots, uint32_t passes, int reps) {
  std::vector<double> medians;
  for (uint32_t p = 0; p < passes; ++p) {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      const size_t at = size_t(2) * (size_t(passes) * size_t(i) + p);
      t.push_back(double(slots[at + 1] - slots[at]) * 1e-6);
    }
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}
}  // namespace

std::vector<Result> run(Device& device, std::vector<Case>& cases, const Options& options) {
  std::vector<Result> results;
  // ONEGPU_REPORT names a file that collects the rows too (appended, one JSON row per line).
  std::ofstream report;
  if (const char* path = std::getenv("ONEGPU_REPORT"); path != nullptr && *path != '\0') {
    report.open(path, std::ios::app);
    if (!report) throw std::runtime_error(std::string("ONEGPU_REPORT: cannot append to ") + path);
  }
  // Settle: cycle through every case for a while first (uploads done, clocks up, memory touched).
  const auto settle_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.settle_ms);
  while (!cases.empty() && std::chrono::steady_clock::now() < settle_until) {
    for (Case& c : cases) {
      auto enc = device.begin_commands();
      c.record(enc);
      device.submit(enc);
    }
    device.wait_idle();
  }
  std::vector<Case*> order;
  for (int pass = 0; pass < options.passes; ++pass)
    for (Case& c : cases) order.push_back(&c);
  bool first = true;
  for (Case* cp : order) {
    Case& c = *cp;
    // Warm up for at least 200 ms, the first case for a second: an idle GPU needs that long of
    // back-to-back work to reach its clocks (the settle above waits between cases, and a first
    // row timed after it alone measured three to four times slower on an H200). --quick (a smoke
    // run) warms with one batch.
    const int warm_ms = options.quick ? 0 : first ? 1000 : 200;
    const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(warm_ms);
    first = false;
    for (int batch = 0; batch == 0 || std::chrono::steady_clock::now() < warm_until; ++batch) {
      auto enc = device.begin_commands();
      for (int i = 0; i < options.warmup; ++i) c.record(enc);
      device.submit(enc);
      device.wait_idle();
    }
    // Count the passes of one repetition.
    auto probe = device.begin_commands();
    c.record(probe);
    const uint32_t passes = probe.compute_pass_count();
    probe = CommandEncoder();
    // Three rounds of `reps`; the round with the lowest median is reported (a round that another
    // tenant of the GPU or a clock change disturbed shows in ms_max).
    auto timing = device.create_timestamp_set(passes * uint32_t(options.reps));
    std::vector<double> ms, all, pass_ms;
    for (int round = 0; round < 3; ++round) {
      auto enc = device.begin_commands();
      enc.begin_pass_timing(timing);
      for (int i = 0; i < options.reps; ++i) c.record(enc);
      device.submit(enc);
      device.wait_idle();
      auto slots = timing.try_read();
      std::vector<double> round_ms;
      if (slots && slots->size() == size_t(2) * passes * options.reps) {
        for (int i = 0; i < options.reps; ++i) {
          uint64_t start = (*slots)[size_t(2) * passes * i], end = (*slots)[size_t(2) * passes * (i + 1) - 1];
          round_ms.push_back(double(end - start) * 1e-6);
        }
      }
      std::sort(round_ms.begin(), round_ms.end());
      all.insert(all.end(), round_ms.begin(), round_ms.end());
      if (!round_ms.empty() && (ms.empty() || round_ms[round_ms.size() / 2] < ms[ms.size() / 2])) {
        ms = round_ms;
        if (options.pass_times) pass_ms = pass_medians(*slots, passes, options.reps);
      }
    }
    std::sort(all.begin(), all.end());
    Result r{c, ms.empty() ? 0.0 : ms[ms.size() / 2], all.empty() ? 0.0 : all.front(), all.empty() ? 0.0 : all.back(),
             pass_ms};
    results.push_back(r);
    std::cout << json_row(r, device) << std::endl;
    if (report) report << json_row(r, device) << std::endl;
  }
  return results;
}

namespace {
std::vector<std::pair<std::string, CaseBuilderFn>>& families() {
  static std::vector<std::pair<std::string, CaseBuilderFn>> list;
  return list;
}
}  // namespace

FamilyCases::FamilyCases(const char* family, CaseBuilderFn build) { families().emplace_back(family, build); }

// By name: registration runs in static-initialisation order, which the language leaves open.
const std::vector<std::pair<std::string, CaseBuilderFn>>& registered_families() {
  std::sort(families().begin(), families().end());
  return families();
}

std::string json_row(const Result& r, const Device& device) {
  std::ostringstream o;
  o.precision(6);
  o << "{\"op\": \"" << r.c.op << "\", \"dtype\": \"" << r.c.dtype << "\", \"shape\": \"" << r.c.shape
    << "\", \"variant\": \"" << r.c.variant << "\", \"ms\": " << r.ms << ", \"ms_min\": " << r.ms_min
    << ", \"ms_max\": " << r.ms_max;
  if (r.ms > 0 && r.c.flops > 0) o << ", \"tflops\": " << r.c.flops / (r.ms * 1e-3) / 1e12;
  if (r.ms > 0 && r.c.bytes > 0) o << ", \"gbps\": " << r.c.bytes / (r.ms * 1e-3) / 1e9;
  if (!r.pass_ms.empty()) {
    o << ", \"pass_ms\": [";
    for (size_t i = 0; i < r.pass_ms.size(); ++i) o << (i ? ", " : "") << r.pass_ms[i];
    o << "]";
  }
  o << ", \"device\": \"" << device.adapter().name << "\", \"driver\": \"" << device.adapter().driver_info << "\"}";
  return o.str();
}

}  // namespace onegpu::bench

int main(int argc, char** argv) {
  using namespace onegpu;
  bench::Options options;
  std::string family = "all";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "onegpu-bench: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--reps") options.reps = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--filter") options.filter = next();
    else if (arg == "--family") family = next();
    else if (arg == "--quick") options.quick = true;
    else if (arg == "--settle-ms") options.settle_ms = std::max(0, std::atoi(next().c_str()));
    else if (arg == "--passes") options.passes = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--pass-times") options.pass_times = true;
    else {
      std::cerr << "usage: onegpu-bench [--family NAME] [--filter TEXT] [--reps N] [--quick] [--settle-ms MS] [--passes N] [--pass-times]\n";
      return 2;
    }
  }
  try {
    const char* v = std::getenv("ONEGPU_BENCH_VALIDATION");
    Device device = Device::create({.validation = v != nullptr && std::string(v) == "1"});
    if (!device.capabilities().timestamps) {
      std::cerr << "onegpu-bench: " << device.adapter().name << " has no timestamps\n";
      return 1;
    }
    std::vector<std::shared_ptr<void>> keep;  // buffers and families the cases use
    std::vector<bench::Case> cases;
    bool known = family == "all";
    for (const auto& [name, build] : bench::registered_families()) {
      if (family != "all" && family != name) continue;
      known = true;
      auto c = build(device, options, keep);
      cases.insert(cases.end(), c.begin(), c.end());
    }
    if (!known) {
      std::cerr << "onegpu-bench: no family called " << family << "\n";
      return 2;
    }
    bench::run(device, cases, options);
    cases.clear();
    keep.clear();
    for (auto& m : device.take_validation_messages()) std::cerr << m << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "onegpu-bench: " << e.what() << "\n";
    return 1;
  }
}
