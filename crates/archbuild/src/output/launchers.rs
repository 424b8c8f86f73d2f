//! The typed launchers of the generated module: one type per kernel whose parameters map to
//! Rust (`report/signature.rs`), and one per variant group whose kernels are declared alike.
//!
//! ```text
//! /// Typed launcher of `vector_add(float const*, float const*, float*, unsigned int)`.
//! pub struct VectorAdd { function: ::archbuild_runtime::launch::CudaFunction }
//! impl VectorAdd {
//!     pub const NAME: &'static str = VECTOR_ADD;
//!     pub fn load(module: &Arc<CudaModule>) -> Result<Self, DriverError>;
//!     pub unsafe fn launch(&self, stream: &CudaStream, config: LaunchConfig,
//!         arg0: &impl DeviceIn<f32>, arg1: &impl DeviceIn<f32>, arg2: &mut impl DeviceOut<f32>,
//!         arg3: u32) -> Result<(), DriverError>;
//! }
//! ```

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::report::signature::{Declared, RustParam};

/// The launcher items of one module, indented for its `pub mod`.
pub(crate) fn generate(
    krate: &str,
    declared: &[Declared],
    consts: &[(String, String)],
    variants: &[(&str, &[String])],
) -> String {
    let mut s = String::new();
    let mut used: BTreeSet<String> = ["Aligned".to_owned()].into();
    for d in declared {
        let Some((konst, _)) = consts.iter().find(|(_, k)| *k == d.entry) else {
            continue;
        };
        if let Some(why) = d.unmapped() {
            let _ = writeln!(
                s,
                "    // No typed launcher for `{}`: {why}; launch it by name ({konst}) with \
                 cudarc's `launch_builder`.",
                d.shown
            );
            continue;
        }
        let name = unique(&mut used, type_name(&d.shown));
        let _ = writeln!(
            s,
            "    /// Typed launcher of `{}` (kernel [`{konst}`]).",
            d.shown.replace('`', "'")
        );
        let _ = writeln!(
            s,
            "    pub struct {name} {{\n        function: {krate}::launch::CudaFunction,\n    }}"
        );
        let _ = writeln!(s, "    impl {name} {{");
        let _ = writeln!(
            s,
            "        /// The kernel's name, as the driver finds it.\n        pub const NAME: &'static str = {konst};"
        );
        let _ = writeln!(
            s,
            "        /// The kernel, from a module loaded from [`FATBIN`] (`Loaded::module`).\n        \
             pub fn load(module: &::std::sync::Arc<{krate}::launch::CudaModule>) -> \
             ::std::result::Result<Self, {krate}::launch::DriverError> {{\n            \
             module.load_function(Self::NAME).map(|function| Self {{ function }})\n        }}"
        );
        launch_fn(&mut s, krate, d);
        let _ = writeln!(s, "    }}");
    }
    for (group, kernels) in variants {
        let members: Vec<&Declared> = kernels
            .iter()
            .filter_map(|k| declared.iter().find(|d| d.entry == *k))
            .collect();
        let Some(first) = members.first() else {
            continue;
        };
        let alike = members.len() == kernels.len()
            && members.iter().all(|d| d.params == first.params)
            && first.unmapped().is_none();
        if !alike {
            let _ = writeln!(
                s,
                "    // No typed launcher for variant group `{group}`: its kernels are not all \
                 declared alike with parameters that map to Rust."
            );
            continue;
        }
        let name = unique(&mut used, format!("{}Variant", type_name(group)));
        let _ = writeln!(
            s,
            "    /// Typed launcher of variant group `{group}`: the kernel the GPU runs, each \
             declared `{}`.",
            first.shown.replace('`', "'")
        );
        let _ = writeln!(
            s,
            "    pub struct {name} {{\n        kernel: ::std::string::String,\n        function: {krate}::launch::CudaFunction,\n    }}"
        );
        let _ = writeln!(s, "    impl {name} {{");
        let _ = writeln!(
            s,
            "        /// The group's kernel for the GPU `loaded` was loaded for \
             (`Loaded::variant`).\n        pub fn load(loaded: &{krate}::Loaded<::std::sync::Arc<{krate}::launch::CudaModule>>) \
             -> ::std::result::Result<Self, {krate}::Error> {{\n            \
             let (kernel, function) = {krate}::launch::load_variant(loaded, {group:?})?;\n            \
             Ok(Self {{ kernel, function }})\n        }}"
        );
        let _ = writeln!(
            s,
            "        /// The kernel of the group this GPU runs.\n        pub fn kernel(&self) -> &str {{\n            &self.kernel\n        }}"
        );
        launch_fn(&mut s, krate, first);
        let _ = writeln!(s, "    }}");
    }
    s
}

/// The `unsafe fn launch` of a launcher whose kernel is declared `d`.
fn launch_fn(s: &mut String, krate: &str, d: &Declared) {
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    for (i, p) in d.params.iter().enumerate() {
        let Some(r) = p.rust else { continue };
        let arg = format!("arg{i}");
        match r {
            RustParam::Value(t) => {
                params.push(format!("{arg}: {}", t.rust(krate)));
                pushes.push(format!("args.arg(&{arg});"));
            }
            RustParam::In(t) => {
                params.push(format!(
                    "{arg}: &impl {krate}::launch::DeviceIn<{}>",
                    t.rust(krate)
                ));
                pushes.push(format!("{arg}.push_in(&mut args);"));
            }
            RustParam::Out(t) => {
                params.push(format!(
                    "{arg}: &mut impl {krate}::launch::DeviceOut<{}>",
                    t.rust(krate)
                ));
                pushes.push(format!("{arg}.push_out(&mut args);"));
            }
        }
    }
    let doc: Vec<String> = d
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("        /// - `arg{i}`: `{}`", p.c))
        .collect();
    let _ = writeln!(
        s,
        "        /// Launches the kernel on `stream` with `config`; the arguments are the kernel's \
         parameters, in order:\n{}\n        ///\n        /// # Safety\n        /// The build \
         checked the arguments' count and types against every image; what it cannot check is \
         the kernel's own contract: every buffer holds the elements the kernel indexes under \
         `config`, buffers it writes do not alias others it reads, and `config` is a launch \
         shape the kernel supports.",
        doc.join("\n")
    );
    let _ = writeln!(
        s,
        "        #[allow(clippy::too_many_arguments)]\n        pub unsafe fn launch(&self, stream: \
         &{krate}::launch::CudaStream, config: {krate}::launch::LaunchConfig{}{}) -> \
         ::std::result::Result<(), {krate}::launch::DriverError> {{",
        if params.is_empty() { "" } else { ", " },
        params.join(", ")
    );
    let _ = writeln!(
        s,
        "            #[allow(unused_imports)]\n            use {krate}::launch::{{DeviceIn as _, DeviceOut as _, PushKernelArg as _}};\n            \
         let mut args = stream.launch_builder(&self.function);"
    );
    for p in pushes {
        let _ = writeln!(s, "            {p}");
    }
    let _ = writeln!(
        s,
        "            // SAFETY: the caller upholds the kernel's contract (above).\n            \
         unsafe {{ args.launch(config) }}.map(|_| ())\n        }}"
    );
}

/// `vector_add(float const*, …)` → `VectorAdd`; `fill<double>(…)` → `FillDouble`.
fn type_name(shown: &str) -> String {
    let head = shown.split('(').next().unwrap_or(shown);
    let head = head.rsplit("::").next().unwrap_or(head);
    let mut out = String::new();
    for word in head.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Kernel");
    }
    out
}

fn unique(used: &mut BTreeSet<String>, name: String) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{name}{n}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_names_read_as_the_kernel_reads() {
        assert_eq!(type_name("vector_add(float const*)"), "VectorAdd");
        assert_eq!(type_name("fill<double>(double*)"), "FillDouble");
        assert_eq!(type_name("ns::k<__half, 4>(int)"), "KHalf4");
        assert_eq!(type_name("gemm"), "Gemm");
        let mut used = BTreeSet::from(["Aligned".to_owned()]);
        assert_eq!(unique(&mut used, "Aligned".into()), "Aligned2");
    }
}
