//! Lists the images in fat binaries, cubins, PTX files or host ELF files:
//! `cargo run -p archbuild-fatbin --example inspect -- FILE...`

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args_os().skip(1) {
        let shown = path.to_string_lossy().into_owned();
        let result = std::fs::read(&path)
            .map_err(|e| format!("cannot read {shown}: {e}"))
            .and_then(|bytes| {
                archbuild_fatbin::read_any(&bytes).map_err(|e| format!("{shown}: {e}"))
            });
        match result {
            Ok(records) => {
                println!("{shown}: {} image(s)", records.len());
                for r in records {
                    let isa = r.ptx_isa.map(|v| format!(" ISA {v}")).unwrap_or_default();
                    println!(
                        "  {:<6} {:<6}{isa} {:>8} bytes ({} stored, {}) {} kernels: {}",
                        r.kind.name(),
                        r.arch.sm_name(),
                        r.size,
                        r.stored_size,
                        r.compression,
                        r.location,
                        r.kernels.join(" ")
                    );
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
