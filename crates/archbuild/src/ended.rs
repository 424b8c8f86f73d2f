//! How a process ended, as a value: exit code or signal, with the standard library's words.

/// How a process ended, decided once here so callers match on it instead of on its text.
/// `Display` gives the standard library's words (`exit status: 1`, `signal: 9 (SIGKILL)`),
/// which messages and snapshots show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code (0 is success).
    Exited(i32),
    /// A signal killed it.
    Signalled { signal: i32, core_dumped: bool },
    /// A wait status that is neither (not produced by a plain wait; kept, not guessed at).
    Unrecognised(i32),
}

impl Ended {
    /// How `status` ended.
    pub(crate) fn of(status: std::process::ExitStatus) -> Self {
        if let Some(code) = status.code() {
            return Ended::Exited(code);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            match status.signal() {
                Some(signal) => Ended::Signalled {
                    signal,
                    core_dumped: status.core_dumped(),
                },
                None => Ended::Unrecognised(status.into_raw()),
            }
        }
        #[cfg(not(unix))]
        Ended::Unrecognised(-1)
    }

    /// Exited with 0.
    pub fn success(&self) -> bool {
        *self == Ended::Exited(0)
    }

    /// Killed by SIGKILL: directly (`signal: 9`), or under a parent that reports it the
    /// shell's way (nvcc exits 128 + 9 when the kernel kills its cicc).
    pub(crate) fn killed(&self) -> bool {
        match *self {
            Ended::Signalled { signal, .. } => signal == SIGKILL,
            Ended::Exited(code) => code == 128 + SIGKILL,
            Ended::Unrecognised(_) => false,
        }
    }

    /// Exited 127: the shell (or nvcc, which runs its tools through one) found no such program.
    pub(crate) fn command_not_found(&self) -> bool {
        *self == Ended::Exited(127)
    }
}

const SIGKILL: i32 = 9;

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Ended::Exited(code) => write!(f, "exit status: {code}"),
            Ended::Signalled {
                signal,
                core_dumped,
            } => {
                write!(f, "signal: {signal} ({})", signal_name(signal))?;
                if core_dumped {
                    f.write_str(" (core dumped)")?;
                }
                Ok(())
            }
            Ended::Unrecognised(raw) => write!(f, "unrecognised wait status: {raw} {raw:#x}"),
        }
    }
}

/// The signal's name as the standard library prints it (empty when it has none).
fn signal_name(signal: i32) -> &'static str {
    #[cfg(unix)]
    {
        let names = [
            (libc::SIGHUP, "SIGHUP"),
            (libc::SIGINT, "SIGINT"),
            (libc::SIGQUIT, "SIGQUIT"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGTRAP, "SIGTRAP"),
            (libc::SIGABRT, "SIGABRT"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGFPE, "SIGFPE"),
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGUSR1, "SIGUSR1"),
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGUSR2, "SIGUSR2"),
            (libc::SIGPIPE, "SIGPIPE"),
            (libc::SIGALRM, "SIGALRM"),
            (libc::SIGTERM, "SIGTERM"),
            (libc::SIGCHLD, "SIGCHLD"),
            (libc::SIGCONT, "SIGCONT"),
            (libc::SIGSTOP, "SIGSTOP"),
            (libc::SIGTSTP, "SIGTSTP"),
            (libc::SIGTTIN, "SIGTTIN"),
            (libc::SIGTTOU, "SIGTTOU"),
            (libc::SIGURG, "SIGURG"),
            (libc::SIGXCPU, "SIGXCPU"),
            (libc::SIGXFSZ, "SIGXFSZ"),
            (libc::SIGVTALRM, "SIGVTALRM"),
            (libc::SIGPROF, "SIGPROF"),
            (libc::SIGWINCH, "SIGWINCH"),
            (libc::SIGIO, "SIGIO"),
            (libc::SIGSYS, "SIGSYS"),
        ];
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let names = {
            let mut all = names.to_vec();
            all.extend([(libc::SIGSTKFLT, "SIGSTKFLT"), (libc::SIGPWR, "SIGPWR")]);
            all
        };
        names
            .iter()
            .find(|(n, _)| *n == signal)
            .map_or("", |(_, name)| name)
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        ""
    }
}
