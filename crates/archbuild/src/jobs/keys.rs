//! Every cache key of a job's output, made in one place. [`settings_key`] destructures
//! [`Settings`] without `..`, so a new setting does not compile until it has a place here: in
//! the key of the stages it shapes, or out of every key with the reason written beside it. The
//! job keys (direct mode's manifest, preprocessor mode, the compile, ptxas, its alias) and the
//! records of prebuilt fat binaries are all built on it. [`FIELDS`] names what the keys hold;
//! `docs/build.md` ("What the cache key holds") is tested against it, and a failed
//! verification (`ARCHBUILD_VERIFY`) lists a job's key field by field.

use std::path::{Path, PathBuf};

use archbuild_arch::Arch;

use crate::base::store::{Key, KeyBuilder, Store};
use crate::cache::deps::Roots;
use crate::config::compiler_env::CompilerEnv;
use crate::plan::{Module, Settings};
use crate::toolkit::makers::{ByMaker, Maker, Toolkits};
use crate::toolkit::nvcc::Toolkit;

/// What the keys hold: `(field, stages, why)`. Stages: `cicc`, `ptxas`, `output` (prebuilt
/// records, which stand for both), `host` (a host library source's host object).
pub(crate) const FIELDS: &[(&str, &str, &str)] = &[
    ("toolkit", "cicc ptxas output", "nvcc's version and the content of nvcc, nvcc.profile, cicc, ptxas, cudafe++, fatbinary and libdevice"),
    ("host-compiler", "cicc output", "the content of the host compiler nvcc runs (`-ccbin` in any flag source, `NVCC_CCBIN`, else `gcc` on `PATH`)"),
    ("nvcc-flag", "cicc output", "every nvcc flag, in order (Cargo.toml, the build script or CLI, `ARCHBUILD_NVCC_FLAGS`)"),
    ("env-flag", "cicc output", "the words of `NVCC_PREPEND_FLAGS` and `NVCC_APPEND_FLAGS`"),
    ("include", "cicc output", "include directories, relative to the package"),
    ("define", "cicc output", "`-D` definitions"),
    ("header-library", "cicc output", "each header library's pin (PyPI package and version, `path`, or git commit), the content hash of its files and its include directories inside it"),
    ("env", "cicc output", "the value of each variable compilers see that can change an output (`docs/environment.md`, \"What compilers see\")"),
    ("flag-input", "cicc output", "the content of every file a flag names: `--options-file`, `-include`, a host compiler's `@file`"),
    ("launcher-cicc", "cicc output", "whether a launcher runs the cicc phase (its PTX is then keyed on the inputs' state)"),
    ("ptxas-flag", "ptxas output", "every ptxas flag after `-arch`, in nvcc's order: those `nvcc --dryrun` gives ptxas for the build's nvcc flags in any flag source (`-G`, `-lineinfo`, `-Ofc`, `-maxrregcount`, `-Xptxas`, …) and the build's own"),
    ("ptxas-pre", "ptxas output", "the ptxas flags nvcc puts before `-arch` (`-w`, `--warning-as-error`, `-split-compile`, …)"),
    ("source", "cicc host", "the source's path relative to the package (cicc's original path, which seeds internal symbol names); for a group, every member's, in order"),
    ("random-seed", "cicc", "the `-frandom-seed` archbuild gives nvcc, from the source's path (it names internal symbols where cicc would use the process and the time); a flag's own seed is in `nvcc-flag`"),
    ("arch", "cicc ptxas", "the virtual or real arch of the job"),
    ("shared-cicc", "cicc", "for a follower taking its class lead's PTX: the sharing rule and the lead"),
    ("inputs", "cicc host", "direct mode: the content of every file the preprocessor read and the state of every path it probed"),
    ("text", "cicc host", "preprocessor mode: the preprocessed text, whole where lines matter (a host object's: whole)"),
    ("ptx", "ptxas", "the PTX's content (or, for the alias, the key of the cicc job that made it)"),
    ("ptx-toolkit", "output", "the toolkit that made the PTX images when it is not the build's (`ptx-toolkit`): its fingerprint as `toolkit`'s, or in a package's records the version asked for"),
    ("legacy-toolkit", "output", "the toolkit that built the targets the build's cannot (`legacy-toolkit`): its fingerprint as `toolkit`'s, or in a package's records the version asked for"),
    ("compression", "output", "the fat binary's compression, as chosen (with a fleet, without zstd where a member's driver is older than 12.4)"),
    ("settings", "cicc ptxas output host", "the stage's settings key: the fields above marked for the stage (a host object's: the cicc stage's)"),
    ("manifest", "cicc", "through a launcher: the manifest key, with the inputs' state"),
    ("host-side", "cicc", "for a host library's source: that its cicc job also writes the host stub and module ID"),
    ("host-flag", "host", "every host-only nvcc flag (`Library::host_flag`), in order"),
    ("host-launcher", "host", "whether a launcher ran the host compile (a sccache-dist build server compiles the host preprocessor's output, which gcc compiles with one more `nop` at `-O0`)"),
    ("arch-list", "host output", "the list's virtual archs as nvcc's `__CUDA_ARCH_LIST__` (the host preprocessor defines it; a CI shard's is its whole list's, `ARCHBUILD_SHARD_OF`)"),
    ("stub", "host", "the stub cicc wrote for the source's last virtual arch (kernel registration, launch stubs)"),
    ("module-id", "host", "the module ID cicc generated, which `cudafe++` reads"),
    ("fatbin", "host", "the packed fat binary the object embeds"),
    ("device-code", "cicc ptxas output", "`relocatable` with relocatable device code (`-rdc=true` for cicc, `--compile-only` for ptxas, linked images); absent for whole-program code"),
    ("target", "dlink", "the target a device link makes (`sm_90`, `compute_90`; a host library's: its `-gencode`s)"),
    ("object", "dlink", "a host library's device link: each host object's name in the archive"),
    ("nvlink-arg", "dlink", "every word of nvlink's command line but the temporary `-nvvmpath` (the `-L` folders the linked cubin records among them)"),
    ("input", "dlink", "the content of every file's relocatable cubin or LTO-IR the link reads, in the module's order (a host library's: every host object's)"),
];

/// The stage a settings key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Cicc,
    Ptxas,
    /// A whole fat binary (prebuilt records): both phases.
    Output,
}

/// Facts about the build's programs and flag-named files, gathered once per build.
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    toolkit: Key,
    /// The other makers' toolkits where they are not the build's (`ptx-toolkit`,
    /// `legacy-toolkit`).
    others: ByMaker<Option<Key>>,
    host_compiler: String,
    flag_files: Vec<(String, String)>,
}

impl Facts {
    /// The facts of a build: its toolkits by their content, the host compiler, the files its
    /// flags name.
    pub(crate) fn gather(
        toolkits: &Toolkits,
        s: &Settings,
        roots: &Roots,
        store: Option<&Store>,
    ) -> Self {
        let fingerprint = |t: &Toolkit| crate::toolkit::fingerprint::toolkit(t, store);
        Self {
            others: ByMaker::from_fn(|m| match m {
                Maker::Build => None,
                _ => toolkits.found(m).map(fingerprint),
            }),
            ..Self::of_toolkit(toolkits.main(), s, roots, store)
        }
    }

    /// The facts of the jobs one toolkit runs alone (another maker's side of a build).
    pub(crate) fn of_toolkit(
        tk: &Toolkit,
        s: &Settings,
        roots: &Roots,
        store: Option<&Store>,
    ) -> Self {
        Self {
            toolkit: crate::toolkit::fingerprint::toolkit(tk, store),
            others: ByMaker::default(),
            host_compiler: host_compiler_id(s, store),
            flag_files: flag_files(s, roots, store),
        }
    }

    /// The facts a package's shipped fat binaries are keyed by (`docs/publishing.md`): the
    /// toolkit by its release and the host compiler as "the author's", since neither need be
    /// on a dependent's machine; everything else as [`Facts::gather`] has it.
    /// A PTX or legacy toolkit is the version asked for (`ptx`, `legacy`), which author and
    /// dependent read from the same Cargo.toml.
    pub(crate) fn packaged(
        release: &str,
        asked: &ByMaker<Option<String>>,
        s: &Settings,
        roots: &Roots,
    ) -> Self {
        let key = |v: &String| Key::of(format!("asked {v}").as_bytes());
        Self {
            toolkit: Key::of(format!("release {release}").as_bytes()),
            others: ByMaker::from_fn(|m| match m {
                Maker::Build => None,
                _ => asked[m].as_ref().map(key),
            }),
            host_compiler: "the package author's".to_owned(),
            flag_files: flag_files(s, roots, None),
        }
    }
}

/// The files named inside flags, by content.
fn flag_files(s: &Settings, roots: &Roots, store: Option<&Store>) -> Vec<(String, String)> {
    s.flag_inputs
        .files
        .iter()
        .map(|f| {
            let path = s.base_dir.join(f);
            let state = crate::toolkit::fingerprint::file_hash(&path, store)
                .map_or_else(|| "missing".to_owned(), |h| h.hex());
            (roots.portable(&path), state)
        })
        .collect()
}

/// A key under construction that also remembers what it holds, for messages.
pub(crate) struct Holds {
    b: KeyBuilder,
    items: Vec<(String, String)>,
}

impl Holds {
    fn new(kind: &str) -> Self {
        Self {
            b: KeyBuilder::new(kind),
            items: Vec::new(),
        }
    }

    fn str(&mut self, field: &str, value: &str) -> &mut Self {
        debug_assert!(FIELDS.iter().any(|f| f.0 == field), "{field} not in FIELDS");
        self.b.str(field, value);
        self.items.push((field.to_owned(), value.to_owned()));
        self
    }

    fn key(&mut self, field: &str, value: &Key) -> &mut Self {
        self.b.key(field, value);
        self.items.push((field.to_owned(), value.hex()));
        self
    }

    pub(crate) fn finish(&self) -> Key {
        self.b.finish()
    }

    /// `field=value` items, in key order.
    pub(crate) fn items(&self) -> &[(String, String)] {
        &self.items
    }
}

/// The settings part of every key of `stage`.
pub(crate) fn settings_key(s: &Settings, facts: &Facts, stage: Stage) -> Holds {
    let Settings {
        nvcc_flags,
        ptxas_flags,
        ptxas_pre,
        // In `ptxas_flags` (and `ptxas_pre`), where nvcc placed them.
        explicit_ptxas: _,
        includes,
        defines,
        // Paths are passed relative to it, so checkouts at other paths share entries.
        base_dir,
        // Where a compile runs does not change what it makes; whether it runs cicc does.
        launcher,
        launch_cicc,
        compiler_env,
        env_flags,
        flag_inputs,
        // Probed through direct mode's inputs; the directories themselves are in flags or env.
        probe_dirs: _,
        header_libraries,
        arch_list,
        // How the paths a compile looked at are found, not what it makes.
        observation: _,
        // A fleet changes no compile; what it changes, the compression it leaves zstd out
        // of, is keyed as `compression` in every fat binary's key (the pack stamp's, a
        // record's), and a fleet that passes its check changes nothing else.
        fleet: _,
        device_code,
    } = s;
    let cicc = matches!(stage, Stage::Cicc | Stage::Output);
    let ptxas = matches!(stage, Stage::Ptxas | Stage::Output);
    let mut h = Holds::new(match stage {
        Stage::Cicc => "settings-cicc",
        Stage::Ptxas => "settings-ptxas",
        Stage::Output => "settings-output",
    });
    h.key("toolkit", &facts.toolkit);
    // `-rdc=true` changes cicc's output (`--device-c`), ptxas's (`--compile-only`) and the
    // fat binary (linked images); whole-program keys stay those of earlier releases.
    if *device_code != crate::plan::DeviceCode::Whole {
        h.str("device-code", device_code.word());
    }
    for m in Maker::OTHERS {
        if let (Stage::Output, Some(k)) = (stage, &facts.others[m]) {
            h.key(m.setting(), k);
        }
    }
    if cicc {
        h.str("host-compiler", &facts.host_compiler);
        for f in nvcc_flags {
            h.str("nvcc-flag", f);
        }
        for f in env_flags.iter() {
            h.str("env-flag", f);
        }
        for i in includes {
            h.str(
                "include",
                &crate::plan::relative(base_dir, i).to_string_lossy(),
            );
        }
        for d in defines {
            h.str("define", d);
        }
        for l in header_libraries {
            h.str("header-library", &l.key_value());
        }
        // Each job's key has its module's own; the output's has the build's (a shard's whole).
        if matches!(stage, Stage::Output) {
            h.str("arch-list", arch_list);
        }
        for (name, value) in compiler_env.keyed() {
            let v = value.map_or_else(
                || "(unset)".to_owned(),
                |v| v.to_string_lossy().into_owned(),
            );
            h.str("env", &format!("{name}={v}"));
        }
        // Found inside the flags above; their files' content is what the key needs.
        let _ = flag_inputs;
        for (path, state) in &facts.flag_files {
            h.str("flag-input", &format!("{path}={state}"));
        }
        h.str(
            "launcher-cicc",
            if *launch_cicc && launcher.is_some() {
                "yes"
            } else {
                "no"
            },
        );
    }
    if ptxas {
        for f in ptxas_pre {
            h.str("ptxas-pre", f);
        }
        for f in ptxas_flags {
            h.str("ptxas-flag", f);
        }
    }
    h
}

/// The build's roots: the package, the toolkit, and where the toolkit and the header libraries'
/// include directories lie on this machine (`Roots::located`). Direct mode's manifests hold
/// the last, keys do not, so another location reaches preprocessor mode, which keys the text
/// that names them.
pub(crate) fn roots(s: &Settings, tk: &Toolkit) -> Roots {
    let toolkit = crate::base::paths::lexical(tk.root());
    let mut located = vec![toolkit.to_string_lossy().into_owned()];
    for dir in s.header_libraries.iter().flat_map(|l| &l.dirs) {
        located.push(dir.to_string_lossy().into_owned());
    }
    Roots {
        base: crate::base::paths::lexical(&s.base_dir),
        toolkit,
        located: located.join("\n"),
    }
}

/// A cicc job's key before its inputs are known: direct mode's manifest (`kind` `cicc`) and
/// the compile's inputs (`cicc-compile`, to which preprocessor mode adds the text).
pub(crate) fn cicc_job(
    kind: &str,
    settings: &Key,
    roots: &Roots,
    module: &Module,
    arch: Arch,
    lead: Option<Arch>,
) -> Holds {
    let Module {
        // Names the output, not its content.
        name: _,
        source,
        // Their content is in `inputs`/`text`; a group's others are `-include`d by name.
        members: _,
        // Reaches the PTX as `__CUDA_ARCH_LIST__` (`arch_list`, a shard's whole list's), which
        // `inputs` and `text` hold where a source names it.
        archs: _,
        arch_list: _,
        // A library source's cicc job also writes the host stub and module ID.
        host,
        // In the settings key.
        device_code: _,
    } = module;
    let mut h = Holds::new(kind);
    h.key("settings", settings);
    if *host {
        h.str("host-side", "stub,module-id");
    }
    for m in crate::plan::preincludes(module) {
        h.str("source", &roots.portable(m));
    }
    let relative = crate::plan::relative(&roots.base, source);
    h.str("source", &roots.portable(source))
        .str("random-seed", &crate::plan::random_seed(&relative))
        .str("arch", &arch.sm_name());
    // A path cicc cannot be told (`plan::cicc_path_arg`) seeds internal names absolutely.
    if crate::plan::cicc_path_arg(&relative).is_none() {
        h.str("source", &roots.base.join(source).to_string_lossy());
    }
    if let Some(lead) = lead {
        h.str(
            "shared-cicc",
            &format!("{}:{}", crate::plan::share::RULE, lead.sm_name()),
        );
    }
    h
}

/// How a host object is compiled: the host-only flags, and whether through a launcher.
#[derive(Clone, Copy)]
pub(crate) struct HostCompile<'a> {
    pub flags: &'a [String],
    pub launched: bool,
}

/// The inputs of a host library source's host object that preprocessing cannot see: the cicc
/// settings (flags, includes, defines, toolkit, host compiler), the host-only flags, the
/// source's relative path (`cudafe++`'s original path), and what the device side hands the
/// host compile: the stub, the module ID and the packed fat binary. Direct mode's manifest
/// (`kind` `host`) maps the host preprocessor's inputs to the object's key; preprocessor mode
/// adds the preprocessed text (`host_preprocessed`).
pub(crate) fn host_job(
    settings: &Key,
    roots: &Roots,
    module: &Module,
    compile: HostCompile<'_>,
    stub: &Key,
    module_id: &[u8],
    fatbin: &Key,
) -> Key {
    let mut h = Holds::new("host");
    h.key("settings", settings);
    for f in compile.flags {
        h.str("host-flag", f);
    }
    h.str("host-launcher", if compile.launched { "yes" } else { "no" });
    for m in crate::plan::preincludes(module) {
        h.str("source", &roots.portable(m));
    }
    h.str("source", &roots.portable(&module.source))
        .str("arch-list", &crate::plan::arch_list_macro(module))
        .key("stub", stub)
        .str("module-id", &String::from_utf8_lossy(module_id))
        .key("fatbin", fatbin);
    h.finish()
}

/// A host object compiled from a host preprocessed text: the host job's inputs and the text,
/// exactly (line markers reach the object through `__LINE__` and debug information).
pub(crate) fn host_preprocessed(inputs: &Key, text: &[u8]) -> Key {
    let mut h = Holds::new("host-preprocessed");
    h.key("inputs", inputs).key("text", &Key::of(text));
    h.finish()
}

/// The PTX of a preprocessed text: the compile's inputs, the text as hashed
/// (`preprocessed::key_text`), and, where the PTX copies source lines (`-src-in-ptx`), the
/// content of every input outside the toolkit.
pub(crate) fn preprocessed(inputs: &Key, text: &[u8], sources: &[(String, String)]) -> Key {
    // `-2`: entries keyed by the earlier line-based text, which merged texts differing inside
    // literals, must not be found in a cache shared with an older version.
    let mut h = Holds::new("ptx-preprocessed-2");
    h.key("settings", inputs).key("text", &Key::of(text));
    for (path, state) in sources {
        h.str("inputs", &format!("{path}={state}"));
    }
    h.finish()
}

/// The PTX of a compile through a launcher (no preprocessed text): the manifest key and the
/// inputs' state.
pub(crate) fn direct(manifest: &Key, inputs: &[u8]) -> Key {
    let mut h = Holds::new("ptx-direct");
    h.key("manifest", manifest).key("inputs", &Key::of(inputs));
    h.finish()
}

/// A ptxas job's key (`kind` `ptxas` on the PTX's hash, `ptxas-alias` on the cicc key).
pub(crate) fn ptxas_job(kind: &str, settings: &Key, input: &Key, arch: Arch) -> Key {
    let mut h = Holds::new(kind);
    h.key("settings", settings)
        .key("ptx", input)
        .str("arch", &arch.sm_name());
    h.finish()
}

/// A device link's key (`link.rs`): the settings, the target, nvlink's words (the `-L`
/// folders the linked cubin records among them; not the temporary `-nvvmpath`) and every
/// input's content, in the module's order.
pub(crate) fn link_job(
    settings: &Key,
    target: archbuild_arch::Target,
    args: &[std::ffi::OsString],
    inputs: &[&[u8]],
) -> Key {
    let mut h = Holds::new("dlink");
    h.key("settings", settings)
        .str("target", &target.to_string());
    for a in args {
        let a = a.to_string_lossy();
        if !a.starts_with("-nvvmpath=") {
            h.str("nvlink-arg", &a);
        }
    }
    for i in inputs {
        h.key("input", &Key::of(i));
    }
    h.finish()
}

/// A host library's device link (`nvcc -dlink`, `link.rs`): the cicc settings (the toolkit,
/// the host compiler, the nvcc flags), the host flags, the `-gencode`s and every object's
/// name and content, in the archive's order.
pub(crate) fn library_link(
    settings: &Key,
    host_flags: &[String],
    gencode: &[String],
    objects: &[(String, Vec<u8>)],
) -> Key {
    let mut h = Holds::new("host-dlink");
    h.key("settings", settings);
    for f in host_flags {
        h.str("host-flag", f);
    }
    for g in gencode {
        h.str("target", g);
    }
    for (name, bytes) in objects {
        h.str("object", name);
        h.key("input", &Key::of(bytes));
    }
    h.finish()
}

/// A prebuilt record's settings: both stages and the compression.
pub(crate) fn output(s: &Settings, facts: &Facts, compression: &str) -> String {
    output_items(s, facts, compression).0
}

/// [`output`], with the settings' `field=value` items (a package's record keeps them, so a
/// dependent's build can name the field that differs).
pub(crate) fn output_items(
    s: &Settings,
    facts: &Facts,
    compression: &str,
) -> (String, Vec<(String, String)>) {
    let settings = settings_key(s, facts, Stage::Output);
    let mut h = Holds::new("prebuilt-settings");
    h.key("settings", &settings.finish())
        .str("compression", compression);
    let mut items = settings.items().to_vec();
    items.push(("compression".to_owned(), compression.to_owned()));
    (h.finish().hex(), items)
}

/// The host compiler nvcc will use (`-ccbin` in any flag source, else `NVCC_CCBIN`, else `gcc`
/// on the compilers' `PATH`), identified by content, so the same compiler on two machines
/// shares entries.
fn host_compiler_id(s: &Settings, store: Option<&Store>) -> String {
    let path = host_compiler_path(s);
    match crate::toolkit::fingerprint::file_hash(&path, store) {
        Some(h) => format!("content:{}", h.hex()),
        None => format!("missing:{}", path.display()),
    }
}

/// The host compiler nvcc will run, as a path where it can be found.
pub(crate) fn host_compiler_path(s: &Settings) -> PathBuf {
    let env = &s.compiler_env;
    let ccbin = s
        .flag_inputs
        .ccbin
        .clone()
        .or_else(|| {
            env.get("NVCC_CCBIN")
                .map(|v| v.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "gcc".into());
    resolve_program(&s.base_dir.join(&ccbin), &ccbin, env)
}

fn resolve_program(joined: &Path, given: &str, env: &CompilerEnv) -> PathBuf {
    let mut path = if Path::new(given).components().count() > 1 {
        joined.to_path_buf()
    } else {
        PathBuf::from(given)
    };
    if path.is_dir() {
        path = path.join("gcc");
    }
    if path.components().count() == 1 {
        let search = env.get("PATH").map(|p| p.to_owned()).unwrap_or_default();
        if let Some(found) = crate::base::process::on_path(&path, &search) {
            path = found;
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/build.md's "What the cache key holds" names every field the keys hold.
    #[test]
    fn docs_build_lists_every_key_field() {
        let section = crate::base::doc_section("build.md", "What the cache key holds");
        for (field, stages, _) in FIELDS {
            let row = section
                .lines()
                .find(|l| l.starts_with(&format!("| `{field}` |")))
                .unwrap_or_else(|| panic!("docs/build.md: no row for `{field}`"));
            assert!(
                row.contains(stages),
                "docs/build.md: `{field}` is for {stages}: {row}"
            );
        }
    }
}
