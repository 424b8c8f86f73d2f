//! Provisioning installs once even when several processes ask at the same time, and only a
//! verified, complete install is ever used. Offline: `ARCHBUILD_PYTHON` points at a stand-in
//! for `python3 -m pip` that "installs" the fake nvcc (which reports release 13.5.37), slowly.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use archbuild::{config::Home, toolkit::InstallEvent, Env};

/// A fake `python3`: `-m pip --version` succeeds; `-m pip install … --target DIR …` logs one
/// line, waits, and lays out `DIR/nvidia/cu13/bin/nvcc`.
fn fake_python(dir: &Path, log: &Path, nvcc: &str) -> PathBuf {
    let script = format!(
        "#!/bin/sh\n\
         if [ \"$3\" = \"--version\" ]; then echo 'pip 99 (fake)'; exit 0; fi\n\
         while [ \"$1\" != \"--target\" ]; do shift; done\n\
         echo \"install into $2\" >> {log}\n\
         sleep 1\n\
         mkdir -p \"$2/nvidia/cu13/bin\" && cp {nvcc} \"$2/nvidia/cu13/bin/nvcc\"\n\
         echo 'Successfully installed nvidia-cuda-nvcc-13.5.37'\n",
        log = log.display()
    );
    let path = dir.join("python3");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn concurrent_provisioning_installs_once() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("installs.log");
    let python = fake_python(tmp.path(), &log, env!("CARGO_BIN_EXE_archbuild-fake-nvcc"));
    let home = Home::at(tmp.path().join("home"));
    let env = || Env::from_vars([("ARCHBUILD_PYTHON", python.as_os_str())]);

    let results: Vec<(PathBuf, Vec<InstallEvent>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut events = Vec::new();
                    let nvcc = archbuild::toolkit::provision(&env(), &home, &mut |e| {
                        events.push(e.clone())
                    })
                    .unwrap();
                    (nvcc, events)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let installs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        installs.lines().count(),
        1,
        "one install for three callers: {installs}"
    );
    let dir = archbuild::toolkit::provisioned_dir(&home);
    for (nvcc, _) in &results {
        assert_eq!(nvcc, &dir.join("nvidia/cu13/bin/nvcc"));
    }
    let installed = results
        .iter()
        .filter(|(_, ev)| {
            ev.iter()
                .any(|e| matches!(e, InstallEvent::Installed { .. }))
        })
        .count();
    assert_eq!(installed, 1);
    let pip_lines: Vec<&InstallEvent> = results
        .iter()
        .flat_map(|(_, ev)| ev)
        .filter(|e| matches!(e, InstallEvent::Pip(_)))
        .collect();
    assert_eq!(
        pip_lines.len(),
        1,
        "pip's output is reported as progress: {pip_lines:?}"
    );
    // Nothing temporary is left next to the install.
    let names: Vec<String> = std::fs::read_dir(home.toolkits_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".tmp-")), "{names:?}");
    // And a later call reuses it without running pip.
    let mut events = Vec::new();
    archbuild::toolkit::provision(&env(), &home, &mut |e| events.push(e.clone())).unwrap();
    let what = format!("CUDA {}", archbuild::toolkit::PINNED_RELEASE);
    assert_eq!(events, [InstallEvent::Ready { what, dir }]);
}

#[test]
fn an_install_that_does_not_verify_is_never_used() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("installs.log");
    // "Installs" /bin/false as nvcc: `nvcc --version` fails verification.
    let python = fake_python(tmp.path(), &log, "/bin/false");
    let home = Home::at(tmp.path().join("home"));
    let env = Env::from_vars([("ARCHBUILD_PYTHON", python.as_os_str())]);
    let err = archbuild::toolkit::provision(&env, &home, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not work") && err.contains("it was removed"),
        "{err}"
    );
    assert!(!archbuild::toolkit::provisioned_dir(&home).exists());
    // Discovery does not pick up anything from the failed attempt either.
    let d = archbuild::toolkit::Discovery {
        home: home.clone(),
        system_roots: vec![],
    };
    let found = d
        .candidates(&Env::from_vars([("PATH", "/nonexistent")]))
        .unwrap();
    assert!(found.is_empty(), "{found:?}");
}
