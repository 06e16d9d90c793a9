// Copyright 2026 The GridStore Authors.
//
// `gridstore collections [--json]`: the forecast collections in the store, each with its runs,
// members, variables and steps (forecast/collection.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/util/internal/strings.h"
#include "tools/commands/command.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct CollectionsArgs {
  bool json = false;
};

double Hours(int64_t ms) { return static_cast<double>(ms) / 3'600'000.0; }

std::string Text(const std::vector<forecast::Collection>& collections) {
  std::string out;
  for (const forecast::Collection& c : collections) {
    const forecast::Run* latest = c.Latest();
    const std::vector<int64_t> members = c.Members();
    const std::vector<int64_t> leads = c.LeadsMs();
    out += c.name + "\n";
    out += "  runs: " + std::to_string(c.runs.size()) + ", " +
           forecast::FormatIsoMs(c.runs.front().run_time_ms) + " to " +
           forecast::FormatIsoMs(c.runs.back().run_time_ms) + "; latest complete: " +
           (latest != nullptr ? forecast::FormatIsoMs(latest->run_time_ms) : "none") + "\n";
    for (const forecast::Run& r : c.runs) {
      if (!r.complete()) {
        out += "  run " + forecast::FormatIsoMs(r.run_time_ms) + " is still arriving\n";
      }
    }
    out += "  members: " +
           (members.empty()
                ? std::string("none (deterministic)")
                : std::to_string(members.size()) + " (" +
                      Join(members, ",", [](int64_t m) { return std::to_string(m); }) + ")") +
           "\n";
    out += "  variables: " + Join(c.Variables(), ", ") + "\n";
    out += "  steps: " + std::to_string(leads.size()) +
           (leads.empty() ? std::string()
                          : " (" + forecast::FormatLead(leads.front()) + " to " +
                                forecast::FormatLead(leads.back()) + ")") +
           "\n";
  }
  if (collections.empty()) out = "no forecast collection in the store\n";
  return out;
}

std::string Json(const std::vector<forecast::Collection>& collections) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const forecast::Collection& c : collections) {
    nlohmann::ordered_json j;
    j["name"] = c.name;
    j["runs"] = nlohmann::ordered_json::array();
    for (const forecast::Run& r : c.runs) j["runs"].push_back(forecast::FormatIsoMs(r.run_time_ms));
    const forecast::Run* latest = c.Latest();
    j["latest"] = latest != nullptr
                      ? nlohmann::ordered_json(forecast::FormatIsoMs(latest->run_time_ms))
                      : nlohmann::ordered_json(nullptr);
    j["incomplete_runs"] = nlohmann::ordered_json::array();
    for (const forecast::Run& r : c.runs) {
      if (!r.complete()) j["incomplete_runs"].push_back(forecast::FormatIsoMs(r.run_time_ms));
    }
    j["members"] = c.Members();
    j["variables"] = c.Variables();
    // Steps as lead times in hours (GRIB's step), ascending.
    j["steps"] = nlohmann::ordered_json::array();
    for (int64_t lead : c.LeadsMs()) j["steps"].push_back(Hours(lead));
    size_t datasets = 0;
    for (const forecast::Run& r : c.runs) datasets += r.members.size();
    j["datasets"] = datasets;
    all.push_back(std::move(j));
  }
  return all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status RunCollections(const CommandContext& context, const CollectionsArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  std::vector<std::string> left_out;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<forecast::Collection> collections,
                             forecast::ListCollections(*store, &left_out));
  for (const std::string& why : left_out) {
    std::fprintf(stderr, "note: left out %s\n", SanitizeMessage(why, false).c_str());
  }
  const std::string text = args.json ? Json(collections) : SanitizeMessage(Text(collections), true);
  std::fputs(text.c_str(), stdout);
  return Status::OK();
}

}  // namespace

Command RegisterCollections(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<CollectionsArgs>();
  CLI::App* app = parent.add_subcommand(
      "collections", "List the forecast collections: their runs, members, variables and steps");
  app->add_flag("--json", args->json,
                "Print JSON: one object per collection with name, runs (ISO), latest, members, "
                "variables, steps (lead hours)");
  return {app, Done([&context, args] { return RunCollections(context, *args); })};
}

}  // namespace gridstore::tools
