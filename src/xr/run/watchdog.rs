//! The watchdog beside the OpenXR frame loop: a thread that ends the run
//! when the runtime stops answering. The loop's thread may sit inside a
//! runtime call forever (xrWaitFrame has no timeout, and a stopped runtime
//! never answers), so only another thread can act: when a call of the loop
//! has not returned for `--runtime-timeout` seconds, or when Ctrl-C,
//! SIGTERM or closing the console arrives while a call has been blocked for
//! [`INTERRUPT_GRACE`], it writes the report so far, tells the user in one
//! line which call and for how long, and ends the process at once.
//!
//! It skips the teardown on purpose: destroying the session and the
//! instance are runtime calls too, which the stuck runtime would not answer
//! either, and the process's exit handlers could wait for the stuck thread.
//! Skipping it is safe because the process ends: the operating system frees
//! its memory, devices and files, and the runtime notices its client is
//! gone (Monado: the IPC socket closes) and reclaims the session, as it does
//! when an app crashes.
//!
//! Every runtime call of the session goes through
//! `runtime::calls::runtime_call`, which marks it in progress (its name,
//! when it started) where the watchdog can see it. Only time spent inside
//! a call counts: the app's own stalls (a slow frame on a loaded machine,
//! a debugger, Ctrl-Z) never do, and a tick of the watchdog counts at most
//! [`LONGEST_TICK_COUNTED`], so a process that was stopped as a whole does
//! not find its limit used up when it resumes.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::xr::error::{ReportFile, XrError};
use crate::xr::run::report::ReportSoFar;
use crate::xr::runtime::calls::{CallInProgress, CallKind, call_in_progress};
use crate::xr::session_end::SessionEnd;

/// How long a runtime call must have been blocked when Ctrl-C, SIGTERM or
/// closing the console comes for the watchdog to end the run itself,
/// instead of leaving the loop to end the session properly once the call
/// returns.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// How often the watchdog looks at the call in progress.
const TICK: Duration = Duration::from_millis(100);

/// The most one tick counts towards a blocked call, however long it took:
/// a tick that took much longer means the whole process was stopped (a
/// debugger, Ctrl-Z), and that time was not the runtime's.
const LONGEST_TICK_COUNTED: Duration = Duration::from_millis(250);

/// A call that has been blocked for a while.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stall {
    /// The call.
    call: CallInProgress,
    /// The time counted against it: the watchdog's ticks while it lasted.
    counted: Duration,
}

/// Counts how long the call in progress has been blocked, tick by tick.
#[derive(Debug)]
struct StallCounter {
    /// When the previous tick was.
    last_tick: Instant,
    /// The call seen at the previous tick, with the time counted so far.
    watching: Option<(u64, Duration)>,
}

impl StallCounter {
    fn new(now: Instant) -> Self {
        StallCounter {
            last_tick: now,
            watching: None,
        }
    }

    /// A tick at `now` with `current` in progress: the stall so far, if a
    /// call is in progress.
    fn tick(&mut self, now: Instant, current: Option<CallInProgress>) -> Option<Stall> {
        let step = now
            .saturating_duration_since(self.last_tick)
            .min(LONGEST_TICK_COUNTED);
        self.last_tick = now;
        let Some(call) = current else {
            self.watching = None;
            return None;
        };
        let counted = match self.watching {
            Some((number, counted)) if number == call.number => counted + step,
            // New since the last tick: the part of this tick it has lasted.
            _ => now.saturating_duration_since(call.started).min(step),
        };
        self.watching = Some((call.number, counted));
        Some(Stall { call, counted })
    }
}

/// How the run ends for `stall`, if it ends: interrupted when an interrupt
/// came and the call has been blocked for [`INTERRUPT_GRACE`]; unresponsive
/// when a watched call reached `limit` (`None`: no limit).
fn verdict(stall: &Stall, limit: Option<Duration>, interrupted: bool) -> Option<SessionEnd> {
    if interrupted && stall.counted >= INTERRUPT_GRACE {
        Some(SessionEnd::Interrupted)
    } else if stall.call.kind == CallKind::Watched && limit.is_some_and(|l| stall.counted >= l) {
        Some(SessionEnd::RuntimeUnresponsive)
    } else {
        None
    }
}

/// What the watchdog acts on, and how it tells the user.
pub struct WatchdogSettings {
    /// `--runtime-timeout`: how long a watched call may be blocked; `None`: no limit.
    pub limit: Option<Duration>,
    /// Raised by Ctrl-C, SIGTERM (and, on Windows, closing the console).
    pub interrupted: Arc<AtomicBool>,
    /// `--report`: where the report goes.
    pub report: Option<PathBuf>,
    /// Tells the user why the run ended, in one line.
    pub tell: fn(&XrError),
}

/// The watchdog thread; dropping it stops the thread.
pub struct Watchdog {
    /// Raised to stop the thread; the thread holds the lock while it acts,
    /// so the run cannot end normally in the middle of that.
    stopped: Arc<(Mutex<bool>, Condvar)>,
    /// The thread.
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the watchdog over the process's runtime calls; when it acts
    /// it writes `report`'s report so far.
    pub fn start(settings: WatchdogSettings, report: Arc<ReportSoFar>) -> Self {
        let stopped = Arc::new((Mutex::new(false), Condvar::new()));
        let thread_stopped = Arc::clone(&stopped);
        let thread = std::thread::Builder::new()
            .name("xr-watchdog".into())
            .spawn(move || watch(&settings, &report, &thread_stopped));
        let thread = match thread {
            Ok(thread) => Some(thread),
            Err(error) => {
                log::warn!("no watchdog: a stuck OpenXR runtime will hang the app: {error}");
                None
            }
        };
        Watchdog { stopped, thread }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (stopped, signal) = &*self.stopped;
        *stopped.lock().unwrap_or_else(PoisonError::into_inner) = true;
        signal.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The watchdog thread: a tick every [`TICK`] until stopped, acting on a
/// stall that calls for it.
fn watch(settings: &WatchdogSettings, report: &ReportSoFar, stopped: &(Mutex<bool>, Condvar)) {
    let (stopped, signal) = stopped;
    let mut counter = StallCounter::new(Instant::now());
    let mut guard = stopped.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        guard = signal
            .wait_timeout(guard, TICK)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        if *guard {
            return;
        }
        let Some(stall) = counter.tick(Instant::now(), call_in_progress()) else {
            continue;
        };
        let interrupted = settings.interrupted.load(Ordering::Relaxed);
        if let Some(ended) = verdict(&stall, settings.limit, interrupted) {
            abandon(settings, report, &stall, ended);
        }
    }
}

/// Writes the report so far, tells the user, and ends the process without
/// tearing anything down.
fn abandon(
    settings: &WatchdogSettings,
    report: &ReportSoFar,
    stall: &Stall,
    ended: SessionEnd,
) -> ! {
    let report = report.report(ended);
    let report_file = match &settings.report {
        None => ReportFile::NotAsked,
        Some(path) => match report.write(path) {
            Ok(()) => ReportFile::Written(path.clone()),
            Err(error) => ReportFile::Failed(error.to_string()),
        },
    };
    let error = XrError::RuntimeUnresponsive {
        ended,
        call: stall.call.name,
        seconds: stall.call.started.elapsed().as_secs_f64(),
        limit: settings.limit.map(|limit| limit.as_secs()),
        frames: report.run.frames,
        report: report_file,
    };
    (settings.tell)(&error);
    end_process(error.exit_status())
}

/// Ends the process with `status` at once: no exit handlers, no
/// destructors of the libraries loaded into it (the runtime's among them),
/// which could wait for the thread that is stuck.
#[cfg(unix)]
fn end_process(status: u8) -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    // SAFETY: _exit ends the process; nothing runs after it in this process.
    unsafe { libc::_exit(i32::from(status)) }
}

/// Ends the process with `status` at once: TerminateProcess runs no
/// DLL_PROCESS_DETACH of the libraries loaded into it (the runtime's among
/// them), which could wait for the thread that is stuck.
#[cfg(windows)]
fn end_process(status: u8) -> ! {
    use std::io::Write as _;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, TerminateProcess};
    let _ = std::io::stdout().flush();
    // SAFETY: GetCurrentProcess returns a pseudo handle to this process,
    // valid for TerminateProcess, which ends it.
    unsafe { TerminateProcess(GetCurrentProcess(), u32::from(status)) };
    // Only if TerminateProcess failed.
    std::process::exit(i32::from(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(number: u64, kind: CallKind, started: Instant) -> CallInProgress {
        CallInProgress {
            number,
            name: "xrWaitFrame",
            kind,
            started,
        }
    }

    fn ms(milliseconds: u64) -> Duration {
        Duration::from_millis(milliseconds)
    }

    #[test]
    fn ticks_add_up_while_the_same_call_lasts() {
        let start = Instant::now();
        let mut counter = StallCounter::new(start);
        let waiting = call(1, CallKind::Watched, start);
        let mut counted = Duration::ZERO;
        for tick in 1..=30 {
            counted = counter
                .tick(start + ms(100) * tick, Some(waiting))
                .unwrap()
                .counted;
        }
        assert_eq!(counted, Duration::from_secs(3));
    }

    #[test]
    fn the_apps_own_time_between_calls_never_counts() {
        let start = Instant::now();
        let mut counter = StallCounter::new(start);
        // 5 s of the app's own work (no call in progress), then a call that
        // began 50 ms before the next tick.
        for tick in 1..=50 {
            assert_eq!(counter.tick(start + ms(100) * tick, None), None);
        }
        let began = start + ms(5050);
        let stall = counter
            .tick(start + ms(5100), Some(call(7, CallKind::Watched, began)))
            .unwrap();
        assert_eq!(stall.counted, ms(50));
    }

    #[test]
    fn a_new_call_starts_counting_afresh() {
        let start = Instant::now();
        let mut counter = StallCounter::new(start);
        for tick in 1..=20 {
            counter.tick(
                start + ms(100) * tick,
                Some(call(1, CallKind::Watched, start)),
            );
        }
        let next = call(2, CallKind::Watched, start + ms(2090));
        let stall = counter.tick(start + ms(2100), Some(next)).unwrap();
        assert_eq!(stall.counted, ms(10));
    }

    #[test]
    fn a_process_stopped_as_a_whole_counts_one_short_tick() {
        let start = Instant::now();
        let mut counter = StallCounter::new(start);
        let waiting = call(1, CallKind::Watched, start);
        counter.tick(start + ms(100), Some(waiting));
        // The next tick comes a minute later: a debugger or Ctrl-Z held
        // every thread, the runtime was not at fault.
        let stall = counter
            .tick(start + ms(100) + Duration::from_secs(60), Some(waiting))
            .unwrap();
        assert_eq!(stall.counted, ms(100) + LONGEST_TICK_COUNTED);
    }

    fn stall(kind: CallKind, counted: Duration) -> Stall {
        Stall {
            call: call(1, kind, Instant::now()),
            counted,
        }
    }

    #[test]
    fn a_watched_call_blocked_for_the_limit_makes_the_runtime_unresponsive() {
        let limit = Some(Duration::from_secs(10));
        let watched = |seconds| stall(CallKind::Watched, Duration::from_secs(seconds));
        assert_eq!(verdict(&watched(9), limit, false), None);
        assert_eq!(
            verdict(&watched(10), limit, false),
            Some(SessionEnd::RuntimeUnresponsive)
        );
        assert_eq!(verdict(&watched(600), None, false), None, "no limit");
    }

    #[test]
    fn set_up_calls_have_no_limit() {
        let set_up = stall(CallKind::SetUp, Duration::from_secs(60));
        assert_eq!(verdict(&set_up, Some(Duration::from_secs(10)), false), None);
    }

    #[test]
    fn an_interrupt_ends_any_call_blocked_for_the_grace() {
        for kind in [CallKind::SetUp, CallKind::Watched] {
            let short = stall(kind, INTERRUPT_GRACE - ms(100));
            assert_eq!(verdict(&short, None, true), None, "{kind:?}");
            let blocked = stall(kind, INTERRUPT_GRACE);
            assert_eq!(
                verdict(&blocked, None, true),
                Some(SessionEnd::Interrupted),
                "{kind:?}"
            );
            assert_eq!(
                verdict(&blocked, Some(INTERRUPT_GRACE), true),
                Some(SessionEnd::Interrupted),
                "the user's interrupt says why, not the limit ({kind:?})"
            );
        }
    }
}
