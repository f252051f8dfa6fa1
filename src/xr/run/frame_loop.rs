//! The OpenXR frame loop and what outlives a session: the app core, the
//! scene builder, the run's record, the session states seen, and why the
//! run is ending. It drives a [`Session`] (which owns everything of the
//! session and makes every runtime call) through the session state machine,
//! frame pacing by xrWaitFrame, input while focused (and the voice commands
//! the player's speech recognizer heard, or on Windows without one,
//! Windows' own), the app core each frame and
//! drawing when the runtime asks; it ends on Ctrl-C (SIGINT), SIGTERM,
//! `--frames`, the runtime's request, or the runtime stopping under the
//! session. What it records is shared with the watchdog (`watchdog.rs`),
//! which writes it when the runtime stops answering.
//!
//! One loop can drive several sessions in turn: with Holographic Remoting a
//! dropped connection loses the session, and once `xr::run` has connected
//! again it hands the same loop a new session. The terrain, its seed and
//! its placement carry on; the hologram is pinned with a new anchor in the
//! new session at the pose it had.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use glam::Vec3;
use openxr as xr;

use crate::app::log::CommandLog;
use crate::app::placement::{Placement, PlacementCause};
use crate::app::recorder::{RunRecorder, WorldSummary};
use crate::app::report::RunReport;
use crate::app::run::{Frame, Platform, RunLoop, SharedSession};
use crate::app::save::Picture;
use crate::app::{AppEvent, FrameInput, FrameOutput, VoiceCommand};
use crate::input::Hand;
use crate::input::geometry::Pose;
use crate::net::{LocalNetwork, PeerRecord, ShareReport};
use crate::render::scene::{Display, FrameScene};
use crate::sound::Sound;
use crate::sound::output::Speaker;
use crate::xr::error::XrError;
use crate::xr::graphics::GraphicsBinding;
use crate::xr::input::actions::HANDS;
use crate::xr::progress::Progress;
use crate::xr::runtime::events::{EventQueue, Polled, RemotingEvent};
use crate::xr::session::Session;
use crate::xr::session_end::SessionEnd;
use crate::xr::sys::speech::{SpeechEvent, recognizer_state, recognizer_state_name};

/// How long to idle between event polls while the session is not running.
const IDLE_POLL: Duration = Duration::from_millis(10);

/// What the loop leaves for the run's report.
#[derive(Debug, Clone, Default)]
pub struct LoopRecord {
    /// The fields every run reports (frames, seeds, reseeds, timings...).
    pub run: RunReport,
    /// Every session state the runtime reported, in order.
    pub session_states: Vec<String>,
    /// Whether the hologram was pinned with a spatial anchor.
    pub anchored: bool,
    /// Every command applied, as `commands.jsonl` holds them.
    pub command_log: Option<CommandLog>,
    /// Frames that also drew the first-person observer view (Mixed Reality Capture).
    pub observer_frames: u64,
}

/// What the loop records as it goes. It is shared with the watchdog, which
/// may have to write the report while the loop's thread is stuck in a
/// runtime call: the loop locks it only between runtime calls, never
/// across one, so the watchdog can always take it.
#[derive(Debug)]
pub struct LoopRecorder {
    /// Seeds, reseeds, timings: the run's report in the making (the run
    /// loop's, which locks it only between runtime calls too).
    run: Arc<Mutex<RunRecorder>>,
    /// Every session state the runtime reported, in order (and
    /// "INSTANCE_LOSS_PENDING" when it announced its own end).
    states_seen: Vec<String>,
    /// Whether the hologram is pinned with a spatial anchor.
    anchored: bool,
    /// The app's world as the report needs it, as of its latest update.
    world: WorldSummary,
    /// Frames that also drew the observer view.
    observer_frames: u64,
}

impl LoopRecorder {
    /// The record of a run whose run loop records into `run`.
    fn new(run: Arc<Mutex<RunRecorder>>) -> Self {
        LoopRecorder {
            run,
            states_seen: Vec::new(),
            anchored: false,
            world: WorldSummary::default(),
            observer_frames: 0,
        }
    }

    /// What the loop leaves for the report, as of now.
    pub fn record(&self) -> LoopRecord {
        let run = lock(&self.run);
        LoopRecord {
            run: run.report_so_far(&self.world, run.display_seconds()),
            session_states: self.states_seen.clone(),
            anchored: self.anchored,
            command_log: Some(run.command_log()),
            observer_frames: self.observer_frames,
        }
    }
}

/// The loop and what outlives a session.
pub struct FrameLoop<'a> {
    /// The app core (placement, gestures, growth), the scene it draws, the
    /// shared session, saving and keeping: the run loop every platform runs.
    /// The shared session outlives OpenXR sessions: a remoting reconnect
    /// keeps the peers.
    run: RunLoop<LocalNetwork>,
    /// What the loop records, shared with the watchdog.
    recorder: Arc<Mutex<LoopRecorder>>,
    /// Why the loop asked the runtime to end the session, once it did.
    exit_requested: Option<SessionEnd>,
    /// The runtime announced the session's or its own loss.
    lost: Option<SessionEnd>,
    /// The hologram was placed under an earlier session: pin it with an
    /// anchor in this one on its first frame.
    reanchor: bool,
    /// Why the Holographic Remoting connection dropped, once it did.
    disconnect: Option<u32>,
    /// A voice command heard since the last frame, for the next one.
    voice: Option<VoiceCommand>,
    /// Windows' own speech recognizer, listening for the phrases and the
    /// labels on show when no remoting player recognises speech.
    #[cfg(windows)]
    device_speech: Option<crate::xr::input::windows_speech::Listener>,
    /// Each hand's select and menu buttons as the last frame saw them, to
    /// tell when one goes down.
    buttons_were_down: [[bool; 2]; 2],
    /// The button each hand's ray was on after the last frame (for `RayOn`).
    rays_were_on: [Option<&'static str>; 2],
    /// `--frames`: end the session after this many drawn frames.
    frame_limit: Option<u64>,
    /// Raised by Ctrl-C, SIGTERM (and, on Windows, closing the console).
    interrupted: Arc<AtomicBool>,
    /// Told what happens as it happens.
    progress: &'a mut dyn FnMut(Progress),
    /// Where the controls' clicks play (silent without an audio device).
    speaker: Speaker,
}

impl<'a> FrameLoop<'a> {
    /// A loop running `run`, ending after `frame_limit` drawn frames (if
    /// given) or when `interrupted` is raised, telling `progress` what
    /// happens.
    pub fn new(
        run: RunLoop<LocalNetwork>,
        frame_limit: Option<u64>,
        interrupted: Arc<AtomicBool>,
        progress: &'a mut dyn FnMut(Progress),
    ) -> Self {
        FrameLoop {
            recorder: Arc::new(Mutex::new(LoopRecorder::new(run.recorder()))),
            run,
            exit_requested: None,
            lost: None,
            reanchor: false,
            disconnect: None,
            voice: None,
            #[cfg(windows)]
            device_speech: None,
            buttons_were_down: [[false; 2]; 2],
            rays_were_on: [None; 2],
            frame_limit,
            interrupted,
            progress,
            // Opened once for the run, whichever sessions it drives.
            speaker: Speaker::open(),
        }
    }

    /// Listens for voice commands with Windows' own speech recognition
    /// (the packaged HoloLens app, or a local runtime on a PC): for runs
    /// with no remoting player to recognise speech for the app. Returns at
    /// once; a recognizer that cannot start is one log line.
    #[cfg(windows)]
    pub fn listen_on_device(&mut self) {
        let on_show = self.run.app().buttons().iter();
        self.device_speech = crate::xr::input::windows_speech::Listener::start(
            on_show.map(|button| button.action.label()),
        );
    }

    /// Leaves the shared session, if in one: what it did, who took part.
    pub fn leave_share(&mut self) -> Option<(ShareReport, Vec<PeerRecord>)> {
        let mut share = self.run.leave_session()?;
        for line in share.take_notes() {
            (self.progress)(Progress::Shared(line));
        }
        Some(share.finish())
    }

    /// Frames drawn so far, over every session.
    pub fn frames_drawn(&self) -> u64 {
        self.run.record().frames()
    }

    /// Why the Holographic Remoting connection dropped under the last
    /// session, if the runtime said so; asking clears it.
    pub fn take_disconnect(&mut self) -> Option<u32> {
        self.disconnect.take()
    }

    /// Tells the caller what happened (e.g. the link's remoting events).
    pub fn tell(&mut self, progress: Progress) {
        (self.progress)(progress);
    }

    /// The heightmap's size, which the renderer's grid must have.
    pub fn grid_size(&self) -> (u32, u32) {
        let heights = self.run.app().heightmap();
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
        self.lost = None;
        self.locked_recorder().anchored = false;
        self.reanchor = self.run.app().placement().is_some();
        match self.frames(session, events) {
            Ok(()) => Ok(self
                .lost
                .or(self.exit_requested)
                .unwrap_or(SessionEnd::RuntimeExit)),
            Err(error) => error.into_session_end(),
        }
    }

    /// What the loop records, for the report (at the end, or the
    /// watchdog's before it).
    pub fn shared_recorder(&self) -> Arc<Mutex<LoopRecorder>> {
        Arc::clone(&self.recorder)
    }

    /// The record, locked: only ever for a statement between runtime calls.
    fn locked_recorder(&self) -> MutexGuard<'_, LoopRecorder> {
        self.recorder.lock().unwrap_or_else(PoisonError::into_inner)
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
            .is_some_and(|limit| self.run.record().frames() >= limit)
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
                // session after a disconnect arrives as session events, and
                // connecting is the remoting link's (it reports connections).
                Polled::Remoting(RemotingEvent::Disconnected(reason)) => {
                    self.disconnect = Some(reason);
                    (self.progress)(Progress::RemotingDisconnected { reason });
                    continue;
                }
                Polled::Remoting(event) => {
                    log::info!("remoting event {event:?}");
                    continue;
                }
                Polled::Speech(event) => {
                    self.follow_speech(session, event)?;
                    continue;
                }
            };
            match event {
                xr::Event::SessionStateChanged(change) if change.session() != session.handle() => {
                    log::info!("a state change of an earlier session, ignored");
                }
                xr::Event::SessionStateChanged(change) => {
                    let state = change.state();
                    let name = state_name(state);
                    log::info!("session state {name}");
                    self.locked_recorder().states_seen.push(name.into());
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
                    self.locked_recorder()
                        .states_seen
                        .push("INSTANCE_LOSS_PENDING".into());
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

    /// Follows the player's speech recognizer: a phrase it recognised is
    /// the next frame's voice command when it is one.
    fn follow_speech<B: GraphicsBinding>(
        &mut self,
        session: &Session<B>,
        event: SpeechEvent,
    ) -> Result<(), XrError> {
        match event {
            SpeechEvent::Recognized { packet_id } => {
                let Some(text) = session.recognized_text(packet_id)? else {
                    return Ok(());
                };
                let command = VoiceCommand::recognize(&text);
                log::info!("heard \"{text}\": {command:?}");
                self.voice = self.voice.or(command);
            }
            SpeechEvent::RecognizerState {
                state: recognizer_state::INITIALIZATION_FAILED,
                message,
            } => log::warn!(
                "the Remoting Player's speech recognizer did not start ({message}); voice commands are off"
            ),
            SpeechEvent::RecognizerState { state, .. } => {
                log::info!("speech recognizer {}", recognizer_state_name(state));
            }
        }
        Ok(())
    }

    /// One frame: wait for it, track, the run loop (the app core, the
    /// shared session, drawing when the runtime asks and `--frames` is not
    /// reached, saving), the observer view, end it.
    fn frame<B: GraphicsBinding>(&mut self, session: &mut Session<B>) -> Result<(), XrError> {
        let frame_state = session.wait_frame()?;
        session.begin_frame()?;
        let time = frame_state.predicted_display_time;

        #[cfg(windows)]
        if self.voice.is_none()
            && let Some(listener) = &self.device_speech
        {
            self.voice = listener.heard();
        }
        let input = FrameInput {
            voice: self.voice.take(),
            ..session.track(time)?
        };
        self.tell_buttons_down(&input);
        // The blend mode the session chose decides the look: see-through
        // (additive) or covering the world (opaque).
        self.run
            .set_display(display_for(session.facts().blend_mode));
        let markers_before = self.run.record().markers_seen().len();
        let mut platform = XrPlatform {
            session: &mut *session,
            time,
            drawing: frame_state.should_render && !self.frame_limit_reached(),
            recorder: &self.recorder,
            speaker: &mut self.speaker,
            progress: &mut *self.progress,
        };
        let Frame { output, drawn_ms } = self.run.frame(input, &mut platform)?;
        lock(&self.recorder).world.update_from(self.run.app());
        let markers_seen = self.run.record().markers_seen()[markers_before..].to_vec();
        for hand in Hand::BOTH {
            let on = self.run.app().ray_on(hand);
            let was_on = &mut self.rays_were_on[hand.index()];
            if on != *was_on {
                *was_on = on;
                (self.progress)(Progress::RayOn { hand, label: on });
            }
        }
        for marker in markers_seen {
            (self.progress)(Progress::MarkerSeen {
                text: marker.text,
                position: marker.position,
            });
        }
        // "See it, say it": the recognizer hears the labels now on show.
        #[cfg(windows)]
        if let Some(listener) = self.device_speech.as_mut() {
            let on_show = self.run.app().buttons().iter();
            listener.show(on_show.map(|button| button.action.label()));
        }
        self.tell_events(&output);
        if self.reanchor
            && let Some(placement) = self.run.app().placement()
        {
            self.reanchor = false;
            let anchored = session.anchor(&placement, None, time)?;
            self.locked_recorder().anchored = anchored;
        }
        // Mixed Reality Capture: the camera's own view, at the eyes' display
        // time, with every height (its renderer draws only while it is active).
        if drawn_ms.is_some()
            && session.observer_active()
            && let Some(scene) = self.run.driver().scene_with_every_height(&output)
            && session.draw_observer(&scene, time)?
        {
            self.locked_recorder().observer_frames += 1;
        }
        session.end_frame(time, drawn_ms.is_some())?;
        if drawn_ms.is_some() {
            let frames = self.run.record().frames();
            (self.progress)(Progress::FrameDrawn(frames));
        }
        Ok(())
    }

    /// Tells when a hand's select or menu button goes down.
    fn tell_buttons_down(&mut self, input: &FrameInput) {
        for hand in Hand::BOTH {
            let hand_input = &input.hands[hand.index()];
            let was_down = &mut self.buttons_were_down[hand.index()];
            for (button, (state, told)) in [
                (hand_input.select, Progress::SelectPressed(hand)),
                (hand_input.menu, Progress::MenuPressed(hand)),
            ]
            .into_iter()
            .enumerate()
            {
                let down = state == Some(true);
                if down && !was_down[button] {
                    (self.progress)(told);
                }
                was_down[button] = down;
            }
        }
    }

    /// Logs what the frame's events did and tells the progress of those a
    /// harness watches for.
    fn tell_events(&mut self, output: &FrameOutput) {
        for event in &output.events {
            match *event {
                AppEvent::Placed { placement, cause } => (self.progress)(Progress::Placed {
                    cause,
                    position: placement.pose.position.to_array(),
                    scale: placement.scale,
                }),
                AppEvent::Reseeded { seed, cause, hand } => {
                    log::info!(
                        "reseeded ({}, {hand:?} hand) with seed {seed}",
                        cause.name()
                    );
                    (self.progress)(Progress::Reseeded { cause, seed });
                }
                AppEvent::Edited {
                    kind,
                    hand,
                    ignored,
                } => match ignored {
                    None => log::info!("edited the terrain ({kind:?}, {hand:?} hand)"),
                    Some(why) => log::info!("ignored a {kind:?}: {}", why.reason()),
                },
                AppEvent::Undid { undone } => match undone {
                    Some(undone) => log::info!("undid the last {undone:?}"),
                    None => log::info!("nothing left to undo"),
                },
                AppEvent::Scrubbed { to, length, ms } => {
                    log::info!("the world shows moment {to} of {length} (rebuilt in {ms:.1} ms)")
                }
                AppEvent::Redid { redone } => match redone {
                    Some(redone) => log::info!("redid the last undone {redone:?}"),
                    None => log::info!("nothing to redo"),
                },
                AppEvent::Growth(state) => log::info!(
                    "growth {} at {} iterations per second",
                    if state.paused { "paused" } else { "goes on" },
                    state.iterations_per_second
                ),
                AppEvent::Pressed(press) => {
                    log::info!(
                        "pressed \"{}\" ({:?}): {}",
                        press.label,
                        press.how,
                        press.action.did()
                    );
                    (self.progress)(Progress::Pressed {
                        label: press.label,
                        how: press.how.name(),
                    });
                }
                AppEvent::Weathered => log::info!("weathering the land now"),
                AppEvent::Coach { what, shown } => log::info!(
                    "the hand coach ({}) {}",
                    what.name(),
                    if shown {
                        "shows"
                    } else {
                        "went, its gesture done"
                    }
                ),
                AppEvent::Exaggerated { exaggeration } => {
                    log::info!("the land is drawn {exaggeration}× its height")
                }
                AppEvent::SaveAsked
                | AppEvent::OpenAsked(_)
                | AppEvent::ShareAsked
                | AppEvent::LeaveAsked
                | AppEvent::Sound { .. }
                | AppEvent::UndoRefused => {}
                AppEvent::Heard(voice) => log::info!("heard \"{}\"", voice.phrase()),
            }
        }
    }
}

/// The OpenXR session as the run loop's platform for one frame: it draws
/// into the session's swapchains, pins placements with spatial anchors
/// (and keeps them), pulses the hand that reseeded, plays the clicks.
struct XrPlatform<'f, 'p, B: GraphicsBinding> {
    session: &'f mut Session<B>,
    /// The frame's predicted display time.
    time: xr::Time,
    /// Whether the runtime asked for this frame to be drawn.
    drawing: bool,
    recorder: &'f Mutex<LoopRecorder>,
    speaker: &'f mut Speaker,
    progress: &'f mut (dyn FnMut(Progress) + 'p),
}

impl<B: GraphicsBinding> Platform for XrPlatform<'_, '_, B> {
    type Error = XrError;

    fn should_draw(&self) -> bool {
        self.drawing
    }

    fn draw(&mut self, scene: &FrameScene<'_>) -> Result<(), XrError> {
        self.session.draw(scene)
    }

    /// None: the swapchain images are the runtime's to show, not to read back.
    fn picture(&mut self) -> Result<Option<Picture>, XrError> {
        Ok(None)
    }

    fn placed(&mut self, placement: &Placement, cause: PlacementCause) -> Result<(), XrError> {
        let anchored = self.session.anchor(placement, Some(cause), self.time)?;
        lock(self.recorder).anchored = anchored;
        Ok(())
    }

    fn pulse(&mut self, hand: Hand) -> Result<(), XrError> {
        self.session.pulse(hand)
    }

    fn sound(&mut self, sound: Sound, at: Vec3, head: Option<Pose>) {
        self.speaker.play(sound, at, head, self.time.as_nanos());
    }

    fn shared_line(&mut self, line: String) {
        (self.progress)(Progress::Shared(line));
    }
}

/// `mutex` locked, whether or not a thread panicked holding it (the record
/// is still worth writing).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

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

/// The look for frames blended with the world by `mode`: only an opaque
/// display shows black as black; additive and alpha-blended ones see
/// through it, so they take the additive look's brightness floor (and an
/// alpha-blended one fades what is near the eyes by alpha, not to black).
fn display_for(mode: xr::EnvironmentBlendMode) -> Display {
    match mode {
        xr::EnvironmentBlendMode::OPAQUE => Display::Opaque,
        xr::EnvironmentBlendMode::ALPHA_BLEND => Display::AlphaBlend,
        _ => Display::Additive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_opaque_display_gets_the_opaque_look() {
        use xr::EnvironmentBlendMode as Mode;
        assert_eq!(display_for(Mode::OPAQUE), Display::Opaque);
        assert_eq!(display_for(Mode::ADDITIVE), Display::Additive);
        assert_eq!(display_for(Mode::ALPHA_BLEND), Display::AlphaBlend);
    }
}
