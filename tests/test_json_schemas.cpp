// docs/schemas/*.schema.json against the strict parsers they describe: every shipped model and
// schedule validates, and on hand-made documents (good and bad) the schema and the parser agree.
// The validator below implements the JSON Schema keywords the two schemas use, no more: a schema
// with another keyword fails here, so the schemas cannot drift into what this test cannot check.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/schedule.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kSource = TCNUM_SOURCE_DIR;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> read_gz_lines(const fs::path& p) {
  std::vector<std::string> lines;
  gzFile f = gzopen(p.c_str(), "rb");
  if (!f) return lines;
  std::string line;
  char buf[65536];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;)
    for (int i = 0; i < n; ++i)
      if (buf[i] == '\n') lines.push_back(std::move(line)), line.clear();
      else line += buf[i];
  gzclose(f);
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// ---- a validator for the keywords the schemas use ----

class Validator {
 public:
  explicit Validator(json root) : root_(std::move(root)) {}

  // "" when `doc` is valid; else the first reason, with its JSON pointer.
  std::string check(const json& doc) const { return check(root_, doc, ""); }

 private:
  const json& resolve(const std::string& ref) const {
    if (ref == "#") return root_;
    return root_.at(json::json_pointer(ref.substr(1)));
  }

  static bool has_type(const json& v, const std::string& t) {
    if (t == "integer") return v.is_number_integer();  // as the parsers read integers
    if (t == "number") return v.is_number();
    return (t == "object" && v.is_object()) || (t == "array" && v.is_array()) || (t == "string" && v.is_string()) ||
           (t == "boolean" && v.is_boolean()) || (t == "null" && v.is_null());
  }

  std::string check(const json& s, const json& v, const std::string& at) const {
    static const std::set<std::string> annotations = {"$schema", "$id", "title", "description", "$defs"};
    for (const auto& [key, arg] : s.items()) {
      if (annotations.count(key) || key == "then") continue;  // "then" is read with "if"
      const std::string why = keyword(key, arg, s, v, at);
      if (!why.empty()) return why;
    }
    return "";
  }

  std::string keyword(const std::string& key, const json& arg, const json& s, const json& v, const std::string& at) const {
    if (key == "$ref") return check(resolve(arg), v, at);
    if (key == "type") return has_type(v, arg) ? "" : at + ": not of type " + arg.get<std::string>();
    if (key == "enum") return std::find(arg.begin(), arg.end(), v) != arg.end() ? "" : at + ": not one of " + arg.dump();
    if (key == "const") return v == arg ? "" : at + ": not " + arg.dump();
    if (key == "minimum") return !v.is_number() || v >= arg ? "" : at + ": below " + arg.dump();
    if (key == "maximum") return !v.is_number() || v <= arg ? "" : at + ": above " + arg.dump();
    if (key == "minItems") return !v.is_array() || v.size() >= arg ? "" : at + ": fewer than " + arg.dump() + " items";
    if (key == "maxItems") return !v.is_array() || v.size() <= arg ? "" : at + ": more than " + arg.dump() + " items";
    if (key == "items") return items(arg, v, at);
    if (key == "properties") return properties(arg, v, at);
    if (key == "required") return required(arg, v, at);
    if (key == "additionalProperties") return additional(arg, s, v, at);
    if (key == "allOf" || key == "anyOf") return combined(key, arg, v, at);
    if (key == "not") return check(arg, v, at).empty() ? at + ": matches what 'not' excludes" : "";
    if (key == "if") return check(arg, v, at).empty() && s.contains("then") ? check(s["then"], v, at) : "";
    ADD_FAILURE() << "the schema uses '" << key << "', which this validator does not implement";
    return at + ": unknown keyword " + key;
  }

  std::string items(const json& arg, const json& v, const std::string& at) const {
    if (!v.is_array()) return "";
    for (std::size_t i = 0; i < v.size(); ++i)
      if (auto why = check(arg, v[i], at + "/" + std::to_string(i)); !why.empty()) return why;
    return "";
  }

  std::string properties(const json& arg, const json& v, const std::string& at) const {
    if (!v.is_object()) return "";
    for (const auto& [name, sub] : arg.items())
      if (v.contains(name))
        if (auto why = check(sub, v[name], at + "/" + name); !why.empty()) return why;
    return "";
  }

  static std::string required(const json& arg, const json& v, const std::string& at) {
    if (!v.is_object()) return "";
    for (const auto& name : arg)
      if (!v.contains(name.get<std::string>())) return at + ": lacks " + name.get<std::string>();
    return "";
  }

  static std::string additional(const json& arg, const json& s, const json& v, const std::string& at) {
    EXPECT_EQ(arg, json(false)) << "additionalProperties: only false is implemented";
    if (!v.is_object()) return "";
    for (const auto& [name, sub] : v.items())
      if (!s.contains("properties") || !s["properties"].contains(name)) return at + ": unknown key " + name;
    return "";
  }

  std::string combined(const std::string& key, const json& arg, const json& v, const std::string& at) const {
    std::string first;
    for (const json& sub : arg) {
      const std::string why = check(sub, v, at);
      if (key == "anyOf" && why.empty()) return "";
      if (!why.empty() && first.empty()) first = why;
      if (key == "allOf" && !why.empty()) return why;
    }
    return key == "anyOf" ? at + ": matches none of anyOf (" + first + ")" : "";
  }

  json root_;
};

Validator schema(const std::string& name) { return Validator(json::parse(read_text(kSource / "docs/schemas" / name))); }

// Whether the parser takes the text: "" or its message.
template <class Parse>
std::string parser_says(Parse parse, const std::string& text) {
  try {
    parse(text);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string model_parser(const std::string& text) { return parser_says(tcnum::model_from_json, text); }
std::string schedule_parser(const std::string& text) { return parser_says(tcnum::parse_schedule, text); }

// Schema and parser give the same verdict on `text` (which must be JSON).
void expect_agree(const Validator& v, std::string (*parser)(const std::string&), const std::string& text) {
  const std::string by_schema = v.check(json::parse(text)), by_parser = parser(text);
  EXPECT_EQ(by_schema.empty(), by_parser.empty())
      << text << "\nschema: " << (by_schema.empty() ? "valid" : by_schema) << "\nparser: " << (by_parser.empty() ? "valid" : by_parser);
}

}  // namespace

TEST(JsonSchemas, EveryShippedModelValidates) {
  const Validator v = schema("model.schema.json");
  std::vector<std::pair<std::string, std::string>> models = {
      {"docs/numprobe-h100-fit.json", read_text(kSource / "docs/numprobe-h100-fit.json")}};
  for (int sm : tcnum::known_archs())
    models.push_back({"built-in " + tcnum::arch_name(sm), tcnum::model_to_json(tcnum::builtin_model(sm))});
  for (const auto& [what, text] : models) {
    ASSERT_EQ(model_parser(text), "") << what;
    EXPECT_EQ(v.check(json::parse(text)), "") << what;
  }
  EXPECT_GE(models.size(), 9u);
}

TEST(JsonSchemas, EveryShippedPlanScheduleValidates) {
  const Validator v = schema("schedule.schema.json");
  std::size_t plans = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "python/tcnum/libraries/tables")) {
    for (const std::string& line : read_gz_lines(entry.path())) {
      const json j = json::parse(line);
      if (!j.contains("plan") || !j["plan"].is_object() || !j["plan"].contains("schedule")) continue;
      ++plans;
      const json& s = j["plan"]["schedule"];
      ASSERT_EQ(schedule_parser(s.dump()), "") << entry.path() << ": " << s.dump();
      ASSERT_EQ(v.check(s), "") << entry.path() << ": " << s.dump();
    }
  }
  EXPECT_GT(plans, 10000u);  // 16,806 lines in the tables, most of them with a plan
}

// The fuzz seeds of both loaders: valid and invalid documents; the schema says what the parser
// says (a key given twice is beyond a schema: the JSON parser keeps one, the strict parser refuses).
TEST(JsonSchemas, SchemaAndParserAgreeOnTheFuzzSeeds) {
  for (const auto& [dir, file, parser] :
       {std::tuple{"model_loader", "model.schema.json", &model_parser}, {"schedule", "schedule.schema.json", &schedule_parser}}) {
    const Validator v = schema(file);
    for (const auto& entry : fs::directory_iterator(kSource / "tests/fuzz/seeds" / dir)) {
      const std::string text = read_text(entry.path());
      if (!json::accept(text) || text.find("\"split_k\": 2, \"split_k\"") != std::string::npos) continue;
      expect_agree(v, parser, text);
    }
  }
}

TEST(JsonSchemas, SchemaAndParserAgreeOnModelVariants) {
  const Validator v = schema("model.schema.json");
  const std::string rule = R"({"family": "mma", "inputs": "bf16", "d_type": "f32", "frac_bits": 25, "block_size": 16})";
  for (const std::string& text : std::vector<std::string>{
           R"({"name": "m", "rules": [)" + rule + "]}",
           R"({"name": "m", "sm": 90, "extra": 1, "rules": [{}]})",
           R"({"name": "m", "rules": []})",
           R"({"rules": [{}]})",
           R"({"name": 7, "rules": [{}]})",
           R"({"name": "m", "sm": 1000, "rules": [{}]})",
           R"({"name": "m", "rules": [{"frac_bits": 689}]})",
           R"({"name": "m", "rules": [{"frac_bits": -1}]})",
           R"({"name": "m", "rules": [{"frac_bits": 25.0}]})",
           R"({"name": "m", "rules": [{"k_passes": 65}]})",
           R"({"name": "m", "rules": [{"block_format": "fp32", "d_type": "fp16"}]})",
           R"({"name": "m", "rules": [{"block_format": "f64"}]})",
           R"({"name": "m", "rules": [{"block_rounding": "rn"}]})",
           R"({"name": "m", "rules": [{"addend": "last_block", "output_direct": 1}]})",
           R"({"name": "m", "rules": [{"unpack_format": null, "align_exponent_floor": null}]})",
           R"({"name": "m", "rules": [{"align_exponent_floor": -133, "unpack_format": "f16"}]})",
           R"({"name": "m", "rules": [{"align_exponent_floor": 100001}]})",
           R"({"name": "m", "rules": [{"inputs": "fp4"}]})",
           R"({"name": "m", "rules": [{"frac_bit": 25}]})",
           R"({"name": "m", "rules": [{"validations": [{"gpu": "H100", "corpus": "c", "instructions": []}]}]})",
           R"({"name": "m", "rules": [{"validated": true, "validations": [{"gpu": "H100", "corpus": "c", "instructions": ["x"]}]}]})",
           R"({"name": "m", "rules": [{"validated": true, "validations": [{"gpu": "H100", "instructions": []}]}]})",
           R"({"name": "m", "rules": [{"validated": false, "validations": []}]})",
           // addend after_products and its own alignment (AMD CDNA3 as MMA-Sim reads it)
           R"({"name": "m", "rules": [{"family": "mfma", "inputs": "f32", "addend": "after_products", "sum_round_down_bits": 31, "addend_round_down_bits": 24, "addend_drop_binades": 25, "product_split": 2, "zero_operand_exponent": -126, "products_overflow_to_inf": true}]})",
           R"({"name": "m", "rules": [{"addend": "after_products", "addend_drop_binades": null, "zero_operand_exponent": null}]})",
           R"({"name": "m", "rules": [{"product_split": 2}]})",
           R"({"name": "m", "rules": [{"addend": "first_block", "product_split": 2}]})",
           R"({"name": "m", "rules": [{"addend": "after_products", "product_split": 17}]})",
           R"({"name": "m", "rules": [{"sum_round_down_bits": 65}]})",
           R"({"name": "m", "rules": [{"addend_round_down_bits": -1}]})",
           R"({"name": "m", "rules": [{"addend_drop_binades": -1}]})",
           R"({"name": "m", "rules": [{"zero_operand_exponent": 1001}]})",
           R"({"name": "m", "rules": [{"products_overflow_to_inf": 1}]})",
           R"({"name": "m", "rules": [{"family": "amd"}]})",
       })
    expect_agree(v, &model_parser, text);
}

TEST(JsonSchemas, SchemaAndParserAgreeOnScheduleVariants) {
  const Validator v = schema("schedule.schema.json");
  for (const std::string& text : std::vector<std::string>{
           R"({})",
           R"({"version": 1, "split_k": 4, "reduction_tree": [[0, 1], [2, 3]], "reduction_format": "f16"})",
           R"({"version": 2})",
           R"({"split_k": 0})",
           R"({"split_k": 2.0})",
           R"({"tile_k": -1})",
           R"({"slice_rule": "balanced"})",
           R"({"slice_bounds": [0, 32, 64], "k_order": [3, 2, 1, 0], "promotion": 4})",
           R"({"slice_bounds": [0, -32]})",
           R"({"reduction_tree": [0, 1, 2]})",
           R"({"reduction_tree": [[0], 1]})",
           R"({"reduction_tree": 3})",
           R"({"serial": "yes"})",
           R"({"c": "after_reduction", "tf32_operands": "nearest_away", "note": "x", "partial_tile": "first"})",
           R"({"c": "last"})",
           R"({"splitk": 2})",
           R"([1, 2])",
           R"({"regions": [{"rows": [0, 64], "cols": [0, 8], "schedule": {"split_k": 2}}]})",
           R"({"regions": [{"rows": [0, 64], "cols": [0, 8]}]})",
           R"({"regions": [{"rows": [0, 64, 1], "cols": [0, 8], "schedule": {}}]})",
           R"({"regions": [{"rows": [0, 64], "cols": [0, 8], "schedule": {}, "note": "x"}]})",
           R"({"regions": [{"rows": [0, 64], "cols": [0, 8], "schedule": {"regions": []}}]})",
       })
    expect_agree(v, &schedule_parser, text);
}

// The schema's numeric ranges are the parser's limits (kModelLimits), not a copy that can drift.
TEST(JsonSchemas, ModelRangesAreTheParsersLimits) {
  const json s = json::parse(read_text(kSource / "docs/schemas/model.schema.json"));
  const json& p = s["$defs"]["rule"]["properties"];
  const tcnum::ModelLimits l = tcnum::kModelLimits;
  EXPECT_EQ(p["frac_bits"]["minimum"], l.frac_bits_min);
  EXPECT_EQ(p["frac_bits"]["maximum"], l.frac_bits_max);
  EXPECT_EQ(p["block_size"]["maximum"], l.block_size_max);
  EXPECT_EQ(p["k_passes"]["maximum"], l.k_passes_max);
  EXPECT_EQ(p["pass_interleave"]["maximum"], l.pass_interleave_max);
  EXPECT_EQ(p["block_result_frac_bits"]["maximum"], l.block_result_frac_bits_max);
  EXPECT_EQ(p["scale_group"]["maximum"], l.scale_group_max);
  EXPECT_EQ(p["align_exponent_floor"]["anyOf"][1]["maximum"], l.align_exponent_floor_abs_max);
  EXPECT_EQ(p["align_exponent_floor"]["anyOf"][1]["minimum"], -l.align_exponent_floor_abs_max);
  EXPECT_EQ(s["properties"]["sm"]["maximum"], l.sm_max);
  EXPECT_EQ(p["sum_round_down_bits"]["maximum"], l.round_down_bits_max);
  EXPECT_EQ(p["addend_round_down_bits"]["maximum"], l.round_down_bits_max);
  EXPECT_EQ(p["addend_drop_binades"]["anyOf"][1]["maximum"], l.addend_drop_binades_max);
  EXPECT_EQ(p["product_split"]["maximum"], l.product_split_max);
  EXPECT_EQ(p["zero_operand_exponent"]["anyOf"][1]["maximum"], l.zero_operand_exponent_abs_max);
  EXPECT_EQ(p["zero_operand_exponent"]["anyOf"][1]["minimum"], -l.zero_operand_exponent_abs_max);
}
