// Running real tensor-core instructions on a GPU (built only when CUDA is found:
// TCNUM_HAVE_CUDA). Results are raw bits, exactly as the device wrote them.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::device {

// No GPU, wrong architecture, out of memory, a failed CUDA call: the message says which.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device had no memory for a batch's buffers (another process holds it). The runner first
// shrinks the batch (halving it down to one tile, probes/shrink_to_fit.hpp); this escapes only
// when not even one tile fits.
class DeviceOutOfMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

enum class ASource : std::uint8_t { shared_memory, registers };  // wgmma only

struct RunOptions {
  ASource a_source = ASource::shared_memory;
  int device = 0;
};

struct DeviceInfo {
  std::string name;
  int sm = 0;            // 90 for H100/H200
  std::string driver;    // e.g. "575.57.08"
  std::string runtime;   // CUDA runtime version, e.g. "13.0"
  std::string uuid;      // "GPU-xxxxxxxx-xxxx-...", as nvidia-smi prints it
};

bool available(std::string* why_not = nullptr);
DeviceInfo info(int device = 0);

// Full tiles: tiles × (M×K row-major A, K×N column-major B, i.e. [n][k],
// M×N row-major C) -> tiles × M×N row-major D. Every element holds its raw bits
// in the low bits of a uint32.
std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const RunOptions& opt = {});

// The same from flat arrays, as the fuzz campaigns hold them (tcnum/fuzz: generate_tiles,
// mma_tiles): a tiles × M×K row-major, b tiles × K×N column-major ([n][k]), c and d tiles × M×N
// row-major.
void run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
               const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt = {});

// Where this process's device runs spent their wall time so far, all threads added up: packing
// operands on the host, copying them in, the kernel, copying D out.
struct RunTimes {
  double pack_s = 0, copy_in_s = 0, kernel_s = 0, copy_out_s = 0;
};
RunTimes run_times();

// Independent cases packed into tiles (case i -> one diagonal element of some tile).
std::vector<std::uint32_t> run_cases(const Instruction& in, const std::vector<Case>& cases,
                                     const RunOptions& opt = {});

// The same from flat arrays: a and b hold count×K raw elements (case i at i·K), c count;
// writes count results to d. Packing runs on several host threads.
void run_cases(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
               const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt = {});

// Sparse A (mma.sp::ordered_metadata; tcnum/core/sparse.hpp): cases with their stored A
// (K/2), B (K) and metadata, packed one per diagonal element of 16×8 tiles. The first call per
// instruction and device runs the sparse layout self-check, which picks the metadata register
// layout under which small-integer tiles with random metadata come out exact (DeviceError when
// none does). run_cases hands sparse instructions here.
std::vector<std::uint32_t> run_sparse_cases(const Instruction& in, const std::vector<Case>& cases,
                                            const RunOptions& opt = {});
// Whole sparse tiles as fuzz campaigns hold them (tcnum/fuzz/sparse_tiles.hpp): a tiles × M×K
// logical rows of A (+0 where dropped; each row's canonical metadata derived from its zeros),
// b tiles × N×K ([n][k]), c and d tiles × M×N. run_tiles hands sparse instructions here.
void run_sparse_logical_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                              const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt = {});
// The metadata layout the self-check chose for `in` (running it if needed); `report`, when
// given, receives the verdict of each layout tried.
std::string sparse_layout(const Instruction& in, const RunOptions& opt = {}, std::string* report = nullptr);

// The layout self-check: small integers whose products and sums are exact must give the
// exact integer results in every output element. Returns "" when it passes, else a report.
std::string self_check(const Instruction& in, const RunOptions& opt = {});

}  // namespace tcnum::device
