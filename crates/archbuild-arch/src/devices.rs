//! Friendly names: which GPUs have a given compute capability (for messages such as "8.6
//! (RTX 3090, A10, ...)") and the reverse lookup from the name a driver reports
//! (`NVIDIA GeForce RTX 3090` → 8.6), used where only a name is known, e.g. in user reports.

use crate::cc::ComputeCapability;

type Row = (u32, &'static str, &'static [&'static str]);

/// `(sm number, generation, device names)`. Names are written as the driver reports them minus
/// the "NVIDIA"/"GeForce"/"Tesla" prefixes; the lookup matches them as whole words.
const DEVICES: &[Row] = &[
    (30, "Kepler", &["GTX 680", "GTX 770", "Tesla K10"]),
    (32, "Kepler", &["Jetson TK1"]),
    (
        35,
        "Kepler",
        &["GTX 780", "GTX Titan", "Tesla K20", "Tesla K40"],
    ),
    (37, "Kepler", &["Tesla K80"]),
    (50, "Maxwell", &["GTX 750", "GTX 750 Ti", "Quadro K2200"]),
    (
        52,
        "Maxwell",
        &[
            "GTX 970",
            "GTX 980",
            "GTX 980 Ti",
            "GTX Titan X",
            "Tesla M40",
            "Tesla M60",
        ],
    ),
    (53, "Maxwell", &["Jetson Nano", "Jetson TX1"]),
    (60, "Pascal", &["Tesla P100", "Quadro GP100"]),
    (
        61,
        "Pascal",
        &[
            "GTX 1050",
            "GTX 1060",
            "GTX 1070",
            "GTX 1080",
            "GTX 1080 Ti",
            "Titan Xp",
            "Tesla P4",
            "Tesla P40",
        ],
    ),
    (62, "Pascal", &["Jetson TX2"]),
    (70, "Volta", &["Tesla V100", "Titan V", "Quadro GV100"]),
    (72, "Volta", &["Jetson AGX Xavier", "Jetson Xavier NX"]),
    (
        75,
        "Turing",
        &[
            "RTX 2060",
            "RTX 2070",
            "RTX 2080",
            "RTX 2080 Ti",
            "GTX 1650",
            "GTX 1660",
            "Titan RTX",
            "T4",
            "Quadro RTX 6000",
            "Quadro RTX 8000",
        ],
    ),
    (80, "Ampere", &["A100", "A30", "A800"]),
    (
        86,
        "Ampere",
        &[
            "RTX 3060",
            "RTX 3060 Ti",
            "RTX 3070",
            "RTX 3070 Ti",
            "RTX 3080",
            "RTX 3080 Ti",
            "RTX 3090",
            "RTX 3090 Ti",
            "A10",
            "A10G",
            "A16",
            "A2",
            "A40",
            "RTX A4000",
            "RTX A5000",
            "RTX A6000",
        ],
    ),
    (
        87,
        "Ampere",
        &["Jetson AGX Orin", "Jetson Orin Nano", "Orin"],
    ),
    (88, "Ampere", &[]),
    (
        89,
        "Ada",
        &[
            "RTX 4060",
            "RTX 4070",
            "RTX 4080",
            "RTX 4090",
            "L4",
            "L40",
            "L40S",
            "RTX 6000 Ada",
        ],
    ),
    (90, "Hopper", &["H100", "H200", "H800", "GH200"]),
    (100, "Blackwell", &["B200", "GB200"]),
    (103, "Blackwell", &["B300", "GB300"]),
    (110, "Blackwell", &["Jetson Thor", "Thor"]),
    (
        120,
        "Blackwell",
        &[
            "RTX 5060",
            "RTX 5070",
            "RTX 5080",
            "RTX 5090",
            "RTX PRO 6000",
            "RTX PRO 4000",
        ],
    ),
    (121, "Blackwell", &["DGX Spark", "GB10"]),
];

fn row(cc: ComputeCapability) -> Option<&'static Row> {
    DEVICES.iter().find(|(sm, _, _)| *sm == cc.sm())
}

/// Devices with this compute capability, most familiar first (8.6 → RTX 3060 … RTX A6000).
/// Empty for compute capabilities without a known product (8.8) or unknown ones.
pub fn device_names(cc: ComputeCapability) -> &'static [&'static str] {
    row(cc).map_or(&[], |(_, _, names)| names)
}

/// The architecture generation: 7.5 → "Turing", 8.6 → "Ampere", 8.9 → "Ada", 12.0 →
/// "Blackwell". Tegra parts report their generation without the "+Tegra" of PyTorch's names.
pub fn generation(cc: ComputeCapability) -> Option<&'static str> {
    row(cc).map(|(_, generation, _)| *generation)
}

/// Every compute capability with a known GPU generation (a product NVIDIA shipped), oldest
/// first: the GPUs a report can name as affected when a build leaves them without an image.
/// Compute capabilities nvcc can build but no product has (`10.1`, renamed `11.0`) are not
/// among them.
pub fn known_ccs() -> Vec<ComputeCapability> {
    let mut ccs: Vec<ComputeCapability> = DEVICES
        .iter()
        .map(|(sm, _, _)| ComputeCapability::from_sm(*sm))
        .collect();
    ccs.sort();
    ccs.dedup();
    ccs
}

/// The compute capability of a device from the name its driver reports:
/// "NVIDIA GeForce RTX 3090" → 8.6, "NVIDIA H100 80GB HBM3" → 9.0, "Tesla T4" → 7.5.
///
/// Names are compared word by word (so "A10" does not match "A100"); when several entries
/// match, the one with the most words wins ("Quadro RTX 6000" over "RTX 6000 Ada" is decided
/// by the words actually present).
pub fn cc_for_device_name(name: &str) -> Option<ComputeCapability> {
    let words = split_words(name);
    let mut best: Option<(usize, u32)> = None;
    for (sm, _, names) in DEVICES {
        for entry in *names {
            let entry_words = split_words(entry);
            if contains_run(&words, &entry_words)
                && best.is_none_or(|(len, _)| entry_words.len() > len)
            {
                best = Some((entry_words.len(), *sm));
            }
        }
    }
    best.map(|(_, sm)| ComputeCapability::from_sm(sm))
}

fn split_words(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || c == '-' || c == '_' || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// Whether `needle` occurs as a contiguous run of whole words in `hay`.
fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> Option<ComputeCapability> {
        Some(ComputeCapability::new(major, minor))
    }

    #[test]
    fn driver_reported_names_map_to_their_cc() {
        let cases = [
            ("NVIDIA GeForce RTX 3090", cc(8, 6)),
            ("NVIDIA GeForce RTX 3090 Ti", cc(8, 6)),
            ("NVIDIA GeForce RTX 2080", cc(7, 5)),
            ("NVIDIA GeForce RTX 4090", cc(8, 9)),
            ("NVIDIA H100 80GB HBM3", cc(9, 0)),
            ("NVIDIA H200", cc(9, 0)),
            ("NVIDIA A100-SXM4-80GB", cc(8, 0)),
            ("NVIDIA A10", cc(8, 6)),
            ("Tesla T4", cc(7, 5)),
            ("NVIDIA L40S", cc(8, 9)),
            ("NVIDIA RTX A6000", cc(8, 6)),
            ("Quadro RTX 6000", cc(7, 5)),
            ("NVIDIA RTX 6000 Ada Generation", cc(8, 9)),
            (
                "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                cc(12, 0),
            ),
            ("NVIDIA GeForce RTX 5090", cc(12, 0)),
            ("NVIDIA B200", cc(10, 0)),
            ("Orin", cc(8, 7)),
            ("NVIDIA GB10", cc(12, 1)),
            ("Some Future GPU 9000", None),
            ("", None),
        ];
        for (name, want) in cases {
            assert_eq!(cc_for_device_name(name), want, "{name}");
        }
    }

    #[test]
    fn known_ccs_are_the_generations_in_order() {
        let ccs = known_ccs();
        for sm in [30, 75, 80, 86, 89, 90, 100, 110, 120, 121] {
            assert!(ccs.contains(&ComputeCapability::from_sm(sm)), "{sm}");
        }
        // 10.1 was renamed 11.0 before any product shipped; 8.5 never existed.
        for sm in [85, 101] {
            assert!(!ccs.contains(&ComputeCapability::from_sm(sm)), "{sm}");
        }
        assert!(
            ccs.windows(2).all(|w| w[0] < w[1]),
            "ascending, no duplicates"
        );
        assert!(ccs.iter().all(|cc| generation(*cc).is_some()));
    }

    #[test]
    fn names_and_generations() {
        let names = device_names(ComputeCapability::new(8, 6));
        assert!(
            names.contains(&"RTX 3090") && names.contains(&"A10") && names.contains(&"RTX A6000")
        );
        assert_eq!(generation(ComputeCapability::new(8, 6)), Some("Ampere"));
        assert_eq!(generation(ComputeCapability::new(7, 5)), Some("Turing"));
        assert_eq!(generation(ComputeCapability::new(8, 9)), Some("Ada"));
        assert_eq!(generation(ComputeCapability::new(12, 1)), Some("Blackwell"));
        assert_eq!(generation(ComputeCapability::new(4, 0)), None);
        assert!(device_names(ComputeCapability::new(4, 0)).is_empty());
        // Every listed name maps back to its own row.
        for (sm, _, names) in DEVICES {
            for n in *names {
                assert_eq!(
                    cc_for_device_name(n),
                    Some(ComputeCapability::from_sm(*sm)),
                    "{n}"
                );
            }
        }
    }
}
