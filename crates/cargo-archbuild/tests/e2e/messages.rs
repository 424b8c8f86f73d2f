//! `--message-format json` is JSON Lines, as cargo's: every stdout line is one object with a
//! `reason` and the `format_version`, streamed as the build goes, each with exactly the fields
//! `docs/cli.md` documents for its reason. Also `-v` and the colour switches.

use std::collections::{BTreeMap, BTreeSet};

use crate::support::{cli, fixture_source, json_lines, run, scratch};

/// docs/cli.md's "JSON messages" table: reason → documented fields (`None`: "as in the
/// command's section", checked elsewhere).
fn documented() -> BTreeMap<String, Option<BTreeSet<String>>> {
    let doc = include_str!("../../../../docs/cli.md");
    let section = doc
        .split("\n## JSON messages\n")
        .nth(1)
        .expect("docs/cli.md has a JSON messages section");
    let table = section.split("\n## ").next().unwrap_or(section);
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let mut out = BTreeMap::new();
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        assert_eq!(cells.len(), 3, "a row of reason | when | fields: {row}");
        let fields: BTreeSet<String> = ticked(cells[2]).into_iter().collect();
        for reason in ticked(cells[0]) {
            out.insert(reason, (!fields.is_empty()).then(|| fields.clone()));
        }
    }
    out
}

#[test]
fn compile_streams_every_message_in_the_documented_schema() {
    let dir = scratch();
    let out = dir.path().join("k.fatbin");
    let messages = json_lines(
        cli()
            .env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(fixture_source("kernels.cu"))
            .args(["--archs", "7.5 8.6+PTX", "--message-format", "json", "-o"])
            .arg(&out),
    );
    let schema = documented();
    let reasons: Vec<&str> = messages
        .iter()
        .map(|m| m["reason"].as_str().unwrap())
        .collect();
    for m in &messages {
        let reason = m["reason"].as_str().unwrap();
        let fields = schema
            .get(reason)
            .unwrap_or_else(|| panic!("reason `{reason}` is not documented in docs/cli.md"))
            .as_ref()
            .expect("build messages list their fields");
        let keys: BTreeSet<String> = m
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "reason" && *k != "format_version")
            .cloned()
            .collect();
        assert_eq!(&keys, fields, "fields of `{reason}` against docs/cli.md");
    }

    // The order a consumer relies on: started, the jobs, the checked module, the report last.
    assert_eq!(reasons.first(), Some(&"build-started"), "{reasons:?}");
    assert_eq!(reasons.last(), Some(&"compile-finished"), "{reasons:?}");
    let planned = messages[0]["jobs_planned"].as_u64().unwrap() as usize;
    let jobs: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "job-finished")
        .collect();
    assert_eq!(jobs.len(), planned, "{reasons:?}");
    // A fresh cache: every job ran, with its command line.
    assert!(jobs.iter().all(|j| j["cached"] == false
        && j["command"]
            .as_str()
            .is_some_and(|c| c.contains("nvcc") || c.contains("ptxas"))));
    let module = reasons
        .iter()
        .position(|r| *r == "module-finished")
        .unwrap();
    assert!(reasons[..module].iter().rposition(|r| *r == "job-finished") < Some(module));
    // The guarded kernel is a coverage gap: a warning message, not text on stdout.
    assert!(reasons.contains(&"warning"), "{reasons:?}");
    // No GPU here (or a simulated empty machine): `gpus` is empty and `gpus_note` says why.
    let m = &messages[module];
    if m["gpus"].as_array().unwrap().is_empty() {
        let note = m["gpus_note"].as_str().unwrap();
        assert!(note.starts_with("none visible"), "{note}");
    }
    // Today's report is kept whole in the final message.
    let last = messages.last().unwrap();
    for field in ["processes_started", "cache_hits", "modules", "jobs_run"] {
        assert!(!last[field].is_null(), "{field} in {last}");
    }
}

#[test]
fn verbose_shows_commands_and_colour_follows_the_flag_then_cargo_term_color() {
    let dir = scratch();
    let out = dir.path().join("k.fatbin");
    let compile = |extra: &[&str], term_color: Option<&str>| {
        let mut c = cli();
        c.env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(fixture_source("scale.cu"))
            .args(["--archs", "8.6", "-o"])
            .arg(&out)
            .args(extra);
        match term_color {
            Some(v) => c.env("CARGO_TERM_COLOR", v),
            None => c.env_remove("CARGO_TERM_COLOR"),
        };
        let (code, stdout, stderr) = run(&mut c);
        assert_eq!(code, 0, "{stderr}");
        (stdout, stderr)
    };
    let has_colour = |s: &str| s.contains("\u{1b}[");

    // -v: the commands that ran, then (cached) the jobs served from the cache.
    let (_, stderr) = compile(&["-v", "--color", "never"], Some("always"));
    assert!(
        stderr.contains("Running") && stderr.contains("-arch=compute_86"),
        "{stderr}"
    );
    let (stdout, stderr) = compile(&["-v", "--color", "never"], Some("always"));
    assert!(
        stderr.contains("Fresh") && !stderr.contains("Running"),
        "{stderr}"
    );
    // --color never wins over CARGO_TERM_COLOR=always: no escape anywhere.
    assert!(!has_colour(&stdout) && !has_colour(&stderr), "{stderr}");
    // Without --color, CARGO_TERM_COLOR decides (here: colour, though not a terminal).
    let (_, stderr) = compile(&[], Some("always"));
    assert!(has_colour(&stderr), "{stderr}");
    let (stdout, stderr) = compile(&[], Some("never"));
    assert!(!has_colour(&stdout) && !has_colour(&stderr), "{stderr}");
}
