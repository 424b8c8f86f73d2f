//! `compile`: real nvcc through the build driver, checked with cuobjdump and `inspect`.
