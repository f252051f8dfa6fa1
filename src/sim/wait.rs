//! A script's `wait` in the frame loop: the script's clock, which holds at a wait until its condition holds, and what a run's shared session says of each condition.
//!
//! The simulated user acts on the script's clock, the app on the display's.
//! Until the first wait they agree, so a run whose script has no wait is
//! played exactly as before. From a wait's time T the script's clock holds
//! just short of T (the user keeps its pose; no event at T or later
//! happens) until the condition holds. The condition is checked on every
//! frame once the session has taken in what came over the network
//! (`Session::before_frame`); a wait whose condition already holds when
//! the clock reaches it costs nothing. Once it holds, the script goes on
//! from where it would have been on the frame that reached T: every later
//! event comes as much later as the wait lasted, and the run is lengthened
//! by the frames spent waiting ([`ScriptClock::frames_in_run`]), so
//! waiting never eats the time the script gives its later events. A wait
//! not met within [`MAX_WAIT`] of wall time ends the run
//! ([`WaitTimedOut`]). On the simulator's virtual clock (a run in no
//! session) the frames spent waiting are paced to the wall
//! ([`ScriptClock::pace`]), as a shared run's all are.
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::script::{Action, Condition, Script};
use super::user::seconds_to_ns;
use crate::net::Session;

/// The longest a scripted wait waits, in wall time.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// Where a run stands in a shared session, as a wait's condition asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing<'a> {
    /// In no session.
    Solo,
    /// Hosting one.
    Hosting {
        /// Peers connected now.
        peers: usize,
        /// Terrain commands in the shared order.
        ordered: u64,
    },
    /// Joined one.
    Joined {
        /// Why the host is gone, once it is.
        host_left: Option<&'a str>,
        /// Terrain commands of the shared order taken in.
        ordered: u64,
    },
}

impl<'a> Standing<'a> {
    /// Where a run in `session` (or in none) stands now.
    pub fn of(session: Option<&'a Session>) -> Self {
        match session {
            None => Standing::Solo,
            Some(Session::Host(host)) => Standing::Hosting {
                peers: host.peers_connected(),
                ordered: host.commands_ordered(),
            },
            Some(Session::Peer(peer)) => Standing::Joined {
                host_left: peer.host_left(),
                ordered: peer.commands_ordered(),
            },
        }
    }
}

/// Why `condition` does not hold for a run standing at `standing`, in
/// words that end the timed-out wait's line; `None` when it holds.
pub fn unmet(condition: Condition, standing: Standing) -> Option<String> {
    let peers = |n: usize| match n {
        1 => "1 peer is".to_owned(),
        n => format!("{n} peers are"),
    };
    match (condition, standing) {
        (
            Condition::Joined,
            Standing::Joined {
                host_left: None, ..
            },
        )
        | (Condition::Alone, Standing::Hosting { peers: 0, .. })
        | (
            Condition::Alone,
            Standing::Joined {
                host_left: Some(_), ..
            },
        ) => None,
        (Condition::Peers(n), Standing::Hosting { peers, .. }) if peers >= n => None,
        (
            Condition::Ordered(n),
            Standing::Hosting { ordered, .. } | Standing::Joined { ordered, .. },
        ) if ordered >= n => None,
        (Condition::Joined, Standing::Solo) => Some("this run joined no session".into()),
        (Condition::Joined, Standing::Hosting { .. }) => {
            Some("this run hosts its session; it joined none".into())
        }
        (
            Condition::Joined | Condition::Ordered(_),
            Standing::Joined {
                host_left: Some(why),
                ordered,
            },
        ) => Some(format!(
            "the host left ({why}) when the shared order held {ordered} terrain commands"
        )),
        (Condition::Peers(_) | Condition::Alone, Standing::Solo) => {
            Some("this run hosts no session".into())
        }
        (Condition::Peers(_), Standing::Joined { .. }) => {
            Some("this run joined a session; only a host has peers".into())
        }
        (Condition::Peers(_), Standing::Hosting { peers: 0, .. }) => {
            Some("no peer joined the session".into())
        }
        (Condition::Peers(_), Standing::Hosting { peers: n, .. }) => {
            Some(format!("only {} connected", peers(n)))
        }
        (Condition::Alone, Standing::Hosting { peers: n, .. }) => {
            Some(format!("{} still connected", peers(n)))
        }
        (
            Condition::Alone,
            Standing::Joined {
                host_left: None, ..
            },
        ) => Some("the host is still in the session".into()),
        (Condition::Ordered(_), Standing::Solo) => Some("this run is in no session".into()),
        (
            Condition::Ordered(_),
            Standing::Hosting { ordered, .. } | Standing::Joined { ordered, .. },
        ) => Some(format!("the shared order holds {ordered} terrain commands")),
    }
}

/// A wait whose condition did not hold within [`MAX_WAIT`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitTimedOut {
    /// The script line of the wait.
    pub line: usize,
    /// What it waited for.
    pub condition: Condition,
    /// Why the condition did not hold at the end.
    pub why: String,
}

/// A wait the script's clock has not passed yet.
#[derive(Debug, Clone, Copy)]
struct PendingWait {
    /// Its time in the script, nanoseconds.
    time_ns: i64,
    /// Its script line.
    line: usize,
    /// What it waits for.
    until: Condition,
}

/// The wait the clock holds at.
#[derive(Debug, Clone, Copy)]
struct Holding {
    /// The first frame that reached it.
    frame: u64,
    /// That frame's display time.
    display_ns: i64,
    /// When, on the wall.
    since: Instant,
}

/// The script's clock: the display's, less the time spent waiting, held
/// at a wait until its condition holds.
#[derive(Debug, Clone)]
pub struct ScriptClock {
    /// The waits not passed yet, in time order.
    waits: VecDeque<PendingWait>,
    /// Display nanoseconds spent in waits that are over.
    waited_ns: i64,
    /// Frames spent in waits that are over.
    frames_waited: u64,
    /// The wait being held at, if one is.
    holding: Option<Holding>,
}

impl ScriptClock {
    /// The clock for `script`'s waits.
    pub fn new(script: &Script) -> Self {
        let waits = script
            .events
            .iter()
            .filter_map(|event| match event.action {
                Action::Wait { until } => Some(PendingWait {
                    time_ns: seconds_to_ns(event.time_s),
                    line: event.line,
                    until,
                }),
                _ => None,
            })
            .collect();
        ScriptClock {
            waits,
            waited_ns: 0,
            frames_waited: 0,
            holding: None,
        }
    }

    /// The script's time for `frame`, shown at `display_ns` (frames in
    /// increasing order, at wall time `now`), where `unmet` says why a
    /// condition does not hold now (`None`: it holds). Just short of the
    /// wait's time while one holds; a wait held longer than [`MAX_WAIT`]
    /// is an error.
    pub fn at(
        &mut self,
        frame: u64,
        display_ns: i64,
        now: Instant,
        mut unmet: impl FnMut(Condition) -> Option<String>,
    ) -> Result<i64, WaitTimedOut> {
        loop {
            let script_ns = display_ns - self.waited_ns;
            let Some(wait) = self.waits.front().copied() else {
                return Ok(script_ns);
            };
            if script_ns < wait.time_ns {
                return Ok(script_ns);
            }
            let reached = self.holding.is_none();
            let holding = *self.holding.get_or_insert(Holding {
                frame,
                display_ns,
                since: now,
            });
            match unmet(wait.until) {
                None => {
                    if !reached {
                        log::info!(
                            "script line {}: '{}' after {:.1} s",
                            wait.line,
                            wait.until,
                            now.saturating_duration_since(holding.since).as_secs_f64()
                        );
                    }
                    // Over: the script goes on from where the frame that
                    // reached the wait would have had it.
                    self.waited_ns += display_ns - holding.display_ns;
                    self.frames_waited += frame - holding.frame;
                    self.holding = None;
                    self.waits.pop_front();
                }
                Some(why) if now.saturating_duration_since(holding.since) >= MAX_WAIT => {
                    return Err(WaitTimedOut {
                        line: wait.line,
                        condition: wait.until,
                        why,
                    });
                }
                Some(why) => {
                    if reached {
                        log::info!(
                            "script line {}: waiting for '{}' ({why})",
                            wait.line,
                            wait.until
                        );
                    }
                    return Ok(wait.time_ns - 1);
                }
            }
        }
    }

    /// The frames the run has, `scripted` and those spent in waits that
    /// are over; `None` while a wait holds (the run goes on at least until
    /// it is over).
    pub fn frames_in_run(&self, scripted: u64) -> Option<u64> {
        match self.holding {
            Some(_) => None,
            None => Some(scripted.saturating_add(self.frames_waited)),
        }
    }

    /// While a wait holds, sleeps until `frame` is due on the wall at
    /// `rate` Hz from the frame that reached the wait: for a run on the
    /// virtual clock, which would otherwise spin through frames as fast as
    /// it can draw them while it waits for other headsets.
    pub fn pace(&self, frame: u64, rate: f64) {
        let Some(holding) = self.holding else {
            return;
        };
        let due = holding.since
            + Duration::from_secs_f64(frame.saturating_sub(holding.frame) as f64 / rate);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::frame_time_ns;

    const RATE: f64 = 30.0;

    fn clock(script: &str) -> ScriptClock {
        ScriptClock::new(&Script::parse(script).unwrap())
    }

    /// Plays `frames` frames at [`RATE`] from `start` on the wall, the
    /// condition holding from frame `met_from` on; each frame's script time.
    fn play(clock: &mut ScriptClock, frames: u64, met_from: u64) -> Vec<i64> {
        let start = Instant::now();
        (0..frames)
            .map(|frame| {
                let now = start + Duration::from_secs_f64(frame as f64 / RATE);
                let met = frame >= met_from;
                clock
                    .at(frame, frame_time_ns(frame, RATE), now, |_| {
                        (!met).then(|| "not yet".to_owned())
                    })
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn without_a_wait_the_script_keeps_the_display_time() {
        let mut clock = clock("1.0 airtap right\n");
        let times = play(&mut clock, 90, 0);
        let display: Vec<i64> = (0..90).map(|frame| frame_time_ns(frame, RATE)).collect();
        assert_eq!(times, display);
        assert_eq!(clock.frames_in_run(300), Some(300));
    }

    #[test]
    fn a_wait_met_when_reached_costs_nothing() {
        let mut clock = clock("1.0 wait joined\n2.0 airtap right\n");
        let times = play(&mut clock, 90, 0);
        let display: Vec<i64> = (0..90).map(|frame| frame_time_ns(frame, RATE)).collect();
        assert_eq!(times, display);
        assert_eq!(clock.frames_in_run(300), Some(300));
    }

    #[test]
    fn a_wait_holds_the_clock_and_shifts_every_later_time_by_its_length() {
        let mut clock = clock("2.0 wait peers 1\n3.0 airtap right\n");
        // Reached on frame 60 (2.0 s); met on frame 210, 5 s later.
        let times = play(&mut clock, 400, 210);
        assert_eq!(times[59], frame_time_ns(59, RATE));
        assert!(times[60..210].iter().all(|&time| time == 2_000_000_000 - 1));
        // From then on, as if frame 210 were frame 60.
        assert_eq!(times[210], frame_time_ns(60, RATE));
        assert_eq!(times[300], frame_time_ns(150, RATE));
        // A 300-frame run waiting 5 s at 30 Hz draws 450 frames.
        assert_eq!(clock.frames_in_run(300), Some(450));
    }

    #[test]
    fn the_run_has_no_known_end_while_a_wait_holds() {
        let mut clock = clock("1.0 wait alone\n");
        play(&mut clock, 100, u64::MAX);
        assert_eq!(clock.frames_in_run(60), None);
    }

    #[test]
    fn waits_at_one_time_hold_one_after_the_other() {
        let mut clock = clock("1.0 wait ordered 7\n1.0 wait alone\n");
        let start = Instant::now();
        let mut asked = Vec::new();
        for frame in 0..60 {
            let time = clock
                .at(frame, frame_time_ns(frame, RATE), start, |condition| {
                    asked.push((frame, condition));
                    match condition {
                        Condition::Ordered(_) if frame < 40 => Some("not yet".into()),
                        Condition::Alone if frame < 50 => Some("not yet".into()),
                        _ => None,
                    }
                })
                .unwrap();
            if (30..50).contains(&frame) {
                assert_eq!(time, 999_999_999, "frame {frame}");
            }
        }
        assert_eq!(asked.first(), Some(&(30, Condition::Ordered(7))));
        assert!(asked.contains(&(40, Condition::Alone)));
        assert_eq!(clock.frames_in_run(100), Some(120));
    }

    #[test]
    fn a_wait_not_met_within_its_bound_names_its_line_and_why() {
        let mut clock = clock("# first\n0.5 wait peers 1\n");
        let start = Instant::now();
        let unmet = |_| Some("no peer joined the session".to_owned());
        assert!(clock.at(15, frame_time_ns(15, RATE), start, unmet).is_ok());
        let later = start + MAX_WAIT - Duration::from_millis(1);
        assert!(clock.at(16, frame_time_ns(16, RATE), later, unmet).is_ok());
        let error = clock
            .at(17, frame_time_ns(17, RATE), start + MAX_WAIT, unmet)
            .unwrap_err();
        assert_eq!(
            error,
            WaitTimedOut {
                line: 2,
                condition: Condition::Peers(1),
                why: "no peer joined the session".into()
            }
        );
    }

    #[test]
    fn each_condition_holds_only_where_it_says() {
        let hosting = |peers, ordered| Standing::Hosting { peers, ordered };
        let joined = |host_left, ordered| Standing::Joined { host_left, ordered };
        let holds = |condition, standing| unmet(condition, standing).is_none();
        assert!(holds(Condition::Joined, joined(None, 0)));
        assert!(!holds(
            Condition::Joined,
            joined(Some("it ended the session"), 3)
        ));
        assert!(!holds(Condition::Joined, Standing::Solo));
        assert!(!holds(Condition::Joined, hosting(1, 0)));
        assert!(holds(Condition::Peers(2), hosting(2, 0)));
        assert!(!holds(Condition::Peers(2), hosting(1, 0)));
        assert!(!holds(Condition::Peers(1), joined(None, 0)));
        assert!(holds(Condition::Alone, hosting(0, 4)));
        assert!(!holds(Condition::Alone, hosting(1, 4)));
        assert!(holds(
            Condition::Alone,
            joined(Some("it ended the session"), 4)
        ));
        assert!(!holds(Condition::Alone, joined(None, 4)));
        assert!(!holds(Condition::Alone, Standing::Solo));
        assert!(holds(Condition::Ordered(7), hosting(1, 7)));
        assert!(holds(Condition::Ordered(7), joined(None, 8)));
        assert!(!holds(Condition::Ordered(7), joined(None, 6)));
        assert!(!holds(Condition::Ordered(1), Standing::Solo));
    }

    #[test]
    fn an_unmet_condition_says_why_in_words() {
        assert_eq!(
            unmet(
                Condition::Peers(1),
                Standing::Hosting {
                    peers: 0,
                    ordered: 0
                }
            )
            .unwrap(),
            "no peer joined the session"
        );
        assert_eq!(
            unmet(
                Condition::Peers(3),
                Standing::Hosting {
                    peers: 1,
                    ordered: 0
                }
            )
            .unwrap(),
            "only 1 peer is connected"
        );
        assert_eq!(
            unmet(
                Condition::Alone,
                Standing::Hosting {
                    peers: 2,
                    ordered: 0
                }
            )
            .unwrap(),
            "2 peers are still connected"
        );
        assert_eq!(
            unmet(
                Condition::Ordered(7),
                Standing::Joined {
                    host_left: None,
                    ordered: 5
                }
            )
            .unwrap(),
            "the shared order holds 5 terrain commands"
        );
        assert_eq!(
            unmet(Condition::Ordered(7), Standing::Solo).unwrap(),
            "this run is in no session"
        );
    }
}
