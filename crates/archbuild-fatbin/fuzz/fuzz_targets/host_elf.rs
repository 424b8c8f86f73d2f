//! Fuzzes the host ELF scan (`.nv_fatbin` / `__nv_relfatbin`) and file-kind detection.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = archbuild_fatbin::detect(data);
    if let Ok(found) = archbuild_fatbin::host::scan_host_elf(data) {
        for entry in found
            .iter()
            .flat_map(|f| &f.containers)
            .flat_map(|c| &c.entries)
        {
            let _ = entry.data();
        }
    }
});
