// Model files: JSON in and out, with errors that name the bad field.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "tcnum/core/model.hpp"

namespace tcnum {
namespace {

using nlohmann::json;

const char* family_name(Family f) { return f == Family::mma ? "mma" : f == Family::wgmma ? "wgmma" : "tcgen05"; }
const char* class_name(InputClass c) {
  switch (c) {
    case InputClass::f16: return "f16";
    case InputClass::bf16: return "bf16";
    case InputClass::tf32: return "tf32";
    case InputClass::fp8: return "fp8";
  }
  return "?";
}
const char* rounding_name(Rounding r) { return r == Rounding::nearest_even ? "rne" : "rz"; }

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw std::invalid_argument("model JSON: " + where + ": " + why);
}

Rounding parse_rounding(const json& j, const std::string& where) {
  const auto s = j.get<std::string>();
  if (s == "rne") return Rounding::nearest_even;
  if (s == "rz") return Rounding::toward_zero;
  bad(where, "rounding must be \"rne\" or \"rz\", got \"" + s + "\"");
}

Format parse_fmt(const json& j, const std::string& where) {
  const auto s = j.get<std::string>();
  if (auto f = parse_format(s)) return *f;
  bad(where, "unknown format \"" + s + "\" (f32, f16, bf16, tf32, e4m3, e5m2)");
}

DatapathParams parse_params(const json& r, const std::string& where) {
  DatapathParams p;
  for (auto& [key, v] : r.items()) {
    const std::string w = where + "." + key;
    if (key == "frac_bits") p.frac_bits = v.get<int>();
    else if (key == "block_size") p.block_size = v.get<int>();
    else if (key == "block_format") p.block_format = parse_fmt(v, w);
    else if (key == "block_rounding") p.block_rounding = parse_rounding(v, w);
    else if (key == "output_rounding") p.output_rounding = parse_rounding(v, w);
    else if (key == "output_direct") p.output_direct = v.get<bool>();
    else if (key == "addend") {
      const auto s = v.get<std::string>();
      if (s == "first_block") p.addend = AddendEntry::first_block;
      else if (s == "last_block") p.addend = AddendEntry::last_block;
      else if (s == "ieee_add") p.addend = AddendEntry::ieee_add;
      else bad(w, "must be \"first_block\", \"last_block\" or \"ieee_add\"");
    } else if (key == "flush_subnormal_inputs") p.flush_subnormal_inputs = v.get<bool>();
    else if (key == "overflow_to_inf") p.overflow_to_inf = v.get<bool>();
    else if (key == "block_result_frac_bits") p.block_result_frac_bits = v.get<int>();
    else if (key == "negative_zero_results") p.negative_zero_results = v.get<bool>();
    else if (key == "unpack_format") {
      if (!v.is_null()) p.unpack_format = parse_fmt(v, w);
    } else if (key == "k_passes") p.k_passes = v.get<int>();
    else if (key == "pass_interleave") p.pass_interleave = v.get<int>();
    else if (key == "align_exponent_floor") {
      if (!v.is_null()) p.align_exponent_floor = v.get<int>();
    } else if (key != "family" && key != "inputs" && key != "d_type" && key != "source" && key != "validated")
      bad(w, "unknown field");
  }
  if (p.frac_bits < 1 || p.frac_bits > 680) bad(where + ".frac_bits", "must be in 1..680");
  if (p.block_size < 0) bad(where + ".block_size", "must be >= 0 (0 = all of K)");
  if (p.k_passes < 1) bad(where + ".k_passes", "must be >= 1");
  if (p.pass_interleave < 1) bad(where + ".pass_interleave", "must be >= 1");
  return p;
}

}  // namespace

Model model_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(std::string("model JSON: ") + e.what());
  }
  try {
    Model m;
    m.name = j.at("name").get<std::string>();
    m.sm = j.value("sm", 0);
    m.description = j.value("description", "");
    const auto& rules = j.at("rules");
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const json& r = rules[i];
      const std::string where = "rules[" + std::to_string(i) + "]";
      ModelRule mr;
      if (r.contains("family")) {
        const auto s = r["family"].get<std::string>();
        if (s == "mma") mr.family = Family::mma;
        else if (s == "wgmma") mr.family = Family::wgmma;
        else if (s == "tcgen05") mr.family = Family::tcgen05;
        else bad(where + ".family", "must be mma, wgmma or tcgen05");
      }
      if (r.contains("inputs")) {
        const auto s = r["inputs"].get<std::string>();
        bool found = false;
        for (InputClass c : {InputClass::f16, InputClass::bf16, InputClass::tf32, InputClass::fp8})
          if (s == class_name(c)) mr.inputs = c, found = true;
        if (!found) bad(where + ".inputs", "must be f16, bf16, tf32 or fp8");
      }
      if (r.contains("d_type")) mr.d_type = parse_fmt(r["d_type"], where + ".d_type");
      mr.params = parse_params(r, where);
      mr.source = r.value("source", "");
      mr.validated = r.value("validated", false);
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
    if (r.inputs) o["inputs"] = class_name(*r.inputs);
    if (r.d_type) o["d_type"] = std::string(name_of(*r.d_type));
    const DatapathParams& p = r.params;
    o["frac_bits"] = p.frac_bits;
    o["block_size"] = p.block_size;
    o["block_format"] = std::string(name_of(p.block_format));
    o["block_rounding"] = rounding_name(p.block_rounding);
    o["output_rounding"] = rounding_name(p.output_rounding);
    o["output_direct"] = p.output_direct;
    o["addend"] = p.addend == AddendEntry::first_block ? "first_block"
                  : p.addend == AddendEntry::last_block  ? "last_block"
                                                         : "ieee_add";
    o["flush_subnormal_inputs"] = p.flush_subnormal_inputs;
    o["overflow_to_inf"] = p.overflow_to_inf;
    o["block_result_frac_bits"] = p.block_result_frac_bits;
    o["negative_zero_results"] = p.negative_zero_results;
    o["unpack_format"] = p.unpack_format ? json(std::string(name_of(*p.unpack_format))) : json(nullptr);
    o["k_passes"] = p.k_passes;
    o["pass_interleave"] = p.pass_interleave;
    o["align_exponent_floor"] = p.align_exponent_floor ? json(*p.align_exponent_floor) : json(nullptr);
    o["source"] = r.source;
    o["validated"] = r.validated;
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
