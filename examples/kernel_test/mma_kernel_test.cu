// A real tensor-core kernel checked against tcnum on the GPU: a bf16 GEMM built from
// mma.sync.m16n8k16 (one warp per 16×8 tile of D, k-steps in ascending k, accumulators from
// zero), then a typical epilogue (bf16 D = relu(beta·C + (alpha·acc + bias_j)), fused FMAs,
// round to nearest even). The test compares both results with the oracle, bit for bit, and
// prints how many elements plausible wrong oracles would get wrong. Skips without a GPU.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tcnum/core/epilogue.hpp>
#include <tcnum/core/gemm_views.hpp>
#include <tcnum/core/kernel_match.hpp>
#include <tcnum/interop/cuda.hpp>
#include <tcnum/testing/gtest.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int M = 128, N = 128, K = 256;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Two consecutive bf16 in one register, the first in the low half (PTX fragment order).
__device__ std::uint32_t pack(const __nv_bfloat16* p) {
  return std::uint32_t(__bfloat16_as_ushort(p[0])) | (std::uint32_t(__bfloat16_as_ushort(p[1])) << 16);
}

// One k-step of one warp's 16×8 tile: acc += A(tile rows, k0..k0+15)·B(k0..k0+15, tile cols).
__device__ void mma_step(const __nv_bfloat16* a, const __nv_bfloat16* b, int row0, int bcol, int t, int k0,
                         float* acc) {
  const int row1 = row0 + 8;
  const std::uint32_t a0 = pack(a + row0 * K + k0 + 2 * t), a1 = pack(a + row1 * K + k0 + 2 * t);
  const std::uint32_t a2 = pack(a + row0 * K + k0 + 2 * t + 8), a3 = pack(a + row1 * K + k0 + 2 * t + 8);
  const std::uint32_t b0 = pack(b + bcol * K + k0 + 2 * t), b1 = pack(b + bcol * K + k0 + 2 * t + 8);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// A: M×K row-major; B: K×N column-major (column j's K values contiguous); C (null: zeros) and
// acc: M×N row-major; the accumulators start from C. One warp per 16×8 tile of D. The plain
// kernel walks the k-steps upward; Descending walks them downward; SplitTwo runs the upper half
// of the k-steps from zero in a second accumulator and adds the two halves (fp32, RNE) at the end.
template <bool Descending = false, bool SplitTwo = false>
__global__ void mma_gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c_in, float* acc) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const int tm = warp / (N / 8), tn = warp % (N / 8);
  if (tm >= M / 16) return;
  const int g = lane / 4, t = lane % 4;  // PTX's groupID and threadID_in_group
  const int row0 = tm * 16 + g, row1 = row0 + 8, bcol = tn * 8 + g;
  const int col = tn * 8 + 2 * t;  // D fragment: c0, c1 at (row0, col), (row0, col + 1); c2, c3 on row1
  float c[4] = {0.0f, 0.0f, 0.0f, 0.0f}, upper[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (c_in != nullptr) {
    c[0] = c_in[row0 * N + col], c[1] = c_in[row0 * N + col + 1];
    c[2] = c_in[row1 * N + col], c[3] = c_in[row1 * N + col + 1];
  }
  constexpr int steps = K / 16;
  for (int s = 0; s < steps; ++s) {
    const int step = Descending ? steps - 1 - s : s;
    mma_step(a, b, row0, bcol, t, step * 16, SplitTwo && s >= steps / 2 ? upper : c);
  }
  if (SplitTwo)
    for (int i = 0; i < 4; ++i) c[i] = __fadd_rn(c[i], upper[i]);
  acc[row0 * N + col] = c[0], acc[row0 * N + col + 1] = c[1];
  acc[row1 * N + col] = c[2], acc[row1 * N + col + 1] = c[3];
}

// The epilogue as tcnum::Epilogue states it: x = fma(alpha, acc, bias_j); x = fma(beta, C, x);
// ReLU (NaN kept); D = bf16, round to nearest even.
__global__ void epilogue(const float* acc, const __nv_bfloat16* c, const float* bias, float alpha, float beta,
                         __nv_bfloat16* d) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  float x = __fmaf_rn(alpha, acc[idx], bias[idx % N]);
  x = __fmaf_rn(beta, __bfloat162float(c[idx]), x);
  x = (x > 0.0f || isnan(x)) ? x : 0.0f;
  d[idx] = __float2bfloat16_rn(x);
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  check(cudaMalloc(&p, v.size() * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  return p;
}
template <class T>
std::vector<T> to_host(const T* p, std::size_t n) {
  std::vector<T> v(n);
  check(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  return v;
}

struct Inputs {
  std::vector<__nv_bfloat16> a, b, c;  // b column-major
  std::vector<float> bias;
};

// bf16 values N(0,1) times 2^e, e uniform in [-spread, spread]: spread 0 is plain N(0,1).
Inputs inputs(unsigned seed, int spread) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> exponent(-spread, spread);
  auto draw = [&](std::size_t n) {
    std::vector<__nv_bfloat16> v(n);
    for (auto& x : v) x = __float2bfloat16_rn(std::ldexp(normal(rng), exponent(rng)));
    return v;
  };
  Inputs in{draw(std::size_t(M) * K), draw(std::size_t(K) * N), draw(std::size_t(M) * N), std::vector<float>(N)};
  for (auto& x : in.bias) x = normal(rng);
  return in;
}

int device_sm() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 0;
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  std::printf("device: %s (sm_%d%d)\n", p.name, p.major, p.minor);
  return p.major * 10 + p.minor;
}

class MmaSyncKernel : public ::testing::TestWithParam<int> {};

TEST_P(MmaSyncKernel, MatchesTheOracleBitForBit) {
  const int sm = device_sm();
  if (sm == 0) GTEST_SKIP() << "no CUDA device";
  const Inputs x = inputs(7u + unsigned(GetParam()), GetParam());
  const float alpha = 0.75f, beta = -1.5f;

  // Run the kernel and the epilogue on the GPU.
  __nv_bfloat16 *da = to_device(x.a), *db = to_device(x.b), *dc = to_device(x.c), *dd = nullptr;
  float *dbias = to_device(x.bias), *dacc = nullptr;
  check(cudaMalloc(&dacc, sizeof(float) * M * N), "cudaMalloc");
  check(cudaMalloc(&dd, sizeof(__nv_bfloat16) * M * N), "cudaMalloc");
  mma_gemm<><<<(M / 16) * (N / 8) / 4, 128>>>(da, db, nullptr, dacc);
  epilogue<<<(M * N + 255) / 256, 256>>>(dacc, dc, dbias, alpha, beta, dd);
  check(cudaDeviceSynchronize(), "kernels");
  const std::vector<float> gpu_acc = to_host(dacc, std::size_t(M) * N);
  const std::vector<__nv_bfloat16> gpu_d = to_host(dd, std::size_t(M) * N);
  for (void* p : {(void*)da, (void*)db, (void*)dc, (void*)dd, (void*)dbias, (void*)dacc}) cudaFree(p);

  // The test: instruction from the SASS, oracle with and without the epilogue, comparison.
  using tcnum::Format;
  const tcnum::KernelMatch km = tcnum::match_kernel(sm, Format::bf16, Format::bf16, Format::fp32, "HMMA.16816.F32.BF16");
  const auto A = tcnum::row_major(x.a, M, K);
  const auto B = tcnum::col_major(x.b, K, N);
  std::vector<float> acc(std::size_t(M) * N);
  std::vector<__nv_bfloat16> d(std::size_t(M) * N);
  tcnum::gemm(km.model(), km.instruction, A, B, tcnum::row_major(acc, M, N), km.options);
  tcnum::Epilogue ep{.alpha = alpha, .beta = beta, .bias_kind = tcnum::BiasKind::per_column, .bias = x.bias, .relu = true};
  tcnum::gemm_with_epilogue(km.model(), km.instruction, A, B, tcnum::row_major(x.c, M, N), tcnum::row_major(d, M, N), ep,
                            km.options);
  EXPECT_TCNUM_EQ(tcnum::row_major(gpu_acc, M, N), tcnum::row_major(acc, M, N));
  EXPECT_TCNUM_EQ(tcnum::row_major(gpu_d, M, N), tcnum::row_major(d, M, N));

  // For the record: the same accumulators from oracles that do not match the kernel.
  std::printf("%s, %d×%d×%d, exponent spread ±%d\n", km.instruction.name.c_str(), M, N, K, GetParam());
  std::printf("  accumulators: %s", tcnum::compare(tcnum::row_major(acc, M, N), tcnum::row_major(gpu_acc, M, N)).to_string().c_str());
  std::printf("  bf16 D after the epilogue: %s",
              tcnum::compare(tcnum::row_major(d, M, N), tcnum::row_major(gpu_d, M, N)).to_string().c_str());
  auto differing = [&](const tcnum::Model& model, const tcnum::Instruction& in, const tcnum::GemmOptions& opt) {
    std::vector<float> other(std::size_t(M) * N);
    tcnum::gemm(model, in, A, B, tcnum::row_major(other, M, N), opt);
    return tcnum::compare(tcnum::row_major(other, M, N), tcnum::row_major(gpu_acc, M, N)).differing;
  };
  tcnum::GemmOptions descending;
  for (int s = K / 16 - 1; s >= 0; --s) descending.k_order.push_back(s);
  tcnum::Model exact{"exact", sm, "one RNE rounding per k-step", {{{}, {}, {}, tcnum::exact_params(), "", false}}};
  std::vector<float> fmaf_loop(std::size_t(M) * N);  // a CUDA-core kernel: acc = fmaf(a, b, acc), k ascending
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s = std::fmaf(__bfloat162float(A(i, k)), __bfloat162float(B(k, j)), s);
      fmaf_loop[std::size_t(i) * N + j] = s;
    }
  std::printf("  other oracles, elements differing from the GPU: sm_80 model %zu, mma.m16n8k8 %zu, descending k %zu, "
              "exact per k-step %zu, fmaf loop %zu\n",
              differing(tcnum::builtin_model(80), tcnum::find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80), {}),
              differing(km.model(), tcnum::find_instruction("mma.m16n8k8.f32.bf16.bf16.f32", sm), km.options),
              differing(km.model(), km.instruction, descending), differing(exact, km.instruction, {}),
              tcnum::compare(tcnum::row_major(fmaf_loop, M, N), tcnum::row_major(gpu_acc, M, N)).differing);
}

// README's first example on the GPU: d = 1 + four products 3·2^-26 (C = 1 enters the MMA).
// tcnum says 1 + 2^-23, an fmaf loop 1, the correctly rounded sum 1 + 2^-22.
TEST(ReadmeCase, OneElementOnTheGpu) {
  const int sm = device_sm();
  if (sm == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<__nv_bfloat16> a(std::size_t(M) * K, __float2bfloat16_rn(0.0f)), b(std::size_t(K) * N, a[0]);
  for (int k = 0; k < 4; ++k) a[k] = __float2bfloat16_rn(0x3p-13f), b[k] = __float2bfloat16_rn(0x1p-13f);
  std::vector<float> c(std::size_t(M) * N, 0.0f);
  c[0] = 1.0f;
  __nv_bfloat16 *da = to_device(a), *db = to_device(b);
  float *dc = to_device(c), *dacc = nullptr;
  check(cudaMalloc(&dacc, sizeof(float) * M * N), "cudaMalloc");
  mma_gemm<><<<(M / 16) * (N / 8) / 4, 128>>>(da, db, dc, dacc);
  check(cudaDeviceSynchronize(), "kernel");
  const std::vector<float> gpu = to_host(dacc, std::size_t(M) * N);
  for (void* p : {(void*)da, (void*)db, (void*)dc, (void*)dacc}) cudaFree(p);

  using tcnum::Format;
  const tcnum::KernelMatch km = tcnum::match_kernel(sm, Format::bf16, Format::bf16, Format::fp32, "HMMA.16816.F32.BF16");
  std::vector<float> oracle(std::size_t(M) * N);
  tcnum::gemm(km.model(), km.instruction, tcnum::row_major(a, M, K), tcnum::col_major(b, K, N), tcnum::row_major(c, M, N),
              tcnum::row_major(oracle, M, N), km.options);
  std::printf("README case on the GPU: d = %a (tcnum: %a)\n", gpu[0], oracle[0]);
  EXPECT_EQ(gpu[0], 1.0f + 0x1p-23f);
  EXPECT_TCNUM_EQ(tcnum::row_major(gpu, M, N), tcnum::row_major(oracle, M, N));
}

// The accumulators of mma_gemm<Descending, SplitTwo> (C = 0) on the GPU.
template <bool Descending, bool SplitTwo>
std::vector<float> gpu_gemm(const Inputs& x) {
  __nv_bfloat16 *da = to_device(x.a), *db = to_device(x.b);
  float* dacc = nullptr;
  check(cudaMalloc(&dacc, sizeof(float) * M * N), "cudaMalloc");
  mma_gemm<Descending, SplitTwo><<<(M / 16) * (N / 8) / 4, 128>>>(da, db, nullptr, dacc);
  check(cudaDeviceSynchronize(), "kernel");
  std::vector<float> out = to_host(dacc, std::size_t(M) * N);
  for (void* p : {(void*)da, (void*)db, (void*)dacc}) cudaFree(p);
  return out;
}

// A kernel that walks K downward, or splits it in two, is matched by the oracle's k_order or
// split_k, and not by the default options.
TEST(MmaSyncKernelVariants, KOrderAndSplitKAreMatchedByTheirOptions) {
  const int sm = device_sm();
  if (sm == 0) GTEST_SKIP() << "no CUDA device";
  const Inputs x = inputs(99u, 8);
  using tcnum::Format;
  const tcnum::KernelMatch plain = tcnum::match_kernel(sm, Format::bf16, Format::bf16, Format::fp32, "HMMA.16816.F32.BF16");
  tcnum::KernelMatch descending = plain, split = plain;
  for (int s = K / 16 - 1; s >= 0; --s) descending.options.k_order.push_back(s);
  split.options.split_k = 2;
  const struct {
    const char* name;
    std::vector<float> gpu;
    const tcnum::KernelMatch& km;
  } variants[] = {{"descending k-steps", gpu_gemm<true, false>(x), descending}, {"split-K = 2", gpu_gemm<false, true>(x), split}};
  for (const auto& v : variants) {
    std::vector<float> matched(std::size_t(M) * N), unmatched(matched.size());
    tcnum::gemm(v.km, tcnum::row_major(x.a, M, K), tcnum::col_major(x.b, K, N), tcnum::row_major(matched, M, N));
    tcnum::gemm(plain, tcnum::row_major(x.a, M, K), tcnum::col_major(x.b, K, N), tcnum::row_major(unmatched, M, N));
    const auto gpu = tcnum::row_major(v.gpu, M, N);
    EXPECT_TCNUM_EQ(gpu, tcnum::row_major(matched, M, N)) << v.name;
    const std::size_t missed = tcnum::compare(tcnum::row_major(unmatched, M, N), gpu).differing;
    std::printf("%s kernel: oracle with the matching option: %zu of %d differ; with the default options: %zu\n", v.name,
                tcnum::compare(tcnum::row_major(matched, M, N), gpu).differing, M * N, missed);
    EXPECT_GT(missed, std::size_t(M) * N / 20) << v.name;
  }
}

INSTANTIATE_TEST_SUITE_P(ExponentSpread, MmaSyncKernel, ::testing::Values(0, 8, 20));

}  // namespace
