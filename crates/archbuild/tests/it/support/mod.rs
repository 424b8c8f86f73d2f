//! Helpers shared by the test modules, which all run as threads of one process.

// Tests save and restore the process environment on purpose.
#![allow(clippy::disallowed_methods)]

pub mod fake;

use std::ffi::OsString;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The process environment, held by a test that changes it.
///
/// Builds in these tests get their environment from `Env::from_vars`, never from the process,
/// so a change to a process variable can only reach them through the fake tools they start
/// (which inherit it and ignore `NVCC`). A test that changes variables holds this for as long as
/// it needs them and puts them back when it drops it, so two such tests never overlap and none
/// leaves a change behind for the tests after it.
pub struct ProcessEnv {
    saved: Vec<(&'static str, Option<OsString>)>,
    _lock: MutexGuard<'static, ()>,
}

impl ProcessEnv {
    /// Waits until no other test holds the environment, and remembers `names` as they are now.
    pub fn lock(names: &[&'static str]) -> Self {
        static LOCK: Mutex<()> = Mutex::new(());
        // A test that failed while holding it still put its variables back (on unwinding).
        let lock = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        let saved = names.iter().map(|&n| (n, std::env::var_os(n))).collect();
        Self { saved, _lock: lock }
    }
}

impl Drop for ProcessEnv {
    fn drop(&mut self) {
        for (name, value) in &self.saved {
            match value {
                Some(v) => std::env::set_var(name, v),
                None => std::env::remove_var(name),
            }
        }
    }
}
