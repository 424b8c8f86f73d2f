// Defined in scale.cu, used by kernels.cu: resolved by the device link.
#pragma once
extern __device__ float scale_factor;
__device__ float scale(float x);
