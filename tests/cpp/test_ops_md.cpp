// sdk/docs/ops.md against the core and the CPU plugin (the reference): the
// catalogue it documents is the core's, and the edge cases it states hold.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/ember_plugin.h>

namespace {

using ember::Tensor;

struct DocumentedOps {
  std::set<std::string> all;
  std::set<std::string> composite;  // rows under "Composite ops a backend may override"
  std::map<std::string, int> abi_minor;  // from a "(since 1.M)" mark; 0 without one
};

// Ops named in the first cell of a table row, or in a "## `op`" heading.
DocumentedOps read_ops_md() {
  std::ifstream file(EMBER_OPS_MD);
  EXPECT_TRUE(file) << "cannot read " << EMBER_OPS_MD;
  DocumentedOps ops;
  const std::regex name("`([a-z0-9_]+)`");
  const std::regex since("\\(since 1\\.([0-9]+)\\)");
  bool in_composites = false;
  for (std::string line; std::getline(file, line);) {
    if (line.starts_with("## ")) in_composites = line.find("Composite ops") != std::string::npos;
    std::string cell;
    if (line.starts_with("| `")) {
      cell = line.substr(1, line.find('|', 1) - 1);
    } else if (line.starts_with("## `")) {
      cell = line.substr(3, line.find(':') - 3);
    } else {
      continue;
    }
    std::smatch minor;
    const int abi_minor = std::regex_search(cell, minor, since) ? std::stoi(minor[1]) : 0;
    for (std::sregex_iterator it(cell.begin(), cell.end(), name), end; it != end; ++it) {
      ops.all.insert((*it)[1]);
      ops.abi_minor[(*it)[1]] = abi_minor;
      if (in_composites) ops.composite.insert((*it)[1]);
    }
  }
  return ops;
}

TEST(OpsMd, DocumentsExactlyTheCatalogue) {
  const DocumentedOps documented = read_ops_md();
  std::set<std::string> catalogue, composite;
  for (const ember::CatalogueOp& op : ember::catalogue_ops()) {
    catalogue.insert(op.name);
    if (op.composite) composite.insert(op.name);
  }
  for (const std::string& op : catalogue) EXPECT_TRUE(documented.all.count(op)) << op << " has no row in ops.md";
  for (const std::string& op : documented.all)
    EXPECT_TRUE(catalogue.count(op)) << "ops.md documents " << op << ", which the catalogue lacks";
  EXPECT_EQ(documented.composite, composite) << "ops.md's composite rows differ from the catalogue's composites";
}

TEST(OpsMd, MarksTheMinorThatIntroducedEachOp) {
  const DocumentedOps documented = read_ops_md();
  for (const ember::CatalogueOp& op : ember::catalogue_ops()) {
    EXPECT_LE(op.abi_minor, EMBER_ABI_VERSION_MINOR) << op.name;
    auto it = documented.abi_minor.find(op.name);
    if (it == documented.abi_minor.end()) continue;  // DocumentsExactlyTheCatalogue reports it
    EXPECT_EQ(it->second, op.abi_minor) << op.name << ": ops.md's \"(since 1.M)\" mark and the catalogue differ";
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bit-exact, signed zeros and NaN included.
void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i] << ", expected NaN";
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}

Tensor values(const std::vector<double>& v) { return ember::tensor(v); }

TEST(OpsMd, FloorDivideIsPythonsFloorDivision) {
  const Tensor a = values({-kInf, kInf, NAN, 1.0, 5.0, -5.0, 5.0, 0.0, 1.0, -1.0, 0.0, 7.0, -7.0});
  const Tensor b = values({1.9, 2.0, 1.0, 0.1, kInf, kInf, -kInf, kInf, 0.0, 0.0, 0.0, -2.0, 2.0});
  expect_same(ember::floor_divide(a, b).tolist<double>(),
              {NAN, NAN, NAN, 9.0, 0.0, -1.0, -1.0, 0.0, kInf, -kInf, NAN, -4.0, -4.0});
}

TEST(OpsMd, RemainderHasTheSignOfTheDivisor) {
  const Tensor a = values({kInf, 1.0, NAN, 5.0, -5.0, 5.0, -7.0, 7.0});
  const Tensor b = values({2.0, 0.0, 1.0, kInf, kInf, -kInf, 2.0, -2.0});
  expect_same(ember::remainder(a, b).tolist<double>(), {NAN, NAN, NAN, 5.0, kInf, -kInf, 1.0, -1.0});
}

TEST(OpsMd, AbsOfNegativeZeroIsPositiveZero) {
  expect_same(ember::abs(values({-0.0, -2.5})).tolist<double>(), {0.0, 2.5});
  expect_same(ember::abs(ember::tensor(std::vector<float>{-0.0f})).to(ember::DType::Float16).tolist<double>(), {0.0});
}

TEST(OpsMd, IntegerMatrixProductsWrapInTheirDtype) {
  const Tensor a = ember::tensor(std::vector<int64_t>{50, 100, 150, 200}, {2, 2}).to(ember::DType::Int8);
  // 50*50 + 100*150 = 17500 = 92 (mod 256); 50*100 + 100*200 = 25000 = -88 (mod 256, signed).
  EXPECT_EQ(ember::mm(a, a).to(ember::DType::Int64).tolist<int64_t>(), (std::vector<int64_t>{92, -88, 124, -40}));
}

// Kernels never see a 0-d tensor for indexing: the core views it as [1].
TEST(OpsMd, IndexingZeroDimTensors) {
  const Tensor x = ember::scalar_tensor(5.0);
  const Tensor zero = ember::tensor(std::vector<int64_t>{0}).reshape({});
  const Tensor picked = ember::index_select(x, 0, zero);
  EXPECT_EQ(picked.dim(), 0);
  EXPECT_EQ(picked.item<double>(), 5.0);
  EXPECT_EQ(ember::gather(x, 0, zero).item<double>(), 5.0);
  EXPECT_EQ(ember::gather(x, 0, ember::tensor(std::vector<int64_t>{0, 0})).tolist<double>(),
            (std::vector<double>{5.0, 5.0}));
  const Tensor sum = ember::scatter_add(x, 0, zero, ember::scalar_tensor(1.0));
  EXPECT_EQ(sum.dim(), 0);
  EXPECT_EQ(sum.item<double>(), 6.0);
}

}  // namespace
