// Copyright 2026 The GridStore Authors.
//
// Candidate sets (docs/meta-queries.md, "Planner" step 2): conditions on indexed fields become
// posting range scans giving sorted id sets; `and` intersects (smallest first: every child is
// tried with a growing budget, so one huge range is never read in full when a small one exists),
// `or` unites when every branch is indexable. A set is exact when no condition was left out;
// otherwise the remaining conditions are checked on the candidates' metas.
#include <algorithm>
#include <iterator>

#include "gridstore/catalog/internal/meta_covering.h"
#include "gridstore/catalog/internal/meta_executor.h"
#include "gridstore/catalog/internal/meta_postings.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {

using grid::Query;
using storage::KeyRange;
using storage::Table;

struct MetaQueryExecutor::AndPlan {
  std::vector<AndEntry> open;       // entries not read yet, smallest estimate first
  std::vector<uint64_t> estimates;  // estimated bytes of each open entry
  bool exact = true;                // false once a child is left to checks on metas
  size_t budget = 0;                // ids the last round of reads allowed
  uint64_t first_estimate = 0;      // the estimate of the entry read first
};

namespace {

// Groups the children of an `and` into entries (range conditions on one field together) and
// says whether leaving out the rest keeps the set exact.
bool GroupAndChildren(const CompiledNode& n, std::vector<std::vector<const CompiledNode*>>* open) {
  bool exact = true;
  for (const CompiledNode& c : n.children) {
    if (IsCondition(c.op) && c.indexed == nullptr) {
      exact = false;
    } else if (c.op == Query::Op::kNot || c.op == Query::Op::kAll) {
      exact = exact && c.op == Query::Op::kAll;
    } else {
      auto same_field = std::find_if(open->begin(), open->end(), [&](const auto& group) {
        return IsRangeCondition(c.op) && IsRangeCondition(group[0]->op) &&
               group[0]->field == c.field;
      });
      if (same_field != open->end()) {
        same_field->push_back(&c);
      } else {
        open->push_back({&c});
      }
    }
  }
  return exact;
}

// Merges the sorted runs of ids that each range gave (or sorts, when runs are not sorted), and
// removes duplicates.
void SortIds(bool one_value_runs, const std::vector<size_t>& run_starts, size_t ranges,
             std::vector<std::string_view>* ids) {
  // Each range of one value (equal, in) lists its ids in order: merge those runs. Ranges over
  // many values need a sort.
  if (one_value_runs && ranges <= 8) {
    for (size_t k = 1; k < run_starts.size(); ++k) {
      const size_t end = k + 1 < run_starts.size() ? run_starts[k + 1] : ids->size();
      std::inplace_merge(ids->begin(), ids->begin() + static_cast<ptrdiff_t>(run_starts[k]),
                         ids->begin() + static_cast<ptrdiff_t>(end));
    }
  } else {
    std::sort(ids->begin(), ids->end());
  }
  if (ranges > 1) ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
}

// Whether `id` is in `set` (sorted). `pos` carries the position of the previous lookup: ids
// asked for in ascending order (the postings of one value) gallop forward from it, so a merge
// of a sorted run against the set costs about one comparison per id.
bool InSortedSet(const std::vector<std::string_view>& set, std::string_view id, size_t* pos) {
  size_t lo = *pos;
  if (lo > 0 && set[lo - 1] >= id) lo = 0;  // out of order: search it all
  size_t step = 1, hi = lo;
  while (hi < set.size() && set[hi] < id) {
    lo = hi + 1;
    hi = lo + step;
    step *= 2;
  }
  hi = std::min(hi, set.size());
  auto it = std::lower_bound(set.begin() + static_cast<ptrdiff_t>(lo),
                             set.begin() + static_cast<ptrdiff_t>(hi), id);
  *pos = static_cast<size_t>(it - set.begin());
  return it != set.end() && *it == id;
}

}  // namespace

uint64_t MetaQueryExecutor::Estimate(const AndEntry& entry) {
  const CompiledNode& n = *entry[0];
  if (IsCondition(n.op)) {
    if (n.indexed == nullptr) return kUnknownSize;
    FieldRanges fr(index_->name, *n.indexed);
    std::vector<KeyRange> ranges;
    if (!ConditionRanges(fr, entry, &ranges)) return kUnknownSize;
    uint64_t bytes = 0;
    for (const KeyRange& r : ranges) {
      auto size = kv_->ApproximateSize(Table::kIndex, r);
      if (!size.ok()) return kUnknownSize;
      bytes += *size;
    }
    return bytes;
  }
  if (n.op == Query::Op::kOr) {
    uint64_t total = 0;
    for (const CompiledNode& c : n.children) {
      const uint64_t e = Estimate({&c});
      if (e == kUnknownSize) return kUnknownSize;
      total += e;
    }
    return total;
  }
  if (n.op == Query::Op::kAnd) {
    uint64_t total = kUnknownSize;
    for (const CompiledNode& c : n.children) total = std::min(total, Estimate({&c}));
    return total;
  }
  return kUnknownSize;
}

MetaQueryExecutor::Candidates MetaQueryExecutor::ScanLeaf(
    const AndEntry& conditions, size_t limit, const std::vector<std::string_view>* within) {
  Candidates out;
  const CompiledNode& first = *conditions[0];
  FieldRanges fr(index_->name, *first.indexed);
  std::vector<KeyRange> ranges;
  if (!ConditionRanges(fr, conditions, &ranges)) return out;  // kNotIndexable
  if (limit != kUnlimited) {
    // Postings take at most kMaxPostingBytes each in the store's estimate, so ranges estimated
    // at more than `limit` times that hold more than `limit` postings: skip reading them.
    uint64_t bytes = 0;
    for (const KeyRange& r : ranges) {
      auto size = kv_->ApproximateSize(Table::kIndex, r);
      if (size.ok()) bytes += *size;
    }
    if (bytes / (kMaxPostingBytes + kMaxCoveredBytesPerField * fields_) > limit) {
      out.state = Candidates::kOverLimit;
      return out;
    }
  }
  const size_t width = EncodedValueWidth(first.indexed->type);
  const size_t prefix_size = fr.prefix().size();
  bool over = false;
  size_t read = 0;                 // postings read: `limit` bounds these
  bool all_covered = covered_;     // every posting read had covered values
  std::vector<Scalar> row;         // covered values of one posting
  std::vector<size_t> run_starts;  // where each range's ids begin in out.ids
  for (const KeyRange& r : ranges) {
    run_starts.push_back(out.ids.size());
    size_t pos = 0;
    Status s =
        kv_->Scan(kQueryRead, Table::kIndex, r, [&](std::string_view key, std::string_view v) {
          std::string_view value, id;
          if (!grid::SplitIndexPosting(key.substr(prefix_size), width, &value, &id)) {
            return true;  // not ours to judge here; verify reports it
          }
          if (read >= limit) {
            over = true;
            return false;
          }
          ++read;
          // Within a set, only its members are kept: no string for the others.
          if (within != nullptr && !InSortedSet(*within, id, &pos)) return true;
          // A dataset whose covered values fail the query is no candidate.
          if (covered_) {
            if (DecodeCoveredValues(v, fields_, &row)) {
              if (!EvaluateCovered(root_, row)) return true;
            } else {
              all_covered = false;  // written before covered values: its meta will tell
            }
          }
          out.ids.push_back(out.arena.Add(id));
          return true;
        });
    if (!s.ok() && status_.ok()) status_ = s;
    if (over) break;
  }
  if (over) {
    out.ids.clear();
    out.state = Candidates::kOverLimit;
    return out;
  }
  out.matches_root = all_covered;
  out.state = Candidates::kIds;
  const bool one_value_runs = first.op == Query::Op::kEqual || first.op == Query::Op::kIn;
  SortIds(one_value_runs, run_starts, ranges.size(), &out.ids);
  return out;
}

MetaQueryExecutor::Candidates MetaQueryExecutor::Plan(const CompiledNode& n, size_t limit) {
  if (IsCondition(n.op)) {
    if (n.indexed == nullptr) return Candidates{};  // kNotIndexable
    return ScanLeaf({&n}, limit);
  }
  if (n.op == Query::Op::kOr) return PlanOr(n, limit);
  if (n.op == Query::Op::kAnd) return PlanAnd(n, limit);
  return Candidates{};  // all, not: not indexable
}

MetaQueryExecutor::Candidates MetaQueryExecutor::PlanEntry(
    const AndEntry& entry, size_t limit, const std::vector<std::string_view>* within) {
  const CompiledNode& first = *entry[0];
  if (entry.size() > 1 || (IsCondition(first.op) && first.indexed != nullptr)) {
    return ScanLeaf(entry, limit, within);
  }
  return Plan(first, limit);
}

MetaQueryExecutor::Candidates MetaQueryExecutor::PlanOr(const CompiledNode& n, size_t limit) {
  Candidates out;
  out.state = Candidates::kIds;
  out.matches_root = !n.children.empty();
  for (const CompiledNode& c : n.children) {
    Candidates sub = Plan(c, limit);
    if (sub.state != Candidates::kIds) return sub;
    out.exact = out.exact && sub.exact;
    out.matches_root = out.matches_root && sub.matches_root;
    out.arena.Adopt(sub.arena);
    std::vector<std::string_view> merged;
    merged.reserve(out.ids.size() + sub.ids.size());
    std::set_union(out.ids.begin(), out.ids.end(), sub.ids.begin(), sub.ids.end(),
                   std::back_inserter(merged));
    out.ids.swap(merged);
    if (out.ids.size() > limit) {
      out.ids.clear();
      out.state = Candidates::kOverLimit;
      return out;
    }
  }
  return out;
}

MetaQueryExecutor::Candidates MetaQueryExecutor::FirstAndSet(AndPlan* plan, size_t limit) {
  Candidates out;
  // With covered values and no walk to fall back on, the entry estimated smallest is read in
  // full at once: the query is checked on each posting, so no other entry need be read.
  plan->budget = covered_ && limit == kUnlimited ? limit : std::min<size_t>(256, limit);
  while (true) {
    for (size_t i = 0; i < plan->open.size();) {
      Candidates sub = PlanEntry(plan->open[i], plan->budget);
      if (sub.state == Candidates::kIds) {
        plan->first_estimate = plan->estimates[i];
        plan->open.erase(plan->open.begin() + static_cast<ptrdiff_t>(i));
        plan->estimates.erase(plan->estimates.begin() + static_cast<ptrdiff_t>(i));
        return sub;
      }
      if (sub.state == Candidates::kNotIndexable) {
        plan->exact = false;
        plan->open.erase(plan->open.begin() + static_cast<ptrdiff_t>(i));
        plan->estimates.erase(plan->estimates.begin() + static_cast<ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    if (plan->open.empty()) return out;  // nothing indexable
    if (plan->budget >= limit) {
      out.state = Candidates::kOverLimit;
      return out;
    }
    plan->budget = plan->budget > limit / 4 ? limit : plan->budget * 4;
  }
}

MetaQueryExecutor::Candidates MetaQueryExecutor::PlanAnd(const CompiledNode& n, size_t limit) {
  // Find the smallest child set with a growing budget, then intersect those children that are
  // not much larger; the rest become checks on the candidates.
  AndPlan plan;
  std::vector<AndEntry> entries;
  plan.exact = GroupAndChildren(n, &entries);
  if (entries.empty()) return Candidates{};
  // Smallest estimated first, and a round stops at its first success, so that a selective child
  // is read before broad ones are tried at all. Estimates are coarse (store blocks of a few KB),
  // so the rounds of growing budgets still decide among children of similar size.
  std::vector<uint64_t> estimates;
  for (const AndEntry& entry : entries) estimates.push_back(Estimate(entry));
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return estimates[a] < estimates[b]; });
  for (size_t i : order) {
    plan.open.push_back(std::move(entries[i]));
    plan.estimates.push_back(estimates[i]);
  }
  std::vector<Candidates> done;
  done.push_back(FirstAndSet(&plan, limit));
  if (done[0].state != Candidates::kIds) return std::move(done[0]);
  if (done[0].matches_root) {  // the query was checked on every posting: nothing to intersect
    done[0].exact = true;
    return std::move(done[0]);
  }
  // Intersect only children not much larger than the smallest set (kScanPerCheck); the rest
  // become checks on the candidates' metas.
  const size_t cap = std::min(limit, done[0].ids.size() * kScanPerCheck + 256);
  // A child estimated at many times the first one's bytes would be read in vain.
  const uint64_t estimate_cap = plan.first_estimate > kUnknownSize / (2 * kScanPerCheck)
                                    ? plan.first_estimate
                                    : kScanPerCheck * plan.first_estimate + (16 << 10);
  for (size_t i = 0; i < plan.open.size(); ++i) {
    const bool try_it = cap > plan.budget && plan.estimates[i] <= estimate_cap;
    // Later children keep only ids of the first set: the intersection, built as it is read.
    Candidates sub =
        try_it ? PlanEntry(plan.open[i], cap, &done[0].ids) : Candidates{Candidates::kOverLimit};
    if (sub.state == Candidates::kIds) {
      done.push_back(std::move(sub));
    } else {
      plan.exact = false;
    }
  }
  std::sort(done.begin(), done.end(),
            [](const auto& a, const auto& b) { return a.ids.size() < b.ids.size(); });
  Candidates out;
  out.state = Candidates::kIds;
  out.ids = std::move(done[0].ids);
  out.arena = std::move(done[0].arena);
  out.exact = plan.exact && done[0].exact;
  out.matches_root = done[0].matches_root;
  for (size_t i = 1; i < done.size(); ++i) {
    out.exact = out.exact && done[i].exact;
    out.matches_root = out.matches_root || done[i].matches_root;
    std::vector<std::string_view> kept;
    std::set_intersection(out.ids.begin(), out.ids.end(), done[i].ids.begin(), done[i].ids.end(),
                          std::back_inserter(kept));
    out.ids.swap(kept);
  }
  out.exact = out.exact || out.matches_root;
  return out;
}

}  // namespace gridstore::internal_grid
