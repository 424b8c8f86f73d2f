# 1 "kernels/vector_add.cu"
