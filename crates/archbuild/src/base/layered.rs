//! One way to resolve a setting: its layers in precedence order — the build script's setter
//! (or the CLI flag that sets it), environment variables, a key of `[package.metadata.archbuild]`
//! — the first one set wins entirely, and the value keeps where it came from as a typed
//! [`Origin`], whose words every error hint uses. Each setting is one [`Setting`] constant;
//! what a setting's text means (its parser, its default) stays with the setting.

use std::fmt;

use crate::base::env::Env;

/// One place a setting may be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// The build script's setter, as messages name it ("the build's `.fleet(...)`").
    Builder(&'static str),
    /// An environment variable.
    Variable(&'static str),
    /// A key of `[package.metadata.archbuild]`.
    Manifest(&'static str),
}

/// Where a setting's value came from: the layer that was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Origin(pub Layer);

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Layer::Builder(words) => f.write_str(words),
            Layer::Variable(var) => f.write_str(var),
            Layer::Manifest(key) => write!(f, "Cargo.toml [package.metadata.archbuild] {key}"),
        }
    }
}

/// A setting's value as written, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layered {
    pub value: String,
    pub origin: Origin,
}

/// A setting: its layers, highest precedence first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setting(pub &'static [Layer]);

impl Setting {
    /// The first layer that is set, given the build script's value and the package's
    /// (`None` where the build or the package sets none); blank variables count as unset.
    pub(crate) fn resolve(
        &self,
        builder: Option<&str>,
        env: &Env,
        manifest: Option<&str>,
    ) -> Option<Layered> {
        let found: Result<_, std::convert::Infallible> =
            self.resolve_lazily(builder, env, || Ok(manifest.map(str::to_owned)));
        match found {
            Ok(v) => v,
        }
    }

    /// As [`Setting::resolve`], with the package's value read only when every layer above it
    /// is unset (a caller that must run `cargo metadata` for it pays only when it matters).
    pub(crate) fn resolve_lazily<E>(
        &self,
        builder: Option<&str>,
        env: &Env,
        manifest: impl FnOnce() -> Result<Option<String>, E>,
    ) -> Result<Option<Layered>, E> {
        let mut manifest = Some(manifest);
        for &layer in self.0 {
            let value = match layer {
                Layer::Builder(_) => builder.map(str::to_owned),
                Layer::Variable(var) => env.var(var),
                Layer::Manifest(_) => match manifest.take() {
                    Some(read) => read()?,
                    None => None,
                },
            };
            if let Some(value) = value {
                return Ok(Some(Layered {
                    value,
                    origin: Origin(layer),
                }));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODE: Setting = Setting(&[
        Layer::Builder("the build's `.mode(...)`"),
        Layer::Variable("ARCHBUILD_TEST_MODE"),
        Layer::Manifest("mode"),
        Layer::Variable("OTHER_TEST_MODE"),
    ]);

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_vars(vars.iter().copied())
    }

    #[test]
    fn the_first_layer_set_wins_and_says_where_it_came_from() {
        let all = env(&[("ARCHBUILD_TEST_MODE", "b"), ("OTHER_TEST_MODE", "d")]);
        let got = MODE.resolve(Some("a"), &all, Some("c")).unwrap();
        assert_eq!(got.value, "a");
        assert_eq!(got.origin.to_string(), "the build's `.mode(...)`");
        let got = MODE.resolve(None, &all, Some("c")).unwrap();
        assert_eq!(
            (got.value.as_str(), got.origin.to_string()),
            ("b", "ARCHBUILD_TEST_MODE".into())
        );
        let other = env(&[("OTHER_TEST_MODE", "d")]);
        let got = MODE.resolve(None, &other, Some("c")).unwrap();
        assert_eq!(
            (got.value.as_str(), got.origin.to_string()),
            ("c", "Cargo.toml [package.metadata.archbuild] mode".into())
        );
        let got = MODE.resolve(None, &other, None).unwrap();
        assert_eq!(got.origin, Origin(Layer::Variable("OTHER_TEST_MODE")));
        assert_eq!(MODE.resolve(None, &env(&[]), None), None);
    }

    #[test]
    fn blank_variables_are_unset_and_the_package_is_read_only_when_needed() {
        let blank = env(&[("ARCHBUILD_TEST_MODE", "  ")]);
        let mut read = false;
        let got = MODE
            .resolve_lazily(Some("a"), &blank, || {
                read = true;
                Ok::<_, ()>(Some("c".into()))
            })
            .unwrap();
        assert_eq!(got.unwrap().value, "a");
        assert!(
            !read,
            "a value above the package's leaves Cargo.toml unread"
        );
        let got = MODE.resolve(None, &blank, Some("c")).unwrap();
        assert_eq!(got.value, "c");
    }
}
