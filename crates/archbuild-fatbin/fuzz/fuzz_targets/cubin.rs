//! Fuzzes the cubin reader (ELF header, `e_flags`, `.nv.compat`, symbol table) and the
//! writer's cubin validation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = archbuild_fatbin::cubin::parse_cubin(data) {
        // A cubin the reader accepts must be packable for its own arch (if its ELF is exact).
        let mut w = archbuild_fatbin::FatbinWriter::new();
        if w.add_cubin(data, info.arch).is_ok() {
            let bytes = w.write().expect("writing an accepted cubin");
            let back = archbuild_fatbin::read_fatbin(&bytes).expect("reading our own output");
            assert_eq!(
                &back[0].entries[0].data().expect("own entry").as_ref(),
                &data
            );
        }
    }
});
