//! The loadable modules of a file (`archbuild_fatbin::loadable_modules` decides the split),
//! with its errors named by the file the user gave.

use std::path::Path;

use archbuild_fatbin::Error;
use archbuild_fatbin::LoadableModule;

use crate::error::CliError;

/// Splits `bytes` (the contents of `path`) into modules.
pub(crate) fn modules_of(path: &Path, bytes: &[u8]) -> Result<Vec<LoadableModule>, CliError> {
    archbuild_fatbin::loadable_modules(bytes).map_err(|e| match e {
        // The module's location stands where the path would (the file is named above it).
        Error::InContainer { location, source } => CliError::Format {
            path: location.into(),
            source: *source,
        },
        Error::NoImages => CliError::NoImages {
            path: path.to_path_buf(),
        },
        source => CliError::Format {
            path: path.to_path_buf(),
            source,
        },
    })
}
