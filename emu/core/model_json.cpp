// Model files: JSON in and out, with errors that name the bad field.
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <stdexcept>
#include <vector>

#include "tcnum/core/model.hpp"

namespace tcnum {
namespace {

using nlohmann::json;

const char* rounding_name(Rounding r) { return r == Rounding::nearest_even ? "rne" : "rz"; }

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw std::invalid_argument("model JSON: " + where + ": " + why);
}

// Every value is checked for its JSON type and range here, where a model enters: the datapath
// and the plan trust DatapathParams (no per-element checks, no overflow near INT_MAX).
std::string shown(const json& v) {
  return v.is_primitive() ? std::string(v.type_name()) + " " + v.dump() : std::string(v.type_name());
}

const std::string& string_at(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "must be a string, got " + shown(v));
  return v.get_ref<const std::string&>();
}

bool bool_at(const json& v, const std::string& where) {
  if (!v.is_boolean()) bad(where, "must be true or false, got " + shown(v));
  return v.get<bool>();
}

// An integer in lo..hi (a bool, a fraction or 1e3 is not an integer; nothing is wrapped).
int int_at(const json& v, const std::string& where, int lo, int hi) {
  const std::string range = "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.is_number_integer()) bad(where, range + ", got " + shown(v));
  // Non-negative literals are stored unsigned: compare as unsigned before narrowing.
  const bool fits = !v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
  const bool in_range = fits && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!in_range) bad(where, range + ", got " + v.dump());
  return static_cast<int>(v.get<std::int64_t>());
}

Rounding parse_rounding(const json& j, const std::string& where) {
  const auto& s = string_at(j, where);
  if (s == "rne") return Rounding::nearest_even;
  if (s == "rz") return Rounding::toward_zero;
  bad(where, "rounding must be \"rne\" or \"rz\", got \"" + s + "\"");
}

Format parse_fmt(const json& j, const std::string& where) {
  const auto& s = string_at(j, where);
  if (auto f = parse_format(s)) return *f;
  bad(where, "unknown format \"" + s + "\" (f32, f16, bf16, tf32, e4m3, e5m2, e2m1, e2m3, e3m2, ue8m0, ue4m3, e4m3fnuz, e5m2fnuz)");
}

DatapathParams parse_params(const json& r, const std::string& where) {
  DatapathParams p;
  for (auto& [key, v] : r.items()) {
    const std::string w = where + "." + key;
    if (key == "frac_bits") p.frac_bits = int_at(v, w, kModelLimits.frac_bits_min, kModelLimits.frac_bits_max);
    else if (key == "block_size") p.block_size = int_at(v, w, 0, kModelLimits.block_size_max);
    else if (key == "block_format") p.block_format = parse_fmt(v, w);
    else if (key == "block_rounding") p.block_rounding = parse_rounding(v, w);
    else if (key == "output_rounding") p.output_rounding = parse_rounding(v, w);
    else if (key == "output_direct") p.output_direct = bool_at(v, w);
    else if (key == "addend") {
      const auto& s = string_at(v, w);
      if (s == "first_block") p.addend = AddendEntry::first_block;
      else if (s == "last_block") p.addend = AddendEntry::last_block;
      else if (s == "ieee_add") p.addend = AddendEntry::ieee_add;
      else if (s == "after_products") p.addend = AddendEntry::after_products;
      else bad(w, "must be \"first_block\", \"last_block\", \"ieee_add\" or \"after_products\"");
    } else if (key == "flush_subnormal_inputs") p.flush_subnormal_inputs = bool_at(v, w);
    else if (key == "overflow_to_inf") p.overflow_to_inf = bool_at(v, w);
    else if (key == "block_result_frac_bits")
      p.block_result_frac_bits = int_at(v, w, 0, kModelLimits.block_result_frac_bits_max);
    else if (key == "negative_zero_results") p.negative_zero_results = bool_at(v, w);
    else if (key == "scale_group") p.scale_group = int_at(v, w, 1, kModelLimits.scale_group_max);
    else if (key == "unpack_format") {
      if (!v.is_null()) p.unpack_format = parse_fmt(v, w);
    } else if (key == "k_passes") p.k_passes = int_at(v, w, 1, kModelLimits.k_passes_max);
    else if (key == "pass_interleave") p.pass_interleave = int_at(v, w, 1, kModelLimits.pass_interleave_max);
    else if (key == "align_exponent_floor") {
      if (!v.is_null())
        p.align_exponent_floor =
            int_at(v, w, -kModelLimits.align_exponent_floor_abs_max, kModelLimits.align_exponent_floor_abs_max);
    } else if (key == "sum_round_down_bits")
      p.sum_round_down_bits = int_at(v, w, 0, kModelLimits.round_down_bits_max);
    else if (key == "addend_round_down_bits")
      p.addend_round_down_bits = int_at(v, w, 0, kModelLimits.round_down_bits_max);
    else if (key == "addend_drop_binades") {
      if (!v.is_null()) p.addend_drop_binades = int_at(v, w, 0, kModelLimits.addend_drop_binades_max);
    } else if (key == "product_split") p.product_split = int_at(v, w, 1, kModelLimits.product_split_max);
    else if (key == "zero_operand_exponent") {
      if (!v.is_null())
        p.zero_operand_exponent =
            int_at(v, w, -kModelLimits.zero_operand_exponent_abs_max, kModelLimits.zero_operand_exponent_abs_max);
    } else if (key == "products_overflow_to_inf") p.products_overflow_to_inf = bool_at(v, w);
    else if (key != "family" && key != "inputs" && key != "d_type" && key != "source" && key != "validated" &&
               key != "validations" && key != "sparse")
      bad(w, "unknown field");
  }
  if (p.product_split > 1 && p.addend != AddendEntry::after_products)
    bad(where + ".product_split", "a split above 1 needs addend \"after_products\"");
  return p;
}

// Parses with every object's keys checked: a key twice is an error naming its path
// (nlohmann would keep the last silently).
json parse_without_duplicate_keys(const std::string& text) {
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key, path;
    std::size_t next = 0;  // arrays: the index of the next element
  };
  std::vector<Frame> open;
  const auto child_path = [&]() -> std::string {
    if (open.empty()) return "";
    Frame& f = open.back();
    if (f.object) return f.path.empty() ? f.key : f.path + "." + f.key;
    return f.path + "[" + std::to_string(f.next++) + "]";
  };
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) {
      std::string path = child_path();
      open.push_back({event == json::parse_event_t::object_start, {}, "", std::move(path), 0});
    } else if (event == json::parse_event_t::object_end || event == json::parse_event_t::array_end) {
      open.pop_back();
    } else if (event == json::parse_event_t::key) {
      Frame& f = open.back();
      f.key = parsed.get<std::string>();
      if (!f.keys.insert(f.key).second) bad(f.path.empty() ? f.key : f.path + "." + f.key, "duplicate key");
    } else if (event == json::parse_event_t::value && !open.empty() && !open.back().object) {
      ++open.back().next;
    }
    return true;
  };
  return json::parse(text, check);
}

}  // namespace

Model model_from_json(const std::string& text) {
  json j;
  try {
    j = parse_without_duplicate_keys(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e309
    throw std::invalid_argument(std::string("model JSON: ") + e.what());
  }
  try {
    if (!j.is_object()) bad("(top level)", "must be an object, got " + shown(j));
    Model m;
    if (!j.contains("name")) bad("name", "missing");
    m.name = string_at(j["name"], "name");
    if (j.contains("sm")) m.sm = int_at(j["sm"], "sm", 0, kModelLimits.sm_max);
    if (j.contains("description")) m.description = string_at(j["description"], "description");
    if (!j.contains("rules")) bad("rules", "missing");
    const auto& rules = j["rules"];
    if (!rules.is_array()) bad("rules", "must be an array, got " + shown(rules));
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const json& r = rules[i];
      const std::string where = "rules[" + std::to_string(i) + "]";
      if (!r.is_object()) bad(where, "must be an object, got " + shown(r));
      ModelRule mr;
      if (r.contains("family")) {
        const auto& s = string_at(r["family"], where + ".family");
        if (s == "mma") mr.family = Family::mma;
        else if (s == "wgmma") mr.family = Family::wgmma;
        else if (s == "tcgen05") mr.family = Family::tcgen05;
        else if (s == "mfma") mr.family = Family::mfma;
        else bad(where + ".family", "must be mma, wgmma, tcgen05 or mfma");
      }
      if (r.contains("inputs")) {
        const auto& s = string_at(r["inputs"], where + ".inputs");
        bool found = false;
        for (InputClass c : {InputClass::f16, InputClass::bf16, InputClass::tf32, InputClass::fp8, InputClass::f6f4,
                             InputClass::mxf8f6f4, InputClass::mxf4, InputClass::integer, InputClass::f32})
          if (s == input_class_name(c)) mr.inputs = c, found = true;
        if (!found) bad(where + ".inputs", "must be f16, bf16, tf32, fp8, f6f4, mxf8f6f4, mxf4, int or f32");
      }
      if (r.contains("d_type")) mr.d_type = parse_fmt(r["d_type"], where + ".d_type");
      if (r.contains("sparse")) mr.sparse = bool_at(r["sparse"], where + ".sparse");
      mr.params = parse_params(r, where);
      if (r.contains("source")) mr.source = string_at(r["source"], where + ".source");
      if (r.contains("validated")) mr.validated = bool_at(r["validated"], where + ".validated");
      if (r.contains("validations")) {
        const json& vs = r["validations"];
        if (!vs.is_array()) bad(where + ".validations", "must be an array");
        for (std::size_t k = 0; k < vs.size(); ++k) {
          const std::string w = where + ".validations[" + std::to_string(k) + "]";
          const json& v = vs[k];
          if (!v.is_object() || !v.contains("gpu") || !v.contains("corpus") || !v.contains("instructions") ||
              !v["instructions"].is_array())
            bad(w, "needs gpu, corpus (strings) and instructions (an array of names)");
          Validation val{string_at(v["gpu"], w + ".gpu"), string_at(v["corpus"], w + ".corpus"), {}, false};
          for (const json& name : v["instructions"]) val.instructions.push_back(string_at(name, w + ".instructions"));
          if (v.contains("normal_range_only")) val.normal_range_only = bool_at(v["normal_range_only"], w + ".normal_range_only");
          mr.validations.push_back(std::move(val));
        }
      }
      if (!mr.validations.empty() && !mr.validated) bad(where + ".validated", "must be true when validations are given");
      m.rules.push_back(std::move(mr));
    }
    if (m.rules.empty()) bad("rules", "at least one rule is needed");
    return m;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("model JSON: ") + e.what());
  }
}

std::string model_to_json(const Model& m) {
  json j;
  j["name"] = m.name;
  j["sm"] = m.sm;
  j["description"] = m.description;
  j["rules"] = json::array();
  for (const ModelRule& r : m.rules) {
    json o;
    if (r.family) o["family"] = family_name(*r.family);
    if (r.inputs) o["inputs"] = input_class_name(*r.inputs);
    if (r.d_type) o["d_type"] = std::string(name_of(*r.d_type));
    if (r.sparse) o["sparse"] = *r.sparse;
    const DatapathParams& p = r.params;
    o["frac_bits"] = p.frac_bits;
    o["block_size"] = p.block_size;
    o["block_format"] = std::string(name_of(p.block_format));
    o["block_rounding"] = rounding_name(p.block_rounding);
    o["output_rounding"] = rounding_name(p.output_rounding);
    o["output_direct"] = p.output_direct;
    o["addend"] = p.addend == AddendEntry::first_block  ? "first_block"
                  : p.addend == AddendEntry::last_block   ? "last_block"
                  : p.addend == AddendEntry::ieee_add     ? "ieee_add"
                                                          : "after_products";
    o["flush_subnormal_inputs"] = p.flush_subnormal_inputs;
    o["overflow_to_inf"] = p.overflow_to_inf;
    o["block_result_frac_bits"] = p.block_result_frac_bits;
    o["negative_zero_results"] = p.negative_zero_results;
    o["unpack_format"] = p.unpack_format ? json(std::string(name_of(*p.unpack_format))) : json(nullptr);
    o["k_passes"] = p.k_passes;
    o["pass_interleave"] = p.pass_interleave;
    o["align_exponent_floor"] = p.align_exponent_floor ? json(*p.align_exponent_floor) : json(nullptr);
    if (p.scale_group != 1) o["scale_group"] = p.scale_group;  // block-scaled rules only
    if (p.addend == AddendEntry::after_products) {  // its own alignment (written with it only)
      o["sum_round_down_bits"] = p.sum_round_down_bits;
      o["addend_round_down_bits"] = p.addend_round_down_bits;
      o["addend_drop_binades"] = p.addend_drop_binades ? json(*p.addend_drop_binades) : json(nullptr);
      o["product_split"] = p.product_split;
    }
    if (p.zero_operand_exponent) o["zero_operand_exponent"] = *p.zero_operand_exponent;
    if (p.products_overflow_to_inf) o["products_overflow_to_inf"] = true;
    o["source"] = r.source;
    o["validated"] = r.validated;
    o["validations"] = json::array();
    for (const Validation& v : r.validations)
      o["validations"].push_back({{"gpu", v.gpu}, {"corpus", v.corpus}, {"instructions", v.instructions},
                                  {"normal_range_only", v.normal_range_only}});
    j["rules"].push_back(o);
  }
  return j.dump(2) + "\n";
}

Model load_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot open model file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return model_from_json(ss.str());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

}  // namespace tcnum
