// ember::set_num_threads and get_num_threads through the CPU plugin's device
// table, and kernels that give the same bits whatever the thread count.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "expect_error.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember::testing::expect_error;

// Every test leaves the count it found.
class NumThreads : public ::testing::Test {
 protected:
  void SetUp() override { initial_ = ember::get_num_threads(); }
  void TearDown() override { ember::set_num_threads(initial_); }

 private:
  int initial_ = 1;
};

TEST_F(NumThreads, GetReturnsWhatSetSet) {
  for (int threads : {1, 3, 2}) {
    ember::set_num_threads(threads);
    EXPECT_EQ(ember::get_num_threads(), threads);
  }
}

TEST_F(NumThreads, SetRejectsCountsBelowOneAndKeepsTheCount) {
  ember::set_num_threads(2);
  expect_error([] { ember::set_num_threads(0); }, ErrorKind::Runtime, "positive integer, but got 0");
  expect_error([] { ember::set_num_threads(-1); }, ErrorKind::Runtime, "positive integer, but got -1");
  EXPECT_EQ(ember::get_num_threads(), 2);
}

// Inputs large enough that every kernel below splits its work (the
// reductions into many partial results) once it has more than one thread.
std::vector<std::pair<std::string, std::vector<float>>> results() {
  ember::manual_seed(7);
  const Tensor x = ember::randn({512, 640});
  const Tensor images = ember::randn({64, 16, 16, 16});
  const Tensor weight = ember::randn({32, 16, 3, 3});
  const Tensor target = ember::arange(512, ember::DType::Int64);
  std::vector<std::pair<std::string, std::function<Tensor()>>> ops = {
      {"sum", [&] { return ember::sum(x); }},
      {"mean over rows", [&] { return ember::mean(x, {0}); }},
      {"sum over columns", [&] { return ember::sum(x, {1}); }},
      {"amax", [&] { return ember::amax(x); }},
      {"argmax", [&] { return ember::argmax(x).to(ember::DType::Float32); }},
      {"exp * x + 1", [&] { return ember::add(ember::mul(ember::exp(x), x), 1.0); }},
      {"softmax", [&] { return ember::softmax(x, 1); }},
      {"layer_norm", [&] { return ember::layer_norm(x, {640}); }},
      {"cross_entropy", [&] { return ember::cross_entropy(x, target); }},
      {"max_pool2d",
       [&] {
         return ember::max_pool2d(images, {2, 2});
       }},
      {"rand",
       [&] {
         ember::manual_seed(3);
         return ember::rand({512, 640});
       }},
      {"mm", [&] { return ember::mm(x, x.t()); }},
      {"conv2d", [&] { return ember::conv2d(images, weight); }},
  };
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (auto& [name, op] : ops) out.emplace_back(name, op().contiguous().tolist<float>());
  return out;
}

TEST_F(NumThreads, KernelsGiveTheSameBitsForAnyThreadCount) {
  ember::set_num_threads(1);
  const auto single = results();
  for (int threads : {2, 3}) {
    ember::set_num_threads(threads);
    const auto several = results();
    ASSERT_EQ(several.size(), single.size());
    for (size_t i = 0; i < single.size(); ++i) {
      EXPECT_EQ(several[i].second, single[i].second) << single[i].first << " with " << threads << " threads";
    }
  }
}

}  // namespace
