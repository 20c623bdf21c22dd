// Schedules as JSON (docs/libraries.md, "The schedule language"): strict parsing, every error
// names its key, duplicate and unknown keys are errors; printing gives what parsing reads back.
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcnum/core/schedule.hpp"

namespace tcnum {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& why) { throw std::invalid_argument("tcnum schedule JSON: " + why); }

// Parses with every object's keys checked for duplicates (nlohmann keeps the last silently).
json parse_strict(const std::string& text) {
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.back().insert(parsed.get<std::string>()).second)
      fail("duplicate key \"" + parsed.get<std::string>() + "\"");
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {
    fail(std::string("not valid JSON: ") + e.what());
  }
}

int as_int(const json& v, const std::string& key, int lo, int hi) {
  if (!v.is_number_integer()) fail("\"" + key + "\" must be an integer, got " + v.dump());
  const auto x = v.get<long long>();
  if (x < lo || x > hi) fail("\"" + key + "\" = " + std::to_string(x) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(x);
}

std::vector<int> int_list(const json& v, const std::string& key, int lo) {
  if (!v.is_array()) fail("\"" + key + "\" must be a list of integers, got " + v.dump());
  std::vector<int> out;
  for (const json& x : v) out.push_back(as_int(x, key + "[]", lo, std::numeric_limits<int>::max()));
  return out;
}

template <class E>
E as_enum(const json& v, const std::string& key, std::initializer_list<std::pair<const char*, E>> names) {
  std::string valid;
  for (const auto& [name, value] : names) {
    if (v.is_string() && v.get<std::string>() == name) return value;
    valid += std::string(valid.empty() ? "" : ", ") + "\"" + name + "\"";
  }
  fail("\"" + key + "\" = " + v.dump() + " is not one of " + valid);
}

// A tree of nested pairs [[0, 1], [2, 3]] -> postfix 0 1 -1 2 3 -1 -1.
void tree_to_postfix(const json& v, std::vector<int>& out, int depth) {
  if (depth > 64) fail("\"reduction_tree\" is nested deeper than 64");
  if (v.is_array()) {
    if (v.size() != 2) fail("\"reduction_tree\": every node is a pair [left, right], got " + v.dump());
    tree_to_postfix(v[0], out, depth + 1);
    tree_to_postfix(v[1], out, depth + 1);
    out.push_back(-1);
    return;
  }
  out.push_back(as_int(v, "reduction_tree", 0, std::numeric_limits<int>::max()));
}

json postfix_to_tree(const std::vector<int>& program) {
  std::vector<json> stack;
  for (const int op : program) {
    if (op >= 0) {
      stack.emplace_back(op);
      continue;
    }
    if (stack.size() < 2) fail("reduction_tree is not a binary tree");
    json right = std::move(stack.back());
    stack.pop_back();
    stack.back() = json::array({std::move(stack.back()), std::move(right)});
  }
  if (stack.size() != 1) fail("reduction_tree is not one tree");
  return stack.front();
}

constexpr std::initializer_list<std::pair<const char*, SliceRule>> kSliceRules = {
    {"balanced_steps", SliceRule::balanced_steps}, {"whole_tiles", SliceRule::whole_tiles},
    {"interleaved_tiles", SliceRule::interleaved_tiles}};
constexpr std::initializer_list<std::pair<const char*, PartialTile>> kPartial = {{"last", PartialTile::last},
                                                                                 {"first", PartialTile::first}};
constexpr std::initializer_list<std::pair<const char*, ReductionFormat>> kReductionFormats = {
    {"f32", ReductionFormat::fp32}, {"d", ReductionFormat::d}, {"f16", ReductionFormat::fp16}, {"bf16", ReductionFormat::bf16}};
constexpr std::initializer_list<std::pair<const char*, CEntry>> kCEntry = {
    {"first_slice", CEntry::first_slice}, {"first_partial", CEntry::first_partial}, {"after_reduction", CEntry::after_reduction}};
constexpr std::initializer_list<std::pair<const char*, Tf32Operands>> kTf32 = {
    {"truncate", Tf32Operands::truncate},
    {"nearest_even", Tf32Operands::nearest_even},
    {"nearest_away", Tf32Operands::nearest_away}};

template <class E>
const char* name_in(std::initializer_list<std::pair<const char*, E>> names, E value) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "?";
}

Schedule schedule_from(const json& j, bool in_region);

// [lo, hi) as a two-element list of non-negative ints with lo < hi.
std::pair<int, int> int_range(const json& v, const std::string& key) {
  const std::vector<int> r = int_list(v, key, 0);
  if (r.size() != 2 || r[0] >= r[1]) fail("\"" + key + "\" must be [begin, end) with begin < end, got " + v.dump());
  return {r[0], r[1]};
}

ScheduleRegion region_from(const json& v) {
  if (!v.is_object()) fail("a region is an object {rows, cols, schedule}, got " + v.dump());
  for (const auto& [key, value] : v.items())
    if (key != "rows" && key != "cols" && key != "schedule") fail("unknown key \"" + key + "\" in a region (valid: rows, cols, schedule)");
  for (const char* key : {"rows", "cols", "schedule"})
    if (!v.contains(key)) fail(std::string("a region needs \"") + key + "\"");
  ScheduleRegion r;
  std::tie(r.row_begin, r.row_end) = int_range(v.at("rows"), "rows");
  std::tie(r.col_begin, r.col_end) = int_range(v.at("cols"), "cols");
  r.schedule = schedule_from(v.at("schedule"), true);
  return r;
}

std::vector<ScheduleRegion> regions_from(const json& v, bool in_region) {
  if (in_region) fail("a region's schedule cannot have regions of its own");
  if (!v.is_array()) fail("\"regions\" must be a list of {rows, cols, schedule}, got " + v.dump());
  std::vector<ScheduleRegion> out;
  for (const json& r : v) out.push_back(region_from(r));
  return out;
}

void read_key(Schedule& s, const std::string& key, const json& v, bool in_region) {
  constexpr int kMax = std::numeric_limits<int>::max();
  if (key == "version") as_int(v, key, 1, 1);
  else if (key == "split_k") s.split_k = as_int(v, key, 1, kMax);
  else if (key == "slice_rule") s.slice_rule = as_enum(v, key, kSliceRules);
  else if (key == "slice_bounds") s.slice_bounds = int_list(v, key, 0);
  else if (key == "slice_align") s.slice_align = as_int(v, key, 0, kMax);
  else if (key == "k_padded") s.k_padded = as_int(v, key, 0, kMax);
  else if (key == "tile_k") s.tile_k = as_int(v, key, 0, kMax);
  else if (key == "partial_tile") s.partial = as_enum(v, key, kPartial);
  else if (key == "k_order") s.k_order = int_list(v, key, 0);
  else if (key == "tile_k_order") s.tile_k_order = int_list(v, key, 0);
  else if (key == "promotion") s.promotion = as_int(v, key, 0, kMax);
  else if (key == "reduction_tree") tree_to_postfix(v, s.reduction_tree, 0);
  else if (key == "reduction_format") s.reduction_format = as_enum(v, key, kReductionFormats);
  else if (key == "sum_format") s.sum_format = as_enum(v, key, kReductionFormats);
  else if (key == "partial_format") s.partial_format = as_enum(v, key, kReductionFormats);
  else if (key == "serial") {
    if (!v.is_boolean()) fail("\"serial\" must be true or false, got " + v.dump());
    s.serial = v.get<bool>();
  } else if (key == "c") s.c_entry = as_enum(v, key, kCEntry);
  else if (key == "tf32_operands") s.tf32_operands = as_enum(v, key, kTf32);
  else if (key == "note") {
    if (!v.is_string()) fail("\"note\" must be a string");
    s.note = v.get<std::string>();
  } else if (key == "regions") s.regions = regions_from(v, in_region);
  else
    fail("unknown key \"" + key +
         "\" (valid: version, split_k, slice_rule, slice_bounds, slice_align, k_padded, tile_k, partial_tile, k_order, tile_k_order, "
         "promotion, "
         "reduction_tree, reduction_format, partial_format, serial, sum_format, c, tf32_operands, note, regions)");
}

Schedule schedule_from(const json& j, bool in_region) {
  if (!j.is_object()) fail("a schedule is a JSON object, got " + j.dump());
  Schedule s;
  for (const auto& [key, value] : j.items()) read_key(s, key, value, in_region);
  return s;
}

json to_json(const Schedule& s) {
  json j = json::object();
  j["version"] = 1;
  j["split_k"] = s.split_k;
  j["slice_rule"] = name_in(kSliceRules, s.slice_rule);
  if (!s.slice_bounds.empty()) j["slice_bounds"] = s.slice_bounds;
  j["slice_align"] = s.slice_align;
  if (s.k_padded != 0) j["k_padded"] = s.k_padded;
  j["tile_k"] = s.tile_k;
  j["partial_tile"] = name_in(kPartial, s.partial);
  if (!s.k_order.empty()) j["k_order"] = s.k_order;
  if (!s.tile_k_order.empty()) j["tile_k_order"] = s.tile_k_order;
  j["promotion"] = s.promotion;
  if (!s.reduction_tree.empty()) j["reduction_tree"] = postfix_to_tree(s.reduction_tree);
  j["reduction_format"] = name_in(kReductionFormats, s.reduction_format);
  j["partial_format"] = name_in(kReductionFormats, s.partial_format);
  j["serial"] = s.serial;
  j["sum_format"] = name_in(kReductionFormats, s.sum_format);
  j["c"] = name_in(kCEntry, s.c_entry);
  j["tf32_operands"] = name_in(kTf32, s.tf32_operands);
  if (!s.note.empty()) j["note"] = s.note;
  if (!s.regions.empty()) {
    j["regions"] = json::array();
    for (const ScheduleRegion& r : s.regions)
      j["regions"].push_back({{"rows", {r.row_begin, r.row_end}}, {"cols", {r.col_begin, r.col_end}},
                              {"schedule", to_json(r.schedule)}});
  }
  return j;
}

}  // namespace

Schedule parse_schedule(const std::string& text) { return schedule_from(parse_strict(text), false); }

std::string schedule_to_json(const Schedule& s) { return to_json(s).dump(); }

}  // namespace tcnum
