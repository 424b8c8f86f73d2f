//! Exhaustive check of the compatibility rules: every (target, device) pair over the compute
//! capabilities CUDA 13 builds, against a truth table written out by hand from NVIDIA's rules
//! (cubin: same major, minor >=; plain PTX: any CC >=; `a`: exactly that CC; `f`: same family,
//! minor >=). The table is data, not a formula, so a wrong rule in `compat` cannot agree with it
//! by construction.

use archbuild_arch::{target_runs_on, Arch, ComputeCapability, Target, TargetKind, Variant};

/// Column order of the truth table.
const DEVICES: [(u32, u32); 12] = [
    (7, 5),
    (8, 0),
    (8, 6),
    (8, 7),
    (8, 8),
    (8, 9),
    (9, 0),
    (10, 0),
    (10, 3),
    (11, 0),
    (12, 0),
    (12, 1),
];

/// One row per target; `X` = runs on that device column, `.` = does not.
#[rustfmt::skip]
const TRUTH: &[(&str, &str)] = &[
    //                 75 80 86 87 88 89 90 100 103 110 120 121
    ("sm_75",         "X  .  .  .  .  .  .  .   .   .   .   ."),
    ("sm_80",         ".  X  X  X  X  X  .  .   .   .   .   ."),
    ("sm_86",         ".  .  X  X  X  X  .  .   .   .   .   ."),
    ("sm_87",         ".  .  .  X  X  X  .  .   .   .   .   ."),
    ("sm_88",         ".  .  .  .  X  X  .  .   .   .   .   ."),
    ("sm_89",         ".  .  .  .  .  X  .  .   .   .   .   ."),
    ("sm_90",         ".  .  .  .  .  .  X  .   .   .   .   ."),
    ("sm_90a",        ".  .  .  .  .  .  X  .   .   .   .   ."),
    ("sm_100",        ".  .  .  .  .  .  .  X   X   .   .   ."),
    ("sm_100a",       ".  .  .  .  .  .  .  X   .   .   .   ."),
    ("sm_100f",       ".  .  .  .  .  .  .  X   X   .   .   ."),
    ("sm_103",        ".  .  .  .  .  .  .  .   X   .   .   ."),
    ("sm_103a",       ".  .  .  .  .  .  .  .   X   .   .   ."),
    ("sm_103f",       ".  .  .  .  .  .  .  .   X   .   .   ."),
    ("sm_110",        ".  .  .  .  .  .  .  .   .   X   .   ."),
    ("sm_110a",       ".  .  .  .  .  .  .  .   .   X   .   ."),
    ("sm_110f",       ".  .  .  .  .  .  .  .   .   X   .   ."),
    ("sm_120",        ".  .  .  .  .  .  .  .   .   .   X   X"),
    ("sm_120a",       ".  .  .  .  .  .  .  .   .   .   X   ."),
    ("sm_120f",       ".  .  .  .  .  .  .  .   .   .   X   X"),
    ("sm_121",        ".  .  .  .  .  .  .  .   .   .   .   X"),
    ("sm_121a",       ".  .  .  .  .  .  .  .   .   .   .   X"),
    ("sm_121f",       ".  .  .  .  .  .  .  .   .   .   .   X"),
    ("compute_75",    "X  X  X  X  X  X  X  X   X   X   X   X"),
    ("compute_80",    ".  X  X  X  X  X  X  X   X   X   X   X"),
    ("compute_86",    ".  .  X  X  X  X  X  X   X   X   X   X"),
    ("compute_87",    ".  .  .  X  X  X  X  X   X   X   X   X"),
    ("compute_88",    ".  .  .  .  X  X  X  X   X   X   X   X"),
    ("compute_89",    ".  .  .  .  .  X  X  X   X   X   X   X"),
    ("compute_90",    ".  .  .  .  .  .  X  X   X   X   X   X"),
    ("compute_90a",   ".  .  .  .  .  .  X  .   .   .   .   ."),
    ("compute_100",   ".  .  .  .  .  .  .  X   X   X   X   X"),
    ("compute_100a",  ".  .  .  .  .  .  .  X   .   .   .   ."),
    ("compute_100f",  ".  .  .  .  .  .  .  X   X   .   .   ."),
    ("compute_103",   ".  .  .  .  .  .  .  .   X   X   X   X"),
    ("compute_103a",  ".  .  .  .  .  .  .  .   X   .   .   ."),
    ("compute_103f",  ".  .  .  .  .  .  .  .   X   .   .   ."),
    ("compute_110",   ".  .  .  .  .  .  .  .   .   X   X   X"),
    ("compute_110a",  ".  .  .  .  .  .  .  .   .   X   .   ."),
    ("compute_110f",  ".  .  .  .  .  .  .  .   .   X   .   ."),
    ("compute_120",   ".  .  .  .  .  .  .  .   .   .   X   X"),
    ("compute_120a",  ".  .  .  .  .  .  .  .   .   .   X   ."),
    ("compute_120f",  ".  .  .  .  .  .  .  .   .   .   X   X"),
    ("compute_121",   ".  .  .  .  .  .  .  .   .   .   .   X"),
    ("compute_121a",  ".  .  .  .  .  .  .  .   .   .   .   X"),
    ("compute_121f",  ".  .  .  .  .  .  .  .   .   .   .   X"),
];

/// Every target that exists for the CCs above: plain everywhere, `a` from 9.0, `f` from 10.0,
/// each as cubin and PTX.
fn all_targets() -> Vec<Target> {
    let mut out = Vec::new();
    for kind in [TargetKind::Cubin, TargetKind::Ptx] {
        for (major, minor) in DEVICES {
            let cc = ComputeCapability::new(major, minor);
            let mut variants = vec![Variant::Plain];
            if major >= 9 {
                variants.push(Variant::Arch);
            }
            if major >= 10 {
                variants.push(Variant::Family);
            }
            for variant in variants {
                out.push(Target {
                    arch: Arch::new(cc, variant),
                    kind,
                });
            }
        }
    }
    out
}

#[test]
fn table_covers_every_target_exactly_once() {
    let mut from_table: Vec<String> = TRUTH.iter().map(|(t, _)| t.to_string()).collect();
    let mut expected: Vec<String> = all_targets().iter().map(|t| t.to_string()).collect();
    from_table.sort();
    expected.sort();
    assert_eq!(from_table, expected);
    assert_eq!(
        TRUTH.len(),
        46,
        "12 plain + 6 `a` + 5 `f` archs, as cubin and PTX"
    );
}

#[test]
fn every_target_device_pair_matches_the_truth_table() {
    let mut mismatches = Vec::new();
    for (name, row) in TRUTH {
        let target = Target::parse_nvcc_name(name).expect("table names are nvcc names");
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells.len(), DEVICES.len(), "row {name}");
        for ((major, minor), cell) in DEVICES.iter().zip(cells) {
            let device = ComputeCapability::new(*major, *minor);
            let want = match cell {
                "X" => true,
                "." => false,
                other => panic!("row {name}: bad cell {other:?}"),
            };
            if target_runs_on(target, device) != want {
                mismatches.push(format!("{name} on {device}: expected {want}"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn selection_agrees_with_the_predicates() {
    // `select` has its own rejection logic (to name reasons); it must reject exactly the pairs
    // the predicates reject.
    use archbuild_arch::{select, CudaVersion, DeviceInfo, ImageInfo, Outcome, Policy};
    for target in all_targets() {
        for (major, minor) in DEVICES {
            let cc = ComputeCapability::new(major, minor);
            let device = DeviceInfo::new(cc, CudaVersion::new(13, 0));
            let s = select(
                &[ImageInfo::new(target, None)],
                &device,
                Policy::PreferCubin,
            );
            let accepted = !matches!(s.verdicts[0].outcome, Outcome::Rejected(_));
            assert_eq!(accepted, target_runs_on(target, cc), "{target} on {cc}");
            assert_eq!(s.chosen.is_some(), accepted, "{target} on {cc}");
        }
    }
}
