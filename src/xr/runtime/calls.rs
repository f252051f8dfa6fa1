//! Which call into the OpenXR runtime the session's thread is in, for the
//! watchdog (`run/watchdog.rs`) to see from its own thread: every runtime call
//! of the session goes through [`runtime_call`], which marks it in progress
//! (its name, its kind, when it began) and, once it returns, keeps the
//! longest a call of the loop took, for the report. Code that makes several
//! calls in a row runs under [`runtime_calls`] and names each call with
//! [`calling`] as it makes it, so the name the watchdog and the report see
//! is always the call actually being made, never a list kept by hand. One per process: one
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
    /// The OpenXR function, e.g. "xrWaitFrame".
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
    /// The kind of the calls of the [`runtime_calls`] under way, which
    /// [`calling`] names; `None` outside one.
    group: Option<CallKind>,
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
        let mut state = self.calls.lock();
        state.current = self.outer;
        state.returned(self.call);
    }
}

/// Ends a [`runtime_calls`] when dropped, also when it unwinds.
struct GroupMark<'a> {
    /// Whose calls they are.
    calls: &'a RuntimeCalls,
    /// The call in progress and the group under way before it began.
    outer: (Option<CallInProgress>, Option<CallKind>),
}

impl Drop for GroupMark<'_> {
    fn drop(&mut self) {
        let mut state = self.calls.lock();
        if let Some(last) = state.current {
            state.returned(last);
        }
        (state.current, state.group) = self.outer;
    }
}

impl CallsState {
    /// Marks `call` in progress of `kind` from now, as the next call.
    fn enter(&mut self, kind: CallKind, name: &'static str) -> CallInProgress {
        self.entered += 1;
        CallInProgress {
            number: self.entered,
            name,
            kind,
            started: Instant::now(),
        }
    }

    /// Keeps `call`, which just returned, when it is the longest watched one.
    fn returned(&mut self, call: CallInProgress) {
        let took = call.started.elapsed();
        if call.kind == CallKind::Watched && self.longest.is_none_or(|longest| took > longest.took)
        {
            self.longest = Some(LongestCall {
                name: call.name,
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
                group: None,
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
            let started = state.enter(kind, name);
            CallMark {
                calls: self,
                call: started,
                outer: state.current.replace(started),
            }
        };
        call()
    }

    /// Runs `calls`, runtime calls of `kind` that [`Self::calling`] names.
    fn group<T>(&self, kind: CallKind, calls: impl FnOnce() -> T) -> T {
        let _mark = {
            let mut state = self.lock();
            let outer = (state.current.take(), state.group.replace(kind));
            GroupMark { calls: self, outer }
        };
        calls()
    }

    /// The group's call `name` begins: the one before it has returned.
    fn calling(&self, name: &'static str) {
        let mut state = self.lock();
        let Some(kind) = state.group else {
            return;
        };
        if let Some(before) = state.current {
            state.returned(before);
        }
        let started = state.enter(kind, name);
        state.current = Some(started);
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

/// Runs `call`, a call into the OpenXR runtime, marked in progress for the
/// watchdog: a lock taken briefly on entry and on return, never held
/// across the call.
pub fn runtime_call<T>(kind: CallKind, name: &'static str, call: impl FnOnce() -> T) -> T {
    RUNTIME_CALLS.during(kind, name, call)
}

/// Runs `calls`, code that makes runtime calls of `kind` in a row and names
/// each with [`calling`] just before making it: from there until the next
/// one (or the end of `calls`) that call is in progress for the watchdog.
pub fn runtime_calls<T>(kind: CallKind, calls: impl FnOnce() -> T) -> T {
    RUNTIME_CALLS.group(kind, calls)
}

/// Names the runtime call about to be made inside [`runtime_calls`]; a
/// call made outside one (from code that also runs on its own) names
/// nothing.
pub fn calling(name: &'static str) {
    RUNTIME_CALLS.calling(name);
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
    fn in_a_group_the_call_in_progress_is_the_one_named_last() {
        let calls = RuntimeCalls::new();
        let (before, first, second) = calls.group(CallKind::Watched, || {
            let before = calls.current();
            calls.calling("xrSyncActions");
            let first = calls.current().unwrap();
            calls.calling("xrLocateSpace");
            (before, first, calls.current().unwrap())
        });
        assert_eq!(before, None, "no call before the first is named");
        assert_eq!(
            (first.name, first.kind),
            ("xrSyncActions", CallKind::Watched)
        );
        assert_eq!(second.name, "xrLocateSpace");
        assert_ne!(first.number, second.number, "each call counts afresh");
        assert_eq!(calls.current(), None, "none after the group");
        calls.calling("xrLocateSpace");
        assert_eq!(
            calls.current(),
            None,
            "outside a group a name marks nothing"
        );
    }

    #[test]
    fn a_groups_longest_call_is_named_by_itself() {
        let calls = RuntimeCalls::new();
        calls.group(CallKind::Watched, || {
            calls.calling("xrSyncActions");
            calls.calling("xrLocateHandJointsEXT");
            std::thread::sleep(Duration::from_millis(20));
        });
        let longest = calls.longest().expect("a watched call returned");
        assert_eq!(longest.name, "xrLocateHandJointsEXT");
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
