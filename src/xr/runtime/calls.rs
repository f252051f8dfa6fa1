//! Which call into the OpenXR runtime the session's thread is in, for the
//! watchdog (`run/watchdog.rs`) to see from its own thread: every runtime call
//! of the session goes through [`runtime_call`], which marks it in progress
//! (its name, its kind, when it began) and, once it returns, keeps the
//! longest a call of the loop took, for the report. One per process: one
//! OpenXR session runs per process, and the watchdog acts on the process.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// What may end a wait in a runtime call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// Setting up the graphics device and the session: a runtime may take
    /// long here by design (starting its service, waiting for the headset),
    /// so no limit applies; an interrupt still ends a blocked call.
    SetUp,
    /// The frame loop's calls and the teardown after it: the limit and an
    /// interrupt both end a blocked call.
    Watched,
}

/// A runtime call under way on the session's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallInProgress {
    /// Counts calls, so the watchdog tells one call from the next.
    pub number: u64,
    /// The OpenXR function, or the group of them the loop makes in a row
    /// (their names joined by `/`), e.g. "xrWaitFrame".
    pub name: &'static str,
    /// What may end a wait in it.
    pub kind: CallKind,
    /// When it began.
    pub started: Instant,
}

/// The longest a watched call took, of those that returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongestCall {
    /// The call, as [`CallInProgress::name`].
    pub name: &'static str,
    /// How long it took.
    pub took: Duration,
}

/// Which runtime call the session's thread is in, if any.
#[derive(Debug)]
struct RuntimeCalls {
    /// Calls entered so far, the one in progress, the longest.
    state: Mutex<CallsState>,
}

/// What [`RuntimeCalls`] keeps.
#[derive(Debug)]
struct CallsState {
    /// Calls entered so far.
    entered: u64,
    /// The call in progress.
    current: Option<CallInProgress>,
    /// The longest watched call that returned.
    longest: Option<LongestCall>,
}

/// The process's runtime calls.
static RUNTIME_CALLS: RuntimeCalls = RuntimeCalls::new();

/// Marks a call ended when dropped, also when it unwinds.
struct CallMark<'a> {
    /// Whose call it is.
    calls: &'a RuntimeCalls,
    /// The call.
    call: CallInProgress,
    /// The call this one is nested in, in progress again once it ends.
    outer: Option<CallInProgress>,
}

impl Drop for CallMark<'_> {
    fn drop(&mut self) {
        let took = self.call.started.elapsed();
        let mut state = self.calls.lock();
        state.current = self.outer;
        if self.call.kind == CallKind::Watched
            && state.longest.is_none_or(|longest| took > longest.took)
        {
            state.longest = Some(LongestCall {
                name: self.call.name,
                took,
            });
        }
    }
}

impl RuntimeCalls {
    const fn new() -> Self {
        RuntimeCalls {
            state: Mutex::new(CallsState {
                entered: 0,
                current: None,
                longest: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, CallsState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `call` marked as the runtime call `name` of `kind`.
    fn during<T>(&self, kind: CallKind, name: &'static str, call: impl FnOnce() -> T) -> T {
        let _mark = {
            let mut state = self.lock();
            state.entered += 1;
            let started = CallInProgress {
                number: state.entered,
                name,
                kind,
                started: Instant::now(),
            };
            CallMark {
                calls: self,
                call: started,
                outer: state.current.replace(started),
            }
        };
        call()
    }

    /// The call in progress.
    fn current(&self) -> Option<CallInProgress> {
        self.lock().current
    }

    /// The longest watched call that returned.
    fn longest(&self) -> Option<LongestCall> {
        self.lock().longest
    }
}

/// Runs `call`, a call into the OpenXR runtime (or a group of them, named
/// together), marked in progress for the watchdog: a lock taken briefly
/// on entry and on return, never held across the call.
pub fn runtime_call<T>(kind: CallKind, name: &'static str, call: impl FnOnce() -> T) -> T {
    RUNTIME_CALLS.during(kind, name, call)
}

/// The runtime call the session's thread is in, if any.
pub fn call_in_progress() -> Option<CallInProgress> {
    RUNTIME_CALLS.current()
}

/// The longest a watched call has taken so far, of those that returned.
pub fn longest_watched_call() -> Option<LongestCall> {
    RUNTIME_CALLS.longest()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_in_progress_exactly_while_it_runs() {
        let calls = RuntimeCalls::new();
        assert_eq!(calls.current(), None);
        let seen = calls.during(CallKind::Watched, "xrWaitFrame", || calls.current());
        let seen = seen.expect("in progress while it runs");
        assert_eq!((seen.name, seen.kind), ("xrWaitFrame", CallKind::Watched));
        assert_eq!(calls.current(), None, "not after it returned");
    }

    #[test]
    fn a_nested_call_hands_back_to_the_outer_one_and_each_has_its_number() {
        let calls = RuntimeCalls::new();
        let (outer, inner, outer_again) = calls.during(CallKind::SetUp, "xrCreateSession", || {
            let outer = calls.current().unwrap();
            let inner = calls.during(CallKind::Watched, "xrPollEvent", || {
                calls.current().unwrap()
            });
            (outer, inner, calls.current().unwrap())
        });
        assert_eq!(inner.name, "xrPollEvent");
        assert_ne!(inner.number, outer.number);
        assert_eq!(outer_again, outer);
    }

    #[test]
    fn a_call_that_panics_is_no_longer_in_progress() {
        let calls = RuntimeCalls::new();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            calls.during(CallKind::Watched, "xrEndFrame", || panic!("a failure"))
        }));
        assert!(unwound.is_err());
        assert_eq!(calls.current(), None);
    }

    #[test]
    fn the_longest_watched_call_is_kept_and_set_up_calls_are_not() {
        let calls = RuntimeCalls::new();
        calls.during(CallKind::Watched, "xrWaitFrame", || {
            std::thread::sleep(Duration::from_millis(20))
        });
        calls.during(CallKind::Watched, "xrBeginFrame", || {});
        calls.during(CallKind::SetUp, "xrCreateSession", || {
            std::thread::sleep(Duration::from_millis(40))
        });
        let longest = calls.longest().expect("a watched call returned");
        assert_eq!(longest.name, "xrWaitFrame");
        assert!(longest.took >= Duration::from_millis(20), "{longest:?}");
    }
}
