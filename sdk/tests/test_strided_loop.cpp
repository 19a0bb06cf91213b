// StridedLoop's two walks (Note [Strided loops]): the logical order random
// kernels rely on, and the memory order elementwise kernels ask for, which
// must visit the same elements, each once, in runs along memory.
#include <gtest/gtest.h>

#include <ember/ember_plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ember::sdk {
namespace {

struct Float32Tensor {
  std::vector<int64_t> shape, strides;  // strides in elements
  DLTensor dl{};

  Float32Tensor(float* data, std::vector<int64_t> sizes, std::vector<int64_t> element_strides)
      : shape(std::move(sizes)), strides(std::move(element_strides)) {
    dl.data = data;
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = {kDLFloat, 32, 1};
    dl.shape = shape.data();
    dl.strides = strides.data();
  }
};

// Each visited element as its operands' element offsets, in visiting order,
// with the length of every run the loop hands out.
struct Visit {
  std::vector<std::vector<int64_t>> offsets;
  std::vector<int64_t> runs;
};

Visit visit(const StridedLoop& loop, const float* base) {
  Visit v;
  loop.run([&](char* const* ptrs, const int64_t* strides, int64_t n) {
    v.runs.push_back(n);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> element;
      for (int op = 0; op < loop.num_operands(); ++op) {
        element.push_back((ptrs[op] + i * strides[op] - reinterpret_cast<const char*>(base)) /
                          static_cast<int64_t>(sizeof(float)));
      }
      v.offsets.push_back(element);
    }
  });
  return v;
}

TEST(StridedLoop, LogicalOrderVisitsRowMajorElementsOfATransposedTensor) {
  std::vector<float> memory(12);
  Float32Tensor t(memory.data(), {3, 4}, {1, 3});
  const Visit v = visit(StridedLoop({&t.dl}), memory.data());
  ASSERT_EQ(v.offsets.size(), 12u);
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(v.offsets[static_cast<size_t>(i)][0], i / 4 + i % 4 * 3) << i;
  EXPECT_EQ(v.runs, std::vector<int64_t>({4, 4, 4}));
}

TEST(StridedLoop, MemoryOrderWalksATransposedTensorAsOneRun) {
  std::vector<float> memory(12);
  Float32Tensor out(memory.data(), {3, 4}, {1, 3});
  Float32Tensor in(memory.data(), {3, 4}, {1, 3});
  const StridedLoop loop({&out.dl, &in.dl}, LoopOrder::Memory);
  EXPECT_EQ(loop.ndim(), 1);
  const Visit v = visit(loop, memory.data());
  EXPECT_EQ(v.runs, std::vector<int64_t>({12}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(v.offsets[static_cast<size_t>(i)], std::vector<int64_t>({i, i}));
}

TEST(StridedLoop, MemoryOrderMergesAPermutationSharedByEveryOperand) {
  // [2, 3, 4] laid out as permute(2, 0, 1) of a contiguous [4, 2, 3].
  std::vector<float> memory(48);
  Float32Tensor out(memory.data(), {2, 3, 4}, {3, 1, 6});
  Float32Tensor in(memory.data() + 24, {2, 3, 4}, {3, 1, 6});
  const StridedLoop loop({&out.dl, &in.dl}, LoopOrder::Memory);
  EXPECT_EQ(loop.ndim(), 1);
  EXPECT_EQ(loop.strides(0)[0], 4);
  EXPECT_EQ(loop.strides(0)[1], 4);
}

TEST(StridedLoop, MemoryOrderPassesOverDimsOfSizeOne) {
  // permute(2, 1, 0) of a contiguous [5, 1, 4] whose size-1 dim has stride
  // 0, which tells nothing and would otherwise hold the others in logical
  // order.
  std::vector<float> memory(20);
  Float32Tensor out(memory.data(), {4, 1, 5}, {1, 0, 4});
  const StridedLoop loop({&out.dl}, LoopOrder::Memory);
  EXPECT_EQ(loop.ndim(), 1);
  EXPECT_EQ(loop.size(0), 20);
}

TEST(StridedLoop, MemoryOrderFollowsTheFirstOperandAndSkipsBroadcasts) {
  std::vector<float> memory(64);
  // A contiguous output beside a transposed input: the output decides.
  Float32Tensor out(memory.data(), {3, 4}, {4, 1});
  Float32Tensor transposed(memory.data() + 16, {3, 4}, {1, 3});
  const StridedLoop by_output({&out.dl, &transposed.dl}, LoopOrder::Memory);
  EXPECT_EQ(by_output.size(0), 4);
  EXPECT_EQ(by_output.strides(0)[0], 4);
  // A row broadcast along dim 0 tells nothing; the transposed operand after it does.
  Float32Tensor row(memory.data() + 32, {3, 4}, {0, 1});
  Float32Tensor column_major(memory.data() + 48, {3, 4}, {1, 3});
  const StridedLoop past_broadcast({&row.dl, &column_major.dl}, LoopOrder::Memory);
  EXPECT_EQ(past_broadcast.size(0), 3);
  EXPECT_EQ(past_broadcast.strides(0)[1], 4);
}

TEST(StridedLoop, MemoryOrderVisitsEveryElementOnceInAnyChunking) {
  std::vector<float> memory(256);
  // Operands that disagree on the order of their dims, and one broadcast.
  Float32Tensor out(memory.data(), {2, 3, 4}, {1, 8, 2});
  Float32Tensor in(memory.data() + 64, {2, 3, 4}, {12, 1, 3});
  Float32Tensor scalar(memory.data() + 128, {2, 3, 4}, {0, 0, 0});
  const StridedLoop logical({&out.dl, &in.dl, &scalar.dl});
  const StridedLoop by_memory({&out.dl, &in.dl, &scalar.dl}, LoopOrder::Memory);
  Visit expected = visit(logical, memory.data());
  std::sort(expected.offsets.begin(), expected.offsets.end());
  for (int64_t chunks : {1, 5, 24}) {
    std::vector<std::vector<int64_t>> seen;
    for (int64_t c = 0; c < chunks; ++c) {
      const Range r = split_range(by_memory.numel(), chunks, c);
      by_memory.run(r.begin, r.end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          std::vector<int64_t> element;
          for (int op = 0; op < 3; ++op) {
            element.push_back((ptrs[op] + i * strides[op] - reinterpret_cast<char*>(memory.data())) /
                              static_cast<int64_t>(sizeof(float)));
          }
          seen.push_back(element);
        }
      });
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, expected.offsets) << chunks << " chunks";
  }
}

}  // namespace
}  // namespace ember::sdk
