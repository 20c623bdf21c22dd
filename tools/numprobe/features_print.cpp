#include "features_print.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "device_session.hpp"
#ifdef TCNUM_HAVE_CUDA
#include "options.hpp"
#include "tcnum/probes/device.hpp"
#endif

namespace numprobe {

using namespace tcnum;
using namespace tcnum::features;

Backend make_backend(const std::string& backend, const std::string& arch, const std::string& model_file) {
  Backend b;
  if (backend == "emu") {
    ModelChoice c = choose_model(arch, model_file);
    b.sm = c.sm;
    b.model = std::move(c.model);
    b.description = "emulator: " + c.description;
    if (c.file) b.reference = builtin_model(b.sm);  // probe rows then show where the file and the built-in model differ
    return b;
  }
  if (backend != "device") throw std::invalid_argument("--backend must be 'emu' or 'device', not '" + backend + "'");
  if (!model_file.empty()) throw std::invalid_argument("--model applies to --backend emu only (the GPU is the black box)");
#ifndef TCNUM_HAVE_CUDA
  throw std::runtime_error(
      "--backend device: this numprobe was built without CUDA, so it cannot run instructions on a GPU. "
      "Build with the CUDA toolkit (cmake -DTCNUM_CUDA=ON, see docs/probes.md) on a machine with an NVIDIA GPU, "
      "or use --backend emu --arch sm_XX to ask a built-in model.");
#else
  std::string why;
  if (!device::available(&why)) throw no_gpu_error(why, "use --backend emu --arch sm_XX to ask a built-in model");
  const auto info = device::info();
  b.device = true;
  b.sm = info.sm;
  if (!arch.empty() && parse_arch(arch) != b.sm)
    throw std::invalid_argument("--arch " + arch + " does not match the GPU (sm_" + std::to_string(info.sm) + ")");
  b.description = "GPU: " + device_description();
  try {
    b.reference = builtin_model(b.sm);
  } catch (const std::exception&) {
  }
  return b;
#endif
}

BlackBox black_box(const Backend& b, const Instruction& in) {
  if (!b.device) {
    b.model->params_for(in);  // throws now if the model has no rule for `in`
    return emulator_box(*b.model);
  }
  BlackBox gpu;  // the device session's GPU (or its simulation, TCNUM_SIMULATED_DEVICE)
  gpu.cases = [](const Instruction& i, std::span<const Case> cs) {
    return run_on_device(i, std::vector<Case>(cs.begin(), cs.end()), false);
  };
  return gpu;
}

std::string model_validation(const Backend& b, const Instruction& in) {
  const auto& m = b.device ? b.reference : b.model;
  if (!m) return "no built-in model for this GPU";
  try {
    return (b.device ? "built-in model " : "model ") + validation_summary(m->validations_for(in));
  } catch (const std::exception& e) {
    return e.what();
  }
}

void print_table(std::ostream& os, const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], r[i].size());
    }
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << "\n";
  }
}

namespace {

std::string fact_text(const Fact& f) {
  if (auto* b = std::get_if<bool>(&f.value)) return *b ? "true" : "false";
  if (auto* i = std::get_if<std::int64_t>(&f.value)) return std::to_string(*i);
  return std::get<std::string>(f.value);
}

// Wraps a paragraph at `width` columns with an indent.
std::string wrap(const std::string& text, const std::string& indent, std::size_t width = 100) {
  std::istringstream in(text);
  std::string word, line, out;
  while (in >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width - indent.size()) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

}  // namespace

void print_report(std::ostream& os, const FeatureReport& r, bool with_model_column) {
  os << "== " << r.feature << " — " << r.instruction << " ==\n";
  os << wrap(r.verdict, "  ");
  if (!r.applicable) return;
  if (!r.probes.empty()) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"probe", "D", "reading"};
    if (with_model_column) head.push_back("built-in model");
    rows.push_back(head);
    for (const auto& p : r.probes) {
      std::vector<std::string> row = {p.label, p.got, p.reading};
      if (with_model_column) row.push_back(p.model.empty() ? "" : (p.agrees ? "same" : "DIFFERS: " + p.model));
      rows.push_back(row);
    }
    os << "\n";
    print_table(os, rows, "  ");
  }
  if (!r.facts.empty()) {
    std::string f = "facts:";
    for (const auto& x : r.facts) f += " " + x.key + "=" + fact_text(x) + ";";
    f.pop_back();
    os << "\n" << wrap(f, "  ");
  }
  for (const auto& a : r.anomalies) os << "  ANOMALY: " << a << "\n";
  if (!r.published.empty()) {
    os << "  published recipes on the same black box:\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : r.published)
      rows.push_back({v.recipe, v.passed ? "PASS" : "FAIL", v.verdict + (v.value >= 0 ? " (" + std::to_string(v.value) + (v.lower_bound ? "+" : "") + ")" : "")});
    print_table(os, rows, "    ");
  }
  os << "  source: " << r.source << "\n";
  os << "  (" << r.cases << " cases)\n";
}

nlohmann::json report_json(const FeatureReport& r) {
  nlohmann::json j;
  j["feature"] = r.feature;
  j["instruction"] = r.instruction;
  j["applicable"] = r.applicable;
  j["verdict"] = r.verdict;
  j["source"] = r.source;
  j["cases"] = r.cases;
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& f : r.facts) {
    if (auto* b = std::get_if<bool>(&f.value)) facts[f.key] = *b;
    else if (auto* i = std::get_if<std::int64_t>(&f.value)) facts[f.key] = *i;
    else facts[f.key] = std::get<std::string>(f.value);
  }
  j["facts"] = facts;
  j["anomalies"] = r.anomalies;
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : r.probes) {
    nlohmann::json o{{"probe", p.label}, {"d", p.got}, {"reading", p.reading}};
    if (!p.model.empty()) o["model"] = p.model, o["agrees"] = p.agrees;
    probes.push_back(o);
  }
  j["probes"] = probes;
  nlohmann::json pub = nlohmann::json::array();
  for (const auto& v : r.published)
    pub.push_back({{"recipe", v.recipe}, {"source", v.source}, {"passed", v.passed}, {"verdict", v.verdict},
                   {"value", v.value}, {"lower_bound", v.lower_bound}, {"note", v.note}});
  j["published"] = pub;
  return j;
}

std::string params_summary(const DatapathParams& p, const Instruction& in) {
  return params_text(effective_params(p, in));
}

}  // namespace numprobe
