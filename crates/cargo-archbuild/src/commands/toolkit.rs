//! `cargo archbuild toolkit install [VERSION]|list|which`: provision a CUDA 13 toolkit from PyPI
//! wheels (the pinned release, or the newest of a version, beside any other), list every place a toolkit is looked for (in search order), and show the one a build
//! would use and why.

use archbuild::{
    config::Home,
    toolkit::{Discovery, Wanted, PINNED_RELEASE},
    Env, Toolkit,
};
use serde::Serialize;

use crate::building::cli_env;
use crate::cli::ToolkitCommand;
use crate::error::CliError;
use crate::shell::Shell;

#[derive(Debug, Serialize)]
struct ToolkitJson {
    nvcc: String,
    /// `13.5.37`.
    release: Option<String>,
    /// How it was found: `$CUDA_HOME`, `PATH`, `/usr/local/cuda`, `provisioned by archbuild`.
    found_by: String,
    exists: bool,
    /// The first existing candidate is the one builds use.
    selected: bool,
    /// Why it could not be queried, if it exists but does not work.
    problem: Option<String>,
    /// `install`: whether this run installed it (`false`: it was already there).
    #[serde(skip_serializing_if = "Option::is_none")]
    installed: Option<bool>,
}

#[derive(Debug, Serialize)]
struct ToolkitReport {
    reason: &'static str,
    action: &'static str,
    toolkits: Vec<ToolkitJson>,
    /// `list`: the header libraries installed in archbuild's home.
    #[serde(skip_serializing_if = "Option::is_none")]
    headers: Option<Vec<HeaderJson>>,
}

/// A header library installed in archbuild's home (`toolkit list`, `doctor`).
#[derive(Debug, Serialize)]
pub(crate) struct HeaderJson {
    pub package: String,
    pub version: String,
    /// Include directories of a known package; empty for another (its declaration names them).
    pub include: Vec<String>,
    pub dir: String,
    /// The first 12 hex digits of the content hash recorded at install.
    pub content: String,
    pub files: usize,
    pub wheel_sha256: String,
}

/// Every header library installed in `home`.
pub(crate) fn installed_headers(home: &Home) -> Vec<HeaderJson> {
    archbuild::headers::installed(home)
        .into_iter()
        .map(|h| HeaderJson {
            include: h.include.iter().map(|d| d.display().to_string()).collect(),
            dir: h.dir.display().to_string(),
            content: archbuild::headers::short(&h.content).to_owned(),
            files: h.files,
            wheel_sha256: h.wheel_sha256,
            package: h.package,
            version: h.version,
        })
        .collect()
}

/// One line per library: `nvidia-cutlass 4.2.0  content 1a2b3c4d5e6f  <include dirs or dir>`.
pub(crate) fn header_line(h: &HeaderJson) -> String {
    let dirs = if h.include.is_empty() {
        h.dir.clone()
    } else {
        h.include.join(", ")
    };
    format!(
        "{:<26} content {}  {dirs}",
        format!("{} {}", h.package, h.version),
        h.content
    )
}

pub(crate) fn run(cmd: &ToolkitCommand, shell: &mut Shell) -> Result<(), CliError> {
    let env = cli_env();
    let home = Home::from_env(&env);
    match cmd {
        ToolkitCommand::Install { release } => install(release.as_deref(), &env, &home, shell),
        ToolkitCommand::Which => which(&env, home, shell),
        ToolkitCommand::List => list(&env, &home, shell),
    }
}

/// `toolkit install [VERSION]`: provisions a release (the pinned one by default) and reports it.
fn install(
    release: Option<&str>,
    env: &Env,
    home: &Home,
    shell: &mut Shell,
) -> Result<(), CliError> {
    let release = match release {
        Some(v) => archbuild::toolkit::release_for(v, "`cargo archbuild toolkit install`")?,
        None => archbuild::toolkit::RELEASES
            .iter()
            .find(|r| r.version == PINNED_RELEASE)
            .expect("the pinned release is in the table"),
    };
    // Already there: provisioning checks it and returns; say so rather than "Installed".
    let present = archbuild::toolkit::release_dir(home, release).is_dir();
    let nvcc = archbuild::toolkit::provision_release(env, home, release, &mut |event| {
        shell.status("Toolkit", event)
    })?;
    let tk = Toolkit::from_nvcc(&nvcc)?;
    let mut json = describe(&tk, "provisioned by archbuild".into(), true);
    json.installed = Some(!present);
    report(shell, "install", vec![json], |s, t| {
        s.status(
            if present { "Fresh" } else { "Installed" },
            format!(
                "CUDA {} at {}{}",
                t.release.as_deref().unwrap_or(PINNED_RELEASE),
                t.nvcc,
                if present { " (already installed)" } else { "" }
            ),
        );
        Ok(())
    })
}

/// `toolkit which`: the toolkit a build would use, and where it was found.
fn which(env: &Env, home: Home, shell: &mut Shell) -> Result<(), CliError> {
    let wanted = archbuild::toolkit::requested_by_env(env)?;
    let wanted = wanted.as_ref().map(|(version, origin)| Wanted {
        version,
        origin: origin.as_str(),
    });
    let tk = Discovery::new(home).locate_for(env, wanted, false, &mut |_| {})?;
    let json = describe(&tk, tk.found_by().to_string(), true);
    report(shell, "which", vec![json], |s, t| {
        s.println(&t.nvcc)?;
        // `found_by` is where it came from: `$CUDA_HOME`, `PATH`, `provisioned by archbuild`.
        s.status(
            "Using",
            format!(
                "CUDA {} ({})",
                t.release.as_deref().unwrap_or("?"),
                t.found_by
            ),
        );
        Ok(())
    })
}

/// `toolkit list`: every place a toolkit is looked for, then the installed header libraries.
fn list(env: &Env, home: &Home, shell: &mut Shell) -> Result<(), CliError> {
    let list = searched_toolkits(env, home)?;
    let none_found = !list.iter().any(|t| t.selected);
    let headers = installed_headers(home);
    if shell.is_json() {
        return shell.json(&ToolkitReport {
            reason: "toolkit",
            action: "list",
            toolkits: list,
            headers: Some(headers),
        });
    }
    report(shell, "list", list, |s, t| {
        let mark = if t.selected { "*" } else { " " };
        s.println(format!(
            "{mark} {:<26} {:<14} {}",
            t.found_by,
            list_state(t),
            t.nvcc
        ))
    })?;
    shell.println(format!(
        "header libraries in {}:{}",
        archbuild::headers::headers_dir(home).display(),
        if headers.is_empty() { " none" } else { "" }
    ))?;
    for h in &headers {
        shell.println(format!("  {}", header_line(h)))?;
    }
    if none_found {
        shell.warn(format!(
            "no CUDA toolkit found; `cargo archbuild toolkit install` installs CUDA {PINNED_RELEASE} from PyPI"
        ));
    }
    Ok(())
}

/// Every place searched, in search order, queried where it exists; the first existing is selected.
fn searched_toolkits(env: &Env, home: &Home) -> Result<Vec<ToolkitJson>, CliError> {
    let mut selected = false;
    let mut list = Vec::new();
    let candidates = Discovery::new(home.clone()).candidates(env)?;
    let mut all = searched_without_a_find(&candidates, env, home);
    all.extend(candidates);
    // Search order (stable: places with several candidates keep theirs).
    all.sort_by_key(|c| c.found_by.rank());
    for c in all {
        let is_selected = c.exists && !selected;
        selected |= is_selected;
        let mut json = ToolkitJson {
            nvcc: c.nvcc.display().to_string(),
            release: None,
            found_by: c.found_by.to_string(),
            exists: c.exists,
            selected: is_selected,
            problem: None,
            installed: None,
        };
        if c.exists {
            match Toolkit::from_nvcc(&c.nvcc) {
                Ok(tk) => json.release = Some(tk.release().to_string()),
                Err(e) => json.problem = Some(e.to_string()),
            }
        }
        list.push(json);
    }
    Ok(list)
}

/// A listed toolkit's state column: its release, or why it has none.
fn list_state(t: &ToolkitJson) -> String {
    match (t.exists, &t.release, &t.problem) {
        (false, _, _) => "not found".to_string(),
        (true, Some(r), _) => format!("CUDA {r}"),
        (true, None, Some(p)) => format!("broken: {p}"),
        (true, None, None) => "unknown".to_string(),
    }
}

/// The places searched that yielded no candidate, so `list` shows every place, in search
/// order: unset variables, a PATH without nvcc, no provisioned toolkit yet.
fn searched_without_a_find(
    found: &[archbuild::toolkit::Candidate],
    env: &archbuild::Env,
    home: &Home,
) -> Vec<archbuild::toolkit::Candidate> {
    use archbuild::toolkit::{Candidate, FoundBy};
    let missing = |found_by: FoundBy, nvcc: std::path::PathBuf| Candidate {
        found_by,
        nvcc,
        exists: false,
    };
    let mut out = Vec::new();
    let vars = archbuild::toolkit::SEARCH_ORDER
        .iter()
        .filter_map(|f| match f {
            FoundBy::Var(v) => Some(*v),
            _ => None,
        });
    for var in vars {
        if env.path(var).is_none() {
            out.push(missing(
                FoundBy::Var(var),
                format!("(${var} is not set)").into(),
            ));
        }
    }
    if !found.iter().any(|c| c.found_by == FoundBy::Path) {
        out.push(missing(
            FoundBy::Path,
            "(no nvcc in any PATH directory)".into(),
        ));
    }
    if !found.iter().any(|c| c.found_by == FoundBy::Provisioned) {
        out.push(missing(
            FoundBy::Provisioned,
            home.toolkits_dir().join("cuda-*"),
        ));
    }
    out
}

fn describe(tk: &Toolkit, found_by: String, selected: bool) -> ToolkitJson {
    ToolkitJson {
        nvcc: tk.nvcc().display().to_string(),
        release: Some(tk.release().to_string()),
        found_by,
        exists: true,
        selected,
        problem: None,
        installed: None,
    }
}

fn report(
    shell: &Shell,
    action: &'static str,
    toolkits: Vec<ToolkitJson>,
    human: impl Fn(&Shell, &ToolkitJson) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if shell.is_json() {
        return shell.json(&ToolkitReport {
            reason: "toolkit",
            action,
            toolkits,
            headers: None,
        });
    }
    for t in &toolkits {
        human(shell, t)?;
    }
    Ok(())
}
