//! The planner's tests: job order, command lines, settings.

use archbuild_arch::{Target, TargetKind};

use super::*;

#[test]
fn longest_chains_and_newest_archs_start_first() {
    use crate::config::archs::{ArchSource, ResolvedArchs};
    let list: archbuild_arch::ArchList = "7.5 8.6 compute_90".parse().unwrap();
    let archs = ResolvedArchs {
        list,
        source: ArchSource::Explicit,
        input: String::new(),
    };
    let m = Module {
        name: "k".into(),
        source: "k.cu".into(),
        members: vec![],
        arch_list: arch_list_value(&archs.list),
        archs,
        host: false,
        device_code: DeviceCode::Whole,
    };
    let jobs = plan_jobs(&[m], None, &|_| Maker::Build);
    let labels: Vec<String> = jobs.iter().map(Job::label).collect();
    assert_eq!(
        labels,
        ["compute_75", "compute_86", "compute_90", "sm_75", "sm_86"]
    );
    let p = priorities(&jobs);
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(p[i]));
    let started: Vec<&str> = order.iter().map(|&i| labels[i].as_str()).collect();
    // compute_90 feeds no ptxas job (PTX only), so the cicc jobs with a ptxas after them go first.
    assert_eq!(
        started,
        ["compute_86", "compute_75", "compute_90", "sm_86", "sm_75"]
    );
}

#[test]
fn a_class_shares_its_lowest_archs_cicc_job_which_starts_first() {
    use crate::config::archs::{ArchSource, ResolvedArchs};
    let module = |name: &str| Module {
        name: name.into(),
        source: format!("{name}.cu").into(),
        members: vec![],
        archs: ResolvedArchs {
            list: "8.9 7.5 8.0 8.6 8.8 9.0+PTX 12.0 12.1".parse().unwrap(),
            source: ArchSource::Explicit,
            input: String::new(),
        },
        arch_list: "750,800,860,880,890,900,1200,1210".into(),
        host: false,
        device_code: DeviceCode::Whole,
    };
    let env = crate::base::env::Env::from_vars(Vec::<(&str, &str)>::new());
    let v135 = archbuild_arch::CudaVersion::new(13, 5);
    let rule = crate::plan::share::enabled(None, &env, v135, &[], false).unwrap();
    let jobs = plan_jobs(&[module("a"), module("b")], rule, &|_| Maker::Build);
    let label = |j: &Job| format!("{}:{}", j.module, j.label());
    let leads: Vec<(String, String)> = jobs
        .iter()
        .filter(|j| matches!(j.phase, Phase::Cicc(_)))
        .filter_map(|j| j.dep.map(|d| (label(j), label(&jobs[d]))))
        .collect();
    let pairs = |m: usize| {
        [("89", "80"), ("88", "86")]
            .map(|(f, l)| (format!("{m}:compute_{f}"), format!("{m}:compute_{l}")))
    };
    let mut want: Vec<_> = pairs(0).into_iter().chain(pairs(1)).collect();
    let mut got = leads.clone();
    want.sort();
    got.sort();
    assert_eq!(
        got, want,
        "a family's archs share within their own module only"
    );
    let p = priorities(&jobs);
    let first = (0..jobs.len()).max_by_key(|&i| p[i]).unwrap();
    assert_eq!(
        jobs[first].label(),
        "compute_86",
        "leads first, newest first"
    );
    // Without sharing no cicc job waits for another.
    let separate = plan_jobs(&[module("a")], None, &|_| Maker::Build);
    assert!(separate
        .iter()
        .all(|j| matches!(j.phase, Phase::Ptxas(_)) || j.dep.is_none()));
}

#[test]
fn a_ptx_toolkit_makes_the_ptx_images_in_cicc_jobs_of_its_own() {
    let module = module_for("8.0 8.9 9.0+PTX");
    let rule = share_rule();
    let ptx_apart = |t: Target| match t.kind {
        TargetKind::Ptx => Maker::Ptx,
        TargetKind::Cubin | TargetKind::LtoIr => Maker::Build,
    };
    let jobs = plan_jobs(std::slice::from_ref(&module), rule, &ptx_apart);
    let shown: Vec<String> = jobs
        .iter()
        .map(|j| {
            let targets: Vec<String> = j.targets.iter().map(|t| t.to_string()).collect();
            let dep = j.dep.map(|d| format!(" after {}", jobs[d].label()));
            format!(
                "{:?} {} [{}]{}",
                j.maker,
                j.label(),
                targets.join(" "),
                dep.unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "Build compute_80 []",
            "Build compute_89 [] after compute_80",
            "Build compute_90 []",
            "Ptx compute_90 [compute_90]",
            "Build sm_80 [sm_80] after compute_80",
            "Build sm_89 [sm_89] after compute_89",
            "Build sm_90 [sm_90] after compute_90",
        ],
        "the cubins' PTX from the build's toolkit, the PTX image from the PTX toolkit's cicc"
    );
    let together = plan_jobs(&[module], None, &|_| Maker::Build);
    assert!(together.iter().all(|j| j.maker == Maker::Build));
    assert_eq!(
        together.len(),
        6,
        "without a PTX toolkit one cicc job per arch"
    );
}

/// nvcc's own relocatable-code flags are refused: the setting does the compile and the link.
#[test]
fn rdc_flags_are_refused_with_the_setting_that_replaces_them() {
    for flags in [
        vec!["-rdc=true"],
        vec!["-rdc", "true"],
        vec!["--relocatable-device-code=true"],
        vec!["-dc"],
    ] {
        let err = Settings {
            nvcc_flags: flags.iter().map(|f| f.to_string()).collect(),
            ..Default::default()
        }
        .finish("ARCHBUILD_NVCC_FLAGS")
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("relocatable-device-code = true") && err.contains(".module("),
            "{err}"
        );
    }
    let ok = Settings {
        nvcc_flags: vec!["-rdc=false".into()],
        ..Default::default()
    };
    assert!(ok.finish("x").is_ok());
    let err = Settings {
        nvcc_flags: vec!["-rdc=true".into()],
        ..Default::default()
    }
    .finish("ARCHBUILD_NVCC_FLAGS")
    .unwrap_err()
    .to_string();
    insta::assert_snapshot!(err);
}

#[test]
fn derives_ptxas_flags_and_rejects_owned_ones() {
    let s = Settings {
        nvcc_flags: [
            "-O3",
            "-lineinfo",
            "-Xptxas",
            "-v,-warn-spills",
            "--maxrregcount=64",
        ]
        .map(String::from)
        .to_vec(),
        ptxas_flags: vec!["--allow-expensive-optimizations=true".into()],
        ..Default::default()
    }
    .finish("test")
    .unwrap();
    assert_eq!(
        s.ptxas_flags,
        [
            "-v",
            "-warn-spills",
            "--allow-expensive-optimizations=true",
            "--generate-line-info",
            "-maxrregcount=64",
        ]
    );
    let err = Settings {
        nvcc_flags: vec!["-arch=sm_80".into()],
        ..Default::default()
    }
    .finish("ARCHBUILD_NVCC_FLAGS")
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`-arch=sm_80`") && err.contains("ARCHBUILD_ARCHS"),
        "{err}"
    );
}

#[test]
fn lto_ir_gets_a_cicc_job_of_its_own_that_shares_no_ptx() {
    let module = module_for("8.0 8.6 9.0+PTX+LTO lto_86");
    let jobs = plan_jobs(std::slice::from_ref(&module), share_rule(), &|_| {
        Maker::Build
    });
    assert_eq!(
        shown(&jobs),
        [
            "compute_80 []",
            "compute_86 []",
            "compute_90 [compute_90]",
            "sm_80 [sm_80] after compute_80",
            "sm_86 [sm_86] after compute_86",
            "sm_90 [sm_90] after compute_90",
            "lto_86 [lto_86]",
            "lto_90 [lto_90]",
        ]
    );
}

#[test]
fn a_list_of_lto_ir_alone_gets_an_unpacked_cicc_job_for_its_kernels() {
    let jobs = plan_jobs(&[module_for("lto_80 lto_90")], None, &|_| Maker::Build);
    assert_eq!(
        shown(&jobs),
        ["compute_80 []", "lto_80 [lto_80]", "lto_90 [lto_90]"]
    );
}

/// Relocatable device code: per file and cubin arch a cicc and a ptxas job (`--compile-only`,
/// `-rdc=true`), per file and PTX arch an LTO-IR job, none packed; one device link per target
/// waits for every file's, and it alone carries the target. Sharing leaves them alone.
#[test]
fn relocatable_code_compiles_each_file_and_links_per_target() {
    let mut m = module_for("7.5 9.0+PTX");
    m.members = vec!["a.cu".into(), "k.cu".into()];
    m.device_code = DeviceCode::Relocatable;
    let jobs = plan_jobs(&[m.clone()], share_rule(), &|_| Maker::Build);
    let with_unit: Vec<String> = shown(&jobs)
        .iter()
        .zip(&jobs)
        .map(|(s, j)| format!("{}: {s}", j.unit))
        .collect();
    assert_eq!(
        with_unit,
        [
            "0: compute_75 []",
            "0: sm_75 [] after compute_75",
            "0: compute_90 []",
            "0: sm_90 [] after compute_90",
            "0: lto_90 []",
            "1: compute_75 []",
            "1: sm_75 [] after compute_75",
            "1: compute_90 []",
            "1: sm_90 [] after compute_90",
            "1: lto_90 []",
            "0: dlink sm_75 [sm_75]",
            "0: dlink sm_90 [sm_90]",
            "0: dlink compute_90 [compute_90]",
        ]
    );
    let links: Vec<Vec<String>> = jobs
        .iter()
        .filter(|j| matches!(j.phase, Phase::Link(_)))
        .map(|j| {
            j.links
                .iter()
                .map(|&i| format!("{}:{}", jobs[i].unit, jobs[i].label()))
                .collect()
        })
        .collect();
    assert_eq!(
        links,
        [
            vec!["0:sm_75", "1:sm_75"],
            vec!["0:sm_90", "1:sm_90"],
            vec!["0:lto_90", "1:lto_90"]
        ]
    );
    // The units are the files, each alone, compiled with `-rdc=true`; ptxas gets
    // `--compile-only` as nvcc gives it.
    let units = m.units();
    assert_eq!(units.len(), 2);
    assert_eq!(units[0].source, std::path::Path::new("a.cu"));
    assert_eq!(units[1].members, [std::path::PathBuf::from("k.cu")]);
    let text = "Cuda compilation tools, release 13.5, V13.5.37\n--list-gpu-code\nsm_75\nsm_90\n\
                --list-gpu-arch\ncompute_75\ncompute_90\n";
    let tk = crate::toolkit::nvcc::Toolkit::from_query_text(
        std::path::Path::new("/x/bin/nvcc"),
        text,
        crate::toolkit::nvcc::FoundBy::Path,
    )
    .unwrap();
    let s = Settings {
        device_code: DeviceCode::Relocatable,
        ..Default::default()
    }
    .finish("test")
    .unwrap();
    let tmp = std::path::Path::new("/t");
    let cicc = job_command(&tk, &s, &units[0], 0, jobs[0].phase, tmp).display();
    assert!(cicc.contains("-ptx -arch=compute_75 -rdc=true "), "{cicc}");
    let ptxas = job_command(&tk, &s, &units[0], 1, jobs[1].phase, tmp).display();
    assert!(
        ptxas.contains("-arch=sm_75 -m64 --compile-only in.ptx"),
        "{ptxas}"
    );
    let link = job_command(&tk, &s, &m, 12, jobs[12].phase, tmp).display();
    assert!(
        link.contains("nvlink -m64 --arch=compute_90 -L/x/bin/../lib/stubs -L/x/bin/../lib")
            && link.contains(
                "-dlto -nvvmpath=/t/nvvm --emit-ptx in0.ltoir in1.ltoir -lcudadevrt -o out"
            ),
        "{link}"
    );
}

/// A module `k.cu` built for `list` (archbuild's syntax).
fn module_for(list: &str) -> Module {
    use crate::config::archs::{ArchSource, ResolvedArchs};
    let list: archbuild_arch::ArchList = list.parse().unwrap();
    Module {
        name: "k".into(),
        source: "k.cu".into(),
        members: vec![],
        arch_list: arch_list_value(&list),
        archs: ResolvedArchs {
            list,
            source: ArchSource::Explicit,
            input: String::new(),
        },
        host: false,
        device_code: DeviceCode::Whole,
    }
}

/// The sharing rule of CUDA 13.5 with no override.
fn share_rule() -> Option<crate::plan::share::Rule> {
    let env = crate::base::env::Env::from_vars(Vec::<(&str, &str)>::new());
    let v135 = archbuild_arch::CudaVersion::new(13, 5);
    crate::plan::share::enabled(None, &env, v135, &[], false).unwrap()
}

/// Each job as `label [targets] after lead`.
fn shown(jobs: &[Job]) -> Vec<String> {
    jobs.iter()
        .map(|j| {
            let targets: Vec<String> = j.targets.iter().map(|t| t.to_string()).collect();
            let dep = j.dep.map(|d| format!(" after {}", jobs[d].label()));
            format!(
                "{} [{}]{}",
                j.label(),
                targets.join(" "),
                dep.unwrap_or_default()
            )
        })
        .collect()
}
