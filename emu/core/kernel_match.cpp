// Instruction choice for a kernel from its architecture, types and SASS mnemonic
// (tcnum/core/kernel_match.hpp).
#include "tcnum/core/kernel_match.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace tcnum {
namespace {

[[noreturn]] void fail(std::string_view sass, const std::string& why) {
  throw std::invalid_argument("tcnum::match_kernel(\"" + std::string(sass) + "\"): " + why);
}

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : s) {
    if (ch == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
  }
  parts.push_back(cur);
  return parts;
}

std::optional<Format> sass_type(const std::string& t) {
  if (t == "F32") return Format::fp32;
  if (t == "F16") return Format::fp16;
  if (t == "BF16") return Format::bf16;
  if (t == "TF32") return Format::tf32;
  if (t == "E4M3") return Format::e4m3;
  if (t == "E5M2") return Format::e5m2;
  return std::nullopt;
}

bool is_fp8(Format f) { return f == Format::e4m3 || f == Format::e5m2; }

struct Shape {
  Family family = Family::mma;
  int m = 0, n = 0, k = 0;
};

// "16816" -> 16×8×16, "1688" -> 16×8×8, "1684", "884", "16832"; "64x128x16".
Shape parse_shape(std::string_view sass, Family fam, const std::string& text) {
  Shape s;
  s.family = fam;
  if (fam == Family::wgmma) {
    if (std::sscanf(text.c_str(), "%dX%dX%d", &s.m, &s.n, &s.k) != 3) fail(sass, "cannot read the shape '" + text + "'");
    return s;
  }
  static const std::pair<const char*, Shape> known[] = {{"884", {Family::mma, 8, 8, 4}},
                                                         {"1684", {Family::mma, 16, 8, 4}},
                                                         {"1688", {Family::mma, 16, 8, 8}},
                                                         {"16816", {Family::mma, 16, 8, 16}},
                                                         {"16832", {Family::mma, 16, 8, 32}}};
  for (const auto& [name, shape] : known)
    if (text == name) return shape;
  fail(sass, "unknown MMA shape '" + text + "' (expected 884, 1684, 1688, 16816 or 16832)");
}

std::string ptx_name(const Shape& s, Format d, Format a, Format b, Format c) {
  std::ostringstream os;
  os << (s.family == Family::mma ? "mma" : s.family == Family::wgmma ? "wgmma" : "tcgen05.mma") << ".m" << s.m << 'n'
     << s.n << 'k' << s.k << '.' << name_of(d) << '.' << name_of(a) << '.' << name_of(b);
  if (s.family == Family::mma) os << '.' << name_of(c);
  return os.str();
}

}  // namespace

KernelMatch match_kernel(int sm, Format a, Format b, Format accumulator, std::string_view sass) {
  // The architecture first: a match must have a model (km.model() is builtin_model(sm)), and an
  // unknown one would otherwise be refused only later, by km.model(), or not at all by the
  // default instruction (sm_91 has sm_90's instructions).
  std::vector<int> archs;  // NVIDIA's: SASS kernels (AMD's gfx targets have no SASS)
  for (int s : known_archs())
    if (!is_amd_arch(s)) archs.push_back(s);
  if (std::find(archs.begin(), archs.end(), sm) == archs.end()) {
    std::string known;
    for (int s : archs) known += (known.empty() ? "sm_" : ", sm_") + std::to_string(s);
    throw std::invalid_argument("tcnum::match_kernel: " +
                                (is_amd_arch(sm) ? arch_name(sm) + " is AMD's: SASS kernels are NVIDIA's"
                                                 : "unknown architecture sm_" + std::to_string(sm)) +
                                " (no built-in model; known: " + known + ")");
  }
  if (accumulator != Format::fp32 && accumulator != Format::fp16)
    throw std::invalid_argument("tcnum::match_kernel: the accumulator must be f32 or f16, not " +
                                std::string(name_of(accumulator)));
  KernelMatch km;
  km.sm = sm;
  std::string how;
  if (sass.empty()) {
    // C is D's type, as in every kernel that accumulates in place.
    km.instruction = default_instruction(OperandFormats{a, b, accumulator, accumulator}, sm);
    how = "no SASS given: tcnum's default instruction for these types on sm_" + std::to_string(sm) +
          " (default_instruction: the architecture's own family, the largest K)";
  } else {
    // A whole cuobjdump line may be given: "/*0350*/  HMMA.16816.F32.BF16 R8, R8, R12, RZ ;".
    std::string_view mnemonic;
    for (std::size_t pos = 0; pos < sass.size();) {
      const std::size_t begin = sass.find_first_not_of(" \t", pos);
      if (begin == std::string_view::npos) break;
      const std::size_t end = std::min(sass.find_first_of(" \t", begin), sass.size());
      const std::string_view token = sass.substr(begin, end - begin);
      if (token.find("MMA") != std::string_view::npos || token.find("mma") != std::string_view::npos) {
        mnemonic = token;
        break;
      }
      pos = end;
    }
    if (mnemonic.empty()) fail(sass, "no MMA mnemonic (HMMA, QMMA, HGMMA, QGMMA) in it");
    const std::vector<std::string> p = split_dots(mnemonic);
    if (p.size() < 3) fail(sass, "expected OPCODE.SHAPE.TYPE[.TYPE...] as cuobjdump -sass prints it");
    const std::string& op = p[0];
    Family fam;
    if (op == "HMMA" || op == "QMMA") fam = Family::mma;
    else if (op == "HGMMA" || op == "QGMMA") fam = Family::wgmma;
    else fail(sass, "unknown opcode '" + op + "' (expected HMMA, QMMA, HGMMA or QGMMA; tcgen05's UTC*MMA: give no SASS)");
    Shape shape = parse_shape(sass, fam, p[1]);
    // Types after the shape: the accumulator (D) first; then the inputs when not f16
    // (BF16, TF32, or two fp8 types); sm_70's HMMA.884 gives D and C.
    std::vector<Format> types;
    for (std::size_t i = 2; i < p.size(); ++i) {
      if (p[i].rfind("STEP", 0) == 0) continue;  // Volta's HMMA.884.F32.F32.STEP0
      const auto t = sass_type(p[i]);
      if (!t) fail(sass, "unknown type '" + p[i] + "'");
      types.push_back(*t);
    }
    if (types.empty() || types[0] != accumulator)
      fail(sass, "the SASS accumulator is " + std::string(types.empty() ? "missing" : name_of(types[0])) +
                     ", the accumulator given is " + std::string(name_of(accumulator)));
    Format sa = Format::fp16, sb = Format::fp16;
    if (shape.m == 8 && shape.k == 4) {
      // HMMA.884.<D>.<C>: f16 inputs.
    } else if (types.size() == 2) {
      sa = sb = types[1];
    } else if (types.size() == 3) {
      sa = types[1], sb = types[2];
    } else if (types.size() != 1) {
      fail(sass, "too many types");
    }
    // Where mma with fp8 inputs runs as f16 HMMAs (the catalog's fp8_mma_runs_as_f16), the SASS
    // reads HMMA.16816.F32 while the PTX (and tcnum) instruction is mma.m16n8k32 with fp8 inputs.
    const bool fp8_as_f16 =
        fp8_mma_runs_as_f16(sm) && fam == Family::mma && is_fp8(a) && sa == Format::fp16 && sb == Format::fp16;
    if (fp8_as_f16) {
      shape.k = 32;
      sa = a, sb = b;
      how = "SASS " + std::string(sass) + ": on sm_" + std::to_string(sm) +
            " mma with fp8 inputs runs as f16 HMMAs; taken as mma.m16n8k32 (mma.m16n8k16 with fp8 "
            "inputs shows the same SASS: check the PTX)";
    } else {
      how = "from the SASS " + std::string(sass);
    }
    if (sa != a || sb != b)
      fail(sass, "the SASS inputs are " + std::string(name_of(sa)) + "×" + std::string(name_of(sb)) +
                     ", the types given are " + std::string(name_of(a)) + "×" + std::string(name_of(b)));
    // sm_70's m8n8k4 names C separately: C is D's type, as above.
    km.instruction = find_instruction(ptx_name(shape, accumulator, a, b, accumulator), sm);
  }
  km.explanation = km.instruction.name + " on sm_" + std::to_string(sm) + " (" + how +
                   "); k-steps of K = " + std::to_string(km.instruction.k) +
                   " in ascending k, no split-K. M and N of the instruction change no output bit.";
  return km;
}

}  // namespace tcnum
