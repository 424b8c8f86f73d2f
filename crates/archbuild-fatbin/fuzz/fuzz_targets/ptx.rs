//! Fuzzes the PTX header reader and the writer's PTX validation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = archbuild_fatbin::ptx::parse_ptx(data) {
        let mut w = archbuild_fatbin::FatbinWriter::new();
        if w.add_ptx(data, info.target).is_ok() {
            let bytes = w.write().expect("writing accepted PTX");
            let back = archbuild_fatbin::read_fatbin(&bytes).expect("reading our own output");
            let text = back[0].entries[0].data().expect("own entry");
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            assert_eq!(text.as_ref(), &data[..end]);
        }
    }
});
