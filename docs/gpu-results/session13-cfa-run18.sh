#!/bin/bash
# Session 13 GPU call 18 (issue 25), given inline as the call's command (kept here as it ran): run17 found that
# the host side of a library source was preprocessed without the header library's directory (cute/tensor.hpp not
# found; fixed in 647f481). With the device side of all 53 files already in home1's cache, the CUTLASS headers
# were made visible to the host preprocessor by links in /usr/local/include (every device job was served from
# the cache, so the links changed only the host side), then the build ran again, linked and ran the tests.
H=/root/home1/headers/nvidia-cutlass-4.2.0/cutlass_library/source/include; ls $H; ln -sfn $H/cute /usr/local/include/cute; ln -sfn $H/cutlass /usr/local/include/cutlass; export PATH=/usr/local/cuda/bin:$PATH ARCHBUILD_REMOTE_CACHE=file:///root/cfa-remote ARCHBUILD_HOME=/root/home1; cd /root/cfa; s=$(date +%s); timeout 400 python3 run.py build --archs 9.0 --jobs 16 > $OUT/host.log 2>&1; echo "build rc=$? $(( $(date +%s)-s )) s"; grep -E "warning=archbuild|error" $OUT/host.log | tail -5; python3 run.py link 2>&1 | tail -5; ls -la out/libflashattention.a flash_attn_tests; timeout 120 python3 run.py test -- --test-threads=1 2>&1 | tee $OUT/cfa-tests.log | tail -30
