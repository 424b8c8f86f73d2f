# 1 "kernels/rig.cu"
