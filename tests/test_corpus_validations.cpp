// The `validations` of the built-in models name exactly what corpora/ holds: every instruction
// of every corpus file is listed under the corpus folder it lies in (in the rule that evaluates
// it), and every listed instruction has a corpus file there.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {
namespace {

namespace fs = std::filesystem;
using Seen = std::set<std::pair<std::string, std::string>>;  // (folder under corpora/, "sm_NN instruction")

Seen instructions_in_corpora() {
  Seen seen;
  const fs::path root = fs::path(TCNUM_SOURCE_DIR) / "corpora";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !(name.ends_with(".tcc") || name.ends_with(".tcc.gz"))) continue;
    const std::string folder = fs::relative(entry.path(), root).begin()->string();
    CorpusReader reader(entry.path().string());
    CorpusCase c;
    std::string why;
    for (auto s = reader.next(c, why); s != CorpusReader::Status::end; s = reader.next(c, why))
      if (s == CorpusReader::Status::case_read)
        seen.insert({folder, "sm_" + std::to_string(parse_arch(c.arch)) + " " + c.instruction.name});
  }
  return seen;
}

TEST(CorpusValidations, ModelsNameExactlyTheInstructionsOfEachCorpus) {
  const Seen seen = instructions_in_corpora();
  ASSERT_GE(seen.size(), 96u);  // h100: 48 instructions; the imported folders: 48
  for (const auto& [folder, key] : seen) {
    const int sm = std::stoi(key.substr(3));
    const Instruction in = find_instruction(key.substr(key.find(' ') + 1), sm);
    bool listed = false;
    for (const Validation& v : builtin_model(sm).validations_for(in)) listed |= v.corpus == folder;
    EXPECT_TRUE(listed) << "corpora/" << folder << " holds " << key << " but the built-in model does not list it";
  }
  for (int sm : known_archs())
    for (const ModelRule& r : builtin_model(sm).rules) {
      EXPECT_EQ(r.validated, !r.validations.empty()) << "sm_" << sm << " rule " << r.source;
      for (const Validation& v : r.validations)
        for (const std::string& name : v.instructions)
          EXPECT_TRUE(seen.contains({v.corpus, "sm_" + std::to_string(sm) + " " + name}))
              << "sm_" << sm << " lists " << name << " as validated by corpora/" << v.corpus << ", which has no such case";
    }
}

TEST(CorpusValidations, SurviveTheJsonRoundTrip) {
  for (int sm : known_archs()) {
    const Model& m = builtin_model(sm);
    const Model back = model_from_json(model_to_json(m));
    ASSERT_EQ(back.rules.size(), m.rules.size());
    for (std::size_t i = 0; i < m.rules.size(); ++i) {
      EXPECT_EQ(back.rules[i].validated, m.rules[i].validated);
      EXPECT_EQ(back.rules[i].validations, m.rules[i].validations) << "sm_" << sm << " rule " << i;
    }
  }
  EXPECT_THROW(model_from_json(R"({"name": "x", "rules": [{"validated": false,
      "validations": [{"gpu": "g", "corpus": "c", "instructions": ["i"]}]}]})"),
               std::invalid_argument);
}

}  // namespace
}  // namespace tcnum
