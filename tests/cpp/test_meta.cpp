// The meta device runs every op without data: shapes and dtypes only.
#include <gtest/gtest.h>

#include <ember/ember.h>

namespace ember {
namespace {

TensorOptions meta(DType d = DType::Float32) { return TensorOptions(d, Device("meta")); }

TEST(Meta, ElementwiseBroadcastAndPromotion) {
  Tensor a = empty({4, 1, 3}, meta(DType::Int32));
  Tensor b = empty({5, 1}, meta(DType::Float16));
  Tensor c = a + b;
  EXPECT_TRUE(c.device().is_meta());
  EXPECT_EQ(c.sizes(), DimVector({4, 5, 3}));
  EXPECT_EQ(c.dtype(), DType::Float16);
  EXPECT_EQ(lt(a, b).dtype(), DType::Bool);
  EXPECT_EQ(sin(a).dtype(), DType::Float32);
  EXPECT_EQ(div(a, a).dtype(), DType::Float32);
  EXPECT_EQ(where(empty({3}, meta(DType::Bool)), a, 1.0 * a).sizes(), DimVector({4, 1, 3}));
}

TEST(Meta, ReductionsMatmulIndexing) {
  Tensor x = empty({2, 3, 4}, meta());
  EXPECT_EQ(sum(x, {1}).sizes(), DimVector({2, 4}));
  EXPECT_EQ(sum(x, {-1, 0}, true).sizes(), DimVector({1, 3, 1}));
  EXPECT_EQ(sum(empty({2}, meta(DType::Int8))).dtype(), DType::Int64);
  EXPECT_EQ(argmax(x, 2).sizes(), DimVector({2, 3}));
  EXPECT_EQ(argmax(x).dim(), 0);
  EXPECT_EQ(mm(empty({7, 5}, meta()), empty({5, 9}, meta())).sizes(), DimVector({7, 9}));
  EXPECT_EQ(bmm(empty({2, 7, 5}, meta()), empty({2, 5, 9}, meta())).sizes(), DimVector({2, 7, 9}));
  EXPECT_EQ(index_select(x, 1, empty({6}, meta(DType::Int64))).sizes(), DimVector({2, 6, 4}));
  EXPECT_EQ(cat({x, x}, 2).sizes(), DimVector({2, 3, 8}));
  EXPECT_EQ(gather(x, 1, empty({2, 1, 4}, meta(DType::Int64))).sizes(), DimVector({2, 1, 4}));
}

TEST(Meta, ErrorsStillRaised) {
  EXPECT_THROW(mm(empty({7, 5}, meta()), empty({4, 9}, meta())), Error);
  EXPECT_THROW(empty({2, 3}, meta()) + empty({4}, meta()), Error);
  EXPECT_THROW(empty({2}, meta()).item(), Error);
}

TEST(Meta, MixingDevicesIsAnError) {
  try {
    (void)(ones({2}) + empty({2}, meta()));
    FAIL() << "expected a device error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("meta"), std::string::npos) << e.what();
  }
}

TEST(Meta, AllocatesNoMemory) {
  Tensor big = empty({1 << 20, 1 << 20}, meta());
  EXPECT_EQ(big.numel(), int64_t{1} << 40);
  EXPECT_EQ(big.data_ptr(), nullptr);
  EXPECT_EQ((big * 2.0).sizes(), big.sizes());
}

}  // namespace
}  // namespace ember
