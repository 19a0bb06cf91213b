// Elementwise loops handed to kernels a block of rows at a time (Note [Runs
// in row blocks]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_ROW_BLOCKS_H_
#define EMBER_PLUGINS_CPU_KERNELS_ROW_BLOCKS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <ember/ember_plugin.hpp>

namespace ember::cpu {

// Note [Runs in row blocks]: a loop whose operands do not merge into one
// run, such as a bias added to every row (`y + b`, b of shape [N] and so
// stride 0 across rows), is a run of N elements per row. Handed to a kernel
// one run at a time, each run paid a call through the kernel's ISA clone
// (Note [ISA clones]) and the loop's pointer arithmetic, which for rows of
// 128 floats cost as long as the arithmetic itself. So the kernel gets
// `rows` runs at once, run r at ptrs[k] + r * row_strides[k], and walks them
// inside its clone. Only whole rows go in a block; the chunk of a thread
// that starts or ends inside a row gets that row's part as a block of one.
// A kernel's run function takes (ptrs, strides, n, row_strides, rows).

// Moves each operand's pointer to its next row. A kernel walks its rows
// with a plain loop around its run, not through a callable: a lambda's body
// stayed out of a flattened ISA clone, and bfloat16's conversions in it
// became one out-of-line call per element, three times as slow.
template <size_t kOperands>
inline __attribute__((always_inline)) void advance_rows(char* (&row)[kOperands], const int64_t* row_strides) {
  for (size_t k = 0; k < kOperands; ++k) row[k] += row_strides[k];
}

// Calls run over elements [begin, end) of `loop` in blocks of rows along
// its first two dims.
template <class Run>
void run_row_blocks(const sdk::StridedLoop& loop, int64_t begin, int64_t end, const Run& run) {
  const int operands = loop.num_operands();
  const int64_t* strides = loop.strides(0);
  char* ptrs[sdk::StridedLoop::kMaxOperands];
  if (loop.ndim() == 1) {
    for (int k = 0; k < operands; ++k) ptrs[k] = loop.base(k) + begin * strides[k];
    if (begin < end) run(static_cast<char* const*>(ptrs), strides, end - begin, strides, int64_t{1});
    return;
  }
  const int64_t length = loop.size(0);
  const int64_t lines = loop.size(1);
  const int64_t* row_strides = loop.strides(1);
  for (int64_t position = begin; position < end;) {
    const int64_t offset = position % length;
    int64_t row = position / length;
    const int64_t line = row % lines;
    for (int k = 0; k < operands; ++k) ptrs[k] = loop.base(k) + offset * strides[k] + line * row_strides[k];
    row /= lines;
    for (int d = 2; d < loop.ndim(); ++d) {
      const int64_t index = row % loop.size(d);
      row /= loop.size(d);
      for (int k = 0; k < operands; ++k) ptrs[k] += index * loop.strides(d)[k];
    }
    const int64_t whole_rows = offset == 0 ? std::min(lines - line, (end - position) / length) : 0;
    if (whole_rows > 0) {
      run(static_cast<char* const*>(ptrs), strides, length, row_strides, whole_rows);
      position += whole_rows * length;
    } else {
      const int64_t n = std::min(length - offset, end - position);
      run(static_cast<char* const*>(ptrs), strides, n, row_strides, int64_t{1});
      position += n;
    }
  }
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_ROW_BLOCKS_H_
