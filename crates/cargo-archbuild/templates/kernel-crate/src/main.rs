//! Runs `scale` on GPU 0 and checks the result; prints `no GPU: <reason>` on a machine without one.

use {{crate_name}}::{Error, Gpu};

fn main() -> std::process::ExitCode {
    println!(
        "{{project-name}}: kernels built for `{}`",
        {{crate_name}}::kernels::ARCHS
    );
    let gpu = match Gpu::open(0) {
        Ok(gpu) => gpu,
        Err(Error::Load(
            e @ (archbuild_runtime::Error::NoDriver { .. }
            | archbuild_runtime::Error::NoDevice { .. }),
        )) => {
            println!("no GPU: {e}");
            return std::process::ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    print!("{}", gpu.report);
    let mut data: Vec<f32> = (0..4096).map(|i| i as f32).collect();
    if let Err(e) = gpu.scale(&mut data, 3.0) {
        eprintln!("error: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let ok = data.iter().enumerate().all(|(i, &v)| v == 3.0 * i as f32);
    println!(
        "scale on {} elements: {}",
        data.len(),
        if ok { "OK" } else { "WRONG" }
    );
    if ok {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
