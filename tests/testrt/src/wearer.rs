//! The person wearing the emulated headset: the simulator's scripted user
//! (`holoterrain::sim::user::SimulatedUser`) on the simulator's display
//! clock, with the runtime's own copy of the app core fed the same inputs,
//! so the user aims at the hologram where the app draws it and taps its
//! relief as the wearer sees it, without ever reaching into the app under
//! test (the core is deterministic: same inputs, same terrain).
//!
//! Times: the runtime's display times are the simulator's plus a fixed
//! epoch ([`EPOCH_NS`]), so frame n is shown at `EPOCH_NS + n / rate` (plus
//! scripted stalls), on every run and platform.
//!
//! The room's surfaces reach the copy from the first frame, as the app
//! under test gets them through scene understanding on its first frame. The
//! wearer remembers where the hologram was left (`wearer-placement.json`
//! in `HOLOTERRAIN_TESTRT_OUT`, after every manipulation its copy settles)
//! and starts from there while the anchor store keeps the app's anchor
//! (`holoterrain.placement`), as the app under test does.
//!
//! The buttons the wearer presses (`palm`, `press`) are where the copy lays
//! them out, which is where the app under test shows them.
//!
//! What the wearer says (`say`) reaches the copy of the app core as the
//! simulator hands it over: on the first frame shown at or after the words'
//! time. The runtime's speech recognizer hands the words to the app one
//! frame ahead ([`Wearer::phrases_due`]), so that the app, which reads
//! events before it begins a frame, hears them on that same frame.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use holoterrain::app::driver::{self, Diverged, FrameDriver};
use holoterrain::app::kept::{self, KeptIn, KeptPlacement};
use holoterrain::app::log::LogStart;
use holoterrain::app::placement::{Placement, PlacementCause};
use holoterrain::app::run::{Platform, RunLoop};
use holoterrain::app::save::Picture;
use holoterrain::app::{App, FrameInput, Kept, Surface};
use holoterrain::input::{Hand, PinchTracker};
use holoterrain::net::{LocalNetwork, Peer, Session};
use holoterrain::render::scene::FrameScene;
use holoterrain::sim::DisplayClock;
use holoterrain::sim::markers::Sightings;
use holoterrain::sim::room::RoomMarker;
use holoterrain::sim::script::Action;
use holoterrain::sim::user::{SimulatedUser, seconds_to_ns};

use crate::config::Config;

/// Where the wearer remembers the hologram's placement, in `HOLOTERRAIN_TESTRT_OUT`.
pub const WEARER_PLACEMENT_FILE: &str = "wearer-placement.json";

/// The display time of the first frame, nanoseconds: a fixed epoch, so
/// every run shows frame n at the same time.
pub const EPOCH_NS: i64 = 10_000_000_000;

/// When the headset last saw a `stale-marker` of the room (one not seen
/// since): 5 s before the first frame, before the session began.
pub const STALE_SIGHTING_NS: i64 = EPOCH_NS - 5_000_000_000;

/// What the wearer does for one frame.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The frame's predicted display time (runtime clock, nanoseconds).
    pub time_ns: i64,
    /// Head, eyes and hands, as the simulator builds them.
    pub input: FrameInput,
    /// Per hand (left, right): whether the runtime's own air-tap
    /// recognition sees the fingers pinched (HoloLens 2's hand `select`).
    pub pinched: [bool; 2],
}

/// The scripted user, the display clock and the app core's copy.
pub struct Wearer {
    /// The simulator's user, acting out the script.
    user: SimulatedUser,
    /// The simulator's display clock (rate and stalls).
    clock: DisplayClock,
    /// The app core in the one run loop, fed the frames the wearer
    /// produces, as the app under test's run loop feeds its own; in the
    /// shared session the app under test is in, which the copy follows,
    /// listening only, so that it holds the same terrain and placement.
    run: RunLoop<LocalNetwork>,
    /// What the copy does for its run loop.
    copy: Copy,
    /// The runtime's air-tap recognition, per hand.
    pinches: [PinchTracker; 2],
    /// Frames produced so far.
    frames: u64,
    /// The newest frame.
    latest: Option<Sample>,
    /// Scripted remoting disconnects not reached yet: (display time,
    /// reason, reconnect attempts the player refuses afterwards).
    disconnects: VecDeque<(i64, u32, u32)>,
    /// Words said that the recognizer has not handed over yet: (display
    /// time, words).
    phrases: VecDeque<(i64, String)>,
    /// The room's surfaces, when it has any.
    surfaces: Option<Arc<[Surface]>>,
    /// The room's printed codes, as the simulator's user sees them (on
    /// the simulator's clock).
    sightings: Sightings,
    /// The room's printed codes.
    markers: Vec<RoomMarker>,
    /// The placement remembered from the last run, when there is one.
    remembered: Kept,
}

impl Wearer {
    /// The wearer of `config`'s script on its display.
    pub fn new(config: &Config) -> Result<Self, String> {
        let (start, share) = match &config.join {
            Some(target) => {
                let (peer, start) = Peer::join(target)
                    .map_err(|error| format!("following the shared session: {error}"))?;
                (start, Some(Session::Peer(Box::new(peer.listen_only()))))
            }
            None => (
                LogStart::demo(
                    config.seed,
                    config.map_size.width as usize,
                    config.map_size.height as usize,
                ),
                None,
            ),
        };
        let app = driver::app_for(&start).map_err(|error| error.to_string())?;
        // Never hosts nor joins by card, and never saves: it is a copy.
        let run = RunLoop::new(FrameDriver::new(app), start, 0).in_session(share);
        let at = |time_s| EPOCH_NS + seconds_to_ns(time_s);
        let disconnects = config
            .script
            .events
            .iter()
            .filter_map(|event| match event.action {
                Action::Disconnect { reason, refusals } => {
                    Some((at(event.time_s), reason, refusals))
                }
                _ => None,
            })
            .collect();
        let placement_file = config
            .out
            .as_ref()
            .map(|out| out.join(WEARER_PLACEMENT_FILE));
        let remembered = placement_file
            .as_ref()
            .and_then(|path| kept::load_kept(path, KeptIn::SimulatorRoom).ok())
            .unwrap_or_default();
        let phrases = config
            .script
            .events
            .iter()
            .filter_map(|event| match &event.action {
                Action::Say { words } => Some((at(event.time_s), words.clone())),
                _ => None,
            })
            .collect();
        Ok(Self {
            user: SimulatedUser::new(
                &config.script,
                config.resolution.width,
                config.resolution.height,
            ),
            clock: DisplayClock::new(&config.script, config.rate),
            run,
            pinches: Default::default(),
            frames: 0,
            latest: None,
            disconnects,
            surfaces: (!config.room.surfaces.is_empty()).then(|| config.room.app_surfaces().into()),
            sightings: Sightings::new(&config.room.markers),
            markers: config.room.markers.clone(),
            copy: Copy { placement_file },
            remembered,
            phrases,
        })
    }

    /// Moves on to the next frame: its display time, and what the wearer does
    /// then; the app core's copy takes the frame in (starting where the
    /// wearer left the hologram when `anchor_kept`: the anchor store still
    /// holds the app's anchor).
    pub fn next_frame(&mut self, anchor_kept: bool) -> &Sample {
        let previous_ns = self.latest.as_ref().map(|sample| sample.time_ns - EPOCH_NS);
        let sim_ns = self.clock.frame_time_ns(self.frames);
        self.frames += 1;
        // The user presses the buttons where the copy shows them, as the
        // app under test does (same inputs, same controls).
        self.user.see_buttons(self.run.app().buttons());
        let mut input = FrameInput {
            voice: self.user.heard(previous_ns, sim_ns),
            surfaces: self.surfaces.clone(),
            kept: if anchor_kept {
                self.remembered
            } else {
                Kept::None
            },
            ..self
                .user
                .frame_input(sim_ns, self.run.app().placement(), self.run.app().land())
        };
        // The copy sees the codes as the simulator hands them over.
        input.markers = Some(self.sightings.look(&input));
        self.run
            .frame(input.clone(), &mut self.copy)
            .expect("a live run follows no log");
        let pinched = Hand::BOTH.map(|hand| {
            let tracker = &mut self.pinches[hand.index()];
            tracker.update(input.hands[hand.index()].joints.as_ref());
            tracker.is_pinched()
        });
        self.latest.insert(Sample {
            time_ns: EPOCH_NS + sim_ns,
            input,
            pinched,
        })
    }

    /// The newest frame, `None` before the first xrWaitFrame.
    pub fn latest(&self) -> Option<&Sample> {
        self.latest.as_ref()
    }

    /// What the wearer does at `time_ns`: the newest frame's sample at its
    /// own time, otherwise the user worked out afresh for that time (the
    /// app core as it stands), as a runtime predicts poses at any time.
    pub fn at(&self, time_ns: i64) -> FrameInput {
        match &self.latest {
            Some(sample) if sample.time_ns == time_ns => sample.input.clone(),
            _ => self.user.predict(
                time_ns - EPOCH_NS,
                self.run.app().placement(),
                self.run.app().land(),
            ),
        }
    }

    /// The display time of the newest frame, or the epoch before the first.
    pub fn now_ns(&self) -> i64 {
        self.latest
            .as_ref()
            .map_or(EPOCH_NS, |sample| sample.time_ns)
    }

    /// The scripted disconnects due by `time_ns`, each once: (reason,
    /// attempts to reconnect the player refuses).
    pub fn disconnects_due(&mut self, time_ns: i64) -> Vec<(u32, u32)> {
        let mut due = Vec::new();
        while let Some(&(at_ns, reason, refusals)) = self.disconnects.front() {
            if at_ns > time_ns {
                break;
            }
            due.push((reason, refusals));
            self.disconnects.pop_front();
        }
        due
    }

    /// The display time of the frame after the newest (the epoch before
    /// the first), on the same clock.
    pub fn next_frame_time_ns(&self) -> i64 {
        EPOCH_NS + self.clock.clone().frame_time_ns(self.frames)
    }

    /// The words said by the time the next frame is shown, each once: the
    /// recognizer hands them over while the app waits for the frame before,
    /// so the app's next frame hears them, the frame the simulator's user
    /// says them on.
    pub fn phrases_due(&mut self) -> Vec<String> {
        let next_ns = self.next_frame_time_ns();
        let mut due = Vec::new();
        while self
            .phrases
            .front()
            .is_some_and(|(at_ns, _)| *at_ns <= next_ns)
        {
            if let Some((_, words)) = self.phrases.pop_front() {
                due.push(words);
            }
        }
        due
    }

    /// The room's printed codes the headset has seen, with when it last
    /// did (runtime clock): those the wearer saw, and a `stale-marker` not
    /// seen since at [`STALE_SIGHTING_NS`]; (index in the room, last seen).
    pub fn marker_sightings(&self) -> Vec<(usize, i64)> {
        self.markers
            .iter()
            .enumerate()
            .filter_map(|(index, marker)| {
                match (self.sightings.last_seen_ns(index), marker.seen_before_start) {
                    (Some(seen_ns), _) => Some((index, EPOCH_NS + seen_ns)),
                    (None, true) => Some((index, STALE_SIGHTING_NS)),
                    (None, false) => None,
                }
            })
            .collect()
    }

    /// The room's printed code at `index`.
    pub fn marker(&self, index: usize) -> Option<&RoomMarker> {
        self.markers.get(index)
    }

    /// The app core's copy: what the wearer saw grow (for the report).
    pub fn app(&self) -> &App {
        self.run.app()
    }
}

/// The copy as its run loop's platform: it draws nothing (the app under
/// test draws), and remembers each placement a manipulation of it settled.
struct Copy {
    /// Where the wearer remembers the placement.
    placement_file: Option<PathBuf>,
}

impl Platform for Copy {
    type Error = Diverged;

    fn should_draw(&self) -> bool {
        false
    }

    fn draw(&mut self, _scene: &FrameScene<'_>) -> Result<(), Diverged> {
        Ok(())
    }

    fn picture(&mut self) -> Result<Option<Picture>, Diverged> {
        Ok(None)
    }

    fn placed(&mut self, placement: &Placement, cause: PlacementCause) -> Result<(), Diverged> {
        if let Some(path) = &self.placement_file
            && cause.is_manipulation()
            && let Err(error) =
                kept::save(path, &KeptPlacement::of(placement, KeptIn::SimulatorRoom))
        {
            eprintln!("holoterrain-testrt: the wearer cannot remember the placement: {error}");
        }
        Ok(())
    }

    /// The copy's lines are the app under test's to say.
    fn shared_line(&mut self, _line: String) {}
}

#[cfg(test)]
mod tests {
    use holoterrain::sim::script::Script;
    use holoterrain::size::Size;

    use super::*;

    fn config(script: &str) -> Config {
        Config {
            script: Script::parse(script).unwrap(),
            room: Default::default(),
            resolution: Size {
                width: 64,
                height: 48,
            },
            rate: 60.0,
            realtime: false,
            out: None,
            every: 30,
            remoting: None,
            player_codecs: Vec::new(),
            pc_codecs: Vec::new(),
            map_size: Size {
                width: 9,
                height: 9,
            },
            seed: 1,
            hang_at: None,
            join: None,
        }
    }

    #[test]
    fn frames_follow_the_simulators_clock_from_the_epoch() {
        let mut wearer = Wearer::new(&config("0.05 stall 1")).unwrap();
        let times: Vec<i64> = (0..5)
            .map(|_| wearer.next_frame(false).time_ns - EPOCH_NS)
            .collect();
        assert_eq!(
            times,
            [0, 16_666_667, 33_333_334, 1_050_000_000, 1_066_666_667]
        );
    }

    #[test]
    fn the_hands_select_is_held_while_an_air_tap_pinches() {
        let mut wearer = Wearer::new(&config("0.1 airtap right")).unwrap();
        let pinched: Vec<bool> = (0..30)
            .map(|_| wearer.next_frame(false).pinched[1])
            .collect();
        // Frame 6 (0.1 s) closes the fingers; 0.15 s later they open.
        let first = pinched.iter().position(|&held| held);
        assert_eq!(first, Some(6));
        assert!(pinched[6..15].iter().all(|&held| held));
        assert!(!pinched[16]);
        assert!(
            !wearer.latest().unwrap().pinched[0],
            "the left hand never pinches"
        );
    }

    #[test]
    fn the_newest_frame_is_answered_exactly_and_other_times_afresh() {
        let mut wearer = Wearer::new(&config("")).unwrap();
        let sample = wearer.next_frame(false).clone();
        assert_eq!(wearer.at(sample.time_ns), sample.input);
        let later = wearer.at(sample.time_ns + 1_000_000_000);
        assert_ne!(later.head, sample.input.head, "the head orbits");
    }

    #[test]
    fn disconnects_come_due_once() {
        let mut config = config("1.0 disconnect 17\n2.0 disconnect 4 3");
        config.remoting = "127.0.0.1".parse().ok();
        let mut wearer = Wearer::new(&config).unwrap();
        assert!(wearer.disconnects_due(EPOCH_NS + 999_999_999).is_empty());
        assert_eq!(wearer.disconnects_due(EPOCH_NS + 1_000_000_000), [(17, 0)]);
        assert_eq!(wearer.disconnects_due(EPOCH_NS + 3_000_000_000), [(4, 3)]);
        assert!(wearer.disconnects_due(EPOCH_NS + 4_000_000_000).is_empty());
    }

    #[test]
    fn words_are_handed_over_while_waiting_for_the_frame_that_hears_them() {
        // 0.05 s falls between frame 2 (0.0333 s) and frame 3 (0.05 s, rounded up).
        let mut wearer = Wearer::new(&config("0.05 say new terrain")).unwrap();
        let mut handed = Vec::new();
        let mut copy_heard = Vec::new();
        for frame in 0..6 {
            let sample = wearer.next_frame(false).clone();
            if sample.input.voice.is_some() {
                copy_heard.push(frame);
            }
            if !wearer.phrases_due().is_empty() {
                handed.push(frame);
            }
        }
        assert_eq!(
            copy_heard,
            [3],
            "the copy hears it on the frame the simulator does"
        );
        assert_eq!(handed, [2], "handed over while the app waits for frame 2");
    }
}
