//! The chroot scripts' shared code (scripts/chroot-lib.sh): the Debian
//! mirror taken from the host's apt sources (one-line and deb822 files),
//! overridable and with a fallback, the same in every script; and, in the
//! Wine chroot, a bind path holding a space, a read-only bind and SIGTERM
//! passed on to the command.
//!
//! The mirror tests read apt sources written here (`HOLOTERRAIN_APT_DIR`)
//! and need nothing else. The run tests need root and the Wine chroot
//! (scripts/wine-chroot.sh prepare); without them they print why they are
//! skipped, unless env CI is set, when they fail instead.

mod support {
    pub mod ci;
}

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use support::ci::skip;

/// The scripts that build a chroot from a Debian mirror.
const CHROOT_SCRIPTS: [&str; 3] = ["monado-chroot.sh", "wine-chroot.sh", "deb-chroot.sh"];

/// How long a chroot run may take to start (its lock may wait for another
/// test's run).
const PATIENCE: Duration = Duration::from_secs(300);

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
}

/// The mirror `script` prints for the apt configuration in `apt_dir`, with
/// `HOLOTERRAIN_DEBIAN_MIRROR` set to `overridden` when given.
fn mirror(script_name: &str, apt_dir: &Path, overridden: Option<&str>) -> String {
    let mut command = Command::new(script(script_name));
    command
        .arg("mirror")
        .env("HOLOTERRAIN_APT_DIR", apt_dir)
        .env_remove("HOLOTERRAIN_DEBIAN_MIRROR");
    if let Some(mirror) = overridden {
        command.env("HOLOTERRAIN_DEBIAN_MIRROR", mirror);
    }
    let output = command.output().expect("run the chroot script");
    assert!(
        output.status.success(),
        "{script_name} mirror: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// An apt configuration directory holding `files` (path below it, text).
fn apt_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sources.list.d")).unwrap();
    for (path, text) in files {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    dir
}

#[test]
fn the_mirror_is_the_first_debian_archive_of_a_one_line_sources_list() {
    let apt = apt_dir(&[(
        "sources.list",
        "# deb http://commented.example/debian bookworm main\n\
         deb [signed-by=/k.gpg] http://security.example/debian-security bookworm-security main\n\
         deb https://download.docker.example/linux/debian bookworm stable\n\
         deb-src http://sources.example/debian bookworm main\n\
         deb [ arch=amd64 trusted=yes ] http://mirror.example.org/debian bookworm main contrib\n\
         deb http://later.example/debian bookworm main\n",
    )]);
    assert_eq!(
        mirror("monado-chroot.sh", apt.path(), None),
        "http://mirror.example.org/debian"
    );
}

#[test]
fn the_mirror_is_the_first_debian_archive_of_a_deb822_sources_file() {
    let apt = apt_dir(&[(
        "sources.list.d/debian.sources",
        "Types: deb\n\
         URIs: http://disabled.example/debian\n\
         Suites: trixie\n\
         Components: main\n\
         Enabled: no\n\
         \n\
         Types: deb\n\
         URIs: http://archive.ubuntu.example/ubuntu\n\
         Suites: noble noble-updates\n\
         Components: main universe\n\
         \n\
         # the security archive is another archive\n\
         Types: deb\n\
         URIs: http://security.example/debian-security\n\
         Suites: trixie-security\n\
         Components: main\n\
         \n\
         Types: deb-src deb\n\
         URIs: https://proxy.example:3142/debian http://second.example/debian\n\
         Suites: trixie-updates trixie\n\
         Components: contrib main\n\
         Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
    )]);
    assert_eq!(
        mirror("wine-chroot.sh", apt.path(), None),
        "https://proxy.example:3142/debian"
    );
}

#[test]
fn sources_list_comes_before_sources_list_d_and_its_files_go_by_name() {
    let apt = apt_dir(&[
        (
            "sources.list",
            "deb http://archive.ubuntu.example/ubuntu jammy main\n",
        ),
        (
            "sources.list.d/b.list",
            "deb http://b.example/debian bookworm main\n",
        ),
        (
            "sources.list.d/a.sources",
            "Types: deb\nURIs: http://a.example/debian\nSuites: stable\nComponents: main\n",
        ),
        (
            "sources.list.d/0.list.disabled",
            "deb http://disabled.example/debian bookworm main\n",
        ),
    ]);
    assert_eq!(
        mirror("deb-chroot.sh", apt.path(), None),
        "http://a.example/debian"
    );
}

#[test]
fn every_chroot_script_takes_the_same_mirror_and_the_variable_overrides_it() {
    let apt = apt_dir(&[(
        "sources.list",
        "deb http://mirror.example.org/debian trixie main\n",
    )]);
    let empty = apt_dir(&[]);
    for name in CHROOT_SCRIPTS {
        assert_eq!(
            mirror(name, apt.path(), None),
            "http://mirror.example.org/debian",
            "{name}"
        );
        assert_eq!(
            mirror(name, apt.path(), Some("http://chosen.example/debian")),
            "http://chosen.example/debian",
            "{name}"
        );
        assert_eq!(
            mirror(name, empty.path(), None),
            "http://deb.debian.org/debian",
            "{name} without a Debian archive in the apt sources"
        );
    }
}

/// Prepares the Wine chroot (once; later calls return at once). False,
/// after printing why, when it cannot be made here (not root, no mirror).
fn wine_chroot_ready() -> bool {
    match Command::new(script("wine-chroot.sh"))
        .arg("prepare")
        .output()
    {
        Ok(output) if output.status.success() => true,
        Ok(output) => skip(&format!(
            "the Wine chroot cannot be prepared: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => skip(&format!("cannot run wine-chroot.sh: {error}")),
    }
}

/// A scratch directory under the target dir, whose name holds a space.
fn scratch_with_a_space() -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let spaced = scratch.path().join("a dir with spaces");
    std::fs::create_dir(&spaced).unwrap();
    (scratch, spaced)
}

/// Runs a chroot script's `run` with no input and returns what it printed,
/// failing with its stderr unless it succeeded.
fn stdout_of_success(run: &mut Command) -> String {
    let output = run
        .stdin(Stdio::null())
        .output()
        .expect("run the chroot script");
    assert!(
        output.status.success(),
        "exit {}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_bind_path_with_spaces_reaches_the_command_whole() {
    if !wine_chroot_ready() {
        return;
    }
    let (_scratch, spaced) = scratch_with_a_space();
    std::fs::write(spaced.join("marker"), "seen from inside\n").unwrap();
    let mut run = Command::new(script("wine-chroot.sh"));
    run.arg("run")
        .arg("--bind")
        .arg(&spaced)
        .args(["--", "cat"])
        .arg(spaced.join("marker"));
    assert_eq!(stdout_of_success(&mut run), "seen from inside\n");
}

#[test]
fn a_read_only_bind_is_read_inside_but_not_written_and_a_plain_one_is_written() {
    if !wine_chroot_ready() {
        return;
    }
    let (_read_only_scratch, read_only) = scratch_with_a_space();
    let (_writable_scratch, writable) = scratch_with_a_space();
    std::fs::write(read_only.join("marker"), "kept\n").unwrap();
    let mut run = Command::new(script("wine-chroot.sh"));
    run
        .arg("run")
        .arg("--bind-ro")
        .arg(&read_only)
        .arg("--bind")
        .arg(&writable)
        .args([
            "--",
            "sh",
            "-c",
            "cat \"$1/marker\"; echo changed > \"$1/marker\" || echo refused; echo written > \"$2/new\"",
            "sh",
        ])
        .arg(&read_only)
        .arg(&writable);
    assert_eq!(stdout_of_success(&mut run), "kept\nrefused\n");
    assert_eq!(
        std::fs::read_to_string(read_only.join("marker")).unwrap(),
        "kept\n"
    );
    assert_eq!(
        std::fs::read_to_string(writable.join("new")).unwrap(),
        "written\n"
    );
}

#[test]
fn sigterm_to_the_wine_chroot_script_reaches_the_command_and_its_status_returns() {
    if !wine_chroot_ready() {
        return;
    }
    let mut child = Command::new(script("wine-chroot.sh"))
        .args(["run", "--", "sh", "-c"])
        .arg("trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.1; done")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run wine-chroot.sh");
    let (lines, arrivals) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    assert_eq!(arrivals.recv_timeout(PATIENCE).as_deref(), Ok("ready"));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    assert_eq!(
        arrivals.recv_timeout(Duration::from_secs(30)).as_deref(),
        Ok("got TERM"),
        "the command did not hear the SIGTERM"
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(7), "the command's own status: {status}");
}
