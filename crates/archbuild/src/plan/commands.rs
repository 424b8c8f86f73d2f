//! The exact command lines of the jobs: cicc (nvcc -ptx), preprocessing, ptxas, and the host
//! side of a library's cicc job.

use super::*;
use crate::base::process::Cmd;
use crate::cache::observe;
use crate::toolkit::nvcc::Toolkit;
use archbuild_arch::{Arch, Target, TargetKind};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The cicc-phase command: PTX for `arch`, with its dependency list written to `depfile`.
///
/// Paths under the package directory are passed relative to it (the compile runs there), and
/// cicc is told the source's relative path as its original path: nvcc would otherwise hand it
/// the absolute one, which seeds the module ID in the names of internal-linkage device symbols
/// (`_INTERNAL_<id>_…`) and would make two checkouts produce different PTX.
pub(crate) fn cicc_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    device_command(tk, s, m, arch, "-ptx", out, depfile)
}

/// The LTO-IR command: cicc's whole-program LTO-IR for `arch`
/// (`nvcc -ltoir -gencode=arch=compute_XY,code=lto_XY`, as `-arch=lto_XY` makes it), with its
/// dependency list. Its preprocessing is `cicc_command`'s, line for line.
pub(crate) fn lto_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    device_command(tk, s, m, arch, "-ltoir", out, depfile)
}

/// Job `j`'s command as a plan lists it, with its files under `tmp`.
pub(crate) fn job_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    j: usize,
    phase: Phase,
    tmp: &Path,
) -> Cmd {
    let file = |ext: &str| tmp.join(format!("{j}.{ext}"));
    match phase {
        Phase::Cicc(a) => cicc_command(tk, s, m, a, &file("ptx"), &file("d")),
        Phase::Lto(a) => lto_command(tk, s, m, a, &file("ltoir"), &file("d")),
        Phase::Ptxas(a) => ptxas_command(tk, s, a, &tmp.join(j.to_string())),
        Phase::Link(t) => {
            let inputs = (0..m.members.len())
                .map(|u| link_input_name(t, u))
                .collect();
            let nvvm = tmp.join("nvvm");
            link_command(tk, s, t, (inputs, &nvvm), &tmp.join(j.to_string()))
        }
    }
}

/// The name a device link's `u`th input is written under in its directory.
pub(crate) fn link_input_name(t: Target, u: usize) -> String {
    match t.kind {
        TargetKind::Ptx => format!("in{u}.ltoir"),
        _ => format!("in{u}.cubin"),
    }
}

/// The device link's output file in its directory.
pub(crate) const LINK_OUT: &str = "out";

/// The device link of a relocatable module for target `t`, run in `dir` on the `inputs` there:
/// for `sm_XY`, `nvlink` as `nvcc -dlink -cubin` runs it (the same `-L` words, which the
/// linked cubin records); for `compute_XY`, nvcc's `-dlink -dlto` link of the files' LTO-IR
/// emitting whole-program PTX instead (`--emit-ptx`), with libNVVM from `nvvm`
/// (`nvvm_dir`).
pub(crate) fn link_command(
    tk: &Toolkit,
    s: &Settings,
    t: Target,
    (inputs, nvvm): (Vec<String>, &Path),
    dir: &Path,
) -> Cmd {
    let sm = t.arch.sm_name();
    let mut args: Vec<OsString> = vec!["-m64".into()];
    let lib = tk.nvcc().parent().unwrap_or(Path::new("")).join("../lib");
    match t.kind {
        TargetKind::Ptx => args.push(format!("--arch=compute_{sm}").into()),
        _ => args.push(format!("--arch=sm_{sm}").into()),
    }
    for l in [lib.join("stubs"), lib] {
        let mut a = OsString::from("-L");
        a.push(l);
        args.push(a);
    }
    args.push(format!("-cpu-arch={}", cpu_arch()).into());
    if t.kind == TargetKind::Ptx {
        let mut a = OsString::from("-nvvmpath=");
        a.push(nvvm);
        args.extend(["-dlto".into(), a, "--emit-ptx".into()]);
    }
    args.extend(inputs.into_iter().map(OsString::from));
    args.extend(["-lcudadevrt".into(), "-o".into(), LINK_OUT.into()]);
    let mut cmd = Cmd::new(tk.tool("nvlink"))
        .args(args)
        .hermetic(s.compiler_env.vars());
    cmd.cwd = Some(dir.to_path_buf());
    cmd
}

/// nvcc's `-cpu-arch` word for this machine.
fn cpu_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "AARCH64",
        _ => "X86_64",
    }
}

/// The `-nvvmpath` of a PTX device link: the toolkit's `nvvm` folder where it has
/// `lib64/libnvvm.so` (nvlink's own layout), else a folder archbuild makes under `tmp` with links
/// to the toolkit's `nvvm/bin`, `nvvm/libdevice` and libNVVM: PyPI's CUDA 13 wheels keep
/// libNVVM in `lib/` (`libnvvm.so.4`), where nvlink does not look.
pub(crate) fn nvvm_dir(tk: &Toolkit, tmp: &Path) -> std::io::Result<PathBuf> {
    let own = tk.root().join("nvvm");
    if own.join("lib64/libnvvm.so").exists() {
        return Ok(own);
    }
    let lib = [
        "lib/libnvvm.so",
        "lib/libnvvm.so.4",
        "nvvm/lib64/libnvvm.so.4",
    ]
    .iter()
    .map(|p| tk.root().join(p))
    .find(|p| p.exists())
    .ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no libnvvm.so in {}", tk.root().display()),
        )
    })?;
    let dir = tmp.join("nvvm");
    if dir.join("lib64/libnvvm.so").exists() {
        return Ok(dir);
    }
    std::fs::create_dir_all(dir.join("lib64"))?;
    let link = |to: &Path, at: &Path| match std::os::unix::fs::symlink(to, at) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    };
    link(&own.join("bin"), &dir.join("bin"))?;
    link(&own.join("libdevice"), &dir.join("libdevice"))?;
    link(&lib, &dir.join("lib64/libnvvm.so"))?;
    Ok(dir)
}

/// A compile command that also keeps nvcc's intermediate files (the preprocessed device
/// source) in `keep_dir`; its output is byte-identical.
pub(crate) fn keep_files(cmd: Cmd, keep_dir: &Path) -> Cmd {
    let mut args = cmd.args.clone();
    let at = args.len() - 3;
    args.splice(
        at..at,
        [
            OsString::from("--keep"),
            "--keep-dir".into(),
            keep_dir.as_os_str().to_owned(),
        ],
    );
    Cmd { args, ..cmd }
}

/// The preprocessing nvcc runs before cicc for `arch` (`nvcc -E -arch=compute_XY`, the same
/// `gcc -E` line as in `nvcc -ptx --dryrun`), with its dependency list.
pub(crate) fn preprocess_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    device_command(tk, s, m, arch, "-E", out, depfile)
}

/// A group's members compiled before its source, in order, as `-include`s: together one
/// translation unit, as if one file included them all.
pub(crate) fn preincludes(m: &Module) -> &[PathBuf] {
    match m.members.split_last() {
        Some((last, rest)) if *last == m.source => rest,
        _ => &[],
    }
}

/// The `__CUDA_ARCH_LIST__` a module's device passes get (`Module::arch_list`).
pub(crate) fn arch_list_macro(m: &Module) -> String {
    m.arch_list.clone()
}

/// nvcc's `__CUDA_ARCH_LIST__` for a list: every virtual arch of it, ascending, as
/// `750,860,900` (variants dropped, as nvcc writes it).
pub(crate) fn arch_list_value(list: &archbuild_arch::ArchList) -> String {
    let mut sms: Vec<u32> = list.targets().iter().map(|t| t.arch.cc.sm() * 10).collect();
    sms.sort_unstable();
    sms.dedup();
    sms.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The include path of every compile of the build, device and host side alike: the user's
/// `-I`s, then the header libraries' directories (before the toolkit's own, so a newer CCCL
/// wins).
pub(crate) fn include_flags(s: &Settings) -> Vec<OsString> {
    let dirs = s
        .includes
        .iter()
        .chain(s.header_libraries.iter().flat_map(|l| &l.dirs));
    dirs.map(|d| {
        let mut a = OsString::from("-I");
        a.push(relative(&s.base_dir, d));
        a
    })
    .collect()
}

/// A path as passed to the compiler: relative to the package directory when under it.
pub(crate) fn relative(base: &Path, p: &Path) -> PathBuf {
    let abs = crate::base::paths::lexical(&base.join(p));
    match abs.strip_prefix(crate::base::paths::lexical(base)) {
        Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
        Ok(_) => PathBuf::from("."),
        Err(_) => abs,
    }
}

/// The `-frandom-seed` archbuild gives nvcc for a source (`0x` and 8 hex digits of its path
/// relative to the package; CUDA 13 and newer, `gives_seed`). Without one, cicc names the
/// internal-linkage symbols of a source whose first external definition is a template after
/// the process and the time
/// (`_INTERNAL_b172d92f_4_t_cu_5a7daca2_17224`): every run, and every arch of one build, would
/// name them differently — PTX no cache reproduces, and a host library registering an internal
/// kernel by the name of one arch's image. With a seed the names are the same in every run
/// and image; module IDs nvcc derives from a symbol (the usual case) do not change.
pub(crate) fn random_seed(package_relative_source: &Path) -> String {
    let k = crate::base::store::Key::of(package_relative_source.as_os_str().as_encoded_bytes());
    format!("0x{}", &k.hex()[..8])
}

/// Whether archbuild gives this compile a seed: nvcc has `-frandom-seed` from CUDA 13 on (12.6
/// has none; later 12.x releases are not assumed to), and a flag of the build may set its own
/// (either spelling).
fn gives_seed(tk: &Toolkit, s: &Settings) -> bool {
    tk.version() >= archbuild_arch::CudaVersion::new(13, 0)
        && !s
            .all_nvcc_flags()
            .iter()
            .any(|f| f.trim_start_matches('-').starts_with("frandom-seed"))
}

fn device_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    phase: &str,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    let source = relative(&s.base_dir, &m.source);
    let sm = arch.sm_name();
    let arch_arg = match phase {
        "-ltoir" => format!("-gencode=arch=compute_{sm},code=lto_{sm}"),
        _ => format!("-arch=compute_{sm}"),
    };
    let mut args: Vec<OsString> = vec![phase.into(), arch_arg.into()];
    // `__CUDACC_RDC__` is defined in every pass of it, preprocessing included.
    if m.device_code == DeviceCode::Relocatable {
        args.push("-rdc=true".into());
    }
    args.extend(s.nvcc_flags.iter().map(OsString::from));
    if gives_seed(tk, s) {
        args.push(format!("-frandom-seed={}", random_seed(&source)).into());
    }
    args.extend(include_flags(s));
    args.extend(s.defines.iter().map(|d| OsString::from(format!("-D{d}"))));
    for f in preincludes(m) {
        args.extend(["-include".into(), relative(&s.base_dir, f).into_os_string()]);
    }
    // nvcc defines `__CUDA_ARCH_LIST__` as the whole list in every device pass of a
    // multi-arch compile; a one-target pass would get its own arch only, and CUB's inline
    // namespace (`cub::_V_300500_SM_750_800`) would then name one kernel differently in every
    // image. The host compiler's `-U`/`-D`, after nvcc's own `-D`, set nvcc's value.
    let list = arch_list_macro(m);
    if list.contains(',') {
        args.extend([
            "-Xcompiler".into(),
            format!("-U{ARCH_LIST},-D{ARCH_LIST}={}", list.replace(',', "\\,")).into(),
        ]);
    }
    let compiles = phase == "-ptx" || phase == "-ltoir";
    if let Some(name) = compiles.then(|| cicc_path_arg(&source)).flatten() {
        args.extend([
            "-Xcicc".into(),
            "--orig_src_path_name".into(),
            "-Xcicc".into(),
            name,
        ]);
    }
    if phase == "-ptx" {
        // cicc writes the host-side launch stub of every kernel: its declared C signature
        // (`report/signature.rs`, the typed launchers) and, for a library source, what the host
        // compile includes (`host/steps.rs`). nvcc's own temp names come first on its command
        // line, and cicc takes the last. The module ID goes to nvcc's temp file, which
        // `--keep` keeps.
        let side = HostSide::of(out);
        let stem = m.source.file_stem().unwrap_or_default().to_string_lossy();
        // Paths as cicc reads them: quoted when they hold white space (a TMPDIR with spaces);
        // `None` for one that needs more quoting than nvcc gives.
        let quoted = |p: &Path| {
            cicc_path_arg(p).or_else(|| {
                m.host
                    .then(|| p.to_string_lossy().replace(',', "\\,").into())
            })
        };
        // Without `--gen_c_file_name`, cicc writes its C output (`tmpxft_…cpp1.int.c`) into
        // the working directory, the package's: it goes beside the PTX instead. A kernels-only
        // source whose temporary paths cannot be quoted gets neither (and no typed launchers).
        let mut files = match (quoted(&side.stub), quoted(&side.gen_c)) {
            (Some(stub), Some(gen_c)) => {
                vec![("--stub_file_name", stub), ("--gen_c_file_name", gen_c)]
            }
            _ => Vec::new(),
        };
        if m.host {
            let name = format!("{stem}.fatbin.c").replace(',', "\\,");
            files.push(("--include_file_name", name.into()));
        }
        for (opt, value) in files {
            let mut v = OsString::from(opt);
            v.push(",");
            v.push(value);
            args.extend(["-Xcicc".into(), v]);
        }
    }
    args.extend(depfile_args(depfile));
    args.extend([
        "-o".into(),
        out.as_os_str().to_owned(),
        source.as_os_str().to_owned(),
    ]);
    // Preprocessing is not worth a launcher's round trip (and sccache would not cache it).
    let launcher = if phase == "-ptx" && s.launch_cicc {
        s.launcher.as_deref()
    } else {
        None
    };
    let mut cmd = Cmd::new(tk.nvcc())
        .args(args)
        .hermetic(s.compiler_env.vars());
    // Through a launcher the compile may not run at all (a launcher's own cache hit reads
    // the files it remembers, not the paths the preprocessor would try): nothing is observed,
    // and direct mode predicts.
    if launcher.is_none() {
        s.observation.wrap(&mut cmd, &observe::log_path(depfile));
    }
    let mut cmd = cmd.with_launcher(launcher);
    cmd.cwd = Some(s.base_dir.clone());
    cmd
}

/// Where a host library source's cicc job writes its host-side files, beside its PTX.
pub(crate) struct HostSide {
    pub stub: PathBuf,
    pub gen_c: PathBuf,
}

impl HostSide {
    pub(crate) fn of(ptx: &Path) -> Self {
        let with = |ext: &str| {
            let mut p = ptx.as_os_str().to_owned();
            p.push(ext);
            PathBuf::from(p)
        };
        Self {
            stub: with(".stub.c"),
            gen_c: with(".cudafe1.c"),
        }
    }
}

/// The source's relative path as `-Xcicc`'s value: nvcc splits `-X` values on commas (`\,`
/// keeps one) and hands cicc a command line split on white space (double quotes keep a path
/// with spaces whole). A path with a character that would need more quoting than that (`"`,
/// `$`, `` ` ``, `\`) gets no original path: nvcc's own, the absolute one, then names the
/// internal symbols, which only costs sharing between checkouts.
pub(crate) fn cicc_path_arg(source: &Path) -> Option<OsString> {
    let s = source.to_str()?;
    if s.contains(['"', '$', '`', '\\']) {
        return None;
    }
    let escaped = s.replace(',', "\\,");
    Some(if s.chars().any(char::is_whitespace) {
        format!("\"{escaped}\"").into()
    } else {
        escaped.into()
    })
}

/// Flags that make the compile write its dependency list. The host compiler's `-MD` on nvcc's
/// device preprocessing pass (`-Xcompiler -MD,-MF,FILE`) lists exactly the files that pass —
/// with this target's `__CUDA_ARCH__` — read, i.e. the inputs of the PTX, at no extra cost;
/// nvcc's own `-MD` would add a host preprocessing pass. `-Xcompiler` splits on commas, so a
/// path with a comma falls back to nvcc's `-MD -MF`. nvcc runs the host compiler through a
/// shell, unquoted: the path is single-quoted for it, so a home, cache or `TMPDIR` with a
/// space (or any character a shell reads) works.
fn depfile_args(depfile: &Path) -> Vec<OsString> {
    match depfile.to_str() {
        Some(p) if !p.contains(',') => {
            let quoted = format!("'{}'", p.replace('\'', "'\\''"));
            vec!["-Xcompiler".into(), format!("-MD,-MF,{quoted}").into()]
        }
        _ => vec!["-MD".into(), "-MF".into(), depfile.as_os_str().to_owned()],
    }
}

/// The ptxas-phase command: the cubin for `sm_XY` from `dir/in.ptx` to `dir/out.cubin`, run
/// in `dir`. The command line is the same for every build of one target and flags, so a
/// launcher that caches by command line and input (sccache) hits across builds; the cubin does
/// not record file names.
pub(crate) fn ptxas_command(tk: &Toolkit, s: &Settings, arch: Arch, dir: &Path) -> Cmd {
    let mut args: Vec<OsString> = s.ptxas_pre.iter().map(OsString::from).collect();
    args.extend([format!("-arch=sm_{}", arch.sm_name()).into(), "-m64".into()]);
    args.extend(s.ptxas_flags.iter().map(OsString::from));
    args.extend([PTXAS_IN.into(), "-o".into(), PTXAS_OUT.into()]);
    let mut cmd = Cmd::new(tk.tool("ptxas"))
        .args(args)
        .hermetic(s.compiler_env.vars())
        .with_launcher(s.launcher.as_deref());
    cmd.cwd = Some(dir.to_path_buf());
    cmd
}

const ARCH_LIST: &str = crate::cache::deps::ARCH_LIST_MACRO;

/// The ptxas job's input and output file names inside its directory.
pub(crate) const PTXAS_IN: &str = "in.ptx";
pub(crate) const PTXAS_OUT: &str = "out.cubin";
