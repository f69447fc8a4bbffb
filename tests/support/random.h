// Random test data (never zeros) and sentinels.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace onegpu::testing {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

inline std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = rng() | 1u;
  return v;
}

inline constexpr uint32_t kSentinel = 0xDEADBEEFu;

}  // namespace onegpu::testing
