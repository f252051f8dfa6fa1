//! A runtime the app selects for itself by its manifest, loaded the way the
//! OpenXR loader loads one: the manifest's `library_path` (relative to the
//! manifest when it has a directory in it, else found by the system's
//! library search), its `xrNegotiateLoaderRuntimeInterface` (or the name
//! the manifest's `functions` gives it), and the `xrGetInstanceProcAddr`
//! that negotiation hands back.
//!
//! Holographic Remoting needs this: the remoting runtime is not the PC's
//! active runtime, and the Khronos loader ignores `XR_RUNTIME_JSON` in an
//! elevated process (an Administrator prompt; Wine runs every program
//! elevated), so setting the variable does not select it. Microsoft's
//! remote sample finds `RemotingXR.json` beside its exe. Plain `xr` never
//! comes here: it takes the loader's active runtime.

use std::collections::HashMap;
use std::ffi::{CString, OsString};
use std::path::{Path, PathBuf};

use openxr as xr;
use serde::Deserialize;

use crate::xr::error::XrError;

/// The remoting runtime's manifest file name, in Microsoft's package.
pub const REMOTING_MANIFEST_NAME: &str = "RemotingXR.json";

/// The loader's runtime-selecting environment variable.
pub const RUNTIME_JSON_VARIABLE: &str = "XR_RUNTIME_JSON";

/// The negotiation entry point's name, unless the manifest renames it.
const NEGOTIATE: &str = "xrNegotiateLoaderRuntimeInterface";

/// Where a manifest was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestOrigin {
    /// `--remote-runtime PATH`.
    Flag,
    /// `RemotingXR.json` in the folder of the program.
    BesideProgram,
    /// The `XR_RUNTIME_JSON` environment variable.
    Environment,
}

impl ManifestOrigin {
    /// How the report and messages name it.
    pub fn name(self) -> &'static str {
        match self {
            ManifestOrigin::Flag => "--remote-runtime",
            ManifestOrigin::BesideProgram => "beside the program",
            ManifestOrigin::Environment => RUNTIME_JSON_VARIABLE,
        }
    }
}

/// A runtime manifest and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeManifest {
    /// The manifest file.
    pub path: PathBuf,
    /// How it was found.
    pub origin: ManifestOrigin,
}

/// The remoting runtime's manifest: `flag` (`--remote-runtime`), else
/// `RemotingXR.json` in `program_dir` when it exists there, else
/// `environment` (`XR_RUNTIME_JSON`); `None` when there is none of them.
pub fn find_remoting_runtime(
    flag: Option<&Path>,
    program_dir: Option<&Path>,
    environment: Option<OsString>,
) -> Option<RuntimeManifest> {
    let found = |path: PathBuf, origin| Some(RuntimeManifest { path, origin });
    if let Some(path) = flag {
        return found(path.to_owned(), ManifestOrigin::Flag);
    }
    if let Some(beside) = program_dir
        .map(|dir| dir.join(REMOTING_MANIFEST_NAME))
        .filter(|path| path.is_file())
    {
        return found(beside, ManifestOrigin::BesideProgram);
    }
    environment
        .filter(|value| !value.is_empty())
        .and_then(|value| found(PathBuf::from(value), ManifestOrigin::Environment))
}

/// The folder of the running program, where `RemotingXR.json` may lie.
pub fn program_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_owned))
}

/// A runtime manifest's contents, as far as loading needs them.
#[derive(Debug, Deserialize)]
struct ManifestFile {
    /// The manifest format, "1.0.0".
    file_format_version: String,
    /// The runtime.
    runtime: ManifestRuntime,
}

/// The manifest's `runtime` object.
#[derive(Debug, Deserialize)]
struct ManifestRuntime {
    /// The runtime library.
    library_path: String,
    /// Loader entry points the library exports under other names.
    #[serde(default)]
    functions: HashMap<String, String>,
}

/// The library a manifest at `manifest` names by `library_path`, as the
/// loader resolves it: a path with a directory in it is taken relative to
/// the manifest's folder (unless absolute); a bare file name is left to the
/// system's library search.
pub fn library_location(manifest: &Path, library_path: &str) -> PathBuf {
    let has_directory = library_path.contains(['/', '\\']);
    if !has_directory || Path::new(library_path).is_absolute() {
        return PathBuf::from(library_path);
    }
    let folder = manifest.parent().unwrap_or(Path::new(""));
    // On Windows `\` separates folders; elsewhere a manifest written for
    // Windows (`.\\runtime.dll`) still names a file in the manifest's folder.
    let relative: PathBuf = library_path.split(['/', '\\']).collect();
    folder.join(relative)
}

/// A runtime loaded from its manifest: the entry points, and the library
/// they live in, which must outlive every object made through them.
pub struct LoadedRuntime {
    /// The runtime's entry points.
    pub entry: xr::Entry,
    /// The runtime library; dropped (unloaded) last.
    _library: libloading::Library,
}

/// What else stops a runtime library that is there from loading: on
/// Windows, the Visual C++ runtime DLLs that Microsoft's remoting runtime is
/// built against, which a PC without Visual Studio or an app that brought
/// them may lack.
const LIBRARY_LOAD_HINT: &str = if cfg!(windows) {
    "; if every file of the runtime's folder is beside it, install Microsoft's Visual C++ Redistributable (vc_redist.x64.exe), whose DLLs Microsoft's remoting runtime may need"
} else {
    ""
};

/// Loads the runtime `manifest` names, as the loader does.
pub fn load(manifest: &Path) -> Result<LoadedRuntime, XrError> {
    let problem = |problem: String| XrError::RuntimeManifest {
        path: manifest.to_owned(),
        problem,
    };
    let text = std::fs::read_to_string(manifest)
        .map_err(|error| problem(format!("cannot read it ({error})")))?;
    let contents: ManifestFile = serde_json::from_str(&text)
        .map_err(|error| problem(format!("not a runtime manifest ({error})")))?;
    if !contents.file_format_version.starts_with("1.") {
        return Err(problem(format!(
            "file_format_version {} is not 1.x",
            contents.file_format_version
        )));
    }
    let library_path = library_location(manifest, &contents.runtime.library_path);
    // A bare file name is the system's to find; a path names a file.
    let names_a_file = library_path.components().count() > 1;
    if names_a_file && !library_path.is_file() {
        return Err(problem(format!(
            "its library {} is missing: copy every file of the runtime's folder, not the manifest alone",
            library_path.display()
        )));
    }
    // SAFETY: loading a runtime library runs its initialisers; a runtime
    // named by an OpenXR manifest is meant to be loaded so, as the loader does.
    let library = unsafe { libloading::Library::new(&library_path) }.map_err(|error| {
        problem(format!(
            "its library {} cannot be loaded ({error}){LIBRARY_LOAD_HINT}",
            library_path.display()
        ))
    })?;
    let negotiate_name = contents
        .runtime
        .functions
        .get(NEGOTIATE)
        .map_or(NEGOTIATE, String::as_str);
    let symbol = CString::new(negotiate_name)
        .map_err(|_| problem(format!("function name `{negotiate_name}` has a NUL")))?;
    // SAFETY: the symbol is the loader–runtime negotiation function, whose
    // type openxr_loader_negotiation.h declares as this.
    let negotiate = unsafe {
        library.get::<unsafe extern "system" fn(
            *const xr::sys::NegotiateLoaderInfo,
            *mut xr::sys::NegotiateRuntimeRequest,
        ) -> xr::sys::Result>(symbol.as_bytes_with_nul())
    }
    .map_err(|error| {
        problem(format!(
            "{} has no {negotiate_name} ({error})",
            library_path.display()
        ))
    })?;
    let loader_info = xr::sys::NegotiateLoaderInfo {
        struct_type: xr::sys::NegotiateLoaderInfo::TYPE,
        struct_version: xr::sys::NegotiateLoaderInfo::VERSION,
        struct_size: size_of::<xr::sys::NegotiateLoaderInfo>(),
        min_interface_version: 1,
        max_interface_version: xr::sys::CURRENT_LOADER_RUNTIME_VERSION as u32,
        min_api_version: xr::Version::new(1, 0, 0),
        max_api_version: xr::Version::new(1, 0x3ff, 0xfff),
    };
    let mut request = xr::sys::NegotiateRuntimeRequest {
        struct_type: xr::sys::NegotiateRuntimeRequest::TYPE,
        struct_version: xr::sys::NegotiateRuntimeRequest::VERSION,
        struct_size: size_of::<xr::sys::NegotiateRuntimeRequest>(),
        runtime_interface_version: 0,
        runtime_api_version: xr::Version::new(0, 0, 0),
        get_instance_proc_addr: None,
    };
    // SAFETY: both structures are initialised as the interface requires and
    // live across the call.
    let result = unsafe { negotiate(&loader_info, &mut request) };
    if result.into_raw() < 0 {
        return Err(problem(format!("{negotiate_name} failed ({result})")));
    }
    let interface = request.runtime_interface_version;
    let api = request.runtime_api_version;
    let get_instance_proc_addr = match request.get_instance_proc_addr {
        Some(function)
            if (1..=xr::sys::CURRENT_LOADER_RUNTIME_VERSION as u32).contains(&interface)
                && api.major() == 1 =>
        {
            function
        }
        _ => {
            return Err(problem(format!(
                "{negotiate_name} agreed on no interface this app speaks (interface {interface}, OpenXR {}.{}, xrGetInstanceProcAddr {})",
                api.major(),
                api.minor(),
                if request.get_instance_proc_addr.is_some() {
                    "given"
                } else {
                    "missing"
                }
            )));
        }
    };
    // SAFETY: negotiation gave this runtime's xrGetInstanceProcAddr, which
    // yields its OpenXR entry points; the library stays loaded with it.
    let entry = unsafe { xr::Entry::from_get_instance_proc_addr(get_instance_proc_addr, &()) }
        .map_err(|result| problem(format!("its entry points cannot be found ({result})")))?;
    Ok(LoadedRuntime {
        entry,
        _library: library,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_file_beside_the_program_then_the_variable() {
        let dir = tempfile::tempdir().unwrap();
        let beside = dir.path().join(REMOTING_MANIFEST_NAME);
        let variable = Some(OsString::from("/elsewhere/runtime.json"));
        let flag = Path::new("/given/RemotingXR.json");
        assert_eq!(
            find_remoting_runtime(Some(flag), Some(dir.path()), variable.clone()),
            Some(RuntimeManifest {
                path: flag.to_owned(),
                origin: ManifestOrigin::Flag
            })
        );
        assert_eq!(
            find_remoting_runtime(None, Some(dir.path()), variable.clone()),
            Some(RuntimeManifest {
                path: PathBuf::from("/elsewhere/runtime.json"),
                origin: ManifestOrigin::Environment
            }),
            "no RemotingXR.json beside the program yet"
        );
        std::fs::write(&beside, "{}").unwrap();
        assert_eq!(
            find_remoting_runtime(None, Some(dir.path()), variable),
            Some(RuntimeManifest {
                path: beside,
                origin: ManifestOrigin::BesideProgram
            })
        );
    }

    #[test]
    fn no_flag_no_file_and_no_variable_find_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_remoting_runtime(None, Some(dir.path()), None), None);
        assert_eq!(
            find_remoting_runtime(None, None, Some(OsString::new())),
            None,
            "an empty variable names nothing"
        );
    }

    #[test]
    fn library_paths_resolve_as_the_loader_resolves_them() {
        let manifest = Path::new("/opt/remoting/RemotingXR.json");
        assert_eq!(
            library_location(manifest, "./Microsoft.Holographic.AppRemoting.OpenXr.dll"),
            Path::new("/opt/remoting/./Microsoft.Holographic.AppRemoting.OpenXr.dll")
        );
        assert_eq!(
            library_location(manifest, ".\\holoterrain_testrt.dll"),
            Path::new("/opt/remoting/./holoterrain_testrt.dll")
        );
        assert_eq!(
            library_location(manifest, "libopenxr_monado.so"),
            Path::new("libopenxr_monado.so"),
            "a bare name is left to the library search"
        );
        assert_eq!(
            library_location(manifest, "/usr/lib/runtime.so"),
            Path::new("/usr/lib/runtime.so")
        );
    }

    #[test]
    fn a_manifest_that_is_not_one_says_so_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("missing.json", None, "cannot read it"),
            ("text.json", Some("not json"), "not a runtime manifest"),
            (
                "old.json",
                Some(r#"{"file_format_version": "2.0.0", "runtime": {"library_path": "x.so"}}"#),
                "file_format_version 2.0.0",
            ),
            (
                "nolib.json",
                Some(
                    r#"{"file_format_version": "1.0.0", "runtime": {"library_path": "./absent.so"}}"#,
                ),
                "absent.so is missing",
            ),
            (
                "garbage.json",
                Some(
                    r#"{"file_format_version": "1.0.0", "runtime": {"library_path": "./garbage.json"}}"#,
                ),
                "garbage.json cannot be loaded",
            ),
        ];
        for (name, contents, says) in cases {
            let path = dir.path().join(name);
            if let Some(contents) = contents {
                std::fs::write(&path, contents).unwrap();
            }
            let error = match load(&path) {
                Err(error) => error.to_string(),
                Ok(_) => panic!("{name} loaded"),
            };
            assert!(
                error.contains(says) && error.contains(name),
                "{name}: {error}"
            );
        }
    }
}
