//! The HoloLens 2 app: its package as scripts/build-hololens.sh leaves it
//! (the checks of scripts/hololens/msix.py pass, and each fails on a package
//! or exe broken the way it guards against; the signature verifies), the
//! build script's one-line errors, and the packaged entry started with no
//! runtime, on Linux and (the x86-64 Windows build) under Wine: it logs to
//! its state folder and fails as documented, without crashing.
//!
//! Nothing here runs the ARM64 exe: no machine here runs ARM64 Windows code.

mod support {
    pub mod ci;
    // Shared with tests/windows_wine.rs; this file uses only part of it.
    #[allow(dead_code)]
    pub mod wine;
}

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::ci::skip;
use support::wine;

/// The repository root.
fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The target directory this test was built in, where the build script
/// leaves the package.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory")
        .to_path_buf()
}

fn version() -> String {
    let manifest = std::fs::read_to_string(repository().join("Cargo.toml")).expect("Cargo.toml");
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("a version in Cargo.toml")
        .to_owned()
}

/// The toolchain cache the build script uses (its windowsapp export list).
fn cache() -> PathBuf {
    std::env::var_os("HOLOTERRAIN_HOLOLENS_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/cache/holoterrain/hololens"))
}

/// What scripts/build-hololens.sh built and checks against.
struct Built {
    /// The signed package.
    package: PathBuf,
    /// Its test certificate (DER).
    certificate: PathBuf,
    /// The owner's guide beside them.
    guide: PathBuf,
    /// The exe as packed (app container flag set).
    exe: PathBuf,
    /// The windowsapp export list.
    windowsapp: PathBuf,
}

/// The build's outputs, or `None` after skipping (failing under CI) when
/// scripts/build-hololens.sh has not run.
fn built() -> Option<Built> {
    let dist = target_dir().join("dist");
    let name = format!("holoterrain-{}-hololens2", version());
    let built = Built {
        package: dist.join(format!("{name}-arm64.msix")),
        certificate: dist.join(format!("{name}-test.cer")),
        guide: dist.join(format!("{name}-README.txt")),
        exe: target_dir().join("hololens/package/holoterrain.exe"),
        windowsapp: cache().join("windowsapp/windowsapp-exports.txt"),
    };
    for path in [
        &built.package,
        &built.certificate,
        &built.guide,
        &built.exe,
        &built.windowsapp,
    ] {
        if !path.is_file() {
            skip(&format!(
                "{} is missing: run scripts/build-hololens.sh",
                path.display()
            ));
            return None;
        }
    }
    Some(built)
}

fn msix_py() -> PathBuf {
    repository().join("scripts/hololens/msix.py")
}

fn allowed_imports() -> PathBuf {
    repository().join("scripts/hololens/allowed-imports.txt")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `msix.py exe|package PATH` against the repository's allow list.
fn msix_check(built: &Built, kind: &str, path: &Path) -> Output {
    Command::new("python3")
        .arg(msix_py())
        .arg(kind)
        .arg(path)
        .arg("--windowsapp")
        .arg(&built.windowsapp)
        .arg("--allowed")
        .arg(allowed_imports())
        .output()
        .expect("run python3 scripts/hololens/msix.py")
}

/// Asserts the check failed and named `problem` among its problems.
fn assert_check_fails_with(output: &Output, problem: &str) {
    let stderr = text(&output.stderr);
    assert!(
        !output.status.success(),
        "the check passed, expected it to find: {problem}"
    );
    assert!(
        stderr.lines().any(|line| line.contains(problem)),
        "expected a problem containing {problem:?}, got:\n{stderr}"
    );
}

/// A copy of the packed exe in `dir`, changed by `change`.
fn changed_exe(built: &Built, dir: &Path, change: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(&built.exe).expect("read the packed exe");
    change(&mut bytes);
    let path = dir.join("holoterrain.exe");
    std::fs::write(&path, bytes).expect("write the changed exe");
    path
}

/// The offset of the PE optional header.
fn optional_header(exe: &[u8]) -> usize {
    let pe = u32::from_le_bytes(exe[0x3c..0x40].try_into().expect("4 bytes")) as usize;
    pe + 24
}

/// A copy of the package in `dir` with member `member` rewritten by the
/// Python expression `transform` over its bytes `data` (zip entries cannot
/// be changed in place without breaking their checksums, which would hide
/// the check under test).
fn changed_package(built: &Built, dir: &Path, member: &str, transform: &str) -> PathBuf {
    let path = dir.join("changed.msix");
    let script = format!(
        "import sys, zipfile\n\
         source, target, member = sys.argv[1:4]\n\
         with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, 'w') as new:\n\
         \x20   for info in old.infolist():\n\
         \x20       data = old.read(info)\n\
         \x20       if info.filename == member:\n\
         \x20           data = {transform}\n\
         \x20       new.writestr(info, data)\n"
    );
    let status = Command::new("python3")
        .args(["-c", &script])
        .arg(&built.package)
        .arg(&path)
        .arg(member)
        .status()
        .expect("run python3");
    assert!(status.success(), "rewriting {member} failed");
    path
}

/// Writes the build's .cer (DER) as PEM to `pem`, asserting it is a certificate.
fn pem_certificate(built: &Built, pem: &Path) {
    let converted = Command::new("openssl")
        .args(["x509", "-inform", "DER", "-in"])
        .arg(&built.certificate)
        .arg("-out")
        .arg(pem)
        .status()
        .expect("run openssl");
    assert!(converted.success(), "the .cer is not a DER certificate");
}

#[test]
fn the_built_package_passes_every_check() {
    let Some(built) = built() else { return };
    let output = msix_check(&built, "package", &built.package);
    assert!(
        output.status.success(),
        "msix.py package failed:\n{}",
        text(&output.stderr)
    );
}

/// The labels' font is built into the exe, so its licence ships in the
/// package, as src/render/font/DejaVu-LICENSE.txt has it.
#[test]
fn the_package_carries_the_fonts_licence() {
    let Some(built) = built() else { return };
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
        ])
        .arg(&built.package)
        .arg("LICENSES/DejaVu-fonts.txt")
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "no LICENSES/DejaVu-fonts.txt in the package: {}",
        text(&output.stderr)
    );
    let licence = std::fs::read(repository().join("src/render/font/DejaVu-LICENSE.txt")).unwrap();
    assert_eq!(output.stdout, licence);
}

/// The guide beside the package is its source with the files' real names,
/// and takes an owner through Microsoft's steps in Microsoft's order.
#[test]
fn the_guide_beside_the_package_names_its_files_and_keeps_microsofts_order() {
    let Some(built) = built() else { return };
    let guide = std::fs::read_to_string(&built.guide).expect("the guide");
    let source =
        std::fs::read_to_string(repository().join("packaging/hololens/README-hololens.txt"))
            .expect("the guide's source");
    let file_name = |path: &Path| path.file_name().unwrap().to_str().unwrap().to_owned();
    assert_eq!(
        guide,
        source
            .replace("@VERSION@", &version())
            .replace("@CERTIFICATE@", &file_name(&built.certificate)),
        "the built guide is its source with the version and certificate filled in"
    );
    for shipped in [&built.package, &built.certificate] {
        assert!(
            guide.contains(&file_name(shipped)),
            "the guide names {}",
            file_name(shipped)
        );
    }
    let steps = [
        "\"Developer Mode\"",
        "\"Device Portal\"",
        "\"Request pin\"",
        "at least seven characters",
        "\"Install Certificate\"",
        "\"Local Storage\"",
        "All apps",
    ];
    let places: Vec<usize> = steps
        .iter()
        .map(|step| {
            guide
                .find(step)
                .unwrap_or_else(|| panic!("the guide lacks {step}"))
        })
        .collect();
    assert!(
        places.windows(2).all(|pair| pair[0] < pair[1]),
        "the steps {steps:?} come in this order, found at {places:?}"
    );
    assert!(!guide.contains('@'), "a placeholder is left in the guide");

    // The Windows zip's copy (scripts/build-windows.sh) names the test certificate.
    let zipped = target_dir()
        .join("dist")
        .join(format!("holoterrain-{}-windows-x86_64", version()))
        .join("README-hololens.txt");
    let Ok(zipped) = std::fs::read_to_string(&zipped) else {
        skip(&format!(
            "{} is missing: run scripts/build-windows.sh",
            zipped.display()
        ));
        return;
    };
    assert_eq!(
        zipped, guide,
        "the zip's guide is the one beside the package"
    );
}

#[test]
fn the_signature_verifies_against_the_test_certificate() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let pem = scratch.path().join("test.pem");
    pem_certificate(&built, &pem);
    let verify = |package: &Path| {
        Command::new("osslsigncode")
            .args(["verify", "-CAfile"])
            .arg(&pem)
            .arg("-in")
            .arg(package)
            .output()
            .expect("run osslsigncode")
    };
    let output = verify(&built.package);
    assert!(
        output.status.success(),
        "osslsigncode verify failed:\n{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    // One byte of the exe changed after signing: the digest no longer matches.
    let changed = changed_package(
        &built,
        scratch.path(),
        "holoterrain.exe",
        "data[:4096] + bytes([data[4096] ^ 1]) + data[4097:]",
    );
    assert!(
        !verify(&changed).status.success(),
        "a changed package still verified"
    );
}

#[test]
fn the_signature_verifies_with_the_osslsigncode_of_the_trixie_chroot_too() {
    // The one the build signs with where the machine's own is too old.
    let Some(built) = built() else { return };
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    std::fs::copy(&built.package, scratch.path().join("package.msix")).expect("copy package");
    pem_certificate(&built, &scratch.path().join("test.pem"));
    let dir = scratch.path().display();
    let output = wine::run_shell(
        scratch.path(),
        &format!(
            "osslsigncode --version | head -n 1\n\
             osslsigncode verify -CAfile {dir}/test.pem -in {dir}/package.msix >{dir}/verify.log"
        ),
    );
    assert!(
        output.status.success(),
        "verify in the chroot failed:\n{}{}",
        text(&output.stderr),
        std::fs::read_to_string(scratch.path().join("verify.log")).unwrap_or_default()
    );
    assert!(
        text(&output.stdout).starts_with("osslsigncode 2.9"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn a_changed_file_breaks_the_block_map() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let changed = changed_package(
        &built,
        scratch.path(),
        "holoterrain.exe",
        "data[:70000] + bytes([data[70000] ^ 1]) + data[70001:]",
    );
    assert_check_fails_with(
        &msix_check(&built, "package", &changed),
        "block map: block 1 of holoterrain.exe does not match its hash",
    );
}

#[test]
fn a_file_without_a_content_type_is_found() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let changed = changed_package(
        &built,
        scratch.path(),
        "[Content_Types].xml",
        "data.replace(b'Extension=\"png\"', b'Extension=\"none\"')",
    );
    assert_check_fails_with(
        &msix_check(&built, "package", &changed),
        "content types: no type for Assets/SplashScreen.png",
    );
}

#[test]
fn a_logo_of_the_wrong_size_is_found() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let changed = changed_package(
        &built,
        scratch.path(),
        "Assets/SplashScreen.png",
        "old.read('Assets/StoreLogo.png')",
    );
    assert_check_fails_with(
        &msix_check(&built, "package", &changed),
        "its SplashScreen Assets/SplashScreen.png is (50, 50), not a 620x300 PNG",
    );
}

#[test]
fn a_publisher_other_than_the_certificate_subject_is_found() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let changed = changed_package(
        &built,
        scratch.path(),
        "AppxManifest.xml",
        "data.replace(b'Publisher=\"CN=', b'Publisher=\"CN=Someone else, CN=')",
    );
    assert_check_fails_with(
        &msix_check(&built, "package", &changed),
        "is not the manifest's Publisher 'CN=Someone else, CN=",
    );
}

#[test]
fn the_packed_exe_is_an_arm64_gui_app_container_exe() {
    let Some(built) = built() else { return };
    let output = msix_check(&built, "exe", &built.exe);
    assert!(
        output.status.success(),
        "msix.py exe failed:\n{}",
        text(&output.stderr)
    );
}

#[test]
fn an_exe_without_the_app_container_flag_is_refused() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let exe = changed_exe(&built, scratch.path(), |bytes| {
        let flags = optional_header(bytes) + 70;
        bytes[flags + 1] &= !0x10;
    });
    assert_check_fails_with(
        &msix_check(&built, "exe", &exe),
        "the app container flag (IMAGE_DLLCHARACTERISTICS_APPCONTAINER) is not set",
    );
}

#[test]
fn an_exe_for_another_machine_or_with_a_console_is_refused() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    let exe = changed_exe(&built, scratch.path(), |bytes| {
        let optional = optional_header(bytes);
        // IMAGE_FILE_MACHINE_AMD64, and the console subsystem.
        bytes[optional - 20..optional - 18].copy_from_slice(&0x8664u16.to_le_bytes());
        bytes[optional + 68..optional + 70].copy_from_slice(&3u16.to_le_bytes());
    });
    let output = msix_check(&built, "exe", &exe);
    assert_check_fails_with(&output, "machine 0x8664, not ARM64 (0xaa64)");
    assert_check_fails_with(&output, "subsystem 3, not the Windows GUI subsystem");
}

#[test]
fn an_import_from_a_desktop_only_dll_is_refused() {
    let Some(built) = built() else { return };
    let scratch = tempfile::tempdir().expect("temp dir");
    // d3d11.dll renamed to gdi32.dll (same length) wherever it is written.
    let exe = changed_exe(&built, scratch.path(), |bytes| {
        let mut renamed = 0;
        while let Some(at) = bytes
            .windows(b"d3d11.dll".len())
            .position(|window| window.eq_ignore_ascii_case(b"d3d11.dll"))
        {
            bytes[at..at + 9].copy_from_slice(b"gdi32.dll");
            renamed += 1;
        }
        assert!(renamed > 0, "the exe does not import d3d11.dll");
    });
    assert_check_fails_with(
        &msix_check(&built, "exe", &exe),
        "imports gdi32.dll!D3D11CreateDevice",
    );
}

#[test]
fn every_allowed_import_rule_names_its_source() {
    let rules = std::fs::read_to_string(allowed_imports()).expect("read allowed-imports.txt");
    let mut count = 0;
    for line in rules.lines() {
        let rule = line.split('#').next().unwrap_or_default().trim();
        if rule.is_empty() {
            continue;
        }
        count += 1;
        let fields: Vec<&str> = rule.split_whitespace().collect();
        assert!(
            fields.len() >= 3
                && fields[2..]
                    .iter()
                    .any(|field| field.starts_with("https://")),
            "a rule without a source (https://…): {line}"
        );
        for forbidden in ["user32", "gdi32", "shell32", "userenv", "vulkan-1"] {
            assert!(
                !fields[0].contains(forbidden),
                "{forbidden} may not be allowed: {line}"
            );
        }
    }
    assert!(count > 0, "no rules in allowed-imports.txt");
}

/// Runs scripts/build-hololens.sh with `args` as user nobody (so nothing is
/// installed) and an empty toolchain cache.
fn build_script_as_nobody(args: &[&str]) -> Option<Output> {
    let cache = tempfile::tempdir().expect("temp dir");
    let output = Command::new("setpriv")
        .args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            "--",
        ])
        .arg(repository().join("scripts/build-hololens.sh"))
        .args(args)
        .env("HOLOTERRAIN_HOLOLENS_CACHE", cache.path())
        .env("HOME", cache.path())
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(output) if !text(&output.stderr).contains("setpriv:") => Some(output),
        Ok(output) => {
            skip(&format!(
                "cannot run as nobody: {}",
                text(&output.stderr).trim()
            ));
            None
        }
        Err(error) => {
            skip(&format!("cannot run setpriv: {error}"));
            None
        }
    }
}

/// Asserts `output` failed with exactly one line on stderr, and returns it.
fn one_error_line(output: &Output) -> String {
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "expected a failure");
    assert_eq!(
        stderr.lines().count(),
        1,
        "expected one line, got:\n{stderr}"
    );
    stderr.trim_end().to_owned()
}

#[test]
fn the_build_script_without_its_tools_names_them_in_one_line() {
    let Some(output) = build_script_as_nobody(&[]) else {
        return;
    };
    let line = one_error_line(&output);
    assert!(
        line.starts_with("error: ") && line.contains("ziglang==0.17.1 and openappx==0.7.0"),
        "{line}"
    );
}

#[test]
fn the_build_script_with_a_missing_certificate_says_so_in_one_line() {
    let Some(output) = build_script_as_nobody(&["--pfx", "/nonexistent/own.pfx"]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        one_error_line(&output),
        "error: --pfx /nonexistent/own.pfx: no such readable file"
    );
}

/// The log and the report the packaged app leaves in `state`.
fn state_files(state: &Path) -> (String, bool) {
    let log = std::fs::read_to_string(state.join("holoterrain.log")).unwrap_or_default();
    (log, state.join("report.json").exists())
}

/// Asserts a run with no OpenXR runtime ended as docs/hololens.md says:
/// status 1, nothing printed by the app (the OpenXR loader's own
/// diagnostics may be on stderr), a log that says it started and why it
/// stopped.
fn assert_failed_as_documented(status: Option<i32>, stdout: &str, stderr: &str, state: &Path) {
    let (log, report_written) = state_files(state);
    assert_eq!(status, Some(1), "log:\n{log}\nstderr:\n{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.lines().all(|line| line.contains("OpenXR-Loader")),
        "only the loader's lines on stderr:\n{stderr}"
    );
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines.first().is_some_and(
            |line| line.contains(&format!("holoterrain {} started; state folder", version()))
        ),
        "log:\n{log}"
    );
    assert!(
        lines
            .last()
            .is_some_and(|line| line.contains("error: no OpenXR runtime is active")),
        "log:\n{log}"
    );
    assert!(!report_written, "a report without a session");
}

#[test]
fn the_packaged_entry_without_a_runtime_logs_why_and_fails() {
    let state_home = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain-packaged"))
        .env("XDG_STATE_HOME", state_home.path())
        .env("XR_RUNTIME_JSON", "/nonexistent/runtime.json")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run holoterrain-packaged");
    assert_failed_as_documented(
        output.status.code(),
        &text(&output.stdout),
        &text(&output.stderr),
        &state_home.path().join("holoterrain"),
    );
}

#[test]
fn the_packaged_entry_without_a_state_folder_fails_quietly() {
    let not_a_folder = tempfile::NamedTempFile::new().expect("temp file");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain-packaged"))
        .env("XDG_STATE_HOME", not_a_folder.path())
        .stdin(Stdio::null())
        .output()
        .expect("run holoterrain-packaged");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn the_packaged_entry_under_wine_without_a_runtime_logs_why_and_fails() {
    let packaged = wine::exe().with_file_name("holoterrain-packaged.exe");
    if !wine::built(&packaged) || !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let out = scratch.path().display();
    // Without package identity the state folder is %LOCALAPPDATA%\holoterrain.
    let output = wine::run_shell(
        scratch.path(),
        &format!(
            "state=$(echo \"$WINEPREFIX\"/drive_c/users/*/AppData/Local)/holoterrain\n\
             rm -rf \"$state\"\n\
             status=0\n\
             wine64 \"$(dirname \"$EXE\")/holoterrain-packaged.exe\" >{out}/stdout 2>{out}/stderr || status=$?\n\
             echo $status >{out}/status\n\
             cp -r \"$state\" {out}/state\n"
        ),
    );
    assert!(
        output.status.success(),
        "the Wine run failed:\n{}",
        text(&output.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(scratch.path().join(name)).unwrap_or_default();
    let status = read("status").trim().parse().ok();
    assert_failed_as_documented(
        status,
        &read("stdout"),
        &read("stderr"),
        &scratch.path().join("state"),
    );
    assert!(
        read("state/holoterrain.log").contains("(UserLocalAppData)"),
        "the fallback without package identity is not named in the log"
    );
}
