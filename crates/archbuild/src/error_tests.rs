//! The build error's messages, as users see them (snapshots).

use super::*;

/// One error of every variant, with the kind it must have.
fn one_of_each() -> Vec<(Error, ErrorKind)> {
    let io = || std::io::Error::other("x");
    let s = String::new;
    let p = PathBuf::new;
    let arch = "zz_99".parse::<archbuild_arch::ArchList>().unwrap_err();
    let pack = archbuild_fatbin::read_fatbin(b"not a fat binary").unwrap_err();
    use ErrorKind as K;
    vec![
        (
            Error::ToolkitNotFound {
                searched: s(),
                pinned: "13.5",
            },
            K::Toolkit,
        ),
        (
            Error::ToolkitVersionNotFound {
                wanted: s(),
                origin: s(),
                found: s(),
                fix: s(),
            },
            K::Toolkit,
        ),
        (
            Error::ToolkitReleaseUnknown {
                wanted: s(),
                origin: s(),
                known: s(),
                found: s(),
            },
            K::Toolkit,
        ),
        (
            Error::BadToolkitVar {
                var: "CUDA_HOME",
                value: p(),
                expected: p(),
                what: "x",
            },
            K::Toolkit,
        ),
        (
            Error::ToolkitQuery {
                nvcc: p(),
                args: s(),
                problem: s(),
            },
            K::Toolkit,
        ),
        (
            Error::PythonMissing {
                python: s(),
                where_: s(),
                what: s(),
            },
            K::Toolkit,
        ),
        (
            Error::PipMissing {
                python: p(),
                detail: s(),
            },
            K::Toolkit,
        ),
        (
            Error::PipFailed {
                status: Ended::Exited(1),
                hint: "x",
                tail: s(),
            },
            K::Toolkit,
        ),
        (
            Error::ProvisionBroken {
                dir: p(),
                detail: s(),
            },
            K::Toolkit,
        ),
        (
            Error::HeaderLibrary {
                name: s(),
                problem: s(),
                fix: s(),
            },
            K::Config,
        ),
        (
            Error::HeaderInstall {
                library: s(),
                problem: s(),
                fix: s(),
                pip_said: s(),
            },
            K::Toolkit,
        ),
        (Error::Arch(arch), K::Config),
        (
            Error::TargetUnsupported {
                target: s(),
                origin: s(),
                toolkit: s(),
                reach: s(),
                available: s(),
            },
            K::Toolkit,
        ),
        (
            Error::Config {
                what: "x",
                origin: s(),
                value: s(),
                hint: s(),
            },
            K::Config,
        ),
        (
            Error::Manifest {
                path: p(),
                detail: s(),
            },
            K::Config,
        ),
        (
            Error::SourceMissing {
                path: p(),
                problem: s(),
                context: s(),
                fix: s(),
            },
            K::Input,
        ),
        (Error::NoSources(s()), K::Config),
        (Error::NoOutDir, K::Config),
        (
            Error::NarrowedToNothing(Box::new(crate::error::EmptyNarrowing {
                file: s(),
                own: s(),
                own_origin: s(),
                requested: s(),
                requested_origin: s(),
                gpus: s(),
                mode: s(),
            })),
            K::Config,
        ),
        (
            Error::FleetCannotLoad {
                fleet: s(),
                origin: s(),
                toolkit: s(),
                issues: Vec::new(),
            },
            K::Config,
        ),
        (Error::Compile(s()), K::Compile),
        (
            Error::ToolkitBroken {
                root: p(),
                detail: s(),
            },
            K::Toolkit,
        ),
        (
            Error::DiskFull {
                dir: p(),
                detail: s(),
            },
            K::Output,
        ),
        (
            Error::Spawn {
                program: p(),
                source: io(),
            },
            K::Toolkit,
        ),
        (
            Error::Pack {
                module: s(),
                source: Box::new(pack),
            },
            K::Compile,
        ),
        (Error::CacheUnstable { dir: p() }, K::Output),
        (
            Error::KernelParamsDiffer {
                module: s(),
                kernel: s(),
                detail: s(),
            },
            K::Compile,
        ),
        (
            Error::OutputMismatch {
                module: s(),
                written: s(),
                requested: s(),
            },
            K::Internal,
        ),
        (
            Error::VerifyMismatch {
                module: s(),
                job: s(),
                detail: s(),
                key_holds: s(),
            },
            K::Internal,
        ),
        (Error::Interrupted, K::Interrupted),
        (
            Error::VariantMissing {
                group: s(),
                module: s(),
                target: s(),
                detail: s(),
            },
            K::Config,
        ),
        (
            Error::VariantUnknown {
                group: s(),
                kernels: s(),
                known: s(),
            },
            K::Config,
        ),
        (
            Error::Io {
                op: "read",
                path: p(),
                source: io(),
            },
            K::Output,
        ),
        (Error::RecordMissing { path: p() }, K::Input),
        (
            Error::RecordUnreadable {
                path: p(),
                source: io(),
            },
            K::Input,
        ),
        (
            Error::RecordInvalid {
                path: p(),
                detail: s(),
            },
            K::Input,
        ),
        (
            Error::RecordFormat {
                path: p(),
                found: 2,
                accepted: 1,
            },
            K::Input,
        ),
        (
            Error::RecordMismatch {
                fatbin: p(),
                record: p(),
            },
            K::Input,
        ),
        (Error::RecordsNone, K::Input),
        (
            Error::RecordSettingsDiffer {
                first: s(),
                other: s(),
            },
            K::Input,
        ),
        (Error::RecordInputsDiffer { input: s() }, K::Input),
        (Error::PackagedRefused { reasons: s() }, K::Toolkit),
        (
            Error::PackagedDiffers {
                module: s(),
                fatbin: p(),
            },
            K::Input,
        ),
        (
            Error::Offline {
                what: s(),
                setting: "CARGO_NET_OFFLINE",
            },
            K::Toolkit,
        ),
    ]
}

/// Every variant has its kind; configuration mistakes about variant groups are
/// configuration errors, not output errors; every kind is some variant's.
#[test]
fn every_error_has_its_kind() {
    let all = one_of_each();
    for (e, want) in &all {
        assert_eq!(e.kind(), *want, "{e:?}");
    }
    for k in ErrorKind::ALL {
        assert!(all.iter().any(|(_, w)| w == k), "no variant of kind {k:?}");
    }
}

#[test]
fn a_broken_toolkit_and_a_full_disk_name_the_fix() {
    let broken = Error::ToolkitBroken {
        root: "/opt/cuda".into(),
        detail: "sh: 1: /opt/cuda/bin/../nvvm/bin/cicc: not found".into(),
    };
    insta::assert_snapshot!("toolkit_broken", broken.to_string());
    let full = Error::io(
        "write",
        "/var/cache/archbuild/cache/ptx/ab/cd",
        std::io::Error::from_raw_os_error(28),
    );
    assert!(matches!(full, Error::DiskFull { .. }), "{full:?}");
    insta::assert_snapshot!("disk_full", full.to_string());
}

#[test]
fn a_package_and_offline_errors_name_the_fix() {
    let refused = Error::PackagedRefused {
        reasons: "`add`: prebuilt/add.fatbin is not used: `kernels/add.cu` changed since \
                  it was built"
            .into(),
    };
    insta::assert_snapshot!("packaged_refused", refused.to_string());
    let differs = Error::PackagedDiffers {
        module: "add".into(),
        fatbin: "/src/k-0.1.0/prebuilt/add.fatbin".into(),
    };
    insta::assert_snapshot!("packaged_differs", differs.to_string());
    let offline = Error::Offline {
        what: "installing CUDA 13.5.37 from PyPI".into(),
        setting: "CARGO_NET_OFFLINE",
    };
    insta::assert_snapshot!("offline", offline.to_string());
    // The reason the package's files were refused comes first, whatever compiling then hit.
    let then = Error::PackagedRefusedThen {
        reasons: "`ops`: /src/k-0.1.0/prebuilt/ops.fatbin is not used: `kernels/ops.cu` changed \
                  since it was built"
            .into(),
        then: Box::new(offline),
    };
    assert_eq!(then.kind(), ErrorKind::Toolkit);
    insta::assert_snapshot!("packaged_refused_then", then.to_string());
    let stale = Error::ShippedStale {
        reasons: "`ops`: /src/k/prebuilt/ops.fatbin is not used: `kernels/ops.cu` changed since \
                  it was built"
            .into(),
    };
    insta::assert_snapshot!("shipped_stale", stale.to_string());
}
