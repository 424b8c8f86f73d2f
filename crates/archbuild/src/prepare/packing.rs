//! How a build's fat binaries are compressed, decided once: the choice asked for (set by the
//! build script, `ARCHBUILD_COMPRESSION` or Cargo.toml, else the default of the command), what
//! this build's writers pack it as, and which shipped files a dependent takes whatever their
//! compression.
//!
//! - A build's default is nvcc's (PTX zstd, cubins stored); `cargo archbuild package`'s is the
//!   smallest every driver of the fleet reads (`size`: zstd 19), LZ4 where a member's driver is
//!   older than zstd's floor (12.4).
//! - zstd needs C (libzstd): only builds with archbuild's `zstd` feature write it (the CLI
//!   does). Elsewhere (a build script's default build) zstd is written as LZ4 (pure Rust),
//!   with a warning when a source set it.
//! - The cache key and records hold the choice asked for; the pack stamp holds what was
//!   written, with the writers' names (`output/pack.rs`).
//! - A dependent that sets no compression takes a shipped file packed with any compression its
//!   fleet reads; one that sets a compression takes only files packed with it.

use archbuild_arch::Fleet;
use archbuild_fatbin::{Compression, CompressionChoice, Writers};

/// The packing of a build: the compression its sources set (`setup::compression`), its fleet
/// (with where it was named), the command's default and this build's writers.
pub(crate) fn resolve(
    b: &crate::prepare::spec::Spec,
    env: &crate::base::env::Env,
    pkg: Option<&crate::config::manifest::PackageConfig>,
    fleet: Option<&(Fleet, String)>,
) -> crate::error::Result<Packing> {
    Ok(Packing::decide(
        crate::prepare::setup::compression(b, env, pkg)?,
        fleet.map(|(f, _)| f),
        b.default_compression,
        archbuild_fatbin::writers(),
    ))
}

/// The default a command gives when no source sets the compression.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum DefaultCompression {
    /// nvcc's: PTX zstd level 5, cubins stored.
    #[default]
    Nvcc,
    /// The smallest the fleet reads (`cargo archbuild package`).
    Smallest,
}

/// Where the choice came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A source set it (its description, for messages).
    Set(String),
    /// No source did: the command's default.
    Default,
}

/// The compression of a build's fat binaries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Packing {
    /// The choice, as keys and records hold it.
    pub asked: CompressionChoice,
    pub origin: Origin,
    /// What this build's writers pack: `asked`, with zstd as LZ4 where they have no zstd.
    pub written: CompressionChoice,
    pub writers: Writers,
    /// Whether every driver of the build's fleet reads zstd (true without a fleet).
    pub fleet_reads_zstd: bool,
}

impl Packing {
    /// Decides the packing from the choice a source set (with where), the fleet, the command's
    /// default and the writers this build has.
    pub(crate) fn decide(
        set: Option<(CompressionChoice, String)>,
        fleet: Option<&Fleet>,
        default: DefaultCompression,
        writers: Writers,
    ) -> Self {
        let fleet_reads_zstd = fleet.is_none_or(Fleet::reads_zstd);
        let (asked, origin) = match set {
            Some((choice, from)) => (choice, Origin::Set(from)),
            None => {
                let choice = match default {
                    DefaultCompression::Nvcc => CompressionChoice::nvcc_default(),
                    DefaultCompression::Smallest => CompressionChoice::size(),
                };
                let choice = if fleet_reads_zstd {
                    choice
                } else {
                    without_zstd(choice)
                };
                (choice, Origin::Default)
            }
        };
        let written = if writers.writes(Compression::Zstd { level: 0 }) {
            asked
        } else {
            without_zstd(asked)
        };
        Packing {
            asked,
            origin,
            written,
            writers,
            fleet_reads_zstd,
        }
    }

    /// The choice as keys and records hold it.
    pub(crate) fn asked_text(&self) -> String {
        format!("{:?}", self.asked)
    }

    /// Whether a shipped file packed with `shipped` (a record's `compression` item) serves this
    /// build: packed as asked, or, with nothing set, packed in a way the fleet reads.
    pub(crate) fn takes_shipped(&self, shipped: &str) -> bool {
        if shipped == self.asked_text() {
            return true;
        }
        self.origin == Origin::Default && (self.fleet_reads_zstd || !shipped.contains("Zstd"))
    }

    /// The warning when a source set zstd and this build packs LZ4 instead: where and what.
    pub(crate) fn unwritten(&self) -> Option<(String, String)> {
        match &self.origin {
            Origin::Set(from) if self.written != self.asked => {
                Some((from.clone(), self.asked.to_string()))
            }
            _ => None,
        }
    }
}

/// zstd entries as LZ4 (what the oldest drivers and a pure-Rust writer manage).
fn without_zstd(c: CompressionChoice) -> CompressionChoice {
    let no_zstd = |c: Compression| match c {
        Compression::Zstd { .. } => Compression::Lz4,
        other => other,
    };
    CompressionChoice {
        elf: no_zstd(c.elf),
        ptx: no_zstd(c.ptx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PURE: Writers = Writers::PureRust;
    const C: Writers = Writers::C;

    fn set(c: CompressionChoice) -> Option<(CompressionChoice, String)> {
        Some((c, "Cargo.toml".into()))
    }

    #[test]
    fn zstd_only_where_every_member_reads_it_and_a_set_choice_stands() {
        let old = Fleet::parse("7.5@12.2, 8.6@13.0", "t").unwrap();
        let new = Fleet::parse("7.5@12.4", "t").unwrap();
        let lz4_ptx = CompressionChoice {
            elf: Compression::None,
            ptx: Compression::Lz4,
        };
        let nvcc = DefaultCompression::Nvcc;
        assert_eq!(Packing::decide(None, Some(&old), nvcc, C).written, lz4_ptx);
        let p = Packing::decide(None, Some(&new), nvcc, C);
        assert_eq!(p.written, CompressionChoice::nvcc_default());
        let p = Packing::decide(None, None, nvcc, C);
        assert_eq!(p.written, CompressionChoice::nvcc_default());
        let size = CompressionChoice::size();
        assert_eq!(
            Packing::decide(set(size), Some(&old), nvcc, C).written,
            size
        );
    }

    #[test]
    fn package_defaults_to_the_smallest_the_fleet_reads() {
        let small = DefaultCompression::Smallest;
        let p = Packing::decide(None, None, small, C);
        assert_eq!(
            (p.asked, p.written),
            (CompressionChoice::size(), CompressionChoice::size())
        );
        let old = Fleet::parse("8.6@12.2", "t").unwrap();
        let p = Packing::decide(None, Some(&old), small, C);
        assert_eq!(p.written, CompressionChoice::all_lz4());
    }

    #[test]
    fn without_a_zstd_writer_zstd_is_packed_as_lz4_and_a_set_choice_says_so() {
        let p = Packing::decide(None, None, DefaultCompression::Nvcc, PURE);
        assert_eq!(p.asked, CompressionChoice::nvcc_default());
        assert_eq!(p.written.ptx, Compression::Lz4);
        assert_eq!(p.unwritten(), None);
        let p = Packing::decide(
            set(CompressionChoice::size()),
            None,
            DefaultCompression::Nvcc,
            PURE,
        );
        assert_eq!(p.written, CompressionChoice::all_lz4());
        let (from, what) = p.unwritten().unwrap();
        assert_eq!(
            (from.as_str(), what.as_str()),
            ("Cargo.toml", "cubins zstd-19, PTX zstd-19")
        );
    }

    #[test]
    fn an_unset_choice_takes_what_the_fleet_reads_a_set_one_only_itself() {
        let size = format!("{:?}", CompressionChoice::size());
        let lz4 = format!("{:?}", CompressionChoice::all_lz4());
        let nvcc = DefaultCompression::Nvcc;
        let unset = Packing::decide(None, None, nvcc, PURE);
        assert!(unset.takes_shipped(&size) && unset.takes_shipped(&lz4));
        let old = Fleet::parse("8.6@12.2", "t").unwrap();
        let old_fleet = Packing::decide(None, Some(&old), nvcc, PURE);
        assert!(!old_fleet.takes_shipped(&size) && old_fleet.takes_shipped(&lz4));
        let stored = Packing::decide(set(CompressionChoice::stored()), None, nvcc, PURE);
        assert!(!stored.takes_shipped(&size));
        assert!(stored.takes_shipped(&format!("{:?}", CompressionChoice::stored())));
    }
}
