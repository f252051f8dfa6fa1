//! The simulator's clocks: the virtual display's (a frame every 1/rate s, with the script's stalls) and, in a shared run, the wall's (other headsets live in real time).
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::script::{Action, Script};
use super::user;

/// Display time of `frame` at `rate` Hz in nanoseconds, rounded up so the
/// frame at a scripted time t is the first whose time is at or after t.
pub fn frame_time_ns(frame: u64, rate: f64) -> i64 {
    (frame as f64 * 1e9 / rate).ceil() as i64
}

/// The simulator's display clock: frame n is shown at n / rate seconds, plus
/// every scripted stall that began before it. The test runtime
/// (tests/testrt) paces its frames with the same clock.
#[derive(Debug, Clone)]
pub struct DisplayClock {
    /// Virtual display rate, Hz.
    rate: f64,
    /// Stalls not reached yet, in time order: (display time at which the
    /// clock jumps, nanoseconds it jumps).
    stalls: VecDeque<(i64, i64)>,
    /// Nanoseconds the clock has jumped so far.
    stalled_ns: i64,
}

impl DisplayClock {
    /// Display time the script's stalls have skipped so far.
    pub fn stalled_ns(&self) -> i64 {
        self.stalled_ns
    }

    /// The clock for `script`'s stalls at `rate` Hz.
    pub fn new(script: &Script, rate: f64) -> Self {
        Self::with_stalls(&stalls(script), rate)
    }

    /// The clock at `rate` Hz with `stalls`: (display time at which the
    /// clock jumps, nanoseconds it jumps), in time order.
    pub fn with_stalls(stalls: &[(i64, i64)], rate: f64) -> Self {
        DisplayClock {
            rate,
            stalls: stalls.iter().copied().collect(),
            stalled_ns: 0,
        }
    }

    /// Display time of `frame`, asked for in increasing frame order. A stall
    /// moves the first frame at or after its time, and every later frame, its
    /// length ahead; a stall whose time falls inside an earlier one's jump
    /// starts when that one ends.
    pub fn frame_time_ns(&mut self, frame: u64) -> i64 {
        loop {
            let time_ns = frame_time_ns(frame, self.rate).saturating_add(self.stalled_ns);
            match self.stalls.front() {
                Some(&(at_ns, jump_ns)) if at_ns <= time_ns => {
                    self.stalled_ns = self.stalled_ns.saturating_add(jump_ns);
                    self.stalls.pop_front();
                }
                _ => return time_ns,
            }
        }
    }
}

/// `script`'s stalls: (display time at which the clock jumps, nanoseconds
/// it jumps), in time order.
pub fn stalls(script: &Script) -> Vec<(i64, i64)> {
    script
        .events
        .iter()
        .filter_map(|event| match event.action {
            Action::Stall { seconds } => Some((
                user::seconds_to_ns(event.time_s),
                user::seconds_to_ns(seconds),
            )),
            _ => None,
        })
        .collect()
}

/// The display clock of a shared run: wall time since its start.
pub struct WallClock {
    started: Instant,
    rate: f64,
    /// The frame due at the start, and its display time.
    first_frame: u64,
    first_ns: i64,
}

impl WallClock {
    /// Starts now, for frames at `rate` Hz.
    pub fn start(rate: f64) -> Self {
        WallClock {
            started: Instant::now(),
            rate,
            first_frame: 0,
            first_ns: 0,
        }
    }

    /// Starts now for the frames after `frame`, shown at `time_ns` (a run
    /// that begins sharing part way through): the next is due at once, a
    /// frame's time after it, and the rest follow the wall from there.
    pub fn after(rate: f64, frame: u64, time_ns: i64) -> Self {
        WallClock {
            first_frame: frame + 1,
            first_ns: time_ns.saturating_add((1e9 / rate) as i64),
            ..WallClock::start(rate)
        }
    }

    /// Waits for `frame`'s time ((frame - the first) / rate after the
    /// start) if it has not come yet; its display time (the first frame's
    /// plus the wall clock's nanoseconds since the start), or `None` when
    /// the frame after it is due already, so a late frame is dropped rather
    /// than shown late (`last` is never dropped).
    pub fn frame_time_ns(&self, frame: u64, last: bool) -> Option<i64> {
        let frame = frame.saturating_sub(self.first_frame);
        let due = Duration::from_secs_f64(frame as f64 / self.rate);
        let elapsed = self.started.elapsed();
        if elapsed < due {
            std::thread::sleep(due - elapsed);
        } else if !last && elapsed > Duration::from_secs_f64((frame + 1) as f64 / self.rate) {
            return None;
        }
        let since = self.started.elapsed().as_nanos().min(i64::MAX as u128) as i64;
        Some(self.first_ns.saturating_add(since))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_moves_its_frame_and_every_later_one() {
        let script = Script::parse("1.0 stall 10\n5.0 stall 2\n").unwrap();
        let mut clock = DisplayClock::new(&script, 60.0);
        let times: Vec<i64> = [58, 59, 60, 61]
            .into_iter()
            .map(|frame| clock.frame_time_ns(frame))
            .collect();
        // Frame 60 would show at 1.0 s; the first stall moves it to 11 s, and
        // the second, due at 5 s inside that jump, starts when it ends: 13 s.
        assert_eq!(
            times,
            vec![
                frame_time_ns(58, 60.0),
                frame_time_ns(59, 60.0),
                13_000_000_000,
                frame_time_ns(61, 60.0) + 12_000_000_000
            ]
        );
        assert_eq!(clock.stalled_ns, 12_000_000_000);
    }

    #[test]
    fn the_frame_at_a_scripted_time_is_the_first_at_or_after_it() {
        let frame_of = |seconds: f64, rate: f64| {
            (0..).find(|&frame| frame_time_ns(frame, rate) >= user::seconds_to_ns(seconds))
        };
        assert_eq!(frame_of(1.0, 60.0), Some(60));
        assert_eq!(frame_of(2.5, 90.0), Some(225));
        assert_eq!(frame_of(0.01, 60.0), Some(1));
    }
}
