//! Files written whole or not at all: a temp file beside the target, renamed over it on success.
use std::io::{self, Write};
use std::path::Path;

use tempfile::NamedTempFile;

/// A temp file in `dir` that becomes an ordinary file (mode 0644, not the
/// temp file's private 0600) when persisted.
pub fn temp_file_in(dir: &Path) -> io::Result<NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".holoterrain-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    builder.tempfile_in(dir)
}

/// Writes `bytes` to `path` through a temp file in the same folder, so that
/// `path` holds either its old content or all of the new, never a part.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_all(&[(path, bytes)]).map_err(|(_, error)| error)
}

/// Writes several files, each through a temp file beside it; all are written
/// in full before the first is renamed into place, so a failure to write any
/// of them leaves none behind. Names the file that failed.
///
/// A target that is a device, a pipe or a socket (`--out /dev/null`,
/// `/dev/stdout`) is written into directly, last: renaming a file over it
/// would replace the device itself (as root, `/dev/null` became a file).
pub fn write_all<'a>(files: &[(&'a Path, &[u8])]) -> Result<(), (&'a Path, io::Error)> {
    let mut written = Vec::with_capacity(files.len());
    let mut special = Vec::new();
    for &(path, bytes) in files {
        if is_special(path) {
            special.push((path, bytes));
            continue;
        }
        let mut file = temp_file_in(folder_of(path)).map_err(|e| (path, e))?;
        file.write_all(bytes)
            .and_then(|()| file.as_file().sync_all())
            .map_err(|e| (path, e))?;
        written.push((path, file));
    }
    for (path, file) in written {
        file.persist(path).map_err(|e| (path, e.error))?;
    }
    for (path, bytes) in special {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut target| target.write_all(bytes))
            .map_err(|e| (path, e))?;
    }
    Ok(())
}

/// Whether `path` exists and is neither a plain file nor a folder.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir())
}

/// The folder a file goes in: its parent, or the current folder.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn writes_the_bytes_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write(&path, b"abc").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"abc");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_target_is_written_into_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        write(Path::new("/dev/null"), b"gone").unwrap();
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_written_file_is_readable_by_others() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write(&path, b"x").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }

    #[test]
    fn one_unwritable_file_leaves_none_of_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.bin");
        let bad = dir.path().join("missing/bad.bin");
        let err = write_all(&[(&good, b"a"), (&bad, b"b")]).unwrap_err();
        assert_eq!(err.0, bad.as_path());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_folder_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write(&dir.path().join("no/such/out.bin"), b"x").is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
