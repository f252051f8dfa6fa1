//! The folder where the headset app keeps what outlives a run (its log, its
//! report, later the hologram's placement): the package's LocalState on the
//! device, a per-user folder elsewhere.

use std::ffi::OsString;
use std::path::PathBuf;

/// Which kind of folder [`state_folder`] found, which decides who may delete it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFolderKind {
    /// The app package's LocalState (`Windows.Storage.ApplicationData.Current.LocalFolder`):
    /// Windows removes it with the app.
    PackageLocalState,
    /// No package identity (the exe started outside its package, e.g. under
    /// Wine): `%LOCALAPPDATA%\holoterrain`.
    UserLocalAppData,
    /// Linux: `$XDG_STATE_HOME/holoterrain`, by default `~/.local/state/holoterrain`.
    XdgState,
}

/// The app's state folder; it exists once [`state_folder`] returned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFolder {
    /// The folder.
    pub path: PathBuf,
    /// Where it comes from.
    pub kind: StateFolderKind,
}

/// Why there is no state folder.
#[derive(Debug, thiserror::Error)]
pub enum StateFolderError {
    /// Packaged, but Windows did not give the package's LocalState folder.
    #[error(
        "the app package's LocalState folder is not available ({0}); reinstall the holoterrain package"
    )]
    LocalState(String),
    /// Neither the package nor the environment names a folder.
    #[cfg_attr(
        not(windows),
        error("no folder for holoterrain's state: set XDG_STATE_HOME or HOME")
    )]
    #[cfg_attr(
        windows,
        error(
            "no folder for holoterrain's state: LOCALAPPDATA is not set; run it as a signed-in user"
        )
    )]
    NoUserFolder,
    /// The folder could not be created.
    #[error("cannot create holoterrain's state folder {path}: {source}")]
    Create {
        /// The folder.
        path: PathBuf,
        /// Why creating it failed.
        source: std::io::Error,
    },
}

/// The app's state folder, created if missing: inside an app package (the
/// HoloLens 2 app) its LocalState, else the per-user folder of
/// [`StateFolderKind`]. The one place that decides where state lives.
pub fn state_folder() -> Result<StateFolder, StateFolderError> {
    let folder = match package_local_state()? {
        Some(path) => StateFolder {
            path,
            kind: StateFolderKind::PackageLocalState,
        },
        None => user_state_folder(|name| std::env::var_os(name))?,
    };
    std::fs::create_dir_all(&folder.path).map_err(|source| StateFolderError::Create {
        path: folder.path.clone(),
        source,
    })?;
    Ok(folder)
}

/// The per-user folder, from the environment `var` reads.
#[cfg(windows)]
fn user_state_folder(
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<StateFolder, StateFolderError> {
    let local = non_empty(var("LOCALAPPDATA")).ok_or(StateFolderError::NoUserFolder)?;
    Ok(StateFolder {
        path: PathBuf::from(local).join("holoterrain"),
        kind: StateFolderKind::UserLocalAppData,
    })
}

/// The per-user folder, from the environment `var` reads.
#[cfg(not(windows))]
fn user_state_folder(
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<StateFolder, StateFolderError> {
    let base = match non_empty(var("XDG_STATE_HOME")) {
        Some(state) => PathBuf::from(state),
        None => PathBuf::from(non_empty(var("HOME")).ok_or(StateFolderError::NoUserFolder)?)
            .join(".local/state"),
    };
    Ok(StateFolder {
        path: base.join("holoterrain"),
        kind: StateFolderKind::XdgState,
    })
}

/// An environment value, unless it is missing or empty (which the XDG rules
/// treat alike).
fn non_empty(value: Option<OsString>) -> Option<OsString> {
    value.filter(|value| !value.is_empty())
}

/// The package's LocalState when the process has package identity, `None`
/// when it has none.
#[cfg(windows)]
fn package_local_state() -> Result<Option<PathBuf>, StateFolderError> {
    use windows::Storage::ApplicationData;
    use windows_sys::Win32::Foundation::APPMODEL_ERROR_NO_PACKAGE;
    use windows_sys::Win32::Storage::Packaging::Appx::GetCurrentPackageFamilyName;

    let mut length = 0u32;
    // SAFETY: a zero length with a null buffer only asks for the length (or
    // whether there is a package at all); nothing is written through it.
    let status = unsafe { GetCurrentPackageFamilyName(&mut length, std::ptr::null_mut()) };
    if status == APPMODEL_ERROR_NO_PACKAGE {
        return Ok(None);
    }
    let local_state = ApplicationData::Current()
        .and_then(|data| data.LocalFolder())
        .and_then(|folder| folder.Path())
        .map_err(|error| StateFolderError::LocalState(error.to_string()))?;
    Ok(Some(PathBuf::from(local_state.to_os_string())))
}

/// Outside Windows there are no app packages.
#[cfg(not(windows))]
fn package_local_state() -> Result<Option<PathBuf>, StateFolderError> {
    Ok(None)
}

#[cfg(all(test, not(windows)))]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn xdg_state_home_wins_over_home() {
        let folder = user_state_folder(env(&[("XDG_STATE_HOME", "/s"), ("HOME", "/h")])).unwrap();
        assert_eq!(folder.path, PathBuf::from("/s/holoterrain"));
        assert_eq!(folder.kind, StateFolderKind::XdgState);
    }

    #[test]
    fn without_xdg_state_home_the_folder_is_under_home() {
        for pairs in [
            &[("HOME", "/h")][..],
            &[("XDG_STATE_HOME", ""), ("HOME", "/h")],
        ] {
            let folder = user_state_folder(env(pairs)).unwrap();
            assert_eq!(folder.path, PathBuf::from("/h/.local/state/holoterrain"));
        }
    }

    #[test]
    fn without_home_there_is_no_folder_and_the_error_says_what_to_set() {
        let error = user_state_folder(env(&[("HOME", "")])).unwrap_err();
        assert!(matches!(error, StateFolderError::NoUserFolder));
        assert!(
            error.to_string().contains("set XDG_STATE_HOME or HOME"),
            "{error}"
        );
    }
}
