// Copyright 2026 The GridStore Authors.
#include "gridstore/model/grid.h"

#include "gridstore/model/eigen_view.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

TEST(Grid2DTest, FromValuesIsRowMajorWithYFastest) {
  Grid2D g = Grid2D::FromValues<int32_t>(2, 3, {0, 1, 2, 10, 11, 12});
  EXPECT_EQ(g.type(), DataType::kInt32);
  EXPECT_EQ(g.x(), 2);
  EXPECT_EQ(g.y(), 3);
  EXPECT_EQ(g.at<int32_t>(1, 2), 12);
  EXPECT_EQ(g.size_bytes(), 24u);
}

TEST(Grid2DTest, CopyIsDeep) {
  Grid2D a = Grid2D::FromValues<float>(1, 2, {1.f, 2.f});
  Grid2D b = a;
  b.at<float>(0, 0) = 9.f;
  EXPECT_EQ(a.at<float>(0, 0), 1.f);
  Grid2D c = std::move(b);
  EXPECT_EQ(c.at<float>(0, 0), 9.f);
}

TEST(Grid4DTest, SpanTensorAndAtAgree) {
  Grid4D g(DataType::kFloat64, {1, 2, 3, 4}, {2, 3, 4, 5});
  auto data = g.data<double>();
  ASSERT_EQ(data.size(), 120u);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i);
  auto tensor = TensorView<double>(g);
  EXPECT_EQ(tensor.dimension(0), 2);
  EXPECT_EQ(tensor.dimension(3), 5);
  EXPECT_EQ(tensor(1, 2, 3, 4), 119.0);
  EXPECT_EQ(g.at<double>(1, 0, 2, 1), tensor(1, 0, 2, 1));
  EXPECT_EQ(g.ValueAsDouble(0, 1, 0, 2), tensor(0, 1, 0, 2));
  EXPECT_EQ(g.origin(), (Shape4{1, 2, 3, 4}));
  // Eigen reductions work on the view directly.
  Eigen::Tensor<double, 0, Eigen::RowMajor> sum = tensor.sum();
  EXPECT_EQ(sum(), 119.0 * 120.0 / 2.0);
}

TEST(Grid4DTest, ValueAsDoubleConvertsEveryType) {
  Grid4D g(DataType::kUint16, {0, 0, 0, 0}, {1, 1, 1, 2});
  g.data<uint16_t>()[1] = 65535;
  EXPECT_EQ(g.ValueAsDouble(0, 0, 0, 1), 65535.0);
}

TEST(GridDataSetTest, GetVariableOfMissingNameIsNull) {
  GridDataSet ds;
  ds.variables["a"] = Grid4D(DataType::kInt8, {0, 0, 0, 0}, {1, 1, 1, 1});
  EXPECT_NE(ds.GetVariable("a"), nullptr);
  EXPECT_EQ(ds.GetVariable("b"), nullptr);
}

}  // namespace
}  // namespace gridstore::grid
