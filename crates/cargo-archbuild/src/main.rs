//! `cargo-archbuild`: parse the command line and hand it to the library; nothing else lives here.

fn main() {
    std::process::exit(cargo_archbuild::run_from_env());
}
