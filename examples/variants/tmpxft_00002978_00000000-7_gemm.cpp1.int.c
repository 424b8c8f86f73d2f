# 1 "kernels/gemm.cu"
