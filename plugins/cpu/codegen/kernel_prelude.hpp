// kernel_prelude.hpp -- the helpers every generated kernel starts with. It
// is compiled into the plugin as text (CMakeLists.txt) and pasted into each
// kernel's source after its includes and declarations (cpp_source.cpp),
// which define ek_fault_* first, and after kernel_entry.h. Kept small:
// every kernel compiles it.

// maximum and minimum: NaN if either operand is NaN (ops.md), as selects
// the vectoriser turns into blends.
template <class T>
static inline T ek_maximum(T a, T b) {
  return a != a ? a : (b != b ? b : (a < b ? b : a));
}
template <class T>
static inline T ek_minimum(T a, T b) {
  return a != a ? a : (b != b ? b : (b < a ? b : a));
}
template <class T>
static inline T ek_sign(T x) {
  return x != x ? x : static_cast<T>((T(0) < x) - (x < T(0)));
}

// reduce max and min: a NaN accumulator stays, a NaN value takes over.
template <class T>
static inline T ek_reduce_max(T acc, T value) {
  return (value > acc || value != value) ? value : acc;
}
template <class T>
static inline T ek_reduce_min(T acc, T value) {
  return (value < acc || value != value) ? value : acc;
}

static inline int64_t ek_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ek_max(int64_t a, int64_t b) { return a < b ? b : a; }

// body(b, e) over ranges covering [0, count) on the plugin's parallel loop
// (kernel_entry.h); ranges run at once, so their faults meet in
// ek_merge_fault.
template <class Body>
static inline void ek_parallel_for(const ek_parallel* pool, int64_t count, const Body& body) {
  pool->run(pool->context, count, const_cast<Body*>(&body),
            [](void* data, int64_t begin, int64_t end) { (*static_cast<const Body*>(data))(begin, end); });
}
static inline void ek_merge_fault(unsigned& fault, unsigned more) {
  if (more != 0) __atomic_fetch_or(&fault, more, __ATOMIC_RELAXED);
}

// Note [Reduction chunks] (cpp_source.cpp): how many partial results a
// reduction of `total` elements is split into, and where chunk c begins;
// both depend on the extents alone.
static inline int64_t ek_chunk_count(int64_t total, int64_t grain, int64_t most) {
  const int64_t chunks = total / grain;
  return chunks < 1 ? 1 : (chunks > most ? most : chunks);
}
static inline int64_t ek_chunk_begin(int64_t total, int64_t chunks, int64_t c) {
  return total / chunks * c + ek_min(c, total % chunks);
}

// Block results of a reduction combined pairwise (a binary counter: level k
// holds 2^k blocks), so that a float sum's rounding error grows with the
// logarithm of the block count rather than with the count.
template <class T>
struct ek_pairwise {
  T level[64];
  uint64_t count = 0;

  template <class Combine>
  void push(T value, Combine combine) {
    int k = 0;
    for (uint64_t c = count; c & 1u; c >>= 1, ++k) value = combine(level[k], value);
    level[k] = value;
    ++count;
  }
  template <class Combine>
  T total(T identity, Combine combine) const {
    T result = identity;
    bool first = true;
    for (int k = 63; k >= 0; --k) {
      if (((count >> k) & 1u) == 0) continue;
      result = first ? level[k] : combine(result, level[k]);
      first = false;
    }
    return result;
  }
};

// The lanes of a reduction folded pairwise into lane 0.
template <class T, int kLanes, class Combine>
static inline T ek_fold_lanes(T* lanes, Combine combine) {
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] = combine(lanes[l], lanes[l + width]);
  }
  return lanes[0];
}

#ifdef EMBER_SDK_SCALAR_RULES_HPP_
// Integer floor_divide and remainder by zero, and integers to a negative
// power, set a fault bit and yield 0 instead of trapping (Note [Kernel
// faults] in cpp_source.cpp).
template <class T>
static inline T ek_floor_divide(T a, T b, unsigned& fault) {
  if constexpr (ember::sdk::is_integer_v<T>) {
    if (b == T(0)) {
      fault |= ek_fault_integer_division_by_zero;
      return T(0);
    }
  }
  return ember::sdk::floor_divide(a, b);
}
template <class T>
static inline T ek_remainder(T a, T b, unsigned& fault) {
  if constexpr (ember::sdk::is_integer_v<T>) {
    if (b == T(0)) {
      fault |= ek_fault_integer_division_by_zero;
      return T(0);
    }
  }
  return ember::sdk::remainder(a, b);
}
template <class T>
static inline T ek_integer_pow(T base, T exponent, unsigned& fault) {
  if (ember::sdk::is_invalid_integer_pow(base, exponent)) fault |= ek_fault_negative_integer_power;
  return ember::sdk::integer_pow(base, exponent);
}
#endif
