//! Helpers shared by the test modules.

pub mod elf_builder;
