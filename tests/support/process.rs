//! Processes a test drives: sending them signals, waiting with a bound.

use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// Sends `signal` (`STOP`, `CONT`, `INT`...) to process `pid`.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Waits for `child` at most `bound`; `None` if it is still running then.
pub fn wait_at_most(child: &mut Child, bound: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + bound;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("poll the child") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}
