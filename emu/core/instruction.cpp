// The instruction catalog: PTX MMA instructions by architecture.
#include "tcnum/core/instruction.hpp"

#include "instruction_amd.hpp"
#include "tcnum/core/dmma.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

namespace tcnum {
namespace {

constexpr std::array<int, 8> kNvidiaArchs{70, 75, 80, 86, 89, 90, 100, 120};
// AMD's gfx targets by their digits, hex a as 10 (parse_arch): gfx908, gfx90a, gfx942.
constexpr std::array<int, 3> kAmdArchs{detail::kGfx908, detail::kGfx90a, detail::kGfx942};
constexpr std::array<int, 11> kArchs{70, 75, 80, 86, 89, 90, 100, 120, detail::kGfx908, detail::kGfx90a, detail::kGfx942};
// tcgen05 is the datacenter Blackwell's (sm_100a/sm_100f, sm_103, sm_110); sm_120 has mma.sync only.
constexpr int kLastTcgen05Sm = 110;

// An architecture's own family, where it is not mma: what its kernels are written in and
// default_instruction prefers (sm_90a's wgmma, also its one fp8 path: its fp8 mma runs as f16
// HMMA, docs/models.md; sm_100's tcgen05). Other architectures: mma.
struct OwnFamily {
  int sm;
  Family family;
};
constexpr std::array<OwnFamily, 2> kOwnFamily{{{90, Family::wgmma}, {100, Family::tcgen05}}};
// Where ptxas lowers mma.sync with fp8 inputs to f16 HMMAs (the SASS shows HMMA.16816.F32):
// sm_90 (Luo et al., Table 14; ptxas 13.0) and sm_100 (ptxas 13.0 emits sm_90's SASS;
// docs/models.md). The models' fp8 mma rules emulate exactly that lowering.
constexpr std::array<int, 2> kFp8MmaAsF16{90, 100};

constexpr const char* kM8n8k4Gone =
    "\n  (mma.m8n8k4 on sm_80 and later is not a tensor-core operation: ptxas lowers it to CUDA-core\n"
    "  code, HADD2.F32 conversions and FMUL/FFMA/FADD in an order of the compiler's choosing\n"
    "  (docs/lowering/sass-cuda13.txt); tcnum models it on sm_70 and sm_75 only)";

Instruction make(Family fam, int m, int n, int k, Format d, Format a, Format b, Format c, int min_sm,
                 int max_sm = 1000) {
  Instruction in;
  in.family = fam;
  in.m = m, in.n = n, in.k = k;
  in.d_type = d, in.a_type = a, in.b_type = b, in.c_type = c;
  in.min_sm = min_sm, in.max_sm = max_sm;
  std::ostringstream os;
  const char* prefix = fam == Family::mma ? "mma" : fam == Family::wgmma ? "wgmma" : "tcgen05.mma";
  os << prefix << ".m" << m << 'n' << n << 'k' << k << '.' << name_of(d) << '.' << name_of(a) << '.'
     << name_of(b);
  if (fam == Family::mma) os << '.' << name_of(c);
  in.name = os.str();
  return in;
}

// Blackwell's kind-spelled forms: <prefix>.m..n..k...kind::K[.block_scale.scale_vec::NX].d.a.b[.c][.scale].
Instruction make_kind(Family fam, int m, int n, int k, const std::string& kind, Format d, Format a, Format b,
                      int min_sm, int max_sm, int scale_block = 0, Format scale = Format::ue8m0) {
  Instruction in = make(fam, m, n, k, d, a, b, d, min_sm, max_sm);
  in.kind = kind;
  in.scale_block = scale_block;
  in.scale_type = scale;
  std::ostringstream os;
  os << (fam == Family::mma ? "mma" : "tcgen05.mma") << ".m" << m << 'n' << n << 'k' << k << ".kind::" << kind;
  if (scale_block > 0) os << ".block_scale.scale_vec::" << k / scale_block << 'X';
  os << '.' << name_of(d) << '.' << name_of(a) << '.' << name_of(b);
  if (fam == Family::mma) os << '.' << name_of(d);
  if (scale_block > 0) os << '.' << name_of(scale);
  in.name = os.str();
  return in;
}

bool fp8(Format f) { return f == Format::e4m3 || f == Format::e5m2; }

// The integer signedness pairs with and without .satfinite (spelled after the shape, or after the
// kind, as PTX does): calls add(a, b, saturate) for each of the 8 forms of one shape.
template <class Add>
void integer_forms(bool nibble, Add&& add) {
  using F = Format;
  for (bool a_signed : {true, false})
    for (bool b_signed : {true, false})
      for (bool sat : {false, true})
        add(nibble ? (a_signed ? F::s4 : F::u4) : (a_signed ? F::s8 : F::u8),
            nibble ? (b_signed ? F::s4 : F::u4) : (b_signed ? F::s8 : F::u8), sat);
}

Instruction saturating(Instruction in, bool sat, const std::string& before) {
  in.saturate = sat;
  if (sat) in.name.insert(in.name.find(before), ".satfinite");
  return in;
}

// Integer mma.sync (PTX ISA "mma", integer types): s8/u8 m8n8k16 (sm_75+), m16n8k16 and
// m16n8k32 (sm_80+); s4/u4 m8n8k32 (sm_75+), m16n8k32 and m16n8k64 (sm_80+); every signedness
// pair, s32 C and D, with and without .satfinite (spelled after the shape, as PTX does:
// "mma.m16n8k32.satfinite.s32.s8.u8.s32"). m8n8k16/m8n8k32 are Turing's own shapes.
void add_integer_mma(std::vector<Instruction>& all) {
  using F = Format;
  struct Shape {
    int m, n, k;
    bool nibble;
    int min_sm;
  };
  const Shape shapes[] = {{8, 8, 16, false, 75}, {16, 8, 16, false, 80}, {16, 8, 32, false, 80},
                          {8, 8, 32, true, 75},  {16, 8, 32, true, 80},  {16, 8, 64, true, 80}};
  for (const Shape& sh : shapes)
    integer_forms(sh.nibble, [&](F a, F b, bool sat) {
      all.push_back(saturating(make(Family::mma, sh.m, sh.n, sh.k, F::s32, a, b, F::s32, sh.min_sm), sat, ".s32."));
    });
}

// Integer wgmma (PTX ISA "wgmma.mma_async", integer type; sm_90a): m64nNk32, s8/u8 × s8/u8 in
// every pair, s32 D, with and without .satfinite (spelled after the shape, as for mma). N is 8,
// 16, 24, 32, then 48..256 in steps of 16: ptxas 13.0 refuses the others ("Illegal matrix
// shape '.m64n40k32'"); integer_wgmma_n() is that list, which the probes' kernels take too.
void add_integer_wgmma(std::vector<Instruction>& all) {
  using F = Format;
  for (int n : integer_wgmma_n())
    integer_forms(false, [&](F a, F b, bool sat) {
      all.push_back(saturating(make(Family::wgmma, 64, n, 32, F::s32, a, b, F::s32, 90, 90), sat, ".s32."));
    });
}

// tcgen05.mma .kind::i8 (sm_100a, cta_group::1): s8/u8 × s8/u8 -> s32, K = 32; M = 64 at the
// integer N of wgmma (8, 16, 24, 32, 48..256 step 16), M = 128 at N = 16..256 step 16 (the PTX
// ISA's tcgen05 shape table for .kind::i8; N sits in the instruction descriptor, so ptxas cannot
// confirm it); the same (M, N) for tcgen05.mma.sp, at K = 64.
std::vector<std::pair<int, int>> tcgen05_i8_shapes() {
  std::vector<std::pair<int, int>> shapes;
  for (int n : integer_wgmma_n()) shapes.emplace_back(64, n);
  for (int n = 16; n <= 256; n += 16) shapes.emplace_back(128, n);
  return shapes;
}

// Saturation is the descriptor's saturate bit, spelled .satfinite here as for mma.
void add_tcgen05_i8(std::vector<Instruction>& all) {
  using F = Format;
  for (const auto& [m, n] : tcgen05_i8_shapes())
    integer_forms(false, [&, m = m, n = n](F a, F b, bool sat) {  // clang < 16 cannot capture bindings
      all.push_back(saturating(make_kind(Family::tcgen05, m, n, 32, "i8", F::s32, a, b, 100, kLastTcgen05Sm), sat, ".s32."));
    });
}

// The sparse form of a dense-spelled instruction of logical K (A holds K/2 per row), named as PTX
// spells it: mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32, wgmma.mma_async.sp.m64n128k32.f32.bf16.bf16,
// tcgen05.mma.sp.m128n64k64.kind::i8.s32.s8.s8 (the dense name's family prefix replaced).
Instruction sparse_of(Instruction in) {
  in.sparse = true;
  const std::size_t shape = in.name.find(".m" + std::to_string(in.m) + 'n');
  const char* prefix = in.family == Family::mma     ? "mma.sp::ordered_metadata"
                       : in.family == Family::wgmma ? "wgmma.mma_async.sp"
                                                    : "tcgen05.mma.sp";
  in.name = prefix + in.name.substr(shape);
  return in;
}

Instruction make_sparse(Family fam, int m, int n, int k, Format d, Format a, Format b, int min_sm, int max_sm = 1000) {
  return sparse_of(make(fam, m, n, k, d, a, b, d, min_sm, max_sm));
}

// PTX ISA 9.7.14.6 (mma.sp) and 9.7.15.6 (wgmma.mma_async.sp); ptxas 13.0 accepts exactly these
// (fp8 mma.sp only with f32 accumulators, sm_89+).
void add_sparse(std::vector<Instruction>& all) {
  using F = Format;
  for (int k : {16, 32}) {
    for (F acc : {F::fp32, F::fp16}) all.push_back(make_sparse(Family::mma, 16, 8, k, acc, F::fp16, F::fp16, 80));
    all.push_back(make_sparse(Family::mma, 16, 8, k, F::fp32, F::bf16, F::bf16, 80));
  }
  for (int k : {8, 16}) all.push_back(make_sparse(Family::mma, 16, 8, k, F::fp32, F::tf32, F::tf32, 80));
  for (F a : {F::e4m3, F::e5m2})
    for (F b : {F::e4m3, F::e5m2}) all.push_back(make_sparse(Family::mma, 16, 8, 64, F::fp32, a, b, 89));
  for (int n = 8; n <= 256; n += 8) {
    auto wg = [&](int k, F d, F a, F b) { all.push_back(make_sparse(Family::wgmma, 64, n, k, d, a, b, 90, 90)); };
    for (F d : {F::fp32, F::fp16}) wg(32, d, F::fp16, F::fp16);
    wg(32, F::fp32, F::bf16, F::bf16);
    wg(16, F::fp32, F::tf32, F::tf32);
    for (F d : {F::fp32, F::fp16})
      for (F a : {F::e4m3, F::e5m2})
        for (F b : {F::e4m3, F::e5m2}) wg(64, d, a, b);
  }
  // Integer wgmma.sp (s8/u8, logical K = 64, s32; wrap and .satfinite) at the integer N.
  for (int n : integer_wgmma_n())
    integer_forms(false, [&](F a, F b, bool sat) {
      all.push_back(saturating(make_sparse(Family::wgmma, 64, n, 64, F::s32, a, b, 90, 90), sat, ".s32."));
    });
  // Integer mma.sp (PTX ISA "mma.sp", integer types; sm_80+): s8/u8 m16n8k32 and m16n8k64 (2:4 as
  // fp8), s4/u4 m16n8k64 and m16n8k128 (4:8 in pairs, sparse.hpp); s32 C and D.
  for (bool nibble : {false, true})
    for (int k : {32, 64})
      integer_forms(nibble, [&](F a, F b, bool sat) {
        all.push_back(saturating(make_sparse(Family::mma, 16, 8, nibble ? 2 * k : k, F::s32, a, b, 80), sat, ".s32."));
      });
}

// tcgen05.mma.sp (sm_100a, cta_group::1; PTX ISA "tcgen05.mma", Table "kind and shapes", and
// "Sparse Matrices"): the dense kinds' M and N with twice their K: kind::f16 K = 32, kind::tf32
// K = 16 (1:2), kind::f8f6f4 and kind::i8 K = 64 (2:4). The block-scaled kinds are left out
// (mxf4, mxf4nvf4 are 4:8 in pairs; sparse_element takes no scales), docs/models.md §9.3.
void add_tcgen05_sparse(std::vector<Instruction>& all) {
  using F = Format;
  const F elems[] = {F::e4m3, F::e5m2, F::e3m2, F::e2m3, F::e2m1};
  for (int m : {64, 128})
    for (int n = (m == 64 ? 8 : 16); n <= 256; n += (m == 64 ? 8 : 16)) {
      auto tc = [&](int k, F d, F a, F b) { all.push_back(make_sparse(Family::tcgen05, m, n, k, d, a, b, 100, kLastTcgen05Sm)); };
      for (F d : {F::fp32, F::fp16}) tc(32, d, F::fp16, F::fp16);
      tc(32, F::fp32, F::bf16, F::bf16);
      tc(16, F::fp32, F::tf32, F::tf32);
      for (F a : elems)
        for (F b : elems)
          for (F d : {F::fp32, F::fp16}) {
            if (fp8(a) && fp8(b)) tc(64, d, a, b);  // fp8 x fp8 keeps the dense form's kind-less name
            else all.push_back(sparse_of(make_kind(Family::tcgen05, m, n, 64, "f8f6f4", d, a, b, 100, kLastTcgen05Sm)));
          }
    }
  for (const auto& [m, n] : tcgen05_i8_shapes())
    integer_forms(false, [&, m = m, n = n](F a, F b, bool sat) {  // clang < 16 cannot capture bindings
      all.push_back(saturating(sparse_of(make_kind(Family::tcgen05, m, n, 64, "i8", F::s32, a, b, 100, kLastTcgen05Sm)),
                               sat, ".s32."));
    });
}

// Blackwell's f8f6f4 kinds and the block-scaled MX/NVFP4 kinds (PTX ISA 8.7+, "tcgen05.mma" and
// "mma" with .kind; LLVM's NVVM tables list the same type sets).
void add_blackwell_kinds(std::vector<Instruction>& all) {
  using F = Format;
  const F elems[] = {F::e4m3, F::e5m2, F::e3m2, F::e2m3, F::e2m1};
  // sm_100a tcgen05 (cta_group::1): kind::f8f6f4 with an FP6/FP4 operand (fp8 x fp8 keeps its
  // older name), M = 64 (N step 8) or 128 (N step 16), K = 32, f32 or f16 D; the block-scaled
  // kinds M = 128, f32 D: mxf8f6f4 (K = 32, one ue8m0 per 32), mxf4 (K = 64, ue8m0 per 32),
  // mxf4nvf4 (K = 64, ue8m0 per 32 or ue4m3 per 16).
  for (int m : {64, 128})
    for (int n = (m == 64 ? 8 : 16); n <= 256; n += (m == 64 ? 8 : 16)) {
      for (F a : elems)
        for (F b : elems) {
          if (fp8(a) && fp8(b)) continue;
          for (F d : {F::fp32, F::fp16}) all.push_back(make_kind(Family::tcgen05, m, n, 32, "f8f6f4", d, a, b, 100, kLastTcgen05Sm));
        }
      if (m != 128) continue;
      for (F a : elems)
        for (F b : elems)
          all.push_back(make_kind(Family::tcgen05, m, n, 32, "mxf8f6f4", F::fp32, a, b, 100, kLastTcgen05Sm, 32));
      all.push_back(make_kind(Family::tcgen05, m, n, 64, "mxf4", F::fp32, F::e2m1, F::e2m1, 100, kLastTcgen05Sm, 32));
      all.push_back(make_kind(Family::tcgen05, m, n, 64, "mxf4nvf4", F::fp32, F::e2m1, F::e2m1, 100, kLastTcgen05Sm, 32));
      all.push_back(make_kind(Family::tcgen05, m, n, 64, "mxf4nvf4", F::fp32, F::e2m1, F::e2m1, 100, kLastTcgen05Sm, 16,
                              F::ue4m3));
      // scale_vec::4X with ue8m0 scales: the PTX ISA's tcgen05 table allows it (the scale type is in the
      // instruction descriptor); ptxas 13.0 refuses it for sm_120's mma.sync, which therefore lacks it.
      all.push_back(make_kind(Family::tcgen05, m, n, 64, "mxf4nvf4", F::fp32, F::e2m1, F::e2m1, 100, kLastTcgen05Sm, 16,
                              F::ue8m0));
    }
  // sm_120a mma.sync: m16n8k32 kind::f8f6f4 (f32 or f16 D), kind::mxf8f6f4.block_scale
  // (scale_vec::1X, ue8m0), m16n8k64 kind::mxf4 (2X, ue8m0) and kind::mxf4nvf4 (2X ue8m0, 4X ue4m3).
  for (F a : elems)
    for (F b : elems) {
      for (F d : {F::fp32, F::fp16}) all.push_back(make_kind(Family::mma, 16, 8, 32, "f8f6f4", d, a, b, 120, 1000));
      all.push_back(make_kind(Family::mma, 16, 8, 32, "mxf8f6f4", F::fp32, a, b, 120, 1000, 32));
    }
  all.push_back(make_kind(Family::mma, 16, 8, 64, "mxf4", F::fp32, F::e2m1, F::e2m1, 120, 1000, 32));
  all.push_back(make_kind(Family::mma, 16, 8, 64, "mxf4nvf4", F::fp32, F::e2m1, F::e2m1, 120, 1000, 32));
  all.push_back(make_kind(Family::mma, 16, 8, 64, "mxf4nvf4", F::fp32, F::e2m1, F::e2m1, 120, 1000, 16, F::ue4m3));
}

std::vector<Instruction> build_catalog() {
  using F = Format;
  std::vector<Instruction> all;
  auto mma = [&](int m, int n, int k, F d, F a, F b, F c, int sm) {
    all.push_back(make(Family::mma, m, n, k, d, a, b, c, sm));
  };
  // sm_70: m8n8k4 f16 with every accumulator combination; f16 D from f32 C is sm_70 only
  // (ptxas of CUDA 13 rejects it for sm_75+). On sm_80+ ptxas lowers m8n8k4 to CUDA-core
  // code, not a tensor-core instruction: it is not in those catalogs (kM8n8k4Gone).
  for (F d : {F::fp16, F::fp32})
    for (F c : {F::fp16, F::fp32}) {
      mma(8, 8, 4, d, F::fp16, F::fp16, c, 70);
      all.back().max_sm = d == F::fp16 && c == F::fp32 ? 70 : 75;
      all.back().native_max_sm = 70;  // Volta's shape; Turing keeps it for compatibility
    }
  // sm_75: m16n8k8 f16; sm_80: m16n8k16 f16/bf16, m16n8k8 bf16, tf32.
  for (F acc : {F::fp16, F::fp32}) mma(16, 8, 8, acc, F::fp16, F::fp16, acc, 75);
  for (F acc : {F::fp16, F::fp32}) mma(16, 8, 16, acc, F::fp16, F::fp16, acc, 80);
  mma(16, 8, 8, F::fp32, F::bf16, F::bf16, F::fp32, 80);
  mma(16, 8, 16, F::fp32, F::bf16, F::bf16, F::fp32, 80);
  mma(16, 8, 4, F::fp32, F::tf32, F::tf32, F::fp32, 80);
  mma(16, 8, 8, F::fp32, F::tf32, F::tf32, F::fp32, 80);
  // sm_89: fp8 m16n8k32 and m16n8k16, every input combination, f32 or f16 accumulators.
  for (int k : {32, 16})
    for (F acc : {F::fp32, F::fp16})
      for (F a : {F::e4m3, F::e5m2})
        for (F b : {F::e4m3, F::e5m2}) mma(16, 8, k, acc, a, b, acc, 89);
  // sm_90a: wgmma, every legal N (multiples of 8 up to 256).
  for (int n = 8; n <= 256; n += 8) {
    auto wg = [&](int k, F d, F a, F b) { all.push_back(make(Family::wgmma, 64, n, k, d, a, b, d, 90, 90)); };
    for (F d : {F::fp32, F::fp16}) wg(16, d, F::fp16, F::fp16);
    wg(16, F::fp32, F::bf16, F::bf16);
    wg(8, F::fp32, F::tf32, F::tf32);
    for (F d : {F::fp32, F::fp16})
      for (F a : {F::e4m3, F::e5m2})
        for (F b : {F::e4m3, F::e5m2}) wg(32, d, a, b);
  }
  // sm_100: tcgen05.mma, kind::f16, kind::tf32, kind::f8f6f4 (M = 64 or 128).
  for (int m : {64, 128})
    for (int n = (m == 64 ? 8 : 16); n <= 256; n += (m == 64 ? 8 : 16)) {
      auto tc = [&](int k, F d, F a, F b) { all.push_back(make(Family::tcgen05, m, n, k, d, a, b, d, 100, kLastTcgen05Sm)); };
      for (F d : {F::fp32, F::fp16}) tc(16, d, F::fp16, F::fp16);
      tc(16, F::fp32, F::bf16, F::bf16);
      tc(8, F::fp32, F::tf32, F::tf32);
      for (F d : {F::fp32, F::fp16})
        for (F a : {F::e4m3, F::e5m2})
          for (F b : {F::e4m3, F::e5m2}) tc(32, d, a, b);
    }
  add_blackwell_kinds(all);
  add_integer_mma(all);
  add_integer_wgmma(all);
  add_tcgen05_i8(all);
  add_sparse(all);
  add_tcgen05_sparse(all);
  detail::add_amd_mfma(all);
  return all;
}

const std::vector<Instruction>& catalog() {
  static const std::vector<Instruction> all = build_catalog();
  return all;
}

// An NVIDIA instruction on an NVIDIA architecture, an AMD one on a gfx target, in its range.
bool available_on(const Instruction& in, int sm) {
  return (in.family == Family::mfma) == is_amd_arch(sm) && sm >= in.min_sm && sm <= in.max_sm;
}

// Drops whole dot-separated qualifiers only: "mma.sync.aligned.m16n8k8.row.col..." is accepted,
// "mma.m16n8.rowk8..." (a qualifier glued into the shape) is not.
std::string strip_suffixes(std::string_view name) {
  std::string s;
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto dot = name.find('.', start);
    const auto part = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part != "sync" && part != "aligned" && part != "row" && part != "col") {
      if (!s.empty() || start > 0) s += '.';
      s += part;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return s;
}

[[noreturn]] void unknown_arch(const std::string& what) {
  std::string list;
  for (int a : kArchs) list += " " + arch_name(a);
  throw std::invalid_argument("unknown architecture '" + what + "'; known:" + list);
}

}  // namespace

std::vector<int> known_archs() { return {kArchs.begin(), kArchs.end()}; }

std::vector<int> integer_wgmma_n() {
  std::vector<int> out{8, 16, 24};
  for (int n = 32; n <= 256; n += 16) out.push_back(n);
  return out;
}

void check_formats(const Instruction& in) {
  const std::pair<const char*, Format> fields[] = {
      {"a_type", in.a_type}, {"b_type", in.b_type}, {"c_type", in.c_type}, {"d_type", in.d_type}, {"scale_type", in.scale_type}};
  for (const auto& [field, f] : fields) {
    try {
      check_format(f);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(in.name + ": " + field + ": " + e.what());
    }
  }
}

bool is_amd_arch(int arch) { return std::find(kAmdArchs.begin(), kAmdArchs.end(), arch) != kAmdArchs.end(); }

std::string arch_name(int arch) {
  constexpr std::array<std::pair<int, const char*>, 3> kGfxNames{
      {{detail::kGfx908, "gfx908"}, {detail::kGfx90a, "gfx90a"}, {detail::kGfx942, "gfx942"}}};
  for (const auto& [number, name] : kGfxNames)
    if (number == arch) return name;
  return "sm_" + std::to_string(arch);
}

int parse_arch(std::string_view arch) {
  for (int a : kAmdArchs)
    if (arch == arch_name(a)) return a;
  std::string_view digits = arch;
  if (digits.substr(0, 3) == "sm_") digits.remove_prefix(3);
  if (!digits.empty() && digits.back() == 'a') digits.remove_suffix(1);
  int sm = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), sm);
  if (arch.substr(0, 3) != "sm_" || digits.empty() || digits[0] == '0' || ec != std::errc{} ||
      ptr != digits.data() + digits.size() || std::find(kNvidiaArchs.begin(), kNvidiaArchs.end(), sm) == kNvidiaArchs.end())
    unknown_arch(std::string(arch));  // "sm_090" too: one spelling per architecture
  return sm;
}

std::vector<Instruction> instructions_for(int sm) {
  std::vector<Instruction> out;
  for (const Instruction& in : catalog())
    if (available_on(in, sm) && !in.sparse) out.push_back(in);
  return out;
}

std::vector<Instruction> sparse_instructions_for(int sm) {
  std::vector<Instruction> out;
  for (const Instruction& in : catalog())
    if (available_on(in, sm) && in.sparse) out.push_back(in);
  return out;
}

// A name as an error message shows it: whole up to 120 bytes (every real name is shorter), else
// its start and its length (a 1 MB name from a damaged corpus is not repeated whole).
static std::string shown_name(std::string_view name) {
  constexpr std::size_t kShown = 120;
  if (name.size() <= kShown) return std::string(name);
  return std::string(name.substr(0, kShown)) + "... (" + std::to_string(name.size()) + " bytes)";
}

Instruction parse_instruction(std::string_view name) {
  const std::string wanted = strip_suffixes(name);
  for (const Instruction& in : catalog())
    if (in.name == wanted) return in;
  if (const auto f = find_dmma_form(wanted)) throw UnknownInstruction(dmma_not_in_catalog_message(*f));
  throw UnknownInstruction("unknown instruction '" + shown_name(name) +
                           "' (expected a PTX name such as mma.m16n8k16.f32.bf16.bf16.f32 or "
                           "wgmma.m64n128k32.f32.e4m3.e5m2, or an AMD MFMA name such as v_mfma_f32_32x32x8_f16)");
}

Instruction find_instruction(std::string_view name, int sm) {
  if (std::find(kArchs.begin(), kArchs.end(), sm) == kArchs.end()) unknown_arch(arch_name(sm));
  const std::string wanted = strip_suffixes(name);
  for (const Instruction& in : catalog())
    if (in.name == wanted && available_on(in, sm)) return in;
  if (const auto f = find_dmma_form(wanted)) throw UnknownInstruction(dmma_not_in_catalog_message(*f));
  std::ostringstream os;
  os << "instruction '" << shown_name(name) << "' is not available on " << arch_name(sm);
  if (wanted.rfind("mma.m8n8k4.", 0) == 0 && sm >= 80) os << kM8n8k4Gone;
  os << "; valid names there:";
  // wgmma/tcgen05 have one entry per N: list them as one pattern line each to stay readable.
  std::vector<std::string> seen;
  std::vector<Instruction> listed = instructions_for(sm);
  for (const Instruction& in : sparse_instructions_for(sm)) listed.push_back(in);
  for (const Instruction& in : listed) {
    std::string shown = in.name;
    if (in.family == Family::wgmma || in.family == Family::tcgen05) {
      auto m_pos = shown.find(".m");  // the shape's ".m<digits>" (not wgmma.mma_async's ".mma")
      while (m_pos != std::string::npos && !(m_pos + 2 < shown.size() && shown[m_pos + 2] >= '0' && shown[m_pos + 2] <= '9'))
        m_pos = shown.find(".m", m_pos + 1);
      const auto n_pos = shown.find('n', m_pos);
      const auto k_pos = shown.find('k', n_pos);
      shown = shown.substr(0, n_pos + 1) + "{N}" + shown.substr(k_pos);
    }
    if (std::find(seen.begin(), seen.end(), shown) == seen.end()) seen.push_back(shown);
  }
  for (const auto& s : seen) os << "\n  " << s;
  if (std::any_of(seen.begin(), seen.end(), [](const std::string& s) { return s.find("{N}") != std::string::npos; }))
    os << "\n  ({N}: wgmma N = 8, 16, ..., 256, integer wgmma N = 8, 16, 24, 32, 48, ..., 256 step 16; tcgen05 M=64: N = 8..256 step 8, M=128: N = 16..256 step 16)";
  throw UnknownInstruction(os.str());
}

bool fp8_mma_runs_as_f16(int sm) {
  return std::find(kFp8MmaAsF16.begin(), kFp8MmaAsF16.end(), sm) != kFp8MmaAsF16.end();
}

bool is_native(const Instruction& in, int sm) { return available_on(in, sm) && sm <= in.native_max_sm; }

Instruction default_instruction(const OperandFormats& formats, int sm, std::optional<Family> family, int k) {
  const Format a = formats.a, b = formats.b, d = formats.d;  // not a structured binding: lambdas capture them
  const std::optional<Format> c = formats.c;
  Family own = Family::mma;
  for (const OwnFamily& f : kOwnFamily)
    if (f.sm == sm) own = f.family;
  if (is_amd_arch(sm)) own = Family::mfma;
  auto has_types = [&](const Instruction& in) { return in.a_type == a && in.b_type == b; };
  std::vector<Instruction> cands;
  for (const Instruction& in : instructions_for(sm))
    if (has_types(in) && in.d_type == d && (!c || in.c_type == *c) && (!family || in.family == *family) &&
        (k == 0 || in.k == k))
      cands.push_back(in);
  auto rank = [&](const Instruction& in) {
    return std::tuple(in.block_scaled() ? 1 : 0, in.family == own ? 0 : 1, is_native(in, sm) ? 0 : 1, -in.k, in.m, in.n);
  };
  std::stable_sort(cands.begin(), cands.end(),
                   [&](const Instruction& x, const Instruction& y) { return rank(x) < rank(y); });
  if (!cands.empty()) return cands.front();
  const std::string inputs = a == b ? std::string(name_of(a)) : std::string(name_of(a)) + " × " + std::string(name_of(b));
  std::ostringstream os;
  os << arch_name(sm) << " has no " << (family ? std::string(family_name(*family)) + " " : "")
     << (is_amd_arch(sm) ? "matrix-core" : "tensor-core") << " instruction with " << inputs << " inputs and " << name_of(d) << " accumulation"
     << (c ? " with C in " + std::string(name_of(*c)) : std::string()) << (k ? " and K = " + std::to_string(k) : std::string());
  std::set<std::string> accs;
  const std::vector<Instruction> here = instructions_for(sm);
  for (const Instruction& in : here)
    if (has_types(in)) accs.insert(std::string(name_of(in.d_type)) + (c ? " (C " + std::string(name_of(in.c_type)) + ")" : ""));
  if (accs.empty()) {
    std::set<std::string> types;  // integer inputs only where integers were asked for
    for (const Instruction& in : here)
      if (in.integer() == is_integer(a))
        types.insert(in.a_type == in.b_type ? std::string(name_of(in.a_type))
                                            : std::string(name_of(in.a_type)) + "×" + std::string(name_of(in.b_type)));
    os << "; input types there:";
    for (const std::string& t : types) os << ' ' << t;
    int first = 0;  // the first architecture with such inputs
    for (const Instruction& in : catalog())
      if (has_types(in) && (in.family == Family::mfma) == is_amd_arch(sm) && (first == 0 || in.min_sm < first))
        first = in.min_sm;
    if (first > sm) os << " (" << inputs << " needs " << arch_name(first) << " or later)";
  } else {
    os << "; " << inputs << " accumulates in:";
    for (const std::string& t : accs) os << ' ' << t;
  }
  throw std::invalid_argument(os.str());
}

const char* family_name(Family f) {
  return f == Family::mma ? "mma" : f == Family::wgmma ? "wgmma" : f == Family::tcgen05 ? "tcgen05" : "mfma";
}

}  // namespace tcnum
