//! `-o` never destroys data: a symbolic link is written through, a FIFO or device is refused
//! and left as it was, an input the build read (a source, a header found through `-I`, an
//! options file, a shard) is never replaced, a failed `merge` writes nothing, a shard whose
//! fat binary is not the one its record describes is refused, and a read-only cache does not
//! stop a build.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{cli, fixture_source, run, scratch};

/// The first bytes of every fat binary.
const FATBIN_MAGIC: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();

/// No test here waits on a reader: a hang is a failure, not a stuck suite.
const LIMIT: Duration = Duration::from_secs(300);

/// `cargo archbuild compile FILE --archs ARCHS -o OUT EXTRA…` in `dir`: exit code and stderr.
fn compile(dir: &Path, file: &Path, archs: &str, out: &str, extra: &[&str]) -> (i32, String) {
    let (code, _, stderr) = run(cli()
        .timeout(LIMIT)
        .current_dir(dir)
        .arg("compile")
        .arg(file)
        .args(["--archs", archs, "-o", out])
        .args(extra));
    (code, stderr)
}

/// `cargo archbuild merge FILES… -o OUT` in `dir`: exit code and stderr.
fn merge(dir: &Path, files: &[&str], out: &str) -> (i32, String) {
    let (code, _, stderr) = run(cli()
        .timeout(LIMIT)
        .current_dir(dir)
        .arg("merge")
        .args(files)
        .args(["-o", out]));
    (code, stderr)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Makes a FIFO with `mkfifo`; says why not when it cannot.
fn mkfifo(path: &Path) -> bool {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        archbuild_tests::servers::skip("`mkfifo` is missing or failed here");
    }
    ok
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn a_symlinked_output_writes_the_file_it_points_to_and_keeps_the_link() {
    let dir = scratch();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/kernels.fatbin");
    std::fs::write(&target, b"an older build").unwrap();
    let link = dir.path().join("kernels.fatbin");
    std::os::unix::fs::symlink("real/kernels.fatbin", &link).unwrap();
    let (code, err) = compile(
        dir.path(),
        &fixture_source("kernels.cu"),
        "8.6",
        "kernels.fatbin",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("real/kernels.fatbin")
    );
    let bytes = std::fs::read(&target).unwrap();
    assert_eq!(
        bytes[..4],
        FATBIN_MAGIC,
        "the link's target holds the build"
    );
    // The record goes where the user asked for the fat binary (a prebuilt directory holding the
    // link finds it), and no temporary file is left in either directory.
    assert!(dir.path().join("kernels.fatbin.archbuild.json").is_file());
    assert_eq!(names(&dir.path().join("real")), vec!["kernels.fatbin"]);
    assert_eq!(
        names(dir.path()),
        vec!["kernels.fatbin", "kernels.fatbin.archbuild.json", "real"]
    );
}

#[test]
fn a_fifo_output_is_refused_without_waiting_for_a_reader_and_stays_a_fifo() {
    let dir = scratch();
    let fifo = dir.path().join("pipe");
    if !mkfifo(&fifo) {
        return;
    }
    let (code, err) = compile(
        dir.path(),
        &fixture_source("kernels.cu"),
        "8.6",
        "pipe",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    insta::assert_snapshot!(err);
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(meta.file_type().is_fifo(), "the FIFO was replaced");
    // A link to the FIFO is refused as well, naming where it leads.
    std::os::unix::fs::symlink("pipe", dir.path().join("to-pipe")).unwrap();
    let (code, err) = compile(
        dir.path(),
        &fixture_source("kernels.cu"),
        "8.6",
        "to-pipe",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`to-pipe` is a symbolic link to `pipe`, a FIFO (named pipe)"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn a_character_device_output_is_refused_by_compile_and_merge_and_stays_a_device() {
    let dir = scratch();
    // As root, a copy of /dev/null made here (the old behaviour replaced it); as another user,
    // /dev/null itself, which only root could replace.
    let device = if is_root() {
        let null = dir.path().join("null");
        let made = std::process::Command::new("mknod")
            .arg(&null)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            return archbuild_tests::servers::skip(
                "root cannot mknod here (a container without CAP_MKNOD?)",
            );
        }
        null
    } else {
        PathBuf::from("/dev/null")
    };
    let out = device.to_str().unwrap();
    let (code, err) = compile(
        dir.path(),
        &fixture_source("kernels.cu"),
        "7.5",
        "a.fatbin",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = merge(dir.path(), &["a.fatbin"], out);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "`{out}` is a character device, not a regular file"
        )),
        "{err}"
    );
    let (code, err) = compile(dir.path(), &fixture_source("kernels.cu"), "7.5", out, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a character device"), "{err}");
    let meta = std::fs::symlink_metadata(&device).unwrap();
    assert!(meta.file_type().is_char_device(), "the device was replaced");
}

#[test]
fn an_output_that_is_a_header_the_build_included_is_refused_and_the_header_kept() {
    let dir = scratch();
    std::fs::create_dir(dir.path().join("inc")).unwrap();
    let header = dir.path().join("inc/scale.cuh");
    let text = "#define SCALE 2.0f\n";
    std::fs::write(&header, text).unwrap();
    let src = dir.path().join("k.cu");
    std::fs::write(
        &src,
        "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float *x) { x[0] *= SCALE; }\n",
    )
    .unwrap();
    let (code, err) = compile(dir.path(), &src, "8.6", "inc/scale.cuh", &["-I", "inc"]);
    assert_eq!(code, 2, "{err}");
    let refusal = err
        .lines()
        .skip_while(|l| !l.starts_with("error:"))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(refusal);
    assert_eq!(std::fs::read_to_string(&header).unwrap(), text);
    assert_eq!(names(&dir.path().join("inc")), vec!["scale.cuh"]);
    // Through a link, on a rebuild served from the cache: still the header, still refused.
    std::os::unix::fs::symlink("inc/scale.cuh", dir.path().join("out.fatbin")).unwrap();
    let (code, err) = compile(dir.path(), &src, "8.6", "out.fatbin", &["-I", "inc"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the output `out.fatbin` is also an input (`inc/scale.cuh`)"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&header).unwrap(), text);
    assert!(!dir.path().join("out.fatbin.archbuild.json").exists());
}

#[test]
fn an_output_that_is_an_nvcc_options_file_is_refused_and_kept() {
    let dir = scratch();
    let opts = dir.path().join("opts.txt");
    std::fs::write(&opts, "-DSCALE=2\n").unwrap();
    for flags in [
        &["--nvcc-flag=--options-file=opts.txt"][..],
        &["--nvcc-flag=-optf", "--nvcc-flag=other.txt,opts.txt"][..],
        // A host compiler's response file, and the host compiler itself.
        &["--nvcc-flag=-Xcompiler", "--nvcc-flag=-O2,@opts.txt"][..],
        &["--nvcc-flag=-ccbin=./opts.txt"][..],
    ] {
        let (code, err) = compile(
            dir.path(),
            &fixture_source("kernels.cu"),
            "8.6",
            "opts.txt",
            flags,
        );
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(
            err.contains("writing it would replace the file named in the nvcc flags"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&opts).unwrap(), "-DSCALE=2\n");
    }
}

/// `-o` naming a program the build runs (here the launcher every compile goes through, and the
/// host compiler `-ccbin` names) is refused after the build, before anything is written.
#[test]
fn an_output_that_is_a_program_the_build_runs_is_refused_and_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let launch = dir.path().join("launch");
    let script = "#!/bin/sh\nexec \"$@\"\n";
    std::fs::write(&launch, script).unwrap();
    std::fs::set_permissions(&launch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, _, err) = run(cli()
        .timeout(LIMIT)
        .current_dir(dir.path())
        .env("ARCHBUILD_COMPILER_LAUNCHER", &launch)
        .arg("compile")
        .arg(fixture_source("kernels.cu"))
        .args(["--archs", "8.6", "-o", "launch"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("writing it would replace the program the build runs"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&launch).unwrap(), script);
}

#[test]
fn an_output_that_is_the_stat_memo_the_build_keeps_is_refused_and_kept() {
    let dir = scratch();
    let cache = dir.path().join("cache");
    let k = fixture_source("kernels.cu");
    let compile_to = |out: &Path| {
        run(cli()
            .timeout(LIMIT)
            .current_dir(dir.path())
            .env("ARCHBUILD_CACHE_DIR", &cache)
            .arg("compile")
            .arg(&k)
            .args(["--archs", "8.6", "-o"])
            .arg(out))
    };
    let (code, _, err) = compile_to(&dir.path().join("k.fatbin"));
    assert_eq!(code, 0, "{err}");
    // The fixture's files are older than the memo's settle window once this test has run a
    // build, but a checkout made just now may not be: write a memo if the build did not.
    let memo = cache.join("stat-memo.json");
    if !memo.exists() {
        std::fs::write(&memo, b"{}").unwrap();
    }
    let kept = std::fs::read(&memo).unwrap();
    let (code, _, err) = compile_to(&memo);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("writing it would replace the stat memo the build reads and replaces"),
        "{err}"
    );
    assert_eq!(std::fs::read(&memo).unwrap(), kept);
}

#[test]
fn a_failed_merge_leaves_an_existing_output_untouched_and_creates_nothing() {
    let dir = scratch();
    let k = fixture_source("kernels.cu");
    // Two shards built with different defines: their images merge, their records do not.
    let (code, err) = compile(dir.path(), &k, "7.5", "a.fatbin", &["-D", "FLAVOUR=1"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = compile(dir.path(), &k, "8.6", "b.fatbin", &["-D", "FLAVOUR=2"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.path().join("m.fatbin"), b"the previous release").unwrap();
    let before = names(dir.path());
    let (code, err) = merge(dir.path(), &["a.fatbin", "b.fatbin"], "m.fatbin");
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("different flags, include dirs, defines"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("m.fatbin")).unwrap(),
        b"the previous release"
    );
    let (code, err) = merge(dir.path(), &["a.fatbin", "b.fatbin"], "new.fatbin");
    assert_eq!(code, 3, "{err}");
    assert_eq!(names(dir.path()), before, "the failed merges wrote nothing");
}

#[test]
fn merge_refuses_an_output_that_is_one_of_its_inputs() {
    let dir = scratch();
    let k = fixture_source("kernels.cu");
    let (code, err) = compile(dir.path(), &k, "7.5", "a.fatbin", &[]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = compile(dir.path(), &k, "8.6", "b.fatbin", &[]);
    assert_eq!(code, 0, "{err}");
    let shard = std::fs::read(dir.path().join("a.fatbin")).unwrap();
    let (code, err) = merge(dir.path(), &["a.fatbin", "b.fatbin"], "./a.fatbin");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the output `./a.fatbin` is also an input (`a.fatbin`)"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.path().join("a.fatbin")).unwrap(), shard);
}

#[test]
fn merge_refuses_a_shard_whose_fat_binary_is_not_the_one_its_record_describes() {
    let dir = scratch();
    let k = fixture_source("kernels.cu");
    // Shards of one list, as `matrix` makes them.
    let whole = ["--shard-of", "7.5 8.6"];
    for (archs, out) in [("7.5", "a.fatbin"), ("8.6", "b.fatbin")] {
        let (code, err) = compile(dir.path(), &k, archs, out, &whole);
        assert_eq!(code, 0, "{err}");
    }
    // Intact, the shards merge.
    let (code, err) = merge(dir.path(), &["a.fatbin", "b.fatbin"], "ok.fatbin");
    assert_eq!(code, 0, "{err}");
    // b's fat binary replaced by another kernel's build, its record kept: a foreign image the
    // record would vouch for.
    let (code, err) = compile(
        dir.path(),
        &fixture_source("scale.cu"),
        "8.6",
        "c.fatbin",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    std::fs::copy(dir.path().join("c.fatbin"), dir.path().join("b.fatbin")).unwrap();
    let (code, err) = merge(dir.path(), &["a.fatbin", "b.fatbin"], "m.fatbin");
    assert_eq!(code, 3, "{err}");
    insta::assert_snapshot!(err);
    assert!(!dir.path().join("m.fatbin").exists());
    assert!(!dir.path().join("m.fatbin.archbuild.json").exists());
}

#[test]
fn a_read_only_cache_does_not_stop_a_compile() {
    let dir = scratch();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("cache")).unwrap();
    let mut cmd = if is_root() {
        // Root writes through file modes: only a read-only mount makes the home read-only.
        let works = std::process::Command::new("bwrap")
            .args(["--bind", "/", "/", "--dev", "/dev", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !works {
            return archbuild_tests::servers::skip(
                "running as root, and bubblewrap (apt package `bubblewrap`), which would mount \
                 the cache read-only, is missing or cannot run here",
            );
        }
        let mut c = std::process::Command::new("bwrap");
        c.args(["--bind", "/", "/", "--dev", "/dev", "--ro-bind"])
            .arg(&home)
            .arg(&home)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_cargo-archbuild"));
        c
    } else {
        use std::os::unix::fs::PermissionsExt;
        for d in [home.join("cache"), home.clone()] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        std::process::Command::new(env!("CARGO_BIN_EXE_cargo-archbuild"))
    };
    cmd.args(["compile", "k.cu", "--archs", "8.6", "-o", "k.fatbin"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("ARCHBUILD_HOME", &home)
        .env("ARCHBUILD_CACHE_DIR", home.join("cache"))
        .env_remove("ARCHBUILD_ARCHS");
    std::fs::copy(fixture_source("kernels.cu"), dir.path().join("k.cu")).unwrap();
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        for d in [home.clone(), home.join("cache")] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    assert_eq!(out.status.code(), Some(0), "{err}");
    let bytes = std::fs::read(dir.path().join("k.fatbin")).unwrap();
    assert_eq!(bytes[..4], FATBIN_MAGIC);
    assert!(dir.path().join("k.fatbin.archbuild.json").is_file());
    assert_eq!(names(&home.join("cache")), Vec::<String>::new());
    // No staging directory was left beside the output either.
    assert_eq!(
        names(dir.path()),
        vec!["home", "k.cu", "k.fatbin", "k.fatbin.archbuild.json"]
    );
}

/// Every path archbuild makes works with spaces and non-ASCII characters: a home, build cache
/// and `TMPDIR` under such a directory build cold, serve an edit from the cache (preprocessor
/// mode), and equal a build without cache. nvcc runs the host compiler through a shell, so
/// the dependency file's path is quoted for it.
#[test]
fn a_home_cache_and_tmpdir_with_spaces_and_non_ascii_letters_build_as_any() {
    let dir = scratch();
    let odd = dir.path().join("dir with spaces ü");
    std::fs::create_dir_all(odd.join("tmp dir")).unwrap();
    let src = odd.join("scale kernel.cu");
    std::fs::copy(fixture_source("scale.cu"), &src).unwrap();
    let build = |out: &str, cache: bool| {
        let (code, _, err) = run(cli()
            .timeout(LIMIT)
            .current_dir(&odd)
            .env("ARCHBUILD_HOME", odd.join("home ü"))
            .env("ARCHBUILD_CACHE_DIR", odd.join("cache ü"))
            .env("TMPDIR", odd.join("tmp dir"))
            .env("ARCHBUILD_CACHE", if cache { "on" } else { "off" })
            .arg("compile")
            .arg(&src)
            .args(["--archs", "8.6", "--message-format", "json", "-o", out]));
        assert_eq!(code, 0, "{err}");
        std::fs::read(odd.join(out)).unwrap()
    };
    build("cold.fatbin", true);
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(&src, format!("// a comment\n{text}")).unwrap();
    let warm = build("warm.fatbin", true);
    let fresh = build("fresh.fatbin", false);
    assert!(
        warm == fresh,
        "the cached build differs from a build without cache"
    );
}

/// `ARCHBUILD_VERIFY` checks the delivered output too: an OUT whose bytes changed behind its
/// length and time (which the no-op shortcut trusts) is an error naming it, and it is written
/// again, equal to the build's fat binary.
#[test]
fn the_verifier_checks_the_output_compile_delivered() {
    let dir = scratch();
    let src = dir.path().join("k.cu");
    std::fs::copy(fixture_source("scale.cu"), &src).unwrap();
    let compile = |verify: &str| {
        run(cli()
            .timeout(LIMIT)
            .current_dir(dir.path())
            .env("ARCHBUILD_VERIFY", verify)
            .args(["compile", "k.cu", "--archs", "8.6", "-o", "out.fatbin"]))
    };
    let (code, _, err) = compile("off");
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join("out.fatbin");
    let good = std::fs::read(&out).unwrap();
    // Other bytes, same length and modification time.
    let mtime = std::fs::metadata(&out).unwrap().modified().unwrap();
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    std::fs::write(&out, &bad).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&out)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    // Without the verifier, the shortcut keeps it (what the verifier is for).
    let (code, _, err) = compile("off");
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), bad);
    let (code, _, err) = compile("all");
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("cache verification failed") && err.contains("out.fatbin"),
        "{err}"
    );
    assert!(std::fs::read(&out).unwrap() == good, "not written again");
    let (code, _, err) = compile("all");
    assert_eq!(code, 0, "{err}");
}
