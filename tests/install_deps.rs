//! The test command's own install step, complete: in a clean Debian 12
//! chroot holding only a C compiler and what `scripts/install-deps.sh test`
//! installs, the workspace builds and, with CI set, its unit tests pass, and
//! so do the integration tests that need only Debian packages (render, sim,
//! sim_placement, cli, manifests; scripts/check-install-deps.sh). A package
//! those tests need that only a hand install put on this machine fails
//! here, named by the test that misses it.
//!
//! Needs root (debootstrap, mount, chroot) and the Debian mirror; without
//! them the test prints why it is skipped, unless env CI is set, when it
//! fails instead.

mod support {
    pub mod ci;
}

use std::path::Path;
use std::process::Command;

use support::ci::skip;

/// Whether this process is root (the chroot needs it).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
}

/// The lines of a failed check that say what went wrong: the checks' own
/// messages, apt's and cargo's errors, failing tests by name, and each
/// panic with its whole message (up to the blank line after it).
fn what_went_wrong(output: &str) -> Vec<&str> {
    let mut lines = output.lines();
    let mut kept = Vec::new();
    while let Some(line) = lines.next() {
        let telling = line.starts_with("check-install-deps:")
            || line.starts_with("deb-chroot:")
            || line.starts_with("install-deps.sh:")
            || line.starts_with("error")
            || line.starts_with("E: ")
            || line.starts_with("---- ")
            || line.ends_with("FAILED")
            || line.contains("panicked at");
        if telling {
            kept.push(line);
            if line.contains("panicked at") {
                kept.extend(
                    lines
                        .by_ref()
                        .take_while(|message| !message.trim().is_empty())
                        .filter(|message| !message.starts_with("note: ")),
                );
            }
        }
    }
    kept
}

#[test]
fn with_only_the_install_step_in_a_clean_debian_the_workspace_builds_and_its_tests_pass() {
    if !is_root() {
        skip("not root: the install check runs in a Debian chroot");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-install-deps.sh");
    let output = Command::new(&script)
        .output()
        .expect("run scripts/check-install-deps.sh");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "in a clean Debian 12 with only `scripts/install-deps.sh test` installed, \
         the workspace's build or tests fail ({}); add what is missing to \
         the test set of scripts/install-deps.sh:\n{}",
        output.status,
        what_went_wrong(&printed).join("\n")
    );
}

#[test]
fn a_failed_check_is_told_by_its_panics_and_errors() {
    let printed = "check-install-deps: building the workspace\n\
                   running 3 tests\n\
                   test a ... ok\n\
                   test b ... FAILED\n\
                   test c ... FAILED\n\
                   \n\
                   failures:\n\
                   \n\
                   ---- b stdout ----\n\
                   \n\
                   thread 'b' panicked at src/xr/c_layout.rs:41:5:\n\
                   CI: no openxr.h (Debian: libopenxr-dev) to check the layout\n\
                   note: run with `RUST_BACKTRACE=1`\n\
                   \n\
                   ---- c stdout ----\n\
                   thread 'c' panicked at tests/render.rs:9:5:\n\
                   assertion `left == right` failed\n  \
                   left: 1\n \
                   right: 0\n\
                   \n\
                   test result: FAILED. 1 passed; 2 failed\n";
    assert_eq!(
        what_went_wrong(printed),
        [
            "check-install-deps: building the workspace",
            "test b ... FAILED",
            "test c ... FAILED",
            "---- b stdout ----",
            "thread 'b' panicked at src/xr/c_layout.rs:41:5:",
            "CI: no openxr.h (Debian: libopenxr-dev) to check the layout",
            "---- c stdout ----",
            "thread 'c' panicked at tests/render.rs:9:5:",
            "assertion `left == right` failed",
            "  left: 1",
            " right: 0",
        ]
    );
}
