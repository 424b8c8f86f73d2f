//! archbuild-fatbin's writer against NVIDIA's own tools: fat binaries written by `FatbinWriter`
//! (stored, zstd, LZ4) must be listed by `cuobjdump` exactly like the ones `fatbinary` makes from
//! the same images, give back the input cubins and PTX byte for byte, carry the same entry
//! headers, and merge from shards into the same bytes. (Reading nvcc's outputs is tested in
//! `fatbin_nvcc_outputs`.)
//!
//! The kernels are compiled once per test process (OnceLock) into a temporary directory; every
//! nvcc call runs in parallel with the others to keep these tests fast on a 2-core CI machine.

use archbuild_tests::{nvcc, run, KERNEL};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use archbuild_arch::{Target, TargetKind};
use archbuild_fatbin::{merge, read_fatbin, CompressionChoice, EntryKind, FatbinWriter};

/// The cubin targets the issue names, in canonical (writer) order, then the PTX target.
const CUBINS: [&str; 7] = [
    "sm_75", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120",
];
const PTX: &str = "compute_90";

struct Image {
    target: Target,
    bytes: Vec<u8>,
    path: PathBuf,
}

struct Kit {
    dir: tempfile::TempDir,
    /// Canonical order: sm_75 … sm_90, compute_90, sm_90a, sm_100a, sm_120.
    images: Vec<Image>,
}

/// Runs the commands concurrently (each nvcc is single-threaded).
fn run_all(cmds: Vec<Command>) {
    std::thread::scope(|s| {
        for mut c in cmds {
            s.spawn(move || run(&mut c));
        }
    });
}

fn kit() -> &'static Kit {
    static KIT: OnceLock<Kit> = OnceLock::new();
    KIT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("k.cu"), KERNEL).unwrap();
        let mut targets: Vec<Target> = CUBINS
            .iter()
            .map(|n| Target::parse_nvcc_name(n).unwrap())
            .collect();
        targets.push(Target::parse_nvcc_name(PTX).unwrap());
        targets.sort();
        let cmds = targets
            .iter()
            .map(|t| {
                let mut c = nvcc(dir.path());
                let (flag, ext) = match t.kind {
                    TargetKind::Cubin => ("-cubin", "cubin"),
                    TargetKind::Ptx => ("-ptx", "ptx"),
                    TargetKind::LtoIr => unreachable!("this corpus has no LTO-IR"),
                };
                c.args([
                    flag,
                    &format!("-arch={t}"),
                    "-o",
                    &format!("{t}.{ext}"),
                    "k.cu",
                ]);
                c
            })
            .collect();
        run_all(cmds);
        let images = targets
            .into_iter()
            .map(|target| {
                let ext = if target.kind == TargetKind::Ptx {
                    "ptx"
                } else {
                    "cubin"
                };
                let path = dir.path().join(format!("{target}.{ext}"));
                Image {
                    target,
                    bytes: std::fs::read(&path).unwrap(),
                    path,
                }
            })
            .collect();
        Kit { dir, images }
    })
}

fn choices() -> [(&'static str, CompressionChoice, &'static [&'static str]); 3] {
    [
        ("stored", CompressionChoice::stored(), &["--compress=false"]),
        ("zstd", CompressionChoice::all_zstd(), &["--compress-all"]),
        (
            "lz4",
            CompressionChoice::all_lz4(),
            &["--compress-all", "--compress-mode=speed"],
        ),
    ]
}

/// Our fat binary of `images`.
fn pack<'a>(images: impl Iterator<Item = &'a Image>, choice: CompressionChoice) -> Vec<u8> {
    let mut w = FatbinWriter::new();
    w.compression(choice);
    for img in images {
        match img.target.kind {
            TargetKind::Cubin => w.add_cubin(&img.bytes, img.target.arch).unwrap(),
            TargetKind::Ptx => w.add_ptx(&img.bytes, img.target.arch).unwrap(),
            TargetKind::LtoIr => w.add_ltoir(&img.bytes, img.target.arch).unwrap(),
        };
    }
    w.write().unwrap()
}

/// Our fat binary of all kit images, written to `<name>.fatbin` in the kit dir.
fn ours(name: &str, choice: CompressionChoice) -> (PathBuf, Vec<u8>) {
    let kit = kit();
    // Insert in reverse to show the canonical order does not depend on insertion order.
    let bytes = pack(kit.images.iter().rev(), choice);
    let path = kit.dir.path().join(format!("{name}.fatbin"));
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// NVIDIA's fat binary of the same images in the same order.
fn theirs(name: &str, flags: &[&str]) -> (PathBuf, Vec<u8>) {
    let kit = kit();
    let path = kit.dir.path().join(format!("{name}.fatbin"));
    let mut c = Command::new(archbuild_tests::tool("fatbinary"));
    c.arg(format!("--create={}", path.display())).args(flags);
    for img in &kit.images {
        let kind = if img.target.kind == TargetKind::Ptx {
            "ptx"
        } else {
            "elf"
        };
        let sm = img.target.arch.sm_name();
        c.arg(format!(
            "--image3=kind={kind},sm={sm},file={}",
            img.path.display()
        ));
    }
    run(&mut c);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// `cuobjdump --list-elf --list-ptx` with the file-name stem removed from each line.
fn listing(path: &Path, all: bool) -> Vec<String> {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let mut c = Command::new(archbuild_tests::tool("cuobjdump"));
    if all {
        c.arg("-all");
    }
    let out = run(c.args(["--list-elf", "--list-ptx"]).arg(path));
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.replace(&format!(": {stem}."), ": "))
        .collect()
}

#[test]
fn cuobjdump_lists_our_fatbins_exactly_like_fatbinarys() {
    for (name, choice, flags) in choices() {
        let (our_path, _) = ours(&format!("ours_{name}"), choice);
        let (their_path, _) = theirs(&format!("theirs_{name}"), flags);
        let ours = listing(&our_path, false);
        let theirs = listing(&their_path, false);
        assert_eq!(
            ours, theirs,
            "{name}: cuobjdump lists our fat binary differently"
        );
        assert_eq!(ours.len(), CUBINS.len() + 1, "{name}: {ours:#?}");
        assert!(
            ours.contains(&"ELF file    6: 6.sm_100a.cubin".to_string()),
            "{ours:#?}"
        );
        assert!(
            ours.contains(&"PTX file    1: 1.sm_90.ptx".to_string()),
            "{ours:#?}"
        );
    }
}

#[test]
fn cuobjdump_extracts_our_cubins_and_ptx_unchanged() {
    let kit = kit();
    for (name, choice, _) in choices() {
        let (path, _) = ours(&format!("extract_{name}"), choice);
        let out = tempfile::tempdir_in(kit.dir.path()).unwrap();
        let mut c = Command::new(archbuild_tests::tool("cuobjdump"));
        run(c.current_dir(out.path()).args(["-xelf", "all"]).arg(&path));
        let mut c = Command::new(archbuild_tests::tool("cuobjdump"));
        run(c.current_dir(out.path()).args(["-xptx", "all"]).arg(&path));
        let mut seen = 0;
        for entry in std::fs::read_dir(out.path()).unwrap() {
            let file = entry.unwrap().path();
            let fname = file.file_name().unwrap().to_string_lossy().into_owned();
            // `extract_zstd.3.sm_89.cubin` / `extract_zstd.1.sm_90.ptx`
            let mut parts = fname.rsplit('.');
            let (ext, sm) = (parts.next().unwrap(), parts.next().unwrap());
            let want = if ext == "ptx" {
                sm.replace("sm_", "compute_")
            } else {
                sm.to_string()
            };
            let img = kit
                .images
                .iter()
                .find(|i| i.target.to_string() == want)
                .unwrap_or_else(|| panic!("{name}: cuobjdump extracted unexpected {fname}"));
            assert!(
                std::fs::read(&file).unwrap() == img.bytes,
                "{name}: {fname} differs from the input"
            );
            seen += 1;
        }
        assert_eq!(
            seen,
            kit.images.len(),
            "{name}: not every image was extracted"
        );
    }
}

/// Header fields that must match `fatbinary`'s for the same image: everything, except for PTX
/// (fatbinary minifies the text, so its sizes and compressed stream differ). Cubin entries,
/// stored or compressed, are byte-identical.
#[test]
fn entry_headers_match_fatbinarys_field_by_field() {
    for (name, choice, flags) in choices() {
        let (_, our_bytes) = ours(&format!("hdr_ours_{name}"), choice);
        let (_, their_bytes) = theirs(&format!("hdr_theirs_{name}"), flags);
        let our = read_fatbin(&our_bytes).unwrap();
        let their = read_fatbin(&their_bytes).unwrap();
        assert_eq!((our.len(), their.len()), (1, 1));
        assert_eq!(our[0].entries.len(), their[0].entries.len());
        for (o, t) in our[0].entries.iter().zip(&their[0].entries) {
            let what = format!("{name} {} {}", o.kind, o.arch);
            assert_eq!(
                (o.kind, o.arch, o.flags),
                (t.kind, t.arch, t.flags),
                "{what}"
            );
            assert_eq!(
                (o.version_major, o.version_minor),
                (t.version_major, t.version_minor),
                "{what}"
            );
            assert_eq!(
                (o.compression, o.identifier),
                (t.compression, t.identifier),
                "{what}"
            );
            assert_eq!((o.options, o.compat), (t.options, t.compat), "{what}");
            let header_size =
                |b: &[u8], at: usize| u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap());
            let (oh, th) = (
                header_size(&our_bytes, o.offset),
                header_size(&their_bytes, t.offset),
            );
            assert_eq!(oh, th, "{what}: header size");
            let ob = &our_bytes[o.offset..o.offset + oh as usize];
            let tb = &their_bytes[t.offset..t.offset + th as usize];
            // Everything but the padded/compressed payload sizes at 8..20, and for PTX the
            // uncompressed size at 56..64 (fatbinary strips comments and indentation).
            let end = if o.kind == EntryKind::Ptx {
                56
            } else {
                ob.len()
            };
            assert_eq!(ob[..8], tb[..8], "{what}: entry header kind/version/size");
            assert_eq!(ob[20..end], tb[20..end], "{what}: entry header fields");
            assert_eq!(
                ob[64..],
                tb[64..],
                "{what}: options descriptor and `.nv.compat` copy"
            );
            if o.kind == EntryKind::Elf {
                assert_eq!(o.data().unwrap(), t.data().unwrap(), "{what}: image");
                // Stored, zstd level 5 and LZ4HC level 3 cubins: the same bytes as fatbinary's,
                // compressed streams and sizes included.
                assert_eq!(ob, tb, "{what}: ELF entry header");
                assert_eq!(o.payload, t.payload, "{what}: ELF payload");
            }
        }
    }
}

#[test]
fn merged_shards_are_the_bytes_of_one_write() {
    let kit = kit();
    for (name, choice, _) in choices() {
        let (path, all) = ours(&format!("merge_all_{name}"), choice);
        // Two CI shards with one arch in common (identical image, collapses).
        let a = pack(kit.images.iter().take(5), choice);
        let b = pack(kit.images.iter().skip(4), choice);
        let merged = merge(&[&b, &a]).unwrap();
        assert!(
            merged == all,
            "{name}: merge(shards) differs from write(all)"
        );
        let merged_path = kit
            .dir
            .path()
            .join(format!("merge_all_{name}_merged.fatbin"));
        std::fs::write(&merged_path, &merged).unwrap();
        let strip = |l: Vec<String>| {
            l.into_iter()
                .map(|s| s.replace("_merged", ""))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(listing(&merged_path, false)), listing(&path, false));
    }
}
