// The CUDA interop tests compiled by nvcc: tcnum/interop/cuda.hpp in a .cu translation unit.
#include "../test_cuda_interop.cpp"
