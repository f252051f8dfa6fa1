//! The growth schedule: how many fault iterations are due, from elapsed display time.
//!
//! Iterations due = floor(seconds since growth started × rate), capped at the
//! run's total. The demo grew one iteration per frame at 60 Hz; tying the
//! count to time instead of frames makes the terrain grow at the same speed
//! at 60 Hz, 90 Hz or with dropped frames (at 90 Hz a third of the frames
//! simply apply nothing). Integer nanoseconds keep the count exact: no float
//! rounding can make two platforms disagree by an iteration.
//!
//! Two rules bound what one frame does:
//! - A budget of [`MAX_ITERATIONS_PER_FRAME`] iterations. After a stall (the
//!   runtime paused frames, a slow frame) the schedule may be hundreds of
//!   iterations ahead; doing them all in one frame would freeze the view for
//!   that long, so the app works them off a few per frame and reaches the
//!   full count a little later. The budget is an iteration count, not a time
//!   limit, because the heights after n iterations are the same however the n
//!   are split across frames (n single steps equal one step of n), so a count
//!   keeps every frame's terrain reproducible on any machine, while a time
//!   limit would make it depend on how fast the CPU happened to be.
//! - Hidden time does not count: display time that passes up to a frame the
//!   user cannot see (an OpenXR session that is not VISIBLE or FOCUSED, as
//!   with the headset off or another app in front) is taken out of the
//!   schedule ([`GrowthSchedule::postpone`]). Growth is the show: someone who
//!   takes the headset off and puts it back finds the terrain as they left it
//!   and watches the rest grow, rather than finding it finished or watching
//!   it race. Looking away while the session stays visible is not hidden
//!   time: the hologram is still being drawn, and like a real object it has
//!   grown when looked at again.

/// How growth goes: whether it is paused and how fast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct GrowthState {
    /// Paused by the wearer.
    pub paused: bool,
    /// Iterations per second while it grows.
    pub iterations_per_second: u32,
}

/// Nanoseconds in a second.
const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// Most fault iterations one frame applies. Steady growth needs one a frame
/// at 60 Hz and two at 30 Hz, so four keeps pace down to 15 Hz and, at 60 Hz,
/// works off a backlog three iterations a frame faster than it builds: the
/// whole 500 in under 3 s. A frame of four costs about 1 ms at 257×257 on
/// the 2-core development machine, against 95 ms for a 441-iteration
/// backlog done at once (see docs/performance.md).
pub const MAX_ITERATIONS_PER_FRAME: usize = 4;

/// Most iterations a frame applies for a shared session's peer catching up
/// with its host (behind by more than [`MAX_ITERATIONS_PER_FRAME`]): a
/// joiner late by a whole 500-iteration growth is level in 42 frames, under
/// 1 s at 60 Hz, where four a frame would take 2 s; twelve cost about 3 ms
/// at 257×257 on the development machine. The heights do not depend on
/// how iterations are split between frames, only on how many are done.
pub const CATCH_UP_ITERATIONS_PER_FRAME: usize = 12;

/// Most 60 Hz frames' worth of catching up one frame does: a frame shown
/// 1/15 s after the one before does four (48 iterations, about 12 ms at
/// 257×257), and slower frames no more, so a frame's growth stays bounded.
pub const MAX_CATCH_UP_FRAMES: usize = 4;

/// How many 60 Hz frames' worth of catching up ([`CATCH_UP_ITERATIONS_PER_FRAME`]
/// each) a frame shown `interval_ns` after the one before does: one at
/// 60 Hz or faster, more for slower frames, at most [`MAX_CATCH_UP_FRAMES`].
pub fn catch_up_frames(interval_ns: i64) -> usize {
    const FRAME_60_HZ_NS: i64 = 16_666_667;
    let frames = (interval_ns + FRAME_60_HZ_NS / 2) / FRAME_60_HZ_NS;
    (frames.max(1) as usize).min(MAX_CATCH_UP_FRAMES)
}

/// Growth of one seed, started at a display time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrowthSchedule {
    /// Iterations per second of display time.
    iterations_per_second: u32,
    /// Display time at which the current growth started, if it has.
    started_ns: Option<i64>,
    /// Display time at which the wearer paused growth, while it is paused.
    paused_ns: Option<i64>,
}

/// Slowest growth "Slower" reaches, iterations per second.
pub const MIN_ITERATIONS_PER_SECOND: u32 = 15;
/// Fastest growth "Faster" reaches, iterations per second: at 60 Hz, the
/// per-frame budget ([`MAX_ITERATIONS_PER_FRAME`]) every frame.
pub const MAX_ITERATIONS_PER_SECOND: u32 = 240;

impl GrowthSchedule {
    /// A schedule that has not started yet.
    pub fn new(iterations_per_second: u32) -> Self {
        GrowthSchedule {
            iterations_per_second,
            started_ns: None,
            paused_ns: None,
        }
    }

    /// (Re)starts growth at `now_ns`; a new terrain grows even if the old
    /// one was paused (it rises from flat ground, as the wearer asked).
    pub fn start(&mut self, now_ns: i64) {
        self.started_ns = Some(now_ns);
        self.paused_ns = None;
    }

    /// Goes on with a growth that had done `done` iterations, as if it had
    /// started just long enough before `now_ns` to be due that many (and,
    /// when paused, stays paused there).
    pub fn resume(&mut self, now_ns: i64, done: usize) {
        let at = self.paused_ns.unwrap_or(now_ns);
        let rate = i128::from(self.iterations_per_second.max(1));
        let elapsed = (done as i128 * NANOS_PER_SECOND + rate - 1) / rate;
        self.started_ns =
            Some((i128::from(at) - elapsed).clamp(i64::MIN.into(), i64::MAX.into()) as i64);
    }

    /// Stops the clock of growth at `now_ns`: nothing more is due until
    /// [`Self::unpause`].
    pub fn pause(&mut self, now_ns: i64) {
        self.paused_ns.get_or_insert(now_ns);
    }

    /// Starts the clock again at `now_ns`: the paused time does not count.
    pub fn unpause(&mut self, now_ns: i64) {
        if let Some(paused_ns) = self.paused_ns.take() {
            self.postpone(now_ns.saturating_sub(paused_ns));
        }
    }

    /// Whether growth is paused.
    pub fn is_paused(&self) -> bool {
        self.paused_ns.is_some()
    }

    /// Iterations per second now.
    pub fn rate(&self) -> u32 {
        self.iterations_per_second
    }

    /// Grows at `rate` iterations per second from `now_ns` on, a growth
    /// that has done `done` iterations going on from there.
    pub fn set_rate(&mut self, now_ns: i64, done: usize, rate: u32) {
        self.iterations_per_second = rate.max(1);
        if self.started_ns.is_some() {
            self.resume(now_ns, done);
        }
    }

    /// Moves the start `by_ns` later, so that time does not count towards
    /// growth; nothing happens before the start (or for `by_ns` ≤ 0).
    pub fn postpone(&mut self, by_ns: i64) {
        // Paused, no time counts anyway; unpausing takes out the whole span.
        if self.paused_ns.is_some() {
            return;
        }
        if let Some(started_ns) = self.started_ns.as_mut() {
            *started_ns = started_ns.saturating_add(by_ns.max(0));
        }
    }

    /// Iterations that should be done by `now_ns`, at most `total`; zero before
    /// the start (or if the clock runs backwards).
    pub fn iterations_due(&self, now_ns: i64, total: usize) -> usize {
        let Some(started_ns) = self.started_ns else {
            return 0;
        };
        let now_ns = self
            .paused_ns
            .map_or(now_ns, |paused_ns| paused_ns.min(now_ns));
        let elapsed = (now_ns as i128 - started_ns as i128).max(0);
        let due = elapsed * self.iterations_per_second as i128 / NANOS_PER_SECOND;
        usize::try_from(due).map_or(total, |due| due.min(total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Display time of `frame` at `rate` Hz, rounded up to whole nanoseconds as
    /// a runtime's clock would report a frame that is at least that late.
    fn frame_time_ns(frame: i64, rate: i64) -> i64 {
        (frame * 1_000_000_000 + rate - 1) / rate
    }

    #[test]
    fn a_resumed_growth_is_due_exactly_what_it_had_done() {
        for (rate, done) in [(60, 0), (60, 1), (60, 499), (7, 13), (90, 250)] {
            let mut schedule = GrowthSchedule::new(rate);
            let now = 5_000_000_123;
            schedule.resume(now, done);
            assert_eq!(
                schedule.iterations_due(now, 10_000),
                done,
                "{rate} Hz, {done}"
            );
            assert!(
                schedule.iterations_due(now + 1_000_000_000, 10_000) >= done + rate as usize - 1
            );
        }
    }

    #[test]
    fn nothing_is_due_before_the_start() {
        assert_eq!(
            GrowthSchedule::new(60).iterations_due(5_000_000_000, 500),
            0
        );
    }

    #[test]
    fn sixty_and_ninety_hertz_agree_at_the_same_times() {
        let mut at_60 = GrowthSchedule::new(60);
        let mut at_90 = GrowthSchedule::new(60);
        at_60.start(0);
        at_90.start(0);
        for second_third in 0..30 {
            // Every third of a second is a frame of both clocks.
            let t60 = frame_time_ns(20 * second_third, 60);
            let t90 = frame_time_ns(30 * second_third, 90);
            assert_eq!(
                at_60.iterations_due(t60, 500),
                at_90.iterations_due(t90, 500)
            );
        }
        assert_eq!(at_90.iterations_due(frame_time_ns(90, 90), 500), 60);
    }

    #[test]
    fn sixty_hertz_frames_get_one_iteration_each() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(1_000);
        let due: Vec<usize> = (0..5)
            .map(|frame| schedule.iterations_due(1_000 + frame_time_ns(frame, 60), 500))
            .collect();
        assert_eq!(due, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn growth_holds_at_the_total() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(0);
        assert_eq!(schedule.iterations_due(60 * 1_000_000_000, 500), 500);
    }

    #[test]
    fn a_restart_counts_from_the_new_start() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(0);
        schedule.start(2_000_000_000);
        assert_eq!(schedule.iterations_due(2_500_000_000, 500), 30);
    }

    #[test]
    fn postponed_time_does_not_count() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.postpone(1_000_000_000);
        schedule.start(0);
        schedule.postpone(10_000_000_000);
        schedule.postpone(-5_000_000_000);
        assert_eq!(schedule.iterations_due(11_000_000_000, 500), 60);
    }

    #[test]
    fn paused_growth_is_due_nothing_more_and_goes_on_where_it_stopped() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(0);
        schedule.pause(1_000_000_000);
        assert!(schedule.is_paused());
        assert_eq!(schedule.iterations_due(9_000_000_000, 500), 60);
        schedule.unpause(9_000_000_000);
        assert_eq!(schedule.iterations_due(9_500_000_000, 500), 90);
        schedule.pause(10_000_000_000);
        schedule.start(11_000_000_000);
        assert!(!schedule.is_paused(), "a new terrain grows");
    }

    #[test]
    fn a_new_rate_goes_on_from_what_was_done() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(0);
        schedule.set_rate(1_000_000_000, 60, 120);
        assert_eq!(schedule.rate(), 120);
        assert_eq!(schedule.iterations_due(1_000_000_000, 500), 60);
        assert_eq!(schedule.iterations_due(2_000_000_000, 500), 180);
        schedule.pause(2_000_000_000);
        schedule.set_rate(3_000_000_000, 180, 30);
        assert_eq!(schedule.iterations_due(5_000_000_000, 500), 180);
    }

    #[test]
    fn a_clock_running_backwards_gives_zero() {
        let mut schedule = GrowthSchedule::new(60);
        schedule.start(2_000_000_000);
        assert_eq!(schedule.iterations_due(1_000_000_000, 500), 0);
    }

    #[test]
    fn slower_frames_catch_up_more_each_up_to_a_bound() {
        let frames = |hz: i64| catch_up_frames(1_000_000_000 / hz);
        assert_eq!(catch_up_frames(0), 1, "the first frame");
        assert_eq!(
            [frames(90), frames(60), frames(30), frames(20), frames(15)],
            [1, 1, 2, 3, 4]
        );
        assert_eq!(frames(5), MAX_CATCH_UP_FRAMES);
    }
}
