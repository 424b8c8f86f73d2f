//! The host stage of a library build (`Library`), after its fat binaries are packed: each
//! source's host object (`jobs/host.rs`) on the build's workers, the archive, and the lines
//! that link it (`host/link.rs`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::host::link::{link_lines, write_archive, ResolvedLibrary};
use crate::jobs::{HostObject, JobOut, JobRunner};
use crate::plan::Job;
use crate::prepare::Prepared;
use crate::report::{HostObjectRecord, LibraryReport, ModuleReport};

/// What the host stage made: the report, and the files its host preprocessing read.
pub(crate) struct HostStage {
    pub report: LibraryReport,
    pub deps: Vec<PathBuf>,
}

/// Builds every source's host object and the archive `lib<name>.a` in `out_root`.
pub(crate) fn run(
    compiler: &JobRunner,
    p: &Prepared,
    jobs: &[Job],
    done: &[&JobOut],
    modules: &[ModuleReport],
    lib: &ResolvedLibrary,
    out_root: &Path,
) -> Result<HostStage> {
    let workers = p.workers;
    let n = p.modules.len();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<HostObject>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, n.max(1)) {
            scope.spawn(|| loop {
                let m = next.fetch_add(1, Ordering::SeqCst);
                if m >= n || crate::base::process::interrupted() {
                    break;
                }
                let r = object(compiler, p, jobs, done, modules, lib, m);
                if let Ok(mut all) = results.lock() {
                    all[m] = Some(r);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    let mut objects = Vec::with_capacity(n);
    let mut members = Vec::with_capacity(n);
    let mut deps = Vec::new();
    for (m, r) in results.into_iter().enumerate() {
        let Some(r) = r else {
            return Err(Error::Interrupted);
        };
        let o = r?;
        let module = &p.modules[m];
        members.push((format!("{}.o", module.name), o.bytes));
        deps.extend(o.deps);
        objects.push(HostObjectRecord {
            module: module.name.clone(),
            served: o.served,
            seconds: o.seconds,
            command: o.command,
            output: Some(o.output.trim_end().to_owned()).filter(|s| !s.is_empty()),
        });
    }
    let relocatable = p.settings.device_code == crate::plan::DeviceCode::Relocatable;
    if relocatable {
        let link = device_link(compiler, p, &members, lib)?;
        objects.push(HostObjectRecord {
            module: DEVICE_LINK.into(),
            served: link.served,
            seconds: link.seconds,
            command: link.command,
            output: Some(link.output.trim_end().to_owned()).filter(|s| !s.is_empty()),
        });
        members.push((format!("{}_{DEVICE_LINK}.o", lib.archive), link.bytes));
    }
    let (archive, archived) = write_archive(out_root, &lib.archive, &members)?;
    let link = link_lines(
        out_root,
        (&lib.archive, relocatable),
        lib.cudart,
        p.toolkits.main(),
        p.env.syntax(),
    );
    if p.env.cargo_metadata() {
        for line in &link {
            println!("{line}");
        }
    }
    deps.sort();
    deps.dedup();
    Ok(HostStage {
        report: LibraryReport {
            archive,
            archived,
            cudart: lib.cudart.to_string(),
            link,
            objects,
        },
        deps,
    })
}

/// The host object record and archive member name of a relocatable library's device link.
const DEVICE_LINK: &str = "device_link";

/// The device link of a relocatable library's objects for every cubin target of its sources.
fn device_link(
    compiler: &JobRunner,
    p: &Prepared,
    members: &[(String, Vec<u8>)],
    lib: &ResolvedLibrary,
) -> Result<HostObject> {
    let mut targets: Vec<archbuild_arch::Target> = p
        .modules
        .iter()
        .flat_map(|m| m.archs.list.targets().iter().copied())
        .collect();
    targets.sort();
    targets.dedup();
    compiler
        .library_device_link(members, &targets, &lib.host_flags)
        .map_err(|f| {
            let tmp = compiler.tmp_dir().to_string_lossy().into_owned();
            Error::Compile(format!(
                "the device link of `{}` failed ({}):\n  {}\n{}",
                lib.archive,
                f.status,
                f.command.replace(&tmp, "$TMP"),
                f.output.replace(&tmp, "$TMP").trim_end()
            ))
        })
}

fn object(
    compiler: &JobRunner,
    p: &Prepared,
    jobs: &[Job],
    done: &[&JobOut],
    modules: &[ModuleReport],
    lib: &ResolvedLibrary,
    m: usize,
) -> Result<HostObject> {
    let module = &p.modules[m];
    let report = modules
        .iter()
        .find(|r| r.name == module.name)
        .ok_or_else(|| Error::Compile(format!("no fat binary was packed for `{}`", module.name)))?;
    let fatbin = std::fs::read(&report.fatbin).map_err(|e| Error::io("read", &report.fatbin, e))?;
    compiler
        .host_object(m, jobs, done, &fatbin, &lib.host_flags)
        .map_err(|f| {
            let tmp = compiler.tmp_dir().to_string_lossy().into_owned();
            Error::Compile(format!(
                "the host side of {} failed to compile ({}):\n  {}\n{}",
                module.source.display(),
                f.status,
                f.command.replace(&tmp, "$TMP"),
                f.output.replace(&tmp, "$TMP").trim_end()
            ))
        })
}
