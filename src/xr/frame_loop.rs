//! The OpenXR frame loop and what outlives a session: the app core, the
//! scene builder, the run's record, the session states seen, and why the
//! run is ending. It drives a [`Session`] (which owns everything of the
//! session and makes every runtime call) through the session state machine,
//! frame pacing by xrWaitFrame, input while focused, the app core each
//! frame and drawing when the runtime asks; it ends on Ctrl-C (SIGINT),
//! SIGTERM, `--frames`, the runtime's request, or the runtime stopping
//! under the session.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use openxr as xr;

use super::error::XrError;
use super::events::EventQueue;
use super::graphics::GraphicsBinding;
use super::input::HANDS;
use super::progress::Progress;
use super::remoting::{Polled, RemotingEvent, disconnect_reason};
use super::session::Session;
use super::session_end::SessionEnd;
use crate::app::recorder::RunRecorder;
use crate::app::report::RunReport;
use crate::app::{App, AppEvent, FrameOutput, SceneBuilder};

/// How long to idle between event polls while the session is not running.
const IDLE_POLL: Duration = Duration::from_millis(10);

/// What the loop leaves for the run's report.
#[derive(Debug, Clone)]
pub struct LoopRecord {
    /// The fields every run reports (frames, seeds, reseeds, timings...).
    pub run: RunReport,
    /// Every session state the runtime reported, in order.
    pub session_states: Vec<String>,
    /// Whether the hologram was pinned with a spatial anchor.
    pub anchored: bool,
}

/// The loop and what outlives a session.
pub struct FrameLoop<'a> {
    /// The app core: placement, gestures, growth.
    app: App,
    /// Turns the app's output into the renderer's scene (and keeps a height
    /// change made on a frame that is not drawn for the next one).
    scenes: SceneBuilder,
    /// Seeds, reseeds, timings: the run's report in the making.
    recorder: RunRecorder,
    /// Every session state the runtime reported, in order (and
    /// "INSTANCE_LOSS_PENDING" when it announced its own end).
    states_seen: Vec<String>,
    /// Why the loop asked the runtime to end the session, once it did.
    exit_requested: Option<SessionEnd>,
    /// The runtime announced the session's or its own loss.
    lost: Option<SessionEnd>,
    /// Whether the hologram is pinned with a spatial anchor.
    anchored: bool,
    /// `--frames`: end the session after this many drawn frames.
    frame_limit: Option<u64>,
    /// Raised by Ctrl-C, SIGTERM (and, on Windows, closing the console).
    interrupted: Arc<AtomicBool>,
    /// How the compositor blends the frames with the world.
    blend_mode: xr::EnvironmentBlendMode,
    /// Told what happens as it happens.
    progress: &'a mut dyn FnMut(Progress),
}

impl<'a> FrameLoop<'a> {
    /// A loop for `app`, ending after `frame_limit` drawn frames (if given)
    /// or when `interrupted` is raised, telling `progress` what happens.
    pub fn new(
        app: App,
        frame_limit: Option<u64>,
        interrupted: Arc<AtomicBool>,
        blend_mode: xr::EnvironmentBlendMode,
        progress: &'a mut dyn FnMut(Progress),
    ) -> Self {
        FrameLoop {
            recorder: RunRecorder::new(app.seed(), 0),
            app,
            scenes: SceneBuilder::new(),
            states_seen: Vec::new(),
            exit_requested: None,
            lost: None,
            anchored: false,
            frame_limit,
            interrupted,
            blend_mode,
            progress,
        }
    }

    /// The heightmap's size, which the renderer's grid must have.
    pub fn grid_size(&self) -> (u32, u32) {
        let heights = self.app.heightmap();
        (heights.width() as u32, heights.height() as u32)
    }

    /// Runs `session` until it ends and says how it ended: also when the
    /// runtime stopped under it (instance or session lost, runtime
    /// failure), which ends the loop like a proper end; any other error is
    /// returned.
    pub fn run<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<SessionEnd, XrError> {
        match self.frames(session, events) {
            Ok(()) => Ok(self
                .lost
                .or(self.exit_requested)
                .unwrap_or(SessionEnd::RuntimeExit)),
            Err(error) => match error.runtime_stop() {
                Some(end) => {
                    log::info!("the OpenXR runtime stopped: {error}");
                    Ok(end)
                }
                None => Err(error),
            },
        }
    }

    /// What the loop leaves for the report.
    pub fn finish(self) -> LoopRecord {
        let seconds = self.recorder.display_seconds();
        LoopRecord {
            run: self.recorder.finish(&self.app, seconds),
            session_states: self.states_seen,
            anchored: self.anchored,
        }
    }

    /// Events, then a frame while the session runs, until the session is over.
    fn frames<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<(), XrError> {
        loop {
            if self.exit_requested.is_none()
                && let Some(reason) = self.exit_reason()
            {
                self.exit_requested = Some(reason);
                if !session.request_exit()? {
                    return Ok(());
                }
            }
            if !self.handle_events(session, events)? {
                return Ok(());
            }
            if session.status().running {
                self.frame(session)?;
            } else {
                std::thread::sleep(IDLE_POLL);
            }
        }
    }

    /// Why the session should end now, if it should.
    fn exit_reason(&self) -> Option<SessionEnd> {
        if self.frame_limit_reached() {
            Some(SessionEnd::FrameLimit)
        } else if self.interrupted.load(Ordering::Relaxed) {
            Some(SessionEnd::Interrupted)
        } else {
            None
        }
    }

    /// Whether `--frames` frames have been drawn.
    fn frame_limit_reached(&self) -> bool {
        self.frame_limit
            .is_some_and(|limit| self.recorder.frames() >= limit)
    }

    /// Handles the queued events; false once the session is over.
    fn handle_events<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<bool, XrError> {
        while let Some(polled) = events.next()? {
            let event = match polled {
                Polled::Core(event) => event,
                // Only a remoting runtime sends these; what it does to the
                // session after a disconnect arrives as session events.
                Polled::Remoting(RemotingEvent::Connected) => {
                    (self.progress)(Progress::RemotingConnected);
                    continue;
                }
                Polled::Remoting(RemotingEvent::Disconnected(reason)) => {
                    (self.progress)(Progress::RemotingDisconnected(disconnect_reason(reason)));
                    continue;
                }
            };
            match event {
                xr::Event::SessionStateChanged(change) => {
                    let state = change.state();
                    let name = state_name(state);
                    log::info!("session state {name}");
                    self.states_seen.push(name.into());
                    (self.progress)(Progress::SessionState(name));
                    session.state_changed(state)?;
                    match state {
                        xr::SessionState::EXITING => return Ok(false),
                        xr::SessionState::LOSS_PENDING => {
                            self.lost = Some(SessionEnd::SessionLost);
                            return Ok(false);
                        }
                        _ => {}
                    }
                }
                xr::Event::InstanceLossPending(_) => {
                    // Logged only: the run's one line comes from the caller.
                    log::info!("the OpenXR runtime is going away (instance loss pending)");
                    self.states_seen.push("INSTANCE_LOSS_PENDING".into());
                    self.lost = Some(SessionEnd::InstanceLost);
                    return Ok(false);
                }
                xr::Event::InteractionProfileChanged(_) => {
                    for (hand, profile) in HANDS.iter().zip(session.interaction_profiles()?) {
                        log::info!("interaction profile of {hand}: {profile}");
                    }
                }
                xr::Event::EventsLost(lost) => {
                    log::warn!("{} OpenXR events lost", lost.lost_event_count());
                }
                _ => {}
            }
        }
        Ok(true)
    }

    /// One frame: wait for it, track, the app core, draw when the runtime
    /// asks (and `--frames` is not reached), end it.
    fn frame<B: GraphicsBinding>(&mut self, session: &mut Session<B>) -> Result<(), XrError> {
        let frame_state = session.wait_frame()?;
        session.begin_frame()?;
        let time = frame_state.predicted_display_time;

        let update_started = Instant::now();
        let input = session.track(time)?;
        let output = self.app.update(&input);
        self.scenes.updated(&output);
        self.answer(session, &output, time)?;
        self.recorder
            .updated(time.as_nanos(), &output, milliseconds_since(update_started));

        let render_started = Instant::now();
        let drawing = frame_state.should_render && !self.frame_limit_reached();
        let drawn = match self.scenes.scene(&output, self.app.heightmap().cells()) {
            Some(scene) if drawing => {
                session.draw(&scene)?;
                true
            }
            _ => false,
        };
        if drawn {
            self.scenes.drawn();
        }
        session.end_frame(time, self.blend_mode, drawn)?;
        if drawn {
            self.recorder.drawn(milliseconds_since(render_started));
            (self.progress)(Progress::FrameDrawn(self.recorder.frames()));
        }
        Ok(())
    }

    /// Answers what the app did this frame: pins a settled placement with
    /// an anchor (and keeps it after a manipulation), tells of a reseed and
    /// pulses the hand that asked for it.
    fn answer<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        output: &FrameOutput,
        time: xr::Time,
    ) -> Result<(), XrError> {
        for event in &output.events {
            match *event {
                AppEvent::Placed { placement, cause } => {
                    self.anchored = session.anchor(&placement, cause, time)?;
                    (self.progress)(Progress::Placed {
                        cause,
                        position: placement.pose.position.to_array(),
                        scale: placement.scale,
                    });
                }
                AppEvent::Reseeded { seed, cause, hand } => {
                    log::info!(
                        "reseeded ({}, {hand:?} hand) with seed {seed}",
                        cause.name()
                    );
                    (self.progress)(Progress::Reseeded { cause, seed });
                    // Only the hand that asked feels the answer.
                    session.pulse(hand)?;
                }
            }
        }
        Ok(())
    }
}

/// Milliseconds since `start`.
fn milliseconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// The state's name as the OpenXR specification writes it (without `XR_SESSION_STATE_`).
fn state_name(state: xr::SessionState) -> &'static str {
    match state {
        xr::SessionState::IDLE => "IDLE",
        xr::SessionState::READY => "READY",
        xr::SessionState::SYNCHRONIZED => "SYNCHRONIZED",
        xr::SessionState::VISIBLE => "VISIBLE",
        xr::SessionState::FOCUSED => "FOCUSED",
        xr::SessionState::STOPPING => "STOPPING",
        xr::SessionState::LOSS_PENDING => "LOSS_PENDING",
        xr::SessionState::EXITING => "EXITING",
        _ => "UNKNOWN",
    }
}
