// Copyright 2026 The GridStore Authors.
//
// Ordering by walking postings (docs/meta-queries.md, "Planner" step 3): with an indexed first
// sort field and a limit, the postings of that field are read in order, in growing chunks, and
// the walk stops once offset + limit + 1 matches are found.
#include <algorithm>
#include <utility>

#include "gridstore/catalog/internal/meta_covering.h"
#include "gridstore/catalog/internal/meta_executor.h"
#include "gridstore/catalog/internal/meta_postings.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {

using grid::Attributes;
using grid::Query;
using storage::KeyRange;
using storage::Table;

// The state of one walk; the executor's members (need_, sort_, root_) say what to find.
class MetaQueryExecutor::PostingWalk {
 public:
  // An offered posting.
  struct Pending {
    std::string value;  // encoded, of the walked field
    std::string id;
    bool checked = false;  // known to match (exact, or on covered values)
  };

  PostingWalk(MetaQueryExecutor* executor, const std::vector<std::string_view>* members, bool exact,
              size_t budget)
      : ex_(*executor),
        members_(members),
        exact_(exact),
        spec_(executor->sort_[0]),
        fr_(executor->index_->name, *spec_.indexed),
        width_(EncodedValueWidth(spec_.indexed->type)),
        // Ties on the walked value must be complete before stopping when something other than
        // id (ascending) orders them.
        complete_ties_(ex_.sort_.size() > 1 && !(ex_.sort_[1].is_id && !ex_.sort_[1].descending)),
        // Small first reads: a selective page should not read hundreds of postings and metas.
        // With covered values, a posting costs no meta read: read little more than the page.
        chunk_(ex_.covered_
                   ? std::clamp<size_t>(std::min(ex_.need_, kMetaBatch) * 5 / 4 + 2, 8, kMetaBatch)
                   : std::clamp<size_t>(std::min(ex_.need_, kMetaBatch) * 2, 32, kMetaBatch)),
        budget_(budget) {}

  Result<bool> Run(std::vector<MetaMatch>* matches) {
    BoundByConditions();
    if (!spec_.descending) {
      GRIDSTORE_RETURN_IF_ERROR(WalkForward(begin_, end_));
    } else {
      GRIDSTORE_RETURN_IF_ERROR(WalkBackward());
    }
    // Ran out: unless bounded, datasets without the field may match and were not walked.
    if (gave_up_ || (found_.size() < ex_.need_ && !stop_ && !bounded_)) return false;
    // Later sort keys (and split string ties) need the full comparison.
    if (ex_.sort_.size() > 1 || complete_ties_) GRIDSTORE_RETURN_IF_ERROR(SortFound());
    *matches = std::move(found_);
    return true;
  }

 private:
  // Conditions on the sort field itself at the top level bound the walk. They also mean every
  // match has the field (a missing value fails every condition), so running out of postings in
  // the bounds then means every match was seen.
  void BoundByConditions() {
    begin_ = fr_.prefix();
    end_ = fr_.field_end();
    auto bound_by = [&](const CompiledNode& c) {
      std::vector<KeyRange> ranges;
      if (!IsCondition(c.op) || c.field != spec_.field || !LeafRanges(fr_, c, &ranges)) return;
      bounded_ = true;
      if (ranges.empty()) end_ = begin_;  // nothing can match
      if (ranges.size() != 1) return;
      begin_ = std::max(begin_, ranges[0].begin);
      end_ = std::min(end_, ranges[0].end);
    };
    if (ex_.root_.op == Query::Op::kAnd) {
      for (const CompiledNode& c : ex_.root_.children) bound_by(c);
    } else {
      bound_by(ex_.root_);
    }
    if (end_ < begin_) end_ = begin_;
  }

  // Takes a posting in walk order (kept for the next Flush if it is a candidate). A posting
  // with covered values is checked on them at once; the others on their metas in Flush.
  void Offer(std::string_view value, std::string_view id, std::string_view posting) {
    ++offered_;
    if (members_ != nullptr && !std::binary_search(members_->begin(), members_->end(), id)) return;
    bool checked = exact_;
    if (!exact_ && ex_.covered_ && DecodeCoveredValues(posting, ex_.fields_, &row_)) {
      if (!EvaluateCovered(ex_.root_, row_)) return;
      checked = true;
    }
    pending_.push_back(Pending{std::string(value), std::string(id), checked});
    if (!checked) ++unchecked_;
  }

  // Checks the offered postings not checked yet on their metas, and keeps the matches, setting
  // stop_ once enough are found. Metas are read in slices a little larger than the matches still
  // wanted, so that a page of a broad condition reads few metas it does not keep.
  Status Flush() {
    std::vector<Pending> batch;
    batch.swap(pending_);
    unchecked_ = 0;
    for (size_t start = 0; start < batch.size() && !stop_;) {
      // At most the batch (need_ may be huge with a huge offset: no overflow below).
      const size_t wanted =
          std::min(batch.size(), found_.size() < ex_.need_ ? ex_.need_ - found_.size() : 1);
      const size_t slice = std::max<size_t>(8, wanted * 5 / 4 + 2);
      size_t end = start;
      std::vector<std::string_view> ids;  // to check on their metas
      while (end < batch.size() && (batch[end].checked || ids.size() < slice)) {
        if (!batch[end].checked) ids.push_back(batch[end].id);
        ++end;
      }
      std::vector<std::string> metas(ids.size());  // the stored metas of matches
      std::vector<bool> ok(ids.size(), false);
      if (!ids.empty()) {
        // ForEachMeta skips missing metas, so map results back by position through a cursor.
        size_t cursor = 0;
        GRIDSTORE_RETURN_IF_ERROR(ex_.ForEachMeta(
            ids, [&](std::string_view id, std::string_view meta, const Attributes& attributes) {
              while (cursor < ids.size() && ids[cursor] != id) ++cursor;
              if (cursor == ids.size() || !EvaluateCompiled(ex_.root_, attributes)) return;
              ok[cursor] = true;
              metas[cursor].assign(meta);
            }));
      }
      size_t k = 0;  // the next of `ids`
      for (size_t i = start; i < end && !stop_; ++i) {
        std::string meta;
        if (!batch[i].checked) {
          const size_t j = k++;
          if (!ok[j]) continue;
          meta = std::move(metas[j]);
        }
        if (found_.size() >= ex_.need_) {
          if (!complete_ties_ || batch[i].value != boundary_) {
            stop_ = true;
            break;
          }
        }
        found_.push_back(MetaMatch{std::move(batch[i].id), {}, std::move(meta)});
        if (found_.size() == ex_.need_) boundary_ = batch[i].value;
      }
      start = end;
    }
    if (!stop_ && offered_ >= budget_) gave_up_ = stop_ = true;
    return Status::OK();
  }

  // Splits a posting key of the walked field; false if it is malformed (verify reports those).
  bool Split(std::string_view key, std::string_view* value, std::string_view* id) const {
    return grid::SplitIndexPosting(key.substr(fr_.prefix().size()), width_, value, id);
  }

  // After an offer inside a scan: flushes what needs no meta read (so that a walk on covered
  // values stops as soon as the page is found); false to stop the scan: stopped, an error, or
  // enough postings wait for their metas, which are read outside the scan.
  bool Continue(Status* error) {
    if (unchecked_ == 0) {
      if (!pending_.empty()) *error = Flush();
      return error->ok() && !stop_;
    }
    return unchecked_ < chunk_;
  }

  // Offers the postings of [begin, end) in ascending order, until stopped. One scan, unless
  // postings wait for their metas.
  Status WalkForward(std::string begin, const std::string& end) {
    std::string last;  // the last key read
    while (!stop_) {
      bool more = false;
      Status error;
      GRIDSTORE_RETURN_IF_ERROR(ex_.kv_->Scan(kQueryRead, Table::kIndex, KeyRange{begin, end},
                                              [&](std::string_view key, std::string_view posting) {
                                                last.assign(key);
                                                std::string_view value, id;
                                                if (Split(key, &value, &id))
                                                  Offer(value, id, posting);
                                                if (Continue(&error)) return true;
                                                more = error.ok() && !stop_;
                                                return false;
                                              }));
      GRIDSTORE_RETURN_IF_ERROR(error);
      GRIDSTORE_RETURN_IF_ERROR(Flush());
      if (!more) break;
      begin = last + '\0';
      chunk_ = std::min(chunk_ * 2, kMetaBatch);
    }
    return Status::OK();
  }

  // Adds a posting (read backward) to the group of its value.
  void AddToGroup(std::string_view value, std::string_view id, std::string_view posting) {
    if (group_size_ == 0) group_value_.assign(value);
    if (group_size_ == group_.size()) group_.emplace_back();
    group_[group_size_].first.assign(id);  // reuses the strings' buffers
    group_[group_size_].second.assign(posting);
    ++group_size_;
  }

  // Offers the ids of one value, kept descending in group_, in ascending order.
  void EmitGroup() {
    for (size_t i = group_size_; i-- > 0 && !stop_;) {
      Offer(group_value_, group_[i].first, group_[i].second);
    }
    group_size_ = 0;
  }

  // A reverse scan yields values descending but ids descending within a value, and the order
  // wanted is ids ascending there: emit each value's ids reversed once the value is complete.
  // A value with many postings (as many as a chunk) is read forward instead (ids ascending,
  // stopping early), and the walk goes on below it.
  Status WalkBackward() {
    std::string end = end_, last;
    while (!stop_) {
      bool more = false, big = false;
      Status error;
      GRIDSTORE_RETURN_IF_ERROR(
          ex_.kv_->ReverseScan(kQueryRead, Table::kIndex, KeyRange{begin_, end},
                               [&](std::string_view key, std::string_view posting) {
                                 last.assign(key);
                                 std::string_view value, id;
                                 if (!Split(key, &value, &id)) return true;
                                 const bool next_value = group_size_ > 0 && value != group_value_;
                                 if (next_value) EmitGroup();
                                 AddToGroup(value, id, posting);
                                 if (next_value && !Continue(&error)) {
                                   more = error.ok() && !stop_;
                                   return false;
                                 }
                                 big = group_size_ >= chunk_;
                                 return !big;
                               }));
      GRIDSTORE_RETURN_IF_ERROR(error);
      if (stop_) break;
      if (big) {
        const std::string value_key = fr_.prefix() + group_value_;
        group_size_ = 0;
        GRIDSTORE_RETURN_IF_ERROR(Flush());
        GRIDSTORE_RETURN_IF_ERROR(
            WalkForward(std::max(value_key, begin_), std::min(PrefixEnd(value_key), end_)));
        end = value_key;
      } else if (more) {
        GRIDSTORE_RETURN_IF_ERROR(Flush());
        end = last;  // the group of the lowest value read goes on below it
      } else {
        EmitGroup();  // ran out: the last value is complete
        return Flush();
      }
      chunk_ = std::min(chunk_ * 2, kMetaBatch);
    }
    return Status::OK();
  }

  // Reads the sort keys of what was found and sorts it by every sort field.
  Status SortFound() {
    std::vector<std::string_view> ids;
    for (const MetaMatch& m : found_) ids.push_back(m.id);
    std::vector<MetaMatch> keyed;
    GRIDSTORE_RETURN_IF_ERROR(
        ex_.ForEachMeta(ids, [&](std::string_view id, std::string_view meta, const Attributes& a) {
          MetaMatch m{std::string(id), {}, std::string(meta)};
          ex_.MakeKeys(a, &m);
          keyed.push_back(std::move(m));
        }));
    found_.swap(keyed);
    std::sort(found_.begin(), found_.end(),
              [this](const MetaMatch& a, const MetaMatch& b) { return ex_.Less(a, b); });
    return Status::OK();
  }

  MetaQueryExecutor& ex_;
  const std::vector<std::string_view>* members_;
  const bool exact_;
  const SortSpec& spec_;
  const FieldRanges fr_;
  const size_t width_;
  const bool complete_ties_;
  std::string begin_, end_;  // the walked key range
  bool bounded_ = false;     // conditions on the walked field bound it
  std::vector<MetaMatch> found_;
  std::string boundary_;  // encoded value of the last match once need_ is reached
  bool stop_ = false;
  std::vector<Pending> pending_;
  size_t unchecked_ = 0;  // of pending_: to check on their metas
  size_t chunk_;
  // A value's (id, posting value) in a backward walk, ids descending: the first group_size_.
  std::vector<std::pair<std::string, std::string>> group_;
  size_t group_size_ = 0;
  std::string group_value_;
  std::vector<Scalar> row_;  // covered values of the posting being offered
  size_t offered_ = 0;       // postings offered so far
  const size_t budget_;      // give up (Run returns false) after offering this many
  bool gave_up_ = false;
};

Result<bool> MetaQueryExecutor::Walk(const std::vector<std::string_view>* members, bool exact,
                                     std::vector<MetaMatch>* matches, size_t budget) {
  return PostingWalk(this, members, exact, budget).Run(matches);
}

Result<bool> MetaQueryExecutor::ProbeWalk(bool can_walk, std::vector<MetaMatch>* matches) {
  if (!covered_ || !can_walk || params_.get_total_count) return false;
  // Postings are checked without meta reads, so reading a few hundred costs less than the size
  // estimates that would choose between walking and candidate sets; a page of a broad query
  // (the common case: the newest matches) is found within them. Queries whose matches are
  // rare in the walked field give up and are planned as before.
  const size_t budget = need_ > kUnlimited / 4 ? kUnlimited : kProbePostings + 2 * need_;
  GRIDSTORE_ASSIGN_OR_RETURN(const bool walked, Walk(nullptr, /*exact=*/false, matches, budget));
  if (!walked) {
    matches->clear();
    return false;
  }
  notes_.push_back("order: walk " + std::string(sort_[0].field) +
                   " postings first, conditions checked on covered values");
  return true;
}

bool MetaQueryExecutor::WalkFirst() {
  std::vector<const CompiledNode*> on_sort_field;
  uint64_t others = kUnknownSize;
  auto consider = [&](const CompiledNode& c) {
    if (IsCondition(c.op) && c.field == sort_[0].field && c.indexed != nullptr &&
        (IsRangeCondition(c.op) || c.op == Query::Op::kEqual)) {
      on_sort_field.push_back(&c);
    } else {
      others = std::min(others, Estimate({&c}));
    }
  };
  if (root_.op == Query::Op::kAnd) {
    for (const CompiledNode& c : root_.children) consider(c);
  } else {
    consider(root_);
  }
  if (on_sort_field.empty()) return false;
  // The walk reads at most the bounded range, stopping early; a candidate set would have to be
  // at least as large when every other child is estimated larger.
  return Estimate(on_sort_field) <= others;
}

}  // namespace gridstore::internal_grid
