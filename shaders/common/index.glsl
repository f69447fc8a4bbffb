// Index arithmetic shared by the gather and scatter kernels.
//
// An index of an axis of n elements (n < 2^31) is valid in [-n, n). og_normalize_index returns it
// in [0, n), or OG_BAD_INDEX. int32 indices pass `wide` false (hi is ignored); int64 indices pass
// their low and high words.
//
// A shader that records bad indices declares, before including this file,
//   #define OG_INDEX_STATUS og_status_word   (a uint in a buffer bound read-write)
// and og_report_bad_index(position) keeps the smallest position there (integer atomicMin: the
// position does not depend on the order in which invocations run).
#ifndef ONEGPU_INDEX_GLSL
#define ONEGPU_INDEX_GLSL

#define OG_BAD_INDEX 0xFFFFFFFFu

uint og_normalize_index(uint lo, uint hi, bool wide, uint n) {
  int v = int(lo);
  if (wide && hi != (v < 0 ? 0xFFFFFFFFu : 0u)) return OG_BAD_INDEX;
  if (v < 0) v += int(n);
  return (v >= 0 && uint(v) < n) ? uint(v) : OG_BAD_INDEX;
}

#ifdef OG_INDEX_STATUS
void og_report_bad_index(uint position) { atomicMin(OG_INDEX_STATUS, position); }
#endif

#endif
