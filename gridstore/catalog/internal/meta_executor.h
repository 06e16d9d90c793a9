// Copyright 2026 The GridStore Authors.
//
// Execution of one meta query (docs/meta-queries.md, "Planner", steps 2 to 4). Its parts live in
// three files:
//   meta_candidates.cc  candidate id sets from posting ranges (`and` intersects, `or` unites);
//   meta_walk.cc        the walk of the first sort field's postings, stopping after the page;
//   meta_executor.cc    the overall flow: setup, reading metas, ordering, the page and its token.
// One executor answers one query; it is not shared between threads.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_EXECUTOR_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/internal/meta_compile.h"
#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// Every read of a meta query: a backend's catalog replica may answer (a query may be a moment
// behind other processes' writes, never behind this process's).
inline constexpr storage::ReadOptions kQueryRead{.allow_replica = true};

// Candidate sets at most this large are ordered by reading their metas; larger ones by walking
// the sort field's postings (when the first sort field is indexed and there is a limit).
inline constexpr size_t kDirectMax = 1000;
// With a walk available, candidate sets are computed only up to this size.
inline constexpr size_t kWalkCandidateLimit = 2048;
// An `and` intersects a child's postings into its smallest set while the child holds at most
// this many times as many postings. Reading a posting into an intersection (no id string kept)
// costs less than checking a candidate's meta, but not much less: measured at 1M datasets, 32
// made the `selective` benchmark query twice as slow as checking its 2,723 candidates' metas.
inline constexpr size_t kScanPerCheck = 4;
// Matches that keep the stored meta read while matching, for the page (beyond this, the page's
// metas are read again).
inline constexpr size_t kKeptMetas = 4096;
// Postings a walk on covered values reads before the planner is asked (meta_walk.cc).
inline constexpr size_t kProbePostings = 256;
// Metas read per MultiGet, postings per scan chunk.
inline constexpr size_t kMetaBatch = 256;
inline constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();
// A generous bound on the bytes one posting takes in the store's size estimates (key with field,
// value and id, plus per-entry overhead in memtables), plus this much per field of the index for
// its covered values; only ever used to skip reading ranges that certainly hold more postings
// than wanted.
inline constexpr uint64_t kMaxPostingBytes = 256;
inline constexpr uint64_t kMaxCoveredBytesPerField = 32;
// An estimate of bytes that cannot be made (an unindexed condition, a failed estimate).
inline constexpr uint64_t kUnknownSize = std::numeric_limits<uint64_t>::max();

// The bytes that candidate ids view: ids read from postings are copied once into shared chunks
// instead of into a heap string each (a broad condition yields hundreds of thousands).
class IdArena {
 public:
  // A view of a copy of `id`, valid while this arena or one that adopted it lives.
  std::string_view Add(std::string_view id);
  // Keeps `other`'s chunks alive as long as this arena: for sets that view ids of both.
  void Adopt(const IdArena& other);

 private:
  std::vector<std::shared_ptr<std::string>> chunks_;  // never grown past their capacity
};

// A dataset that matches, with its sort keys.
struct MetaMatch {
  std::string id;
  std::vector<SortValue> keys;  // one per sort field (unused for "id")
  std::string meta;  // the stored meta if it was read while matching ("": read it for the page)
};

// One sort field, resolved against the index.
struct SortSpec {
  std::string_view field;
  bool descending = false;
  bool is_id = false;
  const grid::IndexField* indexed = nullptr;
};

class MetaQueryExecutor {
 public:
  // `index` is null to answer without an index. All three must outlive the executor.
  MetaQueryExecutor(storage::KvStore* kv, const grid::MetaIndexInfo* index,
                    const grid::QueryParams& params)
      : kv_(kv), index_(index), params_(params) {}

  Result<grid::QueryResult> Run(const grid::Query& query);

 private:
  struct Candidates {
    enum State : uint8_t { kIds, kOverLimit, kNotIndexable };
    State state = kNotIndexable;
    std::vector<std::string_view> ids;  // sorted, unique; views into `arena`
    bool exact = true;                  // every id matches (no condition was left out)
    // Every id matches the whole query (checked on covered values as the postings were read).
    bool matches_root = false;
    IdArena arena;
  };
  // One child of an `and`, or the range conditions on one field under it taken together.
  using AndEntry = std::vector<const CompiledNode*>;
  struct AndPlan;     // meta_candidates.cc
  class PostingWalk;  // meta_walk.cc

  // ---- meta_executor.cc ----

  // Checks the params, compiles the query and the sort, reads the page token. Returns the
  // query's fingerprint for tokens.
  Result<uint64_t> Prepare(const grid::Query& query);
  Status PrepareSort();
  // The candidate set (kOverLimit when the walk goes first), with the plan's notes.
  Result<Candidates> FindCandidates(bool can_walk, grid::QueryResult* result);
  // Every match in order, or at least the first need_; *total if that tells it.
  Status FindMatches(const Candidates& c, bool can_walk, int64_t* total,
                     std::vector<MetaMatch>* matches, grid::QueryResult* result);
  Status CountAllDataSets(int64_t* total);

  bool NeedsAttributes() const;
  void MakeKeys(const grid::Attributes& attributes, MetaMatch* m) const;
  bool Less(const MetaMatch& a, const MetaMatch& b) const;
  // Reads the metas of `ids` (attributes only) and calls fn(id, stored meta, attributes) for
  // those present.
  Status ForEachMeta(
      const std::vector<std::string_view>& ids,
      const std::function<void(std::string_view, std::string_view, const grid::Attributes&)>& fn);
  // Keeps the candidates that match (all of them if exact), with sort keys if needed.
  // Both stop once `stop_at` matches are found (when the order is by id, that is enough).
  Status CollectMatches(const std::vector<std::string_view>& ids, bool exact, size_t stop_at,
                        std::vector<MetaMatch>* matches);
  Status ScanAllMatches(size_t stop_at, std::vector<MetaMatch>* matches);
  // Sorts the first `need` matches into place.
  void SortMatches(std::vector<MetaMatch>* matches, size_t need) const;
  Status FetchPage(const std::vector<MetaMatch>& sorted, grid::QueryResult* result);

  // ---- meta_candidates.cc ----

  Candidates Plan(const CompiledNode& n, size_t limit);
  Candidates PlanOr(const CompiledNode& n, size_t limit);
  Candidates PlanAnd(const CompiledNode& n, size_t limit);
  // `within` (if not null, sorted): only ids in it are kept, as the entry's postings are read.
  Candidates PlanEntry(const AndEntry& entry, size_t limit,
                       const std::vector<std::string_view>* within = nullptr);
  // The first child set of an `and` found within growing budgets (kNotIndexable or kOverLimit
  // if there is none).
  Candidates FirstAndSet(AndPlan* plan, size_t limit);
  // Postings of one condition, or of the conjunction of range conditions on one field.
  // `limit` bounds the postings read; with `within`, only ids in that sorted set are kept.
  Candidates ScanLeaf(const AndEntry& conditions, size_t limit,
                      const std::vector<std::string_view>* within = nullptr);
  // Approximate bytes of postings an entry would read (kUnknownSize if it cannot be read), from
  // the store's size estimates: no postings are read.
  uint64_t Estimate(const AndEntry& entry);

  // ---- meta_walk.cc ----

  // Whether to walk the first sort field without building candidates: when conditions on that
  // field bound the walk to a range estimated no larger than any other condition's postings.
  bool WalkFirst();
  // Walks the postings of the first sort field. `members` restricts to a candidate set.
  // Returns false (with *matches untouched) if the postings ran out before `need_` matches, or
  // if `budget` postings were read without finding them.
  Result<bool> Walk(const std::vector<std::string_view>* members, bool exact,
                    std::vector<MetaMatch>* matches, size_t budget = kUnlimited);
  // With covered values, a walk that reads at most kProbePostings (+ 2 per match wanted) before
  // any planning: a page of a broad query is then found without size estimates. True if it
  // found the page (*matches, *result's notes set).
  Result<bool> ProbeWalk(bool can_walk, std::vector<MetaMatch>* matches);

  storage::KvStore* kv_;
  const grid::MetaIndexInfo* index_;
  const grid::QueryParams& params_;
  CompiledNode root_;
  bool all_ = false;  // the query matches every dataset
  // Every condition is on an indexed field: postings' covered values answer the whole query.
  bool covered_ = false;
  size_t fields_ = 0;  // of the index's schema: the covered values per posting
  std::vector<SortSpec> sort_;
  // The attributes conditions test and sort fields name (sorted, unique): all a meta is decoded
  // for while matching.
  std::vector<std::string> tested_;
  int64_t offset_ = 0;
  size_t need_ = kUnlimited;  // offset + limit + 1: enough to know whether a next page exists
  std::vector<std::string> notes_;
  Status status_;  // first KvStore error met while planning
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_EXECUTOR_H_
