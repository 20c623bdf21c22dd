#include "corpus_binding.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <stdexcept>
#include <tuple>

#include "bits.hpp"

namespace tcnum::python {
namespace {

nb::dict case_dict(const CorpusCase& k) {
  nb::dict d;
  d["arch"] = k.arch;
  d["instruction"] = k.instruction.name;
  d["a"] = storage_array(k.a, k.instruction.a_type, {k.a.size()});
  d["b"] = storage_array(k.b, k.instruction.b_type, {k.b.size()});
  d["c"] = storage_array({k.c}, k.instruction.c_type, {});
  d["d"] = storage_array({k.d}, k.instruction.d_type, {});
  return d;
}

// Every file through replay_file; the first `max_failures` issues are kept, all are counted.
nb::tuple replay(const std::vector<std::string>& paths, const Model* model, std::size_t max_failures) {
  std::vector<ReplayIssue> kept;
  ReplayTally total;
  {
    nb::gil_scoped_release unlocked;
    for (const std::string& path : paths) {
      const ReplayTally t = replay_file(path, model, [&](const ReplayIssue& issue) {
        if (kept.size() < max_failures) kept.push_back(issue);
      });
      total.passed += t.passed;
      total.failed += t.failed;
    }
  }
  nb::list failures;
  for (const ReplayIssue& issue : kept) {
    nb::dict f;
    f["file"] = issue.file;
    f["line"] = issue.line;
    f["malformed"] = issue.malformed;
    f["reason"] = issue.reason;
    if (issue.kase) {
      f["case"] = case_dict(*issue.kase);
      f["emulated"] = storage_array({issue.emulated}, issue.kase->instruction.d_type, {});
    }
    failures.append(f);
  }
  return nb::make_tuple(total.passed, total.failed, failures);
}

// The cases of one file grouped by (arch, instruction), as raw-bit arrays. Malformed lines
// raise ValueError with file and line: a corpus read for checking must be whole.
nb::list read_corpus(const std::string& path) {
  struct Group {
    CorpusCase first;
    std::vector<std::uint32_t> a, b, c, d, meta;
    std::vector<std::uint64_t> lines;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  std::vector<std::pair<std::string, std::string>> order;  // first appearance
  {
    nb::gil_scoped_release unlocked;
    CorpusReader reader(path);
    CorpusCase k;
    std::string why;
    for (;;) {
      const auto status = reader.next(k, why);
      if (status == CorpusReader::Status::end) break;
      if (status == CorpusReader::Status::malformed)
        throw std::invalid_argument(path + ":" + std::to_string(reader.line_number()) + ": malformed: " + why);
      const auto key = std::make_pair(k.arch, k.instruction.name);
      auto [it, fresh] = groups.try_emplace(key);
      if (fresh) {
        it->second.first = k;
        order.push_back(key);
      }
      Group& g = it->second;
      g.a.insert(g.a.end(), k.a.begin(), k.a.end());
      g.b.insert(g.b.end(), k.b.begin(), k.b.end());
      g.meta.insert(g.meta.end(), k.meta.begin(), k.meta.end());
      g.c.push_back(k.c);
      g.d.push_back(k.d);
      g.lines.push_back(reader.line_number());
    }
  }
  nb::list out;
  for (const auto& key : order) {
    const Group& g = groups.at(key);
    const Instruction& in = g.first.instruction;
    const std::size_t n = g.c.size(), k = static_cast<std::size_t>(in.k);
    nb::dict d;
    d["arch"] = g.first.arch;
    d["instruction"] = in.name;
    d["a"] = storage_array(g.a, in.a_type, {n, static_cast<std::size_t>(in.a_elements())});  // sparse: stored A
    d["b"] = storage_array(g.b, in.b_type, {n, k});
    d["c"] = storage_array(g.c, in.c_type, {n});
    d["d"] = storage_array(g.d, in.d_type, {n});
    if (in.sparse)  // one metadata value per group, as uint32 (Python narrows it to uint8)
      d["meta"] = storage_array(g.meta, Format::fp32, {n, static_cast<std::size_t>(sparse_meta_count(in))});
    std::vector<std::uint32_t> lines(g.lines.begin(), g.lines.end());
    d["line"] = storage_array(lines, Format::fp32, {n});  // uint32 line numbers
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_corpus(nb::module_& m) {
  m.def("replay", &replay, nb::arg("paths"), nb::arg("model").none(), nb::arg("max_failures"));
  m.def("read_corpus", &read_corpus, nb::arg("path"));
}

}  // namespace tcnum::python
