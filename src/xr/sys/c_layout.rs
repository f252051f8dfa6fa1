//! For the layout tests of extension structures the openxr crate does not
//! declare: sizes, offsets and constants as the C compiler lays out a
//! program under tests/support that prints them, one `NAME VALUE` a line.

use std::collections::HashMap;
use std::process::Command;

/// What tests/support/`source` prints, compiled with the system's `cc`;
/// `None` (the test skipped, saying so, or failed under CI) without a
/// working C compiler. `what` names the layout for that message.
pub fn c_layout(source: &str, what: &str) -> Option<HashMap<String, i64>> {
    let scratch = tempfile::tempdir().unwrap();
    let program = scratch.path().join("layout");
    let source = format!("{}/tests/support/{source}", env!("CARGO_MANIFEST_DIR"));
    let built = Command::new("cc")
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .status();
    if !built.is_ok_and(|status| status.success()) {
        skip(&format!(
            "no working C compiler (cc) to check the {what} layout"
        ));
        return None;
    }
    let printed = Command::new(&program).output().unwrap();
    Some(
        String::from_utf8(printed.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let (name, value) = line.split_once(' ').unwrap();
                (name.to_owned(), value.parse().unwrap())
            })
            .collect(),
    )
}

/// Says why a layout test is skipped; under CI, fails it instead.
pub fn skip(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI: {why}");
    println!("SKIPPED: {why}");
}
