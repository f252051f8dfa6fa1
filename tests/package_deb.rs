//! The Debian package as a user gets it: `scripts/build-deb.sh` builds it,
//! lintian judges it, and apt installs it into a clean Debian 12 chroot
//! (`scripts/deb-chroot.sh`) where the installed program runs from PATH, its
//! man page and desktop entry work, and `apt purge` takes every file back.
//!
//! Needs root (release build, debootstrap, mount, chroot) and the Debian
//! mirror; without them the tests print why they are skipped, unless env CI
//! is set, when they fail instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Skips (returns false, printing why) or, when env CI is set, panics.
fn skip(reason: &str) -> bool {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set, so this test must run, but: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
    false
}

/// Whether this process is root (the chroot and the release build need it).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
}

/// Builds the .deb once for all tests here (scripts/build-deb.sh) and
/// returns its path; None (after printing why) when this cannot run here.
fn built_deb() -> Option<PathBuf> {
    static DEB: OnceLock<PathBuf> = OnceLock::new();
    if !is_root() {
        skip("not root: the package tests build a release, debootstrap and chroot");
        return None;
    }
    let deb = DEB.get_or_init(|| {
        let output = Command::new(repo().join("scripts/build-deb.sh"))
            .output()
            .expect("run scripts/build-deb.sh");
        assert!(
            output.status.success(),
            "scripts/build-deb.sh failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let path = PathBuf::from(stdout.lines().last().expect("build-deb.sh prints the .deb"));
        let expected = format!("holoterrain_{}-1_amd64.deb", env!("CARGO_PKG_VERSION"));
        assert_eq!(
            path.file_name().and_then(|name| name.to_str()),
            Some(expected.as_str()),
            "the .deb is named for the crate's version"
        );
        path
    });
    Some(deb.clone())
}

/// Runs a command and returns its stdout, panicking with its stderr on failure.
fn stdout_of(command: &mut Command) -> String {
    let output = command.output().expect("start command");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn lintian_reports_no_error_and_no_warning_beyond_the_listed_overrides() {
    let Some(deb) = built_deb() else { return };
    if Command::new("lintian").arg("--version").output().is_err() {
        skip("lintian is not installed (scripts/install-deps.sh test installs it)");
        return;
    }
    // Overridden tags (packaging/debian/lintian-overrides, shipped in the
    // package) print as "O:"; every other warning or error fails here.
    let output = Command::new("lintian")
        .arg(&deb)
        .output()
        .expect("run lintian");
    let report = String::from_utf8_lossy(&output.stdout);
    let complaints: Vec<&str> = report
        .lines()
        .filter(|line| line.starts_with("E:") || line.starts_with("W:"))
        .collect();
    assert!(
        complaints.is_empty(),
        "lintian complains:\n{}",
        complaints.join("\n")
    );
    assert!(
        output.status.success(),
        "lintian failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn control_file_names_runtime_libraries_driver_and_runtime() {
    let Some(deb) = built_deb() else { return };
    let field = |name: &str| {
        stdout_of(Command::new("dpkg-deb").arg("--field").arg(&deb).arg(name))
            .trim()
            .to_owned()
    };
    let depends = field("Depends");
    for library in ["libc6", "libvulkan1", "libopenxr-loader1"] {
        assert!(
            depends.contains(library),
            "Depends lacks {library}: {depends}"
        );
    }
    assert_eq!(field("Recommends"), "mesa-vulkan-drivers | vulkan-icd");
    assert_eq!(field("Suggests"), "libopenxr1-monado");
    let contents = stdout_of(Command::new("dpkg-deb").arg("--contents").arg(&deb));
    for path in [
        "./usr/bin/holoterrain",
        "./usr/share/man/man1/holoterrain.1.gz",
        "./usr/share/man/man1/holoterrain-sim.1.gz",
        "./usr/share/man/man1/holoterrain-xr.1.gz",
        "./usr/share/man/man1/holoterrain-generate.1.gz",
        "./usr/share/bash-completion/completions/holoterrain",
        "./usr/share/zsh/vendor-completions/_holoterrain",
        "./usr/share/fish/vendor_completions.d/holoterrain.fish",
        "./usr/share/applications/io.github.holoterrain.Holoterrain.desktop",
        "./usr/share/metainfo/io.github.holoterrain.Holoterrain.metainfo.xml",
        "./usr/share/icons/hicolor/128x128/apps/io.github.holoterrain.Holoterrain.png",
        "./usr/share/doc/holoterrain/copyright",
        "./usr/share/doc/holoterrain/README.md",
    ] {
        assert!(
            contents.lines().any(|line| line.ends_with(path)),
            "the package lacks {path}"
        );
    }
}

/// Reads a file the in-chroot check left behind.
fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("the chroot check left no readable {name}: {e}"))
}

/// Lines of a file as a set.
fn line_set(dir: &Path, name: &str) -> BTreeSet<String> {
    read(dir, name).lines().map(str::to_owned).collect()
}

/// Names of the packages dpkg lists as installed in a `dpkg-query` listing.
fn installed_packages(dir: &Path, name: &str) -> BTreeSet<String> {
    read(dir, name)
        .lines()
        .filter(|line| line.ends_with("install ok installed"))
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn installs_into_clean_debian_runs_from_path_and_purges_without_trace() {
    let Some(deb) = built_deb() else { return };
    let chroot_script = repo().join("scripts/deb-chroot.sh");
    let prepared = Command::new(&chroot_script)
        .arg("prepare")
        .output()
        .expect("run scripts/deb-chroot.sh prepare");
    if !prepared.status.success() {
        skip(&format!(
            "the clean Debian chroot cannot be prepared: {}",
            String::from_utf8_lossy(&prepared.stderr).trim()
        ));
        return;
    }

    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory");
    let dir = scratch.path();
    let deb_inside = dir.join(deb.file_name().expect(".deb file name"));
    std::fs::copy(&deb, &deb_inside).expect("copy the .deb into the scratch directory");
    let check = repo().join("tests/data/package/installed-check.sh");
    let check_inside = dir.join("installed-check.sh");
    std::fs::copy(&check, &check_inside).expect("copy the check script");
    let output = Command::new(&chroot_script)
        .arg("run")
        .arg("--bind")
        .arg(dir)
        .arg("--")
        .arg(&check_inside)
        .arg(dir)
        .arg(&deb_inside)
        .output()
        .expect("run scripts/deb-chroot.sh run");
    assert!(
        output.status.success(),
        "the in-chroot check failed:\n{}\napt log:\n{}",
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(dir.join("apt-install.log")).unwrap_or_default()
    );

    // apt resolved the dependencies and the Recommends from the mirror.
    let installed = installed_packages(dir, "packages-installed.txt");
    for package in [
        "holoterrain",
        "libvulkan1",
        "libopenxr-loader1",
        "mesa-vulkan-drivers",
    ] {
        assert!(
            installed.contains(package),
            "{package} is not installed after apt install"
        );
    }
    let before_install = installed_packages(dir, "packages-before.txt");
    assert!(
        !before_install.contains("libvulkan1"),
        "the chroot was not clean: libvulkan1 was there before the install"
    );

    // The installed program runs from PATH.
    assert_eq!(read(dir, "which.txt").trim(), "/usr/bin/holoterrain");
    let report: Value =
        serde_json::from_str(&read(dir, "sim-report.json")).expect("sim report is JSON");
    assert_eq!(report["frames"], 60, "sim report: {report}");
    let sim_files = read(dir, "sim-files.txt");
    assert!(
        sim_files.lines().any(|name| name.ends_with(".png")),
        "sim wrote no PNG: {sim_files}"
    );
    // The installed `generate` writes the same bytes as the binary under test.
    let local = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("local directory");
    stdout_of(
        Command::new(env!("CARGO_BIN_EXE_holoterrain"))
            .arg("generate")
            .current_dir(local.path()),
    );
    let installed_heightmap = std::fs::read(dir.join("heightmap.png")).expect("installed output");
    let local_heightmap = std::fs::read(local.path().join("heightmap.png")).expect("local output");
    assert!(
        installed_heightmap == local_heightmap,
        "the installed holoterrain generate wrote different bytes"
    );

    // man finds and renders the subcommand's page.
    assert_eq!(
        read(dir, "man-path.txt").trim(),
        "/usr/share/man/man1/holoterrain-sim.1.gz"
    );
    let page = read(dir, "man-sim.txt");
    assert!(
        page.contains("holoterrain-sim") && page.contains("--frames"),
        "man holoterrain-sim rendered:\n{page}"
    );

    // bash loads the completion and binds it to the command.
    let completion = read(dir, "bash-complete.txt");
    assert!(
        completion.trim_end().ends_with(" holoterrain"),
        "complete -p holoterrain: {completion}"
    );

    // The desktop entry's command: with no OpenXR runtime installed it shows
    // the one-line error and keeps the terminal open until Enter.
    let desktop = read(dir, "desktop-exec.txt");
    assert!(
        desktop.contains("error: no OpenXR runtime is active"),
        "the desktop command did not show the runtime error:\n{desktop}"
    );
    assert!(
        desktop.contains("Press Enter to close"),
        "the desktop command did not wait for Enter:\n{desktop}"
    );

    // Purge: every packaged file is gone, no path names holoterrain, the
    // packages are as before, and the only new paths are the user's own cache.
    let after = line_set(dir, "after.txt");
    let before = line_set(dir, "before.txt");
    let packaged = line_set(dir, "package-files.txt");
    let left_packaged: Vec<&String> = packaged
        .iter()
        .filter(|path| !before.contains(*path) && after.contains(*path))
        .collect();
    assert!(left_packaged.is_empty(), "purge left {left_packaged:?}");
    let named: Vec<&String> = after
        .iter()
        .filter(|path| path.contains("holoterrain"))
        .collect();
    assert!(named.is_empty(), "after purge these remain: {named:?}");
    assert_eq!(
        installed_packages(dir, "packages-after.txt"),
        before_install,
        "purge and autoremove did not bring the package set back"
    );
    let removed: Vec<&String> = before.difference(&after).collect();
    assert!(
        removed.is_empty(),
        "install and purge removed files: {removed:?}"
    );
    // Mesa keeps its shader cache in the home of the user who ran the app;
    // apt never touches a user's home.
    let added: Vec<&String> = after
        .difference(&before)
        .filter(|path| !path.starts_with("/root/.cache"))
        .collect();
    assert!(added.is_empty(), "after purge these are new: {added:?}");
}
