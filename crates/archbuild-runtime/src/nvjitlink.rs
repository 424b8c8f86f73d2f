//! nvJitLink, loaded at run time: compiles PTX to a cubin in-process with its own compiler
//! version, independent of the driver's. This is how PTX built by a newer toolkit (CUDA 13.5,
//! PTX ISA 9.5) runs on an older driver (CUDA 13.0), which refuses that PTX with error 222.
//!
//! Where the library is found is [`crate::locate`]'s business. Its entry points are versioned (`__nvJitLinkCreate_13_5`): we resolve the
//! ones of the library's own version (from the unversioned `nvJitLinkVersion`) and fall back to
//! the unversioned exports.

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};

use archbuild_arch::{Arch, CudaVersion};
use libloading::Library;

use crate::backend::{nul_terminated, JitOutput};
use crate::error::{Error, Result};

type Handle = *mut c_void;
type CreateFn = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Handle) -> c_int;
type AddDataFn = unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int;
type CompleteFn = unsafe extern "C" fn(Handle) -> c_int;
type SizeFn = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type CopyFn = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
type LogFn = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;
type VersionFn = unsafe extern "C" fn(*mut u32, *mut u32) -> c_int;

/// Lets ptxas compile a module's functions in parallel, one thread per CPU. The driver's JIT
/// has no such option and compiles them one after another: on a module of many kernels this
/// is what makes nvJitLink's cold JIT faster than the driver's (measured in `docs/runtime.md`).
pub const PARALLEL_PTXAS: &str = "-Xptxas=--split-compile=0";

/// `NVJITLINK_INPUT_PTX` from `nvJitLink.h`.
const INPUT_PTX: c_int = 2;
/// `NVJITLINK_INPUT_LTOIR` from `nvJitLink.h`.
const INPUT_LTOIR: c_int = 3;
/// `NVJITLINK_INPUT_FATBIN` from `nvJitLink.h`.
const INPUT_FATBIN: c_int = 4;

struct Fns {
    create: CreateFn,
    destroy: DestroyFn,
    add_data: AddDataFn,
    complete: CompleteFn,
    cubin_size: SizeFn,
    cubin: CopyFn,
    error_log_size: SizeFn,
    error_log: LogFn,
    info_log_size: SizeFn,
    info_log: LogFn,
}

/// A loaded libnvJitLink.
pub struct NvJitLink {
    fns: Fns,
    version: CudaVersion,
    path: PathBuf,
    // Never unloaded: nvJitLink keeps the worker threads of its parallel ptxas alive after a
    // compile, and unmapping the library under them crashes the process later (a SIGSEGV at
    // exit, one run in eight of the nvjitlink tests). Loading it once per process is all a
    // program does, so keeping it mapped costs nothing.
    _lib: std::mem::ManuallyDrop<Library>,
}

impl std::fmt::Debug for NvJitLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NvJitLink")
            .field("version", &self.version)
            .field("path", &self.path)
            .finish()
    }
}

impl NvJitLink {
    /// Opens the library at `path` and resolves the functions archbuild calls.
    pub fn open(path: &Path) -> Result<Self> {
        let fail = |detail: String| Error::NvJitLinkLoad {
            path: path.to_path_buf(),
            detail,
        };
        // SAFETY: loading a shared library runs its initialisers; libnvJitLink's are benign.
        let lib = unsafe { Library::new(path) }.map_err(|e| fail(e.to_string()))?;
        // SAFETY: the signatures match nvJitLink.h (CUDA 12.x and 13.x).
        let version_fn: VersionFn = unsafe { lib.get::<VersionFn>(b"nvJitLinkVersion\0") }
            .map(|s| *s)
            .map_err(|e| {
                fail(format!(
                    "no nvJitLinkVersion ({e}); nvJitLink 12.3 or newer is needed"
                ))
            })?;
        let (mut major, mut minor) = (0u32, 0u32);
        // SAFETY: two valid out-pointers.
        let rc = unsafe { version_fn(&mut major, &mut minor) };
        if rc != 0 {
            return Err(fail(format!("nvJitLinkVersion returned {rc}")));
        }
        let suffix = format!("_{major}_{minor}");
        macro_rules! sym {
            ($name:literal) => {{
                let versioned = format!("__nvJitLink{}{}\0", $name, suffix);
                let plain = format!("nvJitLink{}\0", $name);
                // SAFETY: the symbol has the C signature of the field it is stored in.
                unsafe {
                    lib.get(versioned.as_bytes())
                        .or_else(|_| lib.get(plain.as_bytes()))
                        .map(|s| *s)
                        .map_err(|e| fail(format!("missing nvJitLink{} ({e})", $name)))?
                }
            }};
        }
        let fns = Fns {
            create: sym!("Create"),
            destroy: sym!("Destroy"),
            add_data: sym!("AddData"),
            complete: sym!("Complete"),
            cubin_size: sym!("GetLinkedCubinSize"),
            cubin: sym!("GetLinkedCubin"),
            error_log_size: sym!("GetErrorLogSize"),
            error_log: sym!("GetErrorLog"),
            info_log_size: sym!("GetInfoLogSize"),
            info_log: sym!("GetInfoLog"),
        };
        Ok(Self {
            fns,
            version: CudaVersion::new(major, minor),
            path: path.to_path_buf(),
            _lib: std::mem::ManuallyDrop::new(lib),
        })
    }

    /// The CUDA version of this nvJitLink (13.5 for the 13.5 wheel).
    pub fn version(&self) -> CudaVersion {
        self.version
    }

    /// Where the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Compiles PTX (NUL-terminated or not) to a cubin for `arch` (`-arch=sm_90a` …), with
    /// ptxas compiling the module's functions on every CPU ([`PARALLEL_PTXAS`]). A ptxas too old
    /// for that option gets the PTX again without it.
    pub fn compile(&self, ptx: &[u8], arch: Arch, image_name: &str) -> Result<JitOutput> {
        match self.compile_with(ptx, arch, image_name, &[PARALLEL_PTXAS]) {
            Err(Error::NvJitLink { log, .. }) if log.contains("split-compile") => {
                self.compile_with(ptx, arch, image_name, &[])
            }
            r => r,
        }
    }

    /// [`NvJitLink::compile`] with extra nvJitLink options (`-split-compile=0`, `-O3` …).
    pub fn compile_with(
        &self,
        ptx: &[u8],
        arch: Arch,
        image_name: &str,
        extra: &[&str],
    ) -> Result<JitOutput> {
        self.link(INPUT_PTX, &nul_terminated(ptx), arch, image_name, extra)
    }

    /// Links the LTO-IR of a fat binary (`nvcc -dlto`, or [`archbuild_fatbin::FatbinWriter::add_ltoir`])
    /// into a cubin for `arch`, with link-time optimisation (`-lto`). nvJitLink picks the
    /// fat binary's entry for `arch` itself.
    pub fn link_lto_fatbin(
        &self,
        fatbin: &[u8],
        arch: Arch,
        image_name: &str,
    ) -> Result<JitOutput> {
        self.link(INPUT_FATBIN, fatbin, arch, image_name, &["-lto"])
    }

    /// Links one LTO-IR image (an `lto_XY` entry's bytes, `nvcc -ltoir`'s output) into a cubin
    /// for `arch`, with link-time optimisation (`-lto`). LTO-IR for `lto_80` links for sm_80 and
    /// every later arch, as PTX compiles (`archbuild_arch::target_runs_on`).
    pub fn link_lto(&self, ltoir: &[u8], arch: Arch, image_name: &str) -> Result<JitOutput> {
        self.link(INPUT_LTOIR, ltoir, arch, image_name, &["-lto"])
    }

    /// One nvJitLink session: create with `-arch=sm_XX` and `extra`, add one input, complete,
    /// and take the cubin and the info log.
    fn link(
        &self,
        input_kind: c_int,
        data: &[u8],
        arch: Arch,
        image_name: &str,
        extra: &[&str],
    ) -> Result<JitOutput> {
        let mut owned = vec![CString::new(format!("-arch=sm_{}", arch.sm_name())).expect("no NUL")];
        owned.extend(
            extra
                .iter()
                .map(|o| CString::new(o.replace('\0', "")).expect("NULs removed")),
        );
        let opts: Vec<*const c_char> = owned.iter().map(|o| o.as_ptr()).collect();
        let mut h: Handle = std::ptr::null_mut();
        let fail = |call: &'static str, code: c_int, log: String| Error::NvJitLink {
            version: self.version.to_string(),
            target: image_name.to_string(),
            arch: format!("sm_{}", arch.sm_name()),
            call,
            code,
            log: if log.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", log.trim())
            },
        };
        // SAFETY: valid out-pointer and option array.
        let rc = unsafe { (self.fns.create)(&mut h, opts.len() as u32, opts.as_ptr()) };
        if rc != 0 {
            return Err(fail("nvJitLinkCreate", rc, String::new()));
        }
        let guard = HandleGuard {
            h,
            destroy: self.fns.destroy,
        };
        let name = CString::new(image_name.replace('\0', "")).expect("NULs removed");
        // SAFETY: data outlives the call; nvJitLink copies it.
        let rc = unsafe {
            (self.fns.add_data)(
                guard.h,
                input_kind,
                data.as_ptr().cast(),
                data.len(),
                name.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(fail("nvJitLinkAddData", rc, self.log(guard.h, true)));
        }
        // SAFETY: a live handle.
        let rc = unsafe { (self.fns.complete)(guard.h) };
        if rc != 0 {
            return Err(fail("nvJitLinkComplete", rc, self.log(guard.h, true)));
        }
        let mut size = 0usize;
        // SAFETY: a live, completed handle and a buffer of the size it reports.
        let rc = unsafe { (self.fns.cubin_size)(guard.h, &mut size) };
        if rc != 0 {
            return Err(fail("nvJitLinkGetLinkedCubinSize", rc, String::new()));
        }
        let mut cubin = vec![0u8; size];
        let rc = unsafe { (self.fns.cubin)(guard.h, cubin.as_mut_ptr().cast()) };
        if rc != 0 {
            return Err(fail("nvJitLinkGetLinkedCubin", rc, String::new()));
        }
        Ok(JitOutput {
            cubin,
            info_log: self.log(guard.h, false),
        })
    }

    fn log(&self, h: Handle, error: bool) -> String {
        let (size_fn, get_fn) = if error {
            (self.fns.error_log_size, self.fns.error_log)
        } else {
            (self.fns.info_log_size, self.fns.info_log)
        };
        let mut size = 0usize;
        // SAFETY: a live handle; the buffer has the size nvJitLink reported.
        if unsafe { size_fn(h, &mut size) } != 0 || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        if unsafe { get_fn(h, buf.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        String::from_utf8_lossy(crate::backend::ptx_text(&buf))
            .trim()
            .to_string()
    }
}

struct HandleGuard {
    h: Handle,
    destroy: DestroyFn,
}

impl Drop for HandleGuard {
    fn drop(&mut self) {
        // SAFETY: created by nvJitLinkCreate, destroyed once.
        unsafe { (self.destroy)(&mut self.h) };
    }
}
