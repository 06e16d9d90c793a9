// Copyright 2026 The GridStore Authors.
//
// Query compilation (docs/meta-queries.md, "Planner" step 1): a Query resolved against an index
// schema, with each condition's field looked up, its values checked against the field's declared
// type and converted to the Scalars the comparisons use. Also the evaluation of a compiled query
// on one dataset's attributes, which is the definition every index answer must agree with.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_COMPILE_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_COMPILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// A query node after compilation. Views into the Query and the index it was compiled against,
// which must outlive it.
struct CompiledNode {
  grid::Query::Op op = grid::Query::Op::kAll;
  std::string_view field;
  const grid::IndexField* indexed = nullptr;  // the field's declaration, if indexed
  size_t position = 0;                        // of `indexed` in the schema's fields
  std::vector<Scalar> values;
  bool include_lower = true;
  bool include_upper = true;
  std::vector<CompiledNode> children;
};

// The declaration of field `name` in `index` (null: no index, or not indexed).
const grid::IndexField* FindIndexField(const grid::MetaIndexInfo* index, std::string_view name);

// A condition on a field (not all, and, or, not).
bool IsCondition(grid::Query::Op op);
// <, <=, >, >= or a range: at most one key range on an indexed field.
bool IsRangeCondition(grid::Query::Op op);

// Compiles `query` against `index` (null: no declared types) into *out. InvalidArgument for a
// malformed node (a 'not' without one child, a condition with the wrong number of values or an
// empty field name), range bounds of different kinds, a prefix that is not a string, or a value
// that cannot have the declared type of its indexed field.
Status CompileQuery(const grid::MetaIndexInfo* index, const grid::Query& query, CompiledNode* out);

// True if a dataset with `attributes` matches the compiled query.
bool EvaluateCompiled(const CompiledNode& node, const grid::Attributes& attributes);

// True if every condition under `node` is on an indexed field: covered values
// (meta_covering.h) then answer it.
bool IsCovered(const CompiledNode& node);
// EvaluateCompiled on a dataset's covered values (one per schema field, as DecodeCoveredValues
// gives them): the same answer. REQUIRES: IsCovered(node).
bool EvaluateCovered(const CompiledNode& node, const std::vector<Scalar>& row);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_COMPILE_H_
