# 1 "kernels/signatures.cu"
