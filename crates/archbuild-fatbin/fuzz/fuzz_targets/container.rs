//! Fuzzes the fat binary container reader, entry decompression, the uniform listing and merge.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(containers) = archbuild_fatbin::read_fatbin(data) {
        for entry in containers.iter().flat_map(|c| &c.entries) {
            let _ = (entry.target(), entry.ptx_isa());
            let _ = entry.data();
        }
        let _ = archbuild_fatbin::merge(&[data, data]);
    }
    let _ = archbuild_fatbin::read_any(data);
});
