// Copyright 2026 The GridStore Authors.
//
// The flow of one query: compile, find candidates (meta_candidates.cc), order them by id, by
// walking the sort field's postings (meta_walk.cc) or by reading their sort keys, then read the
// page's metas and make the next page's token. With no candidate set the meta table is scanned.
#include "gridstore/catalog/internal/meta_executor.h"

#include <algorithm>

#include "gridstore/catalog/internal/meta_page_token.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {

using grid::Attributes;
using grid::Query;
using grid::QueryResult;
using grid::SortOrder;
using storage::Table;

namespace {

std::string SortText(const std::vector<SortSpec>& sort) {
  std::string s;
  for (const SortSpec& f : sort) {
    if (!s.empty()) s += ", ";
    s += std::string(f.field) + (f.descending ? " desc" : " asc");
  }
  return s;
}

// Adds the fields the conditions under `n` test to *fields.
void CollectFields(const CompiledNode& n, std::vector<std::string>* fields) {
  if (!n.field.empty()) fields->emplace_back(n.field);
  for (const CompiledNode& c : n.children) CollectFields(c, fields);
}

}  // namespace

std::string_view IdArena::Add(std::string_view id) {
  if (chunks_.empty() || chunks_.back()->capacity() - chunks_.back()->size() < id.size()) {
    auto chunk = std::make_shared<std::string>();
    chunk->reserve(std::max<size_t>(64 << 10, id.size()));
    chunks_.push_back(std::move(chunk));
  }
  std::string& chunk = *chunks_.back();
  const size_t at = chunk.size();
  chunk.append(id);  // within capacity: earlier views stay valid
  return std::string_view(chunk.data() + at, id.size());
}

void IdArena::Adopt(const IdArena& other) {
  // Inserted before this arena's own chunks, so that Add keeps filling its own last one.
  chunks_.insert(chunks_.begin(), other.chunks_.begin(), other.chunks_.end());
}

Result<QueryResult> MetaQueryExecutor::Run(const Query& query) {
  GRIDSTORE_ASSIGN_OR_RETURN(const uint64_t fingerprint, Prepare(query));
  QueryResult result;
  result.index = index_ == nullptr ? "" : index_->name;
  const bool can_walk = !sort_.empty() && sort_[0].indexed != nullptr && params_.limit >= 0;
  std::vector<MetaMatch> matches;
  int64_t total = -1;
  GRIDSTORE_ASSIGN_OR_RETURN(const bool probed, ProbeWalk(can_walk, &matches));
  if (!probed) {
    GRIDSTORE_ASSIGN_OR_RETURN(Candidates c, FindCandidates(can_walk, &result));
    if (c.state == Candidates::kIds && c.exact) total = static_cast<int64_t>(c.ids.size());
    GRIDSTORE_RETURN_IF_ERROR(FindMatches(c, can_walk, &total, &matches, &result));
  }
  if (params_.get_total_count) {
    if (total < 0 && all_) GRIDSTORE_RETURN_IF_ERROR(CountAllDataSets(&total));
    result.total = total;
  }
  GRIDSTORE_RETURN_IF_ERROR(FetchPage(matches, &result));
  if (params_.limit > 0 && matches.size() > static_cast<size_t>(offset_ + params_.limit)) {
    result.next_token = MakePageToken(fingerprint, offset_ + params_.limit);
  }
  result.plan = index_ == nullptr ? "no index" : "index " + Quote(index_->name);
  for (const std::string& note : notes_) result.plan += "; " + note;
  if (!sort_.empty()) result.plan += " (sort " + SortText(sort_) + ")";
  return result;
}

Result<uint64_t> MetaQueryExecutor::Prepare(const Query& query) {
  if (params_.limit < -1) {
    return Status::InvalidArgument("limit is " + std::to_string(params_.limit) +
                                   "; it must be >= 0, or -1 for no limit");
  }
  if (params_.offset < 0) {
    return Status::InvalidArgument("offset is " + std::to_string(params_.offset) +
                                   "; it must be >= 0");
  }
  GRIDSTORE_RETURN_IF_ERROR(CompileQuery(index_, query, &root_));
  all_ = root_.op == Query::Op::kAll || (root_.op == Query::Op::kAnd && root_.children.empty());
  covered_ = index_ != nullptr && !all_ && IsCovered(root_);
  fields_ = index_ != nullptr ? index_->schema.fields.size() : 0;
  GRIDSTORE_RETURN_IF_ERROR(PrepareSort());
  CollectFields(root_, &tested_);
  for (const SortSpec& s : sort_) {
    if (!s.is_id) tested_.emplace_back(s.field);
  }
  std::sort(tested_.begin(), tested_.end());
  tested_.erase(std::unique(tested_.begin(), tested_.end()), tested_.end());
  const uint64_t fingerprint = QueryFingerprint(index_, query, params_.sort);
  offset_ = params_.offset;
  if (!params_.page_token.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(offset_, ParsePageToken(params_.page_token, fingerprint));
  }
  if (params_.limit >= 0) {
    need_ = static_cast<size_t>(offset_) + static_cast<size_t>(params_.limit) + 1;
  }
  return fingerprint;
}

Status MetaQueryExecutor::PrepareSort() {
  for (const grid::SortField& f : params_.sort) {
    if (f.field.empty()) return Status::InvalidArgument("a sort field has an empty name");
    SortSpec s;
    s.field = f.field;
    s.descending = f.order == SortOrder::kDescending;
    s.is_id = f.field == "id";
    s.indexed = s.is_id ? nullptr : FindIndexField(index_, f.field);
    sort_.push_back(s);
    if (s.is_id) break;  // ids are unique: later keys never matter
  }
  if (sort_.size() == 1 && sort_[0].is_id && !sort_[0].descending) sort_.clear();
  return Status::OK();
}

Result<MetaQueryExecutor::Candidates> MetaQueryExecutor::FindCandidates(bool can_walk,
                                                                        QueryResult* result) {
  Candidates c;
  // The walk's own index range stands in for a candidate set.
  const bool walk_first = !all_ && can_walk && !params_.get_total_count && WalkFirst();
  if (walk_first) {
    c.state = Candidates::kOverLimit;
    notes_.push_back("walk range estimated smallest");
  } else if (!all_) {
    c = Plan(root_, can_walk ? kWalkCandidateLimit : kUnlimited);
    GRIDSTORE_RETURN_IF_ERROR(status_);
    if (c.matches_root) c.exact = true;  // checked on covered values
  }
  if (c.state == Candidates::kIds) {
    notes_.push_back(std::string("index: ") + std::to_string(c.ids.size()) + " candidates" +
                     (c.exact ? "" : ", other conditions checked on them"));
  } else if (all_) {
    notes_.push_back("all datasets");
  } else if (!walk_first) {
    result->scanned = true;
    notes_.push_back(c.state == Candidates::kOverLimit ? "index ranges too broad"
                                                       : "no condition on an indexed field");
  }
  return c;
}

Status MetaQueryExecutor::FindMatches(const Candidates& c, bool can_walk, int64_t* total,
                                      std::vector<MetaMatch>* matches, QueryResult* result) {
  const bool have_ids = c.state == Candidates::kIds;
  const bool walk_this = can_walk && (!have_ids || c.ids.size() > kDirectMax) &&
                         !(params_.get_total_count && *total < 0 && !all_);
  if (walk_this) {
    const bool exact = all_ || (have_ids && c.exact);
    GRIDSTORE_ASSIGN_OR_RETURN(const bool walked,
                               Walk(have_ids ? &c.ids : nullptr, exact, matches));
    if (walked) {
      notes_.push_back("order: walk " + std::string(sort_[0].field) + " postings" +
                       (exact ? "" : ", conditions checked on each"));
      return Status::OK();
    }
    matches->clear();
  }
  // In id order the first `need_` matches are the answer, unless a total is wanted that the
  // candidates did not already give (an exact set: a count needs no match built for each id).
  const bool total_wanted = params_.get_total_count && *total < 0;
  const size_t stop_at = sort_.empty() && !total_wanted ? need_ : kUnlimited;
  if (have_ids) {
    GRIDSTORE_RETURN_IF_ERROR(CollectMatches(c.ids, c.exact, stop_at, matches));
  } else {
    if (!all_) {
      notes_.push_back("scan metas");
      result->scanned = true;
    }
    GRIDSTORE_RETURN_IF_ERROR(ScanAllMatches(stop_at, matches));
  }
  if (matches->size() < stop_at) *total = static_cast<int64_t>(matches->size());  // all of them
  if (sort_.size() == 1 && sort_[0].is_id) {
    std::reverse(matches->begin(), matches->end());  // id descending
  } else {
    SortMatches(matches, need_);
  }
  if (!sort_.empty()) notes_.push_back("order: sort " + std::to_string(matches->size()));
  return Status::OK();
}

Status MetaQueryExecutor::CountAllDataSets(int64_t* total) {
  int64_t n = 0;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(kQueryRead, Table::kMeta, grid::AllMetaKeys(),
                                      [&](std::string_view, std::string_view) {
                                        ++n;
                                        return true;
                                      }));
  *total = n;
  return Status::OK();
}

bool MetaQueryExecutor::NeedsAttributes() const {
  for (const SortSpec& s : sort_)
    if (!s.is_id) return true;
  return false;
}

void MetaQueryExecutor::MakeKeys(const Attributes& attributes, MetaMatch* m) const {
  m->keys.resize(sort_.size());
  for (size_t k = 0; k < sort_.size(); ++k) {
    if (sort_[k].is_id) continue;
    auto it = attributes.find(sort_[k].field);
    m->keys[k] = MakeSortValue(
        VisibleValue(it == attributes.end() ? nullptr : &it->second, sort_[k].indexed));
  }
}

bool MetaQueryExecutor::Less(const MetaMatch& a, const MetaMatch& b) const {
  for (size_t k = 0; k < sort_.size(); ++k) {
    int c;
    if (sort_[k].is_id) {
      c = a.id.compare(b.id);
      c = c < 0 ? -1 : (c > 0);
    } else {
      const SortValue& x = a.keys[k];
      const SortValue& y = b.keys[k];
      if (x.rank == SortRank::kMissing || y.rank == SortRank::kMissing) {
        // Missing sorts last in either direction.
        if (x.rank != y.rank) return y.rank == SortRank::kMissing;
        continue;
      }
      c = CompareSortValues(x, y);
    }
    if (sort_[k].descending) c = -c;
    if (c != 0) return c < 0;
  }
  return a.id < b.id;
}

Status MetaQueryExecutor::ForEachMeta(
    const std::vector<std::string_view>& ids,
    const std::function<void(std::string_view, std::string_view, const Attributes&)>& fn) {
  std::vector<std::string> values;
  std::vector<Status> statuses;
  Attributes attributes;
  for (size_t start = 0; start < ids.size(); start += kMetaBatch) {
    const size_t end = std::min(ids.size(), start + kMetaBatch);
    std::vector<std::string_view> keys(ids.begin() + static_cast<ptrdiff_t>(start),
                                       ids.begin() + static_cast<ptrdiff_t>(end));
    kv_->MultiGet(kQueryRead, Table::kMeta, keys, &values, &statuses);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;  // deleted since its postings were read
      GRIDSTORE_RETURN_IF_ERROR(statuses[i]);
      Status s = grid::DataSetMeta::DecodeAttributes(values[i], tested_, &attributes);
      if (!s.ok()) return s.WithContext("meta of dataset " + Quote(keys[i]));
      fn(keys[i], values[i], attributes);
    }
  }
  return Status::OK();
}

Status MetaQueryExecutor::CollectMatches(const std::vector<std::string_view>& ids, bool exact,
                                         size_t stop_at, std::vector<MetaMatch>* matches) {
  if (exact && !NeedsAttributes()) {
    const size_t n = std::min(ids.size(), stop_at);
    matches->reserve(n);
    for (size_t i = 0; i < n; ++i) matches->push_back(MetaMatch{std::string(ids[i]), {}});
    return Status::OK();
  }
  std::vector<std::string_view> views;
  // Read in growing slices so that an early stop does not read every candidate's meta.
  for (size_t start = 0, step = kMetaBatch; start < ids.size() && matches->size() < stop_at;
       start += step, step *= 2) {
    views.assign(ids.begin() + static_cast<ptrdiff_t>(start),
                 ids.begin() + static_cast<ptrdiff_t>(std::min(ids.size(), start + step)));
    GRIDSTORE_RETURN_IF_ERROR(ForEachMeta(
        views, [&](std::string_view id, std::string_view meta, const Attributes& attributes) {
          if (matches->size() >= stop_at) return;
          if (!exact && !EvaluateCompiled(root_, attributes)) return;
          MetaMatch m{std::string(id), {}};
          // Kept for the page while there are few matches (a page rarely reaches past them).
          if (matches->size() < kKeptMetas) m.meta.assign(meta);
          if (NeedsAttributes()) MakeKeys(attributes, &m);
          matches->push_back(std::move(m));
        }));
  }
  return Status::OK();
}

Status MetaQueryExecutor::ScanAllMatches(size_t stop_at, std::vector<MetaMatch>* matches) {
  Status error;
  const bool all = root_.op == Query::Op::kAll;
  const bool keys = NeedsAttributes();
  Attributes attributes;
  auto visit = [&](std::string_view key, std::string_view value) {
    if (matches->size() >= stop_at) return false;
    if (!all || keys) {
      Status s = grid::DataSetMeta::DecodeAttributes(value, tested_, &attributes);
      if (!s.ok()) {
        error = s.WithContext("meta of dataset " + Quote(key));
        return false;
      }
      if (!all && !EvaluateCompiled(root_, attributes)) return true;
    }
    MetaMatch m{std::string(key), {}};
    if (matches->size() < kKeptMetas) m.meta.assign(value);
    if (keys) MakeKeys(attributes, &m);
    matches->push_back(std::move(m));
    return true;
  };
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(kQueryRead, Table::kMeta, grid::AllMetaKeys(), visit));
  return error;
}

void MetaQueryExecutor::SortMatches(std::vector<MetaMatch>* matches, size_t need) const {
  auto less = [this](const MetaMatch& a, const MetaMatch& b) { return Less(a, b); };
  if (sort_.empty()) return;  // already by id
  if (need >= matches->size()) {
    std::sort(matches->begin(), matches->end(), less);
  } else {
    std::partial_sort(matches->begin(), matches->begin() + static_cast<ptrdiff_t>(need),
                      matches->end(), less);
  }
}

Status MetaQueryExecutor::FetchPage(const std::vector<MetaMatch>& sorted, QueryResult* result) {
  const size_t begin = std::min(sorted.size(), static_cast<size_t>(offset_));
  size_t end = sorted.size();
  if (params_.limit >= 0) end = std::min(end, begin + static_cast<size_t>(params_.limit));
  if (params_.ids_only) {
    // Every match is one already: checked on postings, on covered values or on its meta.
    for (size_t i = begin; i < end; ++i) result->ids.push_back(sorted[i].id);
    return Status::OK();
  }
  // The metas not read while matching, read now; then the page in order.
  std::vector<std::string_view> keys;
  for (size_t i = begin; i < end; ++i) {
    if (sorted[i].meta.empty()) keys.push_back(sorted[i].id);
  }
  std::vector<std::string> values(keys.size());
  std::vector<Status> statuses(keys.size());
  for (size_t start = 0; start < keys.size(); start += kMetaBatch) {
    const size_t stop = std::min(keys.size(), start + kMetaBatch);
    std::vector<std::string_view> chunk(keys.begin() + static_cast<ptrdiff_t>(start),
                                        keys.begin() + static_cast<ptrdiff_t>(stop));
    std::vector<std::string> chunk_values;
    std::vector<Status> chunk_statuses;
    kv_->MultiGet(kQueryRead, Table::kMeta, chunk, &chunk_values, &chunk_statuses);
    for (size_t i = 0; i < chunk.size(); ++i) {
      values[start + i] = std::move(chunk_values[i]);
      statuses[start + i] = std::move(chunk_statuses[i]);
    }
  }
  size_t next = 0;  // the next of `values`
  for (size_t i = begin; i < end; ++i) {
    std::string_view bytes = sorted[i].meta;
    if (bytes.empty()) {
      const size_t k = next++;
      if (statuses[k].IsNotFound()) continue;  // deleted since it matched
      GRIDSTORE_RETURN_IF_ERROR(statuses[k]);
      bytes = values[k];
    }
    auto meta = grid::DataSetMeta::Decode(bytes);
    if (!meta.ok()) return meta.status().WithContext("meta of dataset " + Quote(sorted[i].id));
    result->ids.push_back(sorted[i].id);
    result->metas.push_back(std::move(meta).value());
  }
  return Status::OK();
}

}  // namespace gridstore::internal_grid
