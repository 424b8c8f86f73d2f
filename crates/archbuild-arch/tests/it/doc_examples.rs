//! Every table in `docs/arch-lists.md` is executed here: arch-list expansions (with and
//! without devices or a toolkit list), canonical forms, nvcc flags, error texts, compatibility
//! rows, selection rows, narrowing rows and the toolkit tables. A table with an unknown header fails the test,
//! so the doc cannot grow examples that are not checked.

use archbuild_arch::{
    arch_support, max_ptx_isa_for_cuda, select, target_runs_on, Arch, ArchList, ComputeCapability,
    CudaVersion, DeviceInfo, ImageInfo, Policy, PtxIsa, ResolveContext, Route, Target, TargetKind,
};

const DOC: &str = include_str!("../../../../docs/arch-lists.md");

/// The GPUs the compatibility examples are checked over.
const GPUS: [&str; 12] = [
    "7.5", "8.0", "8.6", "8.7", "8.8", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1",
];

struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    line: usize,
}

/// Markdown tables: consecutive `|` lines; the second line is the separator.
fn tables() -> Vec<Table> {
    let mut out = Vec::new();
    let lines: Vec<&str> = DOC.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with('|') {
            i += 1;
            continue;
        }
        let start = i;
        let mut block = Vec::new();
        while i < lines.len() && lines[i].starts_with('|') {
            block.push(cells(lines[i]));
            i += 1;
        }
        assert!(
            block.len() >= 2 && block[1].iter().all(|c| c.starts_with("---")),
            "table at line {}",
            start + 1
        );
        out.push(Table {
            header: block[0].clone(),
            rows: block[2..].to_vec(),
            line: start + 1,
        });
    }
    out
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// `` `x` `` → `x`; anything else unchanged.
fn code(cell: &str) -> &str {
    match cell.strip_prefix('`').and_then(|c| c.strip_suffix('`')) {
        Some(inner) if !inner.contains('`') => inner,
        _ => cell,
    }
}

fn cc(s: &str) -> ComputeCapability {
    let (major, minor) = s
        .trim()
        .split_once('.')
        .unwrap_or_else(|| panic!("bad CC {s:?}"));
    ComputeCapability::new(major.parse().unwrap(), minor.parse().unwrap())
}

fn cuda(s: &str) -> CudaVersion {
    let c = cc(s);
    CudaVersion::new(c.major, c.minor)
}

fn names(list: &ArchList) -> String {
    list.targets()
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse(input: &str, ctx: &ResolveContext) -> ArchList {
    ArchList::parse(input, ctx).unwrap_or_else(|e| panic!("{input:?}: {e}"))
}

#[test]
fn every_table_in_the_doc_holds() {
    let ctx = ResolveContext::new("docs/arch-lists.md");
    let mut checked = std::collections::BTreeMap::<String, usize>::new();
    for table in tables() {
        let header: Vec<&str> = table.header.iter().map(String::as_str).collect();
        let at = |r: &Vec<String>| format!("docs/arch-lists.md line {}: {r:?}", table.line);
        for r in &table.rows {
            match header.as_slice() {
                ["input", "expands to"] => {
                    assert_eq!(names(&parse(code(&r[0]), &ctx)), code(&r[1]), "{}", at(r))
                }
                ["visible GPUs", "input", "expands to"] => {
                    let devices: Vec<ComputeCapability> = r[0].split(',').map(cc).collect();
                    let list = parse(code(&r[1]), &ctx.with_devices(&devices));
                    assert_eq!(names(&list), code(&r[2]), "{}", at(r));
                }
                ["toolkit lists", "input", "expands to"] => {
                    let archs: Vec<Arch> = code(&r[0])
                        .split_whitespace()
                        .map(|n| Target::parse_nvcc_name(n).unwrap().arch)
                        .collect();
                    let list = parse(code(&r[1]), &ctx.with_toolkit(&archs));
                    assert_eq!(names(&list), code(&r[2]), "{}", at(r));
                }
                ["input", "canonical form"] => {
                    let list = parse(code(&r[0]), &ctx);
                    assert_eq!(list.to_string(), code(&r[1]), "{}", at(r));
                    assert_eq!(parse(code(&r[1]), &ctx), list, "{}", at(r));
                }
                ["input", "nvcc flags"] => {
                    assert_eq!(
                        parse(code(&r[0]), &ctx).gencode_flags().join(" "),
                        code(&r[1]),
                        "{}",
                        at(r)
                    )
                }
                ["input", "error contains"] => {
                    let e = ArchList::parse(code(&r[0]), &ctx)
                        .expect_err(&at(r))
                        .to_string();
                    assert!(e.contains(&r[1]), "{}: {e}", at(r));
                }
                ["kernel's list", "requested", "builds"] => {
                    let own = parse(code(&r[0]), &ctx);
                    let requested = parse(code(&r[1]), &ctx);
                    let want = if r[2] == "(nothing)" { "" } else { code(&r[2]) };
                    assert_eq!(
                        names(&archbuild_arch::narrow(&own, &requested)),
                        want,
                        "{}",
                        at(r)
                    );
                }
                ["target", "rule"] => {} // prose; the examples table below checks it
                ["target", "runs on"] => {
                    let target =
                        Target::parse_nvcc_name(code(&r[0])).unwrap_or_else(|| panic!("{}", at(r)));
                    let listed: Vec<&str> = r[1].split(',').map(str::trim).collect();
                    for gpu in GPUS {
                        assert_eq!(
                            target_runs_on(target, cc(gpu)),
                            listed.contains(&gpu),
                            "{} on {gpu}",
                            at(r)
                        );
                    }
                }
                ["GPU", "images", "policy", "chosen"] => check_selection(r, &at(r)),
                ["driver CUDA", "JITs PTX ISA up to"] => {
                    let isa = cc(&r[1]);
                    let want = PtxIsa::new(isa.major, isa.minor);
                    assert_eq!(max_ptx_isa_for_cuda(cuda(&r[0])), Some(want), "{}", at(r));
                }
                ["arch", "CUDA builds it"] => {
                    let arch = Target::parse_nvcc_name(code(&r[0])).unwrap().arch;
                    let versions: Vec<&str> = r[1]
                        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                        .filter(|w| w.contains('.') && !w.starts_with('.'))
                        .collect();
                    let support = arch_support(arch).unwrap_or_else(|| panic!("{}", at(r)));
                    assert_eq!(support.added, cuda(versions[0]), "{}", at(r));
                    let removed =
                        (!r[1].contains("and newer")).then(|| cuda(versions[versions.len() - 1]));
                    assert_eq!(support.removed, removed, "{}", at(r));
                }
                other => panic!(
                    "docs/arch-lists.md line {}: no test knows tables headed {other:?}",
                    table.line
                ),
            }
        }
        *checked.entry(table.header.join(" | ")).or_default() += table.rows.len();
    }
    // Guard against a table silently disappearing (or its header changing) from the doc.
    for (header, at_least) in [
        ("input | expands to", 40),
        ("visible GPUs | input | expands to", 3),
        ("toolkit lists | input | expands to", 2),
        ("input | canonical form", 4),
        ("input | nvcc flags", 4),
        ("input | error contains", 10),
        ("target | runs on", 10),
        ("GPU | images | policy | chosen", 12),
        ("driver CUDA | JITs PTX ISA up to", 5),
        ("arch | CUDA builds it", 8),
        ("kernel's list | requested | builds", 9),
    ] {
        let n = checked.get(header).copied().unwrap_or(0);
        assert!(
            n >= at_least,
            "expected >= {at_least} rows under `{header}`, found {n}"
        );
    }
}

/// `| 9.0 | compute_80 compute_90@9.5 | prefer-cubin | compute_80 (driver JIT) |`
fn check_selection(r: &[String], at: &str) {
    let images: Vec<ImageInfo> = code(&r[1])
        .split_whitespace()
        .map(|img| {
            let (name, isa) = match img.split_once('@') {
                Some((n, i)) => (n, cc(i)),
                None => (img, cc("9.0")),
            };
            let target = Target::parse_nvcc_name(name).unwrap_or_else(|| panic!("{at}"));
            let ptx_isa =
                (target.kind == TargetKind::Ptx).then(|| PtxIsa::new(isa.major, isa.minor));
            ImageInfo::new(target, ptx_isa)
        })
        .collect();
    let device = DeviceInfo::new(cc(&r[0]), CudaVersion::new(13, 0));
    let policy: Policy = r[2].parse().unwrap_or_else(|e| panic!("{at}: {e}"));
    let s = select(&images, &device, policy);
    let got = match s.chosen {
        None => "nothing".to_string(),
        Some(c) => match c.route {
            Route::Cubin => format!("`{}`", c.target),
            Route::DriverJit => format!("`{}` (driver JIT)", c.target),
            Route::NeedsNewerJit { .. } => format!("`{}` (needs nvJitLink)", c.target),
            Route::LinkLto => format!("`{}` (linked by nvJitLink)", c.target),
        },
    };
    assert_eq!(got, r[3], "{at}\n{s}");
}
