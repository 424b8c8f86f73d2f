//! Merging fat binaries, e.g. one per CI shard, into one container.
//!
//! Entries are passed through as stored (compressed streams are not re-encoded) and written in
//! the writer's canonical order with the writer's header layout, so merging shards written with
//! one [`crate::CompressionChoice`] gives the same bytes as writing all images at once.

use std::borrow::Cow;
use std::collections::BTreeMap;

use archbuild_arch::Arch;

use crate::encode::{encode_container, RawEntry};
use crate::layout::{KIND_ELF, KIND_LTOIR, KIND_PTX};
use crate::model::{Compression, Entry, EntryKind};
use crate::{read_fatbin, Error};

/// Combines `inputs` (each one or more containers) into one container. Identical duplicates
/// (same kind, arch and image) collapse to the first; a different image for the same kind and
/// arch is an error naming both places. Errors name the inputs `input 0`, `input 1`, …; see
/// [`merge_named`] to name them otherwise.
pub fn merge(inputs: &[&[u8]]) -> Result<Vec<u8>, Error> {
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("input {i}")).collect();
    let named: Vec<(&str, &[u8])> = names
        .iter()
        .map(String::as_str)
        .zip(inputs.iter().copied())
        .collect();
    merge_named(&named)
}

/// [`merge`], with each input's name (e.g. its file, `` `a.fatbin` ``) for the errors.
pub fn merge_named(inputs: &[(&str, &[u8])]) -> Result<Vec<u8>, Error> {
    let mut chosen: BTreeMap<(Arch, EntryKind), (String, Entry<'_>)> = BTreeMap::new();
    for &(name, input) in inputs {
        for (ci, container) in read_fatbin(input)?.into_iter().enumerate() {
            if let Some(&(offset, kind)) = container.unknown.first() {
                return Err(Error::MergeUnknownKind {
                    input: name.to_owned(),
                    offset,
                    kind,
                });
            }
            for (ei, entry) in container.entries.into_iter().enumerate() {
                let place = format!("{name} container {ci} entry {ei} (offset {})", entry.offset);
                match chosen.get(&(entry.arch, entry.kind)) {
                    None => {
                        chosen.insert((entry.arch, entry.kind), (place, entry));
                    }
                    Some((first_place, first)) => {
                        if !same_image(first, &entry) {
                            return Err(Error::Conflict {
                                kind: entry.kind.name(),
                                arch: entry.arch,
                                target: crate::writer::slot_name(entry.kind, entry.arch),
                                first: first_place.clone(),
                                first_len: first.uncompressed_size as usize,
                                second: place,
                                second_len: entry.uncompressed_size as usize,
                            });
                        }
                    }
                }
            }
        }
    }
    let entries: Vec<RawEntry<'_>> = chosen.values().map(|(_, e)| raw_from_entry(e)).collect();
    encode_container(&entries)
}

/// Same image: identical stored bytes and flags, or (differently stored) identical contents.
/// An image that cannot be decoded (corrupt, or nvcc's private LTO-IR encoding) only equals an
/// identically stored one.
fn same_image(a: &Entry<'_>, b: &Entry<'_>) -> bool {
    if a.payload == b.payload && a.flags == b.flags && a.compression == b.compression {
        return true;
    }
    matches!((a.data(), b.data()), (Ok(x), Ok(y)) if x == y)
}

/// The entry as the encoder needs it, its stored bytes borrowed.
fn raw_from_entry<'a>(e: &Entry<'a>) -> RawEntry<'a> {
    let kind = match e.kind {
        EntryKind::Elf => KIND_ELF,
        EntryKind::Ptx => KIND_PTX,
        EntryKind::LtoIr => KIND_LTOIR,
    };
    let options = match e.options {
        Some(o) => Some(Cow::Borrowed(o.as_bytes())),
        None if e.kind == EntryKind::Ptx => Some(Cow::Borrowed(&[][..])), // never write the crashing form
        None => None,
    };
    let compressed = e.compression != Compression::None;
    RawEntry {
        kind,
        sm: e.arch.cc.sm(),
        flags: e.flags,
        reserved: e.header_reserved,
        major: e.version_major,
        minor: e.version_minor,
        identifier: e.identifier.map(|s| Cow::Borrowed(s.as_bytes())),
        options,
        compat: e.compat.map(Cow::Borrowed),
        payload: Cow::Borrowed(e.payload),
        append_nul: e.kind == EntryKind::Ptx && !compressed,
        compressed: compressed.then_some(e.uncompressed_size),
    }
}
